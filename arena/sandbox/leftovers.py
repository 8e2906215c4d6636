"""What a lease left behind, and removing it: the processes, seat groups and folders of one ended owner.

A lease (``arena.sandbox.lease``) names everything its owner makes with one random token:
processes started for third-party code carry ``--lease TOKEN`` on their command line (a zygote
and every seat forked from it, a discovery process and its children), seat groups are named
``arena-TOKEN-...`` beneath the folders the lease records, temporary folders ``arena-TOKEN-...``
in the temporary folder it records, and a local Ray it started is a folder (its session) whose
processes hold files in it.  ``remove`` takes all of it away in the order that works: processes
killed first (a frozen one dies once its group is thawed), groups thawed, emptied and removed,
then folders.  ``find`` only lists.  Both run wherever the owner is gone: in its janitor
(``arena.sandbox.janitor``) and in the next arena command (``arena.sandbox.lease.sweep``).
"""

from __future__ import annotations

import glob
import json
import os
import signal
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from arena.sandbox import cgroups
from arena.sandbox.removal import remove_tree

REMOVE_SECONDS = 5.0
"""How long ``remove`` keeps killing and waiting for a lease's processes and groups to go."""


@dataclass(slots=True)
class Record:
    """What a lease file says: its token and where its owner made things (plain data, one JSON object per line)."""

    token: str
    pid: int = 0  # the owner's process id when it made the lease (for people reading a listing only)
    temp: list[str] = field(default_factory=list)  # folders holding the owner's arena-TOKEN-* temporary folders
    groups: list[str] = field(default_factory=list)  # folders holding its arena-TOKEN-* seat groups
    processes: list[str] = field(default_factory=list)  # folders (glob patterns) whose holders are its processes

    @classmethod
    def read(cls, token: str, text: str) -> Record:
        """The record of lease ``token`` from its file's text; lines that are not whole JSON objects are skipped
        (an owner killed while appending one leaves a torn last line)."""
        record = cls(token)
        for line in text.splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if not isinstance(entry, dict):
                continue
            if isinstance(entry.get("pid"), int):
                record.pid = entry["pid"]
            for key in ("temp", "groups", "processes"):
                value = entry.get(key)
                if isinstance(value, str) and os.path.isabs(value) and value not in getattr(record, key):
                    getattr(record, key).append(value)
        return record

    @property
    def prefix(self) -> str:
        """The name every group and folder of the lease starts with."""
        return f"arena-{self.token}-"


@dataclass(frozen=True, slots=True)
class Found:
    """What is left of one lease."""

    processes: tuple[int, ...]  # live processes started for it
    groups: tuple[str, ...]  # seat group folders
    frozen: int  # how many of those groups are frozen
    folders: tuple[str, ...]  # temporary and session folders

    def empty(self) -> bool:
        """Whether nothing is left."""
        return not (self.processes or self.groups or self.folders)

    def describe(self) -> str:
        """One short phrase: "3 processes, 4 groups (4 frozen), 2 folders"."""
        parts = [_count(len(self.processes), "process", "processes")]
        if self.groups:
            frozen = f" ({self.frozen} frozen)" if self.frozen else ""
            parts.append(_count(len(self.groups), "group", "groups") + frozen)
        parts.append(_count(len(self.folders), "folder", "folders"))
        return ", ".join(parts)


def find(record: Record) -> Found:
    """What is left of the lease, without changing anything."""
    groups = tuple(_groups(record))
    frozen = sum(_is_frozen(group) for group in groups)
    processes = tuple(sorted(set(_marked(record.token)) | set(_holders(_process_folders(record)))))
    return Found(processes, groups, frozen, tuple(_folders(record)))


def remove(record: Record, seconds: float = REMOVE_SECONDS) -> None:
    """Kill every process of the lease and remove its groups and folders (see the module), within ``seconds``."""
    deadline = time.monotonic() + seconds
    session_folders = _process_folders(record)
    while True:
        victims = set(_marked(record.token)) | set(_holders(session_folders))
        for pid in victims:
            _kill(pid)
        for group in _groups(record):
            _empty_group(group)
            _remove_group(group)  # refused while a killed process is still on its way out: tried again
        if (not victims and not any(_groups(record))) or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    for folder in _folders(record):
        remove_tree(folder)
    for pattern in record.processes:
        _drop_dangling_links(os.path.dirname(pattern))


def _count(number: int, one: str, many: str) -> str:
    return f"{number} {one if number == 1 else many}"


def _groups(record: Record) -> Iterator[str]:
    for base in record.groups:
        try:
            names = os.listdir(base)
        except OSError:
            continue
        for name in names:
            if name.startswith(record.prefix):
                yield os.path.join(base, name)


def _is_frozen(group: str) -> bool:
    for name, frozen in (("freezer.state", "FROZEN"), ("cgroup.freeze", "1")):
        try:
            with open(os.path.join(group, name)) as file:
                return file.read().strip() == frozen
        except OSError:
            continue
    return False


def _empty_group(group: str) -> None:
    """Kill every process in the group, then thaw it (a frozen process dies only once thawed)."""
    for pid in cgroups.processes([group]):
        _kill(pid)
    folder = cgroups.freezer([group])
    if folder is not None:
        try:
            cgroups.set_frozen(folder, False, timeout=0.5)
        except OSError:
            pass


def _remove_group(group: str) -> None:
    try:
        os.rmdir(group)
    except OSError:
        pass


def _folders(record: Record) -> Iterator[str]:
    for temp in record.temp:
        yield from sorted(glob.glob(os.path.join(glob.escape(temp), record.prefix + "*")))
    yield from _process_folders(record)


def _process_folders(record: Record) -> list[str]:
    found: list[str] = []
    for pattern in record.processes:
        found += [path for path in sorted(glob.glob(pattern)) if os.path.isdir(path) and not os.path.islink(path)]
    return found


def _drop_dangling_links(folder: str) -> None:
    """Remove links in ``folder`` whose target is gone (Ray's ``session_latest`` after its session was removed)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        path = os.path.join(folder, name)
        if os.path.islink(path) and not os.path.exists(path):
            try:
                os.unlink(path)
            except OSError:
                pass


def _own_processes() -> Iterator[int]:
    """Every process of this user but this one."""
    me, uid = os.getpid(), os.getuid()
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            if os.stat(f"/proc/{name}").st_uid == uid:
                yield int(name)
        except OSError:
            continue


def _marked(token: str) -> Iterator[int]:
    """Processes whose command line carries ``--lease TOKEN``."""
    mark = b"--lease\0" + token.encode() + b"\0"
    for pid in _own_processes():
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as file:
                if mark in file.read() + b"\0":
                    yield pid
        except OSError:
            continue


def _holders(folders: Iterable[str]) -> Iterator[int]:
    """Processes with a file open, their working folder or their command line in one of ``folders``."""
    roots = [folder.rstrip("/") + "/" for folder in folders]
    if not roots:
        return
    encoded = [root.encode() for root in roots]
    for pid in _own_processes():
        if _holds(pid, roots, encoded):
            yield pid


def _holds(pid: int, roots: list[str], encoded: list[bytes]) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            command = file.read()
        if any(root.rstrip(b"/") in command for root in encoded):
            return True
        links = [os.readlink(f"/proc/{pid}/cwd")]
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            links.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except OSError:
            continue
    return any((link + "/").startswith(root) for link in links for root in roots)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
