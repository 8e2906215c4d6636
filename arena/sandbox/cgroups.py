"""Control groups for seats: find where this process may make groups, make one per seat, limit, freeze, remove.

Works on cgroup v1 (one hierarchy per controller, e.g. /sys/fs/cgroup/memory)
and v2 (one unified hierarchy).  Groups are made beneath the calling
process's own group of each hierarchy (so a limit set on the arena by its
host still applies to every seat), named ``arena-TOKEN-N-LABEL`` after the
calling process's lease (``arena.sandbox.lease``), which removes them if the
process cannot.  Only an
unconfined process with write access to the hierarchy (root, or a delegated
v2 subtree) can make groups; ``find()`` says which controllers are usable by
trying it once.
"""

from __future__ import annotations

import itertools
import os
import re
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

CONTROLLERS = ("memory", "freezer", "cpu", "pids")
"""The controllers a seat's group uses (v2 has no freezer controller: freezing is built in)."""

PERIOD_US = 100_000
"""The CPU quota period (cpu.cfs_period_us / cpu.max)."""

_counter = itertools.count(1)


@dataclass(frozen=True, slots=True)
class Hierarchy:
    """Where this process can make groups: ``version`` and, per usable controller, the parent folder."""

    version: str  # "v1", "v2" or "none"
    bases: dict[str, str]  # controller -> folder new groups go in (v2: the same folder for every controller)


def _mounts() -> list[tuple[str, str, set[str]]]:
    """(mount point, file-system type, options) of every cgroup mount."""
    found: list[tuple[str, str, set[str]]] = []
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return found
    for line in lines:
        before, _, after = line.partition(" - ")
        fields, tail = before.split(), after.split()
        if len(fields) >= 5 and len(tail) >= 3 and tail[0] in ("cgroup", "cgroup2"):
            options = set(tail[2].split(",")) | set(fields[5].split(",") if len(fields) > 5 else ())
            if fields[3] == "/":  # only a hierarchy mounted from its root maps our paths
                found.append((fields[4], tail[0], options))
    return found


def _own_paths() -> dict[str, str]:
    """This process's group per controller from /proc/self/cgroup (v2: key "")."""
    paths: dict[str, str] = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return paths
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) == 3:
            for controller in parts[1].split(",") if parts[1] else [""]:
                paths[controller] = parts[2]
    return paths


def _can_make_group(folder: str) -> bool:
    trial = os.path.join(folder, f"arena-probe-{os.getpid()}-{next(_counter)}")
    try:
        os.mkdir(trial)
    except OSError:
        return False
    try:
        os.rmdir(trial)
    except OSError:
        pass
    return True


@cache
def find() -> Hierarchy:
    """The hierarchy this process can make seat groups in (cached: probing makes and removes a group)."""
    own = _own_paths()
    v1: dict[str, str] = {}
    v2_base = None
    for mount_point, fstype, options in _mounts():
        if fstype == "cgroup2":
            v2_base = os.path.normpath(os.path.join(mount_point, own.get("", "/").lstrip("/")))
            continue
        for controller in CONTROLLERS:
            if controller in options and controller in own and controller not in v1:
                folder = os.path.normpath(os.path.join(mount_point, own[controller].lstrip("/")))
                if _can_make_group(folder):
                    v1[controller] = folder
    if v1:
        return Hierarchy("v1", v1)
    if v2_base and _can_make_group(v2_base):
        try:
            available = set(Path(v2_base, "cgroup.subtree_control").read_text().split())
        except OSError:
            available = set()
        bases: dict[str, str] = {name: v2_base for name in ("memory", "cpu", "pids") if name in available}
        bases["freezer"] = v2_base  # cgroup.freeze exists in every non-root v2 group
        return Hierarchy("v2", bases)
    return Hierarchy("none", {})


def _label(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", text)[:40]


def create(prefix: str, label: str, memory_mb: int | None, cpus: float, max_processes: int) -> list[str]:
    """Make one group per usable controller with these limits, named ``PREFIX-N-LABEL``; its folders (empty if
    none is usable)."""
    hierarchy = find()
    name = f"{prefix.rstrip('-')}-{next(_counter)}-{_label(label)}".rstrip("-")
    folders: list[str] = []
    try:
        for base in dict.fromkeys(hierarchy.bases.values()):
            folder = os.path.join(base, name)
            os.mkdir(folder)
            folders.append(folder)
        for controller, base in hierarchy.bases.items():
            _limit(hierarchy.version, controller, os.path.join(base, name), memory_mb, cpus, max_processes)
    except OSError:
        remove(folders)
        raise
    return folders


def _limit(version: str, controller: str, folder: str, memory_mb: int | None, cpus: float,
           max_processes: int) -> None:
    if controller == "memory" and memory_mb is not None:
        size = str(memory_mb << 20)
        if version == "v1":
            _write(folder, "memory.limit_in_bytes", size)
            if os.path.exists(os.path.join(folder, "memory.memsw.limit_in_bytes")):  # no escape into swap
                _write(folder, "memory.memsw.limit_in_bytes", size)
        else:
            _write(folder, "memory.max", size)
            _write(folder, "memory.swap.max", "0", missing_ok=True)
    elif controller == "cpu" and cpus > 0:
        quota = max(1000, int(cpus * PERIOD_US))
        if version == "v1":
            _write(folder, "cpu.cfs_period_us", str(PERIOD_US))
            _write(folder, "cpu.cfs_quota_us", str(quota))
        else:
            _write(folder, "cpu.max", f"{quota} {PERIOD_US}")
    elif controller == "pids":
        _write(folder, "pids.max", str(max_processes))


def _write(folder: str, name: str, value: str, missing_ok: bool = False) -> None:
    try:
        with open(os.path.join(folder, name), "w") as file:
            file.write(value)
    except FileNotFoundError:
        if not missing_ok:
            raise


def _read(folder: str, name: str) -> str | None:
    try:
        with open(os.path.join(folder, name)) as file:
            return file.read()
    except OSError:
        return None


def move(folders: list[str], pid: int) -> None:
    """Put process ``pid`` (and so every process it starts later) in every one of ``folders``."""
    for folder in folders:
        _write(folder, "cgroup.procs", str(pid))


def freezer(folders: list[str]) -> str | None:
    """The folder whose freezer freezes the group, or None."""
    for folder in folders:
        if os.path.exists(os.path.join(folder, "freezer.state")) or os.path.exists(
                os.path.join(folder, "cgroup.freeze")):
            return folder
    return None


def set_frozen(folder: str, frozen: bool, timeout: float = 5.0) -> None:
    """Freeze or thaw the group and wait until every process in it has (v1 freezing is not instant)."""
    if os.path.exists(os.path.join(folder, "freezer.state")):
        want = "FROZEN" if frozen else "THAWED"
        _write(folder, "freezer.state", want)
        deadline = time.monotonic() + timeout
        while (_read(folder, "freezer.state") or want).strip() != want and time.monotonic() < deadline:
            _write(folder, "freezer.state", want)  # FREEZING that stalls is retried, as the kernel docs advise
            time.sleep(0.0002)
        return
    _write(folder, "cgroup.freeze", "1" if frozen else "0")
    if frozen:
        deadline = time.monotonic() + timeout
        while "frozen 1" not in (_read(folder, "cgroup.events") or "frozen 1") and time.monotonic() < deadline:
            time.sleep(0.0002)


def processes(folders: list[str]) -> set[int]:
    """Every process in the group."""
    found: set[int] = set()
    for folder in folders:
        for line in (_read(folder, "cgroup.procs") or "").split():
            found.add(int(line))
    return found


def memory_report(folders: list[str]) -> dict[str, object]:
    """The group's peak memory (KiB) and whether the kernel had to stop it at its limit."""
    for folder in folders:
        peak = _read(folder, "memory.max_usage_in_bytes") or _read(folder, "memory.peak")
        if peak is None:
            continue
        events = (_read(folder, "memory.oom_control") or "") + (_read(folder, "memory.events") or "")
        kills = [int(line.split()[1]) for line in events.splitlines()
                 if line.split()[:1] in (["oom_kill"], ["oom"]) and len(line.split()) == 2]
        return {"maxrss_kb": int(peak) // 1024, "memory_exceeded": any(kills)}
    return {}


def remove(folders: list[str], timeout: float = 5.0) -> None:
    """Remove the group's folders (waiting briefly for dying processes to leave)."""
    deadline = time.monotonic() + timeout
    for folder in folders:
        while True:
            try:
                os.rmdir(folder)
                break
            except FileNotFoundError:
                break
            except OSError:
                if time.monotonic() > deadline:
                    break
                time.sleep(0.0005)
