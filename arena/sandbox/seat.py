"""One seat's sandbox: ``spawn_seat`` (in the zygote), ``place`` (in the referee), ``freeze``/``thaw``, ``reap``.

The seat is a process tree under an init of our own (``arena.sandbox.seat_init``): process 1 of
a fresh PID namespace, forked from the confined zygote.  The init forks the
agent process, which confines itself further (a nested Landlock domain that
writes only the seat's temporary folder, no capabilities, rlimits) and calls
``run()``.  The init then only waits: it reaps every process that ends up its
child (orphans, a setsid double-fork's grandchild), stops or resumes every
process of the namespace on request (``kill(-1, ...)``), and when the agent
process ends it kills the rest and exits with the agent's status.  When the
init dies, for any reason, the kernel kills every process in its namespace.
"""

from __future__ import annotations

import atexit
import os
import select
import signal
import socket
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from arena.sandbox import cgroups, confinement, kernel, lease, process
from arena.sandbox.capabilities import LEVELS, SandboxError
from arena.sandbox.policy import Policy
from arena.sandbox.removal import remove_tree
from arena.sandbox.seat_init import (
    FREEZE,
    FROZEN_BYTE,
    FROZEN_NAME,
    SIGNALS,
    START,
    THAW,
    THAWED_BYTE,
    THAWED_NAME,
    run_init,
)

ACKNOWLEDGE_SECONDS = 5.0
"""Longest wait for the init to confirm a freeze or thaw."""


@dataclass(frozen=True, slots=True)
class SeatBox:
    """One seat's sandbox, as plain JSON-able data so that the zygote can hand it to the referee."""

    pid: int  # host-visible pid of the seat's top process (its PID namespace's init)
    group: str | None  # cgroup folders (os.pathsep-separated; for freeze/thaw/limits), or None
    temp_dir: str  # the seat's private writable folder (TMPDIR), removed by reap
    level: str  # "full", "partial" or "none"

    def to_json(self) -> dict[str, Any]:
        """The box as plain JSON data."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SeatBox:
        """The box ``to_json`` wrote; ``ValueError`` for anything else."""
        pid, group, temp_dir, level = (data.get(name) for name in ("pid", "group", "temp_dir", "level"))
        if isinstance(pid, bool) or not isinstance(pid, int) or pid <= 0:
            raise ValueError(f"seat box pid must be a positive integer, not {pid!r}")
        if group is not None and not isinstance(group, str):
            raise ValueError(f"seat box group must be a string or null, not {group!r}")
        if not isinstance(temp_dir, str) or not os.path.isabs(temp_dir):
            raise ValueError(f"seat box temp_dir must be an absolute path, not {temp_dir!r}")
        if level not in LEVELS:
            raise ValueError(f"seat box level must be one of {', '.join(LEVELS)}, not {level!r}")
        return cls(pid=pid, group=group, temp_dir=temp_dir, level=level)


@dataclass(slots=True)
class _Spawned:
    """A seat this process forked (it alone can wait for it)."""

    temp_dir: str
    pidfd: int | None = None


@dataclass(slots=True)
class _Placed:
    """A seat this process placed in its groups (it alone may change or remove them)."""

    pidfd: int
    folders: list[str] = field(default_factory=list)
    temp_dir: str = ""
    freezer: cgroups.Freezer | None = None  # the group's freezer, kept open (None: the init stops the seat)
    acknowledgements: int | None = None  # the read end of the init's acknowledgement pipe (no freezer only)
    name: int | None = None  # the init's /proc/PID/comm, kept open beside the pipe: read again with pread
    frozen: bool = False  # as last set here: a freeze or thaw that changes nothing is not written again
    thaw_unanswered: bool = False  # a thaw was sent and its acknowledgement not yet read (no freezer only)
    joining: bool = False  # the init was sent its groups to move itself into; not yet seen there (``confirm``)


_spawned: dict[int, _Spawned] = {}
_placed: dict[int, _Placed] = {}


def spawn_seat(run: Callable[[], int], policy: Policy, keep_fds: Sequence[int], *,
               await_placement: bool = False, acknowledge: int | None = None,
               placement: int | None = None) -> SeatBox:
    """Fork one seat of one match from the confined zygote; the child runs ``run()`` and exits with its status.

    Its own PID, IPC and UTS namespaces (every process it starts, a setsid
    double-fork included, dies when the box is reaped), inside the zygote's
    network namespace, whose loopback is down for good (or a network namespace
    of its own where Landlock cannot scope abstract unix sockets); a nested
    Landlock domain that writes only a fresh private temporary folder (also
    its working directory and TMPDIR); no capabilities; memory bounded per
    process (``RLIMIT_AS``: this process's size plus ``policy.memory_mb``) and,
    once placed, for the whole tree by the group; every fd closed but
    ``keep_fds`` and stdio (stdio -> /dev/null).  With ``await_placement`` the
    agent process starts only when the referee's ``place`` says so (it must
    then be called).  ``run()`` should return a status below 128.  ``acknowledge``
    is the write end of a pipe whose read end the referee gives ``place``:
    the init alone keeps it (the agent process closes it before any agent
    code runs) and writes a byte there after each freeze or thaw.  ``placement``
    (one of ``keep_fds``, a unix socket) is where the init, once started, reads
    the message of ``place``'s ``channel``: the groups it then moves itself into.
    """
    state = confinement.current
    if state is None:
        raise SandboxError("spawn_seat needs a confined process: call confine() first")
    if not confinement.single_threaded():
        raise SandboxError("spawn_seat needs a single-threaded zygote (a thread would be copied half-way); "
                           "something in this process started a thread")
    keep = sorted({int(fd) for fd in keep_fds} - {0, 1, 2})
    ack = None if acknowledge is None else int(acknowledge)
    if ack is not None and ack not in keep:
        keep = sorted([*keep, ack])
    temp_dir = tempfile.mkdtemp(prefix="seat-", dir=state.temp_root)
    size_kb = process.address_space_kb()
    flags = kernel.CLONE_NEWPID | kernel.CLONE_NEWIPC | kernel.CLONE_NEWUTS if state.namespaces else 0
    if flags and state.landlock_abi < 6:  # abstract unix sockets are per network namespace: without
        flags |= kernel.CLONE_NEWNET  # Landlock's scoping a namespace per seat keeps them apart (costs ~1 ms)
    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    try:
        pid = kernel.clone(flags) if flags else os.fork()
    except OSError as error:
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
        remove_tree(temp_dir)
        raise SandboxError(f"cannot start seat {policy.label or '?'}: {error}") from None
    if pid == 0:
        status = 127
        try:
            status = run_init(run, policy, keep, temp_dir, old_mask, await_placement, size_kb, state, ack,
                              placement if placement in keep else None)
        finally:
            os._exit(status)
    signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
    _spawned[pid] = _Spawned(temp_dir)
    return SeatBox(pid=pid, group=None, temp_dir=temp_dir, level=state.level)


def place(box: SeatBox, policy: Policy, *, parent: int, temp_root: str,
          acknowledgements: int | None = None, channel: socket.socket | None = None) -> SeatBox:
    """From the referee: put a seat spawned with ``await_placement`` in its groups, then let it start.

    ``parent`` is the zygote's pid and ``temp_root`` the folder given to its
    ``confine``: the box comes from a process that ran plugin code, so it is
    checked (a child of ``parent``, init of its own PID namespace, its folder
    directly inside ``temp_root``) and only what this call verified is ever
    signalled, frozen or removed here.  Makes the seat's groups where this
    process may (memory for the whole tree, ``cpus`` cores, ``max_processes``)
    and returns the box with ``group`` set.  ``acknowledgements`` is the read
    end of the pipe given to ``spawn_seat`` as ``acknowledge`` (this call takes
    it: closed by ``reap``, or here when the group's freezer makes it useless).
    ``channel`` is this process's end of the socket given to ``spawn_seat`` as
    ``placement``: with cgroup v1 the init then moves itself into its groups
    (``cgroups.self_move_files``: 5 ms less a seat), which ``confirm`` checks
    before the seat's first freeze.
    """
    try:
        pidfd = os.pidfd_open(box.pid)
    except OSError as error:
        if acknowledgements is not None:
            os.close(acknowledgements)
        raise SandboxError(f"seat process {box.pid} is gone: {error}") from None
    try:
        _verify(box, parent, temp_root, pidfd)
        folders = _make_groups(policy)
        try:
            joining = cgroups.join(folders, box.pid, channel)
            signal.pidfd_send_signal(pidfd, START)
        except OSError as error:
            cgroups.remove(folders)
            raise SandboxError(f"cannot place seat process {box.pid} in its groups: {error}") from None
    except BaseException:
        os.close(pidfd)
        if acknowledgements is not None:
            os.close(acknowledgements)
        raise
    frozen_by = cgroups.freezer(folders)
    try:
        freezer = cgroups.Freezer(frozen_by) if frozen_by else None
    except OSError:
        freezer = None
    if acknowledgements is not None and freezer is not None:
        os.close(acknowledgements)
        acknowledgements = None
    name = None
    if acknowledgements is not None:
        try:
            name = os.open(f"/proc/{box.pid}/comm", os.O_RDONLY | os.O_CLOEXEC)  # verified above, pidfd held
        except OSError:
            os.close(acknowledgements)
            acknowledgements = None
    _placed[box.pid] = _Placed(pidfd, folders, os.path.realpath(box.temp_dir), freezer, acknowledgements, name,
                               joining=joining)
    level = box.level
    if box.level == "full" and not (freezer and "memory" in cgroups.find().bases):
        level = "partial"
    return SeatBox(pid=box.pid, group=os.pathsep.join(folders) or None, temp_dir=box.temp_dir, level=level)


def confirm(box: SeatBox) -> None:
    """From the referee, once the seat's agent has answered: check that an init left to join its groups did.

    The agent process is forked only after the init's move, so by its first answer the move is done; a seat
    outside its groups would be neither limited nor frozen.  ``SandboxError`` if it is not in every one.
    """
    placed = _placed.get(box.pid)
    if placed is None or not placed.joining:
        return
    if not cgroups.holds(placed.folders, box.pid):
        raise SandboxError(f"seat process {box.pid} did not join its groups")
    placed.joining = False


def _make_groups(policy: Policy) -> list[str]:
    """The seat's groups, named after this process's lease (which removes them should this process die)."""
    bases = cgroups.find().bases
    if not bases:
        return []
    owner = lease.current()
    for base in dict.fromkeys(bases.values()):
        owner.note("groups", base)
    _hold_freezing(owner.prefix)
    return cgroups.create(owner.prefix, policy.label, policy.memory_mb, policy.cpus, policy.max_processes)


_holding: dict[int, str | None] = {}  # per process that placed seats: its group of cgroups.hold_freezing


def _hold_freezing(prefix: str) -> None:
    """Once per process, before its first seat: keep the v1 freezer's switch on (``cgroups.hold_freezing``),
    so that freezing and thawing its seats costs a write each.  Thawed and removed at exit; if this process
    dies first, its lease's janitor removes it with the seats' groups (same prefix)."""
    if os.getpid() in _holding:
        return
    folder = _holding[os.getpid()] = cgroups.hold_freezing(prefix)
    if folder is not None:
        atexit.register(_release_freezing, os.getpid(), folder)


def _release_freezing(owner: int, folder: str) -> None:
    if os.getpid() != owner:  # a forked copy of the process that made it: not ours to remove
        return
    try:
        cgroups.set_frozen(folder, False, timeout=0.5)
    except OSError:
        pass
    cgroups.remove([folder], timeout=0.5)


def _verify(box: SeatBox, parent: int, temp_root: str, pidfd: int) -> None:
    try:
        with open(f"/proc/{box.pid}/status") as file:
            status = dict(line.split(":", 1) for line in file.read().splitlines() if ":" in line)
    except OSError as error:
        raise SandboxError(f"seat process {box.pid} is gone: {error}") from None
    if int(status.get("PPid", "0")) != parent:
        raise SandboxError(f"process {box.pid} is not a seat of zygote {parent}")
    if box.level != "none" and status.get("NSpid", "").split()[-1:] != ["1"]:
        raise SandboxError(f"process {box.pid} is not the init of its own PID namespace")
    if select.select([pidfd], [], [], 0)[0]:
        raise SandboxError(f"seat process {box.pid} ended while being placed")
    folder = os.path.realpath(box.temp_dir)
    # Where the zygote's temp_root is its own memory-backed folder (confinement._bounded_temp), the seat's
    # folder is not visible here at all: removing that path later is then a no-op, never a stray removal.
    if os.path.dirname(folder) != os.path.realpath(temp_root) or os.path.islink(box.temp_dir) \
            or (os.path.lexists(folder) and not os.path.isdir(folder)):
        raise SandboxError(f"seat folder {box.temp_dir} is not a folder directly inside {temp_root}")


def _pidfd(box: SeatBox) -> int:
    """A pidfd for the seat's init, from whoever may signal it here (its placer or its parent)."""
    if box.pid in _placed:
        return _placed[box.pid].pidfd
    spawned = _spawned.get(box.pid)
    if spawned is None:
        raise SandboxError(f"seat process {box.pid} was neither spawned nor placed by this process")
    if spawned.pidfd is None:
        spawned.pidfd = os.pidfd_open(box.pid)  # safe: our child, not yet waited for
    return spawned.pidfd


def freeze(box: SeatBox) -> None:
    """Stop every process of the seat; on return none of them runs (the cgroup freezer, else SIGSTOP)."""
    _set_frozen(box, True)


def thaw(box: SeatBox) -> None:
    """Resume every process of the seat.

    Without a cgroup freezer, a seat this process placed is resumed by its init just after this returns: a
    request sent at once waits in the seat's socket until the agent runs, so nothing waits for the init's
    answer here (the next ``freeze`` reads it before its own).
    """
    _set_frozen(box, False)


def _set_frozen(box: SeatBox, frozen: bool) -> None:
    placed = _placed.get(box.pid)
    if placed is not None and placed.freezer is not None:
        if placed.frozen != frozen:
            placed.freezer.set(frozen)
            placed.frozen = frozen
        return
    pidfd = _pidfd(box)
    answering = placed if placed is not None and placed.acknowledgements is not None else None
    if frozen and answering is not None and answering.thaw_unanswered:
        # The init takes pending real-time signals lowest first, FREEZE before THAW: a freeze sent while the
        # last thaw is still pending would be undone by it. The thaw's answer is almost always in the pipe
        # by now (the agent could not reply before the init resumed it), so this is a read, not a wait.
        answering.thaw_unanswered = False
        _acknowledged(answering, THAWED_BYTE, pidfd, time.monotonic())
    try:
        signal.pidfd_send_signal(pidfd, FREEZE if frozen else THAW)
    except ProcessLookupError:
        return  # already ended
    if not frozen and answering is not None:
        answering.thaw_unanswered = True  # read by the next freeze: a round trip to the init saved a turn
        return
    want = (FROZEN_NAME if frozen else THAWED_NAME).encode()
    path = f"/proc/{box.pid}/comm"
    started = time.monotonic()
    if placed is not None and placed.acknowledgements is not None:
        if _acknowledged(placed, FROZEN_BYTE if frozen else THAWED_BYTE, pidfd, started) and _named(placed, want):
            return
    while (elapsed := time.monotonic() - started) < ACKNOWLEDGE_SECONDS:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            try:
                if os.read(fd, 64).strip() == want:
                    return
            finally:
                os.close(fd)
        except OSError:
            return  # the init ended (or is not ours to read): nothing left running
        if elapsed < cgroups.SPIN_SECONDS:  # the init answers within tens of microseconds: a sleep costs more
            os.sched_yield()
        elif select.select([pidfd], [], [], 0.0002)[0]:
            return


def _acknowledged(placed: _Placed, byte: bytes, pidfd: int, started: float) -> bool:
    """Sleep on the init's pipe until it says ``byte``; False if the pipe or the init ended, or on time-out.

    Only a wake-up: the caller confirms with the init's name, which only the init can set (its zygote holds no
    copy of the pipe, but the name is the proof either way).
    """
    fd = placed.acknowledgements
    assert fd is not None
    while (left := ACKNOWLEDGE_SECONDS - (time.monotonic() - started)) > 0:
        ready = select.select([fd, pidfd], [], [], left)[0]
        if fd not in ready:
            return False  # the init ended (its pidfd is readable) or the time is up
        try:
            data = os.read(fd, 64)
        except BlockingIOError:
            continue
        if not data:  # no init writes there (a zygote that passed no pipe on): poll the name from now on
            os.close(fd)
            placed.acknowledgements = None
            if placed.name is not None:
                os.close(placed.name)
                placed.name = None
            return False
        if data.endswith(byte):  # an earlier request's late answer comes first
            return True
    return False


def _named(placed: _Placed, want: bytes) -> bool:
    """Whether the init now bears the name ``want`` (read at offset 0, the file shows the name of now)."""
    assert placed.name is not None
    try:
        return os.pread(placed.name, 64, 0).strip() == want
    except OSError:
        return False


def reap(box: SeatBox) -> dict[str, Any]:
    """Kill the whole tree, wait, remove what this process may: temp_dir, the groups.

    In the seat's parent (the zygote): ``{"exit": n}`` or ``{"signal": n}``
    (the agent process's; 9 when reap killed it) and ``maxrss_kb`` (the
    largest process's peak).  In the process that placed it (the referee):
    ``maxrss_kb`` is the group's peak for the whole tree and
    ``memory_exceeded`` whether the kernel had to stop it at its limit; the
    exit status is ``{"exit": None}`` there.  Call it in both, the referee
    first: a seat frozen in its cgroup dies only once the referee thaws it
    (the zygote's call then raises ``SandboxError`` after a few seconds).
    """
    spawned, placed = _spawned.pop(box.pid, None), _placed.pop(box.pid, None)
    if spawned is None and placed is None:
        raise SandboxError(f"seat process {box.pid} was neither spawned nor placed by this process")
    result: dict[str, Any] = {"maxrss_kb": None, "memory_exceeded": False}
    if placed is not None:
        _kill_placed(placed)
    if spawned is not None:
        try:
            os.kill(box.pid, signal.SIGKILL)  # our unwaited child: the pid cannot have been reused
        except ProcessLookupError:
            pass
        pidfd = spawned.pidfd if spawned.pidfd is not None else os.pidfd_open(box.pid)
        if not select.select([pidfd], [], [], ACKNOWLEDGE_SECONDS)[0]:
            _spawned[box.pid] = spawned
            raise SandboxError(f"seat process {box.pid} does not die: it is frozen in its cgroup; reap it in the "
                               "referee (which thaws it) first")
        os.close(pidfd)
        spawned.pidfd = None
        _pid, status, usage = os.wait4(box.pid, 0)
        result.update(_decode(status), maxrss_kb=usage.ru_maxrss)
        remove_tree(spawned.temp_dir)
    if placed is not None:
        result.update(cgroups.memory_report(placed.folders))
        if placed.freezer is not None:
            placed.freezer.close()
        for fd in (placed.acknowledgements, placed.name):
            if fd is not None:
                os.close(fd)
        cgroups.remove(placed.folders)
        remove_tree(placed.temp_dir)
        os.close(placed.pidfd)
    if "signal" not in result:
        result.setdefault("exit", None)
    return result


def kill(box: SeatBox) -> None:
    """From the referee: kill every process of a seat it placed, without waiting (``reap`` waits and removes).

    Killing every seat of a match first lets their deaths overlap instead of each ``reap`` waiting in turn.
    A box this process did not place is left alone.
    """
    placed = _placed.get(box.pid)
    if placed is not None:
        _signal_placed(placed)


def _kill_placed(placed: _Placed) -> None:
    """Kill a placed seat through its pidfd and groups, and wait until its init has ended."""
    _signal_placed(placed)
    select.select([placed.pidfd], [], [], ACKNOWLEDGE_SECONDS)


def _signal_placed(placed: _Placed) -> None:
    try:
        signal.pidfd_send_signal(placed.pidfd, signal.SIGKILL)
    except ProcessLookupError:
        pass
    for pid in cgroups.processes(placed.folders):
        try:
            os.kill(pid, signal.SIGKILL)  # listed in our own group: a process of this seat
        except ProcessLookupError:
            pass
    if placed.freezer is not None:
        placed.freezer.set(False)  # a frozen process dies only once thawed
        placed.frozen = False


def _decode(status: int) -> dict[str, Any]:
    if os.WIFSIGNALED(status):
        return {"signal": os.WTERMSIG(status)}
    code = os.waitstatus_to_exitcode(status)
    return {"signal": code - 128} if code >= 128 else {"exit": code}
