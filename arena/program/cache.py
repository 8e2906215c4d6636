"""The build cache: what is in it, and keeping it bounded (``arena doctor`` lists and cleans it).

Each build is a folder ``<name>-<key>`` in ``arena.program.build.cache_root()`` (beside it a ``.lock`` file, and
while a build is under way a ``.partial`` folder).  A build's folder is touched each time a referee takes it, so
its modification time says when it was last used.  After every new build, ``prune`` removes the least recently
used builds until the cache holds at most ``CACHE_BYTES_MAX`` -- never one used in the last ``IN_USE_SECONDS``
(a running tournament may be seating it) -- and what killed builds left (``.partial`` folders older than the
longest build) and failed builds' logs older than a day.  ``arena doctor --clean`` also removes every build but
the newest of each agent, and every log.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

CACHE_BYTES_MAX = 8 << 30
"""Most bytes the build cache keeps (builds in use excepted)."""

IN_USE_SECONDS = 600.0
"""A build used this recently is never removed (a tournament seats its programs again and again)."""

PARTIAL_SECONDS = 3600.0 + 60
"""A ``.partial`` folder older than this belongs to a build that was killed (the longest build takes an hour)."""

LOG_SECONDS = 86400.0
"""A failed build's log (``<name>-<key>.log``, for its author to read) is kept this long."""

ENTRY = re.compile(r"^(?P<name>.+)-(?P<key>[0-9a-f]{24})$")
"""The name of one build's folder: the agent's name, then the content hash."""


@dataclass(frozen=True, slots=True)
class Build:
    """One cached build."""

    path: Path  # its folder
    name: str  # the agent's name
    size: int  # bytes of its files
    used: float  # when a referee last took it (seconds since the epoch)


def touch(folder: Path) -> None:
    """Note that ``folder`` (a build) is being used now."""
    try:
        os.utime(folder)
    except OSError:
        pass


def builds(root: Path) -> list[Build]:
    """Every build in the cache folder ``root``, least recently used first."""
    found = []
    try:
        names = os.listdir(root)
    except OSError:
        return []
    for name in names:
        match = ENTRY.match(name)
        path = root / name
        if match is None or path.is_symlink() or not path.is_dir():
            continue
        try:
            used = path.stat().st_mtime
        except OSError:
            continue
        found.append(Build(path, match.group("name"), _size(path), used))
    return sorted(found, key=lambda build: (build.used, build.path.name))


def prune(root: Path, bound: int | None = None, now: float | None = None) -> list[Build]:
    """Remove the least recently used builds until the cache holds at most ``bound`` bytes (default
    ``CACHE_BYTES_MAX``), sparing those used in the last ``IN_USE_SECONDS``; and killed builds' leftovers.
    What was removed."""
    bound = CACHE_BYTES_MAX if bound is None else bound
    now = time.time() if now is None else now
    _remove_partials(root, now)
    found = builds(root)
    total = sum(build.size for build in found)
    removed = []
    for build in found:
        if total <= bound:
            break
        if now - build.used < IN_USE_SECONDS:
            continue
        _remove(build)
        total -= build.size
        removed.append(build)
    return removed


def superseded(found: Iterable[Build]) -> list[Build]:
    """Every build but the most recently used of each agent name."""
    newest: dict[str, Build] = {}
    for build in found:
        if build.name not in newest or build.used >= newest[build.name].used:
            newest[build.name] = build
    return [build for build in found if newest[build.name] is not build]


def clean(root: Path, now: float | None = None) -> list[Build]:
    """``arena doctor --clean``: remove superseded builds (not used in the last ``IN_USE_SECONDS``) and killed
    builds' leftovers; what was removed."""
    now = time.time() if now is None else now
    _remove_partials(root, now, log_seconds=0)
    removed = [build for build in superseded(builds(root)) if now - build.used >= IN_USE_SECONDS]
    for build in removed:
        _remove(build)
    return removed


def _remove(build: Build) -> None:
    # Renamed first, so that a referee never takes a half-removed folder for a build.
    doomed = build.path.with_name(build.path.name + f".{os.getpid()}.partial")
    try:
        os.rename(build.path, doomed)
    except OSError:
        return
    shutil.rmtree(doomed, ignore_errors=True)
    try:
        os.unlink(build.path.with_name(build.path.name + ".lock"))
    except OSError:
        pass


def _remove_partials(root: Path, now: float, log_seconds: float = LOG_SECONDS) -> None:
    """Remove killed builds' ``.partial`` folders and failed builds' logs older than ``log_seconds``."""
    try:
        names = os.listdir(root)
    except OSError:
        return
    for name in names:
        path = root / name
        try:
            if path.is_symlink():
                continue
            age = now - path.stat().st_mtime
            if name.endswith(".partial") and age > PARTIAL_SECONDS:
                shutil.rmtree(path, ignore_errors=True)
            elif name.endswith(".log") and ENTRY.match(name[:-4]) and age >= log_seconds:
                path.unlink()
        except OSError:
            continue


def _size(folder: Path) -> int:
    total = 0
    for base, _dirs, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(base, name)).st_blocks * 512
            except OSError:
                continue
    return total
