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
import socket
import time
from collections.abc import Callable
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


def self_move_files(folders: list[str]) -> list[int] | None:
    """Each group's v1 ``tasks`` file, opened for writing by this process (None where the groups are not v1).

    A process that writes ``0`` there moves itself alone.  The kernel then skips the lock that a move of
    another process takes (a move made on its own, as a seat's is, waited about 5 ms for an RCU grace period
    on the machine of docs/performance.md; the self-move took 42 µs).  The permission is that of whoever
    opened the file, so these descriptors, sent to a seat's init, let it join exactly these groups.
    """
    if find().version != "v1":
        return None
    opened: list[int] = []
    try:
        for folder in folders:
            opened.append(os.open(os.path.join(folder, "tasks"), os.O_WRONLY | os.O_CLOEXEC))
    except OSError:
        for fd in opened:
            os.close(fd)
        return None
    return opened


JOIN_MESSAGE = b"J"
"""The one byte ``join`` sends on a seat's placement socket, with the groups' files (if any) its init joins."""

def join(folders: list[str], pid: int, channel: socket.socket | None) -> bool:
    """Put a seat's init in ``folders``: by moving it from here, or (``channel``, v1) by sending it the groups'
    ``tasks`` files to move itself once started; whether it was left to move itself.

    The init reads exactly one message from ``channel`` when it starts, so one is sent even when it carries
    no files.  ``OSError`` if the move or the message fails.
    """
    files = self_move_files(folders) if channel is not None else None
    if files is None:
        move(folders, pid)
    try:
        if channel is not None:
            socket.send_fds(channel, [JOIN_MESSAGE], files or [])
    finally:
        for fd in files or []:
            os.close(fd)
    return files is not None and bool(folders)


def holds(folders: list[str], pid: int) -> bool:
    """Whether process ``pid`` is in every one of ``folders``."""
    return all(str(pid) in (_read(folder, "cgroup.procs") or "").split() for folder in folders)


def freezer(folders: list[str]) -> str | None:
    """The folder whose freezer freezes the group, or None."""
    for folder in folders:
        if os.path.exists(os.path.join(folder, "freezer.state")) or os.path.exists(
                os.path.join(folder, "cgroup.freeze")):
            return folder
    return None


def set_frozen(folder: str, frozen: bool, timeout: float = 5.0) -> None:
    """Freeze or thaw the group and wait until every process in it has (v1 freezing is not instant)."""
    freezer = Freezer(folder)
    try:
        freezer.set(frozen, timeout)
    finally:
        freezer.close()


SPIN_SECONDS = 0.002
"""How long ``Freezer.set`` polls without sleeping: freezing a seat asleep in its read takes tens of microseconds,
and a sleep costs far more than that (the timer's slack, then a wait for a core)."""


class Freezer:
    """A group's freezer with its files kept open, so that freezing or thawing a seat is one write (and, to
    freeze, a few reads until every process has stopped) instead of finding, opening and closing files each time.
    """

    def __init__(self, folder: str) -> None:
        self.folder = folder
        state = os.path.join(folder, "freezer.state")
        self._events: int | None = None
        if os.path.exists(state):  # v1: one file, written with the state wanted and read for the state reached
            self._control = os.open(state, os.O_RDWR | os.O_CLOEXEC)
        else:  # v2: written to cgroup.freeze, the state reached read from cgroup.events
            self._control = os.open(os.path.join(folder, "cgroup.freeze"), os.O_WRONLY | os.O_CLOEXEC)
            try:
                self._events = os.open(os.path.join(folder, "cgroup.events"), os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                os.close(self._control)
                raise

    def set(self, frozen: bool, timeout: float = 5.0) -> None:
        """Freeze or thaw every process of the group; a freeze returns once none of them runs (or at ``timeout``)."""
        if self._events is None:
            want = b"FROZEN" if frozen else b"THAWED"
            os.pwrite(self._control, want, 0)
            if frozen:
                self._wait(lambda: os.pread(self._control, 16, 0).startswith(want), want, timeout)
            return
        os.pwrite(self._control, b"1" if frozen else b"0", 0)
        if frozen:
            events = self._events
            self._wait(lambda: b"frozen 1" in os.pread(events, 4096, 0), None, timeout)

    def _wait(self, done: Callable[[], bool], again: bytes | None, timeout: float) -> None:
        started = time.monotonic()
        while not done():
            elapsed = time.monotonic() - started
            if elapsed > timeout:
                return
            if elapsed < SPIN_SECONDS:
                os.sched_yield()  # a core for the processes being frozen, should they share ours
                continue
            if again is not None:
                os.pwrite(self._control, again, 0)  # v1 FREEZING that stalls is retried, as the kernel docs advise
            time.sleep(0.0002)

    def close(self) -> None:
        """Close the group's files (the group itself is left as it is)."""
        for fd in (self._control, self._events):
            if fd is not None and fd >= 0:
                os.close(fd)
        self._control, self._events = -1, None


def hold_freezing(prefix: str) -> str | None:
    """Make an empty group, frozen for good, named ``PREFIX-N-freezing``; its folder (None where there is no v1
    freezer, or it cannot be made).  Remove it with ``remove([folder])`` after thawing it.

    The v1 freezer turns a kernel-wide switch on when the first group freezes and off when the last one thaws,
    and each turn patches the kernel's code on every core: about 75 µs a write where one seat at a time is
    frozen (one sandboxed seat among in-process ones), against about 2 µs while some other group stays frozen.
    An empty group holding the switch on freezes nothing.
    """
    base = find().bases.get("freezer")
    if base is None or find().version != "v1":
        return None
    folder = os.path.join(base, f"{prefix.rstrip('-')}-{next(_counter)}-freezing")
    try:
        os.mkdir(folder)
    except OSError:
        return None
    try:
        _write(folder, "freezer.state", "FROZEN")
    except OSError:
        remove([folder])
        return None
    return folder


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
