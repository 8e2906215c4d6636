"""A process's lease on what it makes for third-party code, so that nothing it made outlives it.

A referee makes seat groups, zygotes with temporary folders, discovery processes and perhaps a
local Ray.  Its own clean-up removes them when it stops normally; this module makes sure they go
however it stops (SIGKILL, the OOM killer, a closed terminal).  On first use a process takes a
lease: a file ``TEMP/arena-leases-UID/TOKEN.lease`` that it holds locked (``flock``) for as long
as it lives, and a janitor (``arena.sandbox.janitor``), a small process of its own session that
shares the lock and waits on a pipe only the owner writes.  When the owner ends, however it ends,
the pipe closes and the janitor removes everything the lease names (``arena.sandbox.leftovers``),
deletes the lease and exits.  Should the janitor be killed too, the lock is free: the next arena
command (``sweep``) or ``arena doctor --clean`` finds the lease unlocked and removes what it names.
Ownership is proven by the lock, never by a process id that may have been reused: a lease whose
lock is held belongs to a live process and is never touched.

The lease file is JSON lines appended as the owner makes things (``Record``): appends are small
and a torn last line is skipped, so the file is never rewritten under the lock.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import secrets
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass

from arena.sandbox import leftovers
from arena.sandbox.leftovers import Found, Record

__all__ = ["Found", "Lease", "Record", "Stale", "current", "current_token", "leases_folder", "stale", "sweep"]

SUFFIX = ".lease"
"""The ending of a lease file's name (one being made ends in ``.new`` and is never swept)."""


def leases_folder() -> str:
    """This user's folder of lease files (made on first use, private)."""
    return os.path.join(tempfile.gettempdir(), f"arena-leases-{os.getuid()}")


class Lease:
    """This process's lease: its token, its lock and its janitor (see the module)."""

    def __init__(self) -> None:
        self.token = secrets.token_hex(8)
        self.owner = os.getpid()
        self._lock = threading.Lock()
        self._noted: set[tuple[str, str]] = set()
        folder = _private_folder(leases_folder())
        making = os.path.join(folder, f"{self.token}.new")
        self.path = os.path.join(folder, self.token + SUFFIX)
        self._fd = os.open(making, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC, 0o600)
        fcntl.flock(self._fd, fcntl.LOCK_EX)  # before the name a sweep looks for exists
        os.write(self._fd, _line({"pid": self.owner, "temp": tempfile.gettempdir()}))
        os.rename(making, self.path)
        self._watch = _start_janitor(self._fd)

    @property
    def prefix(self) -> str:
        """The name every group and temporary folder of this lease starts with: ``arena-TOKEN-``."""
        return f"arena-{self.token}-"

    @property
    def mark(self) -> list[str]:
        """Command-line words for a process that must die with this lease (``--lease TOKEN``)."""
        return ["--lease", self.token]

    def note(self, kind: str, folder: str) -> None:
        """Record, once, a folder where the owner makes things of ``kind``: ``"groups"`` (seat groups),
        ``"temp"`` (temporary folders) or ``"processes"`` (a glob pattern of folders whose holders die too)."""
        if kind not in ("groups", "temp", "processes"):
            raise ValueError(f"unknown kind of leased folder {kind!r}")
        with self._lock:
            if (kind, folder) in self._noted:
                return
            os.write(self._fd, _line({kind: folder}))
            self._noted.add((kind, folder))

    def temp_folder(self, kind: str) -> str:
        """A new temporary folder named for this lease (the janitor removes it if the owner cannot)."""
        temp = tempfile.gettempdir()
        self.note("temp", temp)
        return tempfile.mkdtemp(prefix=f"{self.prefix}{kind}-", dir=temp)

    def end_processes(self, folder: str) -> None:
        """Now: kill every process holding a file in ``folder`` (a stopped local Ray's leftovers) and remove it."""
        leftovers.remove(Record(self.token, processes=[folder]))


_current: Lease | None = None
_current_lock = threading.Lock()


def current() -> Lease:
    """This process's lease, taken on first use (a forked child takes its own)."""
    global _current
    with _current_lock:
        if _current is None or _current.owner != os.getpid():
            _current = Lease()
        return _current


def current_token() -> str | None:
    """This process's lease token if it has taken one (without taking one)."""
    lease = _current
    return lease.token if lease is not None and lease.owner == os.getpid() else None


@dataclass(frozen=True, slots=True)
class Stale:
    """A lease whose owner and janitor are both gone, and what is left of it."""

    token: str
    pid: int  # the owner's process id when it made the lease (the process is gone)
    found: Found


def stale() -> list[Stale]:
    """Every lease of this user whose lock is free, with what is left of it (nothing is changed)."""
    return [Stale(record.token, record.pid, leftovers.find(record)) for record, _path in _unlocked()]


def sweep() -> list[Stale]:
    """Remove what every lease whose lock is free still names, and the lease; what was left of each."""
    swept = []
    for record, path in _unlocked():
        swept.append(Stale(record.token, record.pid, leftovers.find(record)))
        leftovers.remove(record)
        _unlink(path)
    return swept


def _unlocked() -> Iterator[tuple[Record, str]]:
    """(record, path) of each of this user's leases whose lock is free, locked by this process while the caller
    handles it (so that two sweeps never handle one lease at once)."""
    folder = leases_folder()
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return
    for name in names:
        if not name.endswith(SUFFIX):
            continue
        path = os.path.join(folder, name)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as error:
                if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                    continue  # its owner or its janitor lives: never ours to touch
            yield Record.read(name[:-len(SUFFIX)], read_lease(fd)), path
        finally:
            os.close(fd)


LEASE_LIMIT = 1 << 20
"""Most of a lease file read (an owner appends a line per folder it uses: a few hundred bytes in all)."""


def read_lease(fd: int) -> str:
    """The text of the lease file open as ``fd``, from its start."""
    return os.pread(fd, LEASE_LIMIT, 0).decode(errors="replace")


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _line(entry: dict[str, object]) -> bytes:
    return (json.dumps(entry) + "\n").encode()


def _private_folder(folder: str) -> str:
    """``folder``, made private to this user if missing; ``OSError`` if it is a link or not ours alone."""
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    info = os.lstat(folder)
    if not os.path.isdir(folder) or os.path.islink(folder) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise OSError(errno.EPERM, f"{folder} is not a private folder of this user; remove it")
    return folder


JANITOR = "import os, sys\nif os.fork():\n    os._exit(0)\nfrom arena.sandbox.janitor import main\nsys.exit(main())"
"""The janitor's start: it forks at once and the first process exits, so that the janitor is nobody's child
(a Ray worker kills its children when it exits: the janitor must outlive its owner)."""


def _start_janitor(lock_fd: int) -> int:
    """Start the janitor with the lock and the read end of a pipe; the write end, kept for life."""
    read, write = os.pipe()
    path = [entry or os.getcwd() for entry in sys.path]
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": os.pathsep.join(path)}
    try:
        starter = subprocess.Popen([sys.executable, "-c", JANITOR, "--lock", str(lock_fd), "--watch", str(read)],
                                   pass_fds=[lock_fd, read], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, env=env, start_new_session=True, cwd="/")
        starter.wait()  # the interpreter's start, then the fork: milliseconds
    finally:
        os.close(read)
    return write
