"""``Policy``: what one sandbox may do; ``default_read_paths``: what any Python plugin needs to read."""

from __future__ import annotations

import importlib.util
import math
import os
import resource
import site
import sys
import sysconfig
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

MAX_PROCESSES = 64
"""Default bound on the processes (and threads, under the cgroup pids controller) of one seat."""

MAX_OPEN_FILES = 1024
"""Bound on the files one agent process may hold open (soft and hard).  The kernel's file table is shared by
the whole host and not charged to a seat's memory group: without a bound, one seat of 64 processes held 1.26
million files (half the table) for 312 MiB, and two would make every open of every other seat fail."""

SYSTEM_READ_PATHS = ("/usr/lib", "/usr/lib64", "/lib", "/lib64", "/usr/local/lib", "/etc/ld.so.cache",
                     "/etc/localtime", "/usr/share/zoneinfo")
"""System libraries an extension module may load, and the time zone files; nothing per user."""

LEADERBOARDS = "leaderboards"
"""The default leaderboards folder (relative to the working directory), never readable."""

OWN_PACKAGES = ("arena", "arena_agents")
"""Packages whose source folders any plugin needs (found wherever they are installed, editable included)."""


@dataclass(frozen=True, slots=True)
class Policy:
    """What one sandbox may do; JSON-able (to_json / from_json)."""

    read_paths: tuple[str, ...]  # files/folders it may read and execute
    memory_mb: int | None  # bound for the whole process tree
    cpus: float = 1.0  # cores while it runs, where cgroups allow
    label: str = ""  # for messages and group names
    max_processes: int = MAX_PROCESSES  # processes of the tree (cgroup pids; else RLIMIT_NPROC, see the package)
    # Whether it may run files it wrote in its temporary folder: a build runs its own scripts and build
    # programs (it runs any code through an interpreter anyway); a seat never needs to.
    run_own_files: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.read_paths, (str, bytes)) or not all(isinstance(p, str) for p in self.read_paths):
            raise ValueError("policy read_paths must be a sequence of path strings")
        object.__setattr__(self, "read_paths", tuple(self.read_paths))
        memory = self.memory_mb
        if memory is not None and (isinstance(memory, bool) or not isinstance(memory, int) or not 0 < memory < 1 << 40):
            raise ValueError(f"policy memory_mb must be a whole number of megabytes > 0 (or None), not {memory!r}")
        cpus = self.cpus
        if isinstance(cpus, bool) or not isinstance(cpus, (int, float)) or not (0 < cpus <= 4096) or math.isnan(cpus):
            raise ValueError(f"policy cpus must be a number of cores > 0, not {cpus!r}")
        count = self.max_processes
        if isinstance(count, bool) or not isinstance(count, int) or not 2 <= count <= 1 << 20:
            raise ValueError(f"policy max_processes must be a whole number >= 2, not {count!r}")
        if not isinstance(self.run_own_files, bool):
            raise ValueError(f"policy run_own_files must be true or false, not {self.run_own_files!r}")

    def to_json(self) -> dict[str, Any]:
        """The policy as plain JSON data."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["read_paths"] = list(self.read_paths)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Policy:
        """The policy ``to_json`` wrote; unknown keys are an error."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown policy field {unknown[0]!r} (known: {', '.join(sorted(known))})")
        return cls(**{**data, "read_paths": tuple(data.get("read_paths", ()))})


def _package_folders(name: str) -> Iterator[str]:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return
    if spec is None:
        return
    yield from spec.submodule_search_locations or ()
    if spec.origin and spec.origin not in ("built-in", "frozen"):
        yield os.path.dirname(spec.origin)


def _site_dirs() -> list[str]:
    dirs = list(site.getsitepackages()) + [sysconfig.get_paths()[key] for key in ("purelib", "platlib")]
    if site.ENABLE_USER_SITE:
        dirs.append(site.getusersitepackages())
    return dirs


def _pth_folders(site_dir: str) -> Iterator[str]:
    """Folders that .pth files and setuptools' editable finders in ``site_dir`` add to the import path."""
    try:
        names = sorted(os.listdir(site_dir))
    except OSError:
        return
    for name in names:
        path = os.path.join(site_dir, name)
        if name.endswith(".pth"):
            try:
                lines = Path(path).read_text(errors="replace").splitlines()
            except OSError:
                continue
            for line in lines:
                line = line.strip()
                if line and not line.startswith(("#", "import ", "import\t")):
                    yield os.path.join(site_dir, line)
        elif name.startswith("__editable__") and name.endswith("_finder.py"):
            module = sys.modules.get(name[:-3])
            mapping = getattr(module, "MAPPING", None)
            if isinstance(mapping, dict):
                yield from (str(folder) for folder in mapping.values())
            for folder in getattr(module, "NAMESPACES", {}).values() if module else ():
                yield from (str(item) for item in folder)


def _holds(folder: str, path: str) -> bool:
    """Whether ``path`` is ``folder`` or inside it."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def default_read_paths(*extra: str, workdir: str | None = None) -> tuple[str, ...]:
    """What any Python plugin needs to import, plus ``extra`` (e.g. the plugin's own folder).

    The interpreter, the standard library, site-packages (and the folders
    their .pth files and editable-install finders point to), the sources of
    arena and arena_agents wherever they are installed, and the system
    libraries an extension module may load.  Never the working directory or a
    folder holding it (so neither the leaderboards folder nor a store under
    it): such an entry is dropped, ``extra`` included.  ``workdir`` is the
    user's working directory (default this process's): a zygote runs in ``/``,
    so it is told the referee's.
    """
    # The interpreter's own file as found at start-up too: in a confined process, a virtual environment's link
    # to it may lie in a hidden folder (/tmp), where it no longer resolves.
    candidates = [sys.executable, os.path.realpath(sys.executable), getattr(sys, "_base_executable", sys.executable)]
    paths = sysconfig.get_paths()
    candidates += [paths["stdlib"], paths["platstdlib"]]
    for site_dir in _site_dirs():
        candidates.append(site_dir)
        candidates.extend(_pth_folders(site_dir))
    for name in OWN_PACKAGES:
        candidates.extend(_package_folders(name))
    candidates.extend(SYSTEM_READ_PATHS)
    candidates.extend(extra)
    cwd = os.path.realpath(workdir or os.getcwd())
    boards = os.path.join(cwd, LEADERBOARDS)
    chosen: dict[str, None] = {}
    for candidate in candidates:
        path = os.path.realpath(candidate)
        if not os.path.exists(path) or _holds(path, cwd) or _holds(boards, path):
            continue
        chosen.setdefault(path)
    return tuple(chosen)


def limit_open_files() -> None:
    """Bound this process and what it starts to ``MAX_OPEN_FILES`` open files (a lower bound already set stays)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    bound = MAX_OPEN_FILES if hard == resource.RLIM_INFINITY else min(hard, MAX_OPEN_FILES)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(soft, bound), bound))
