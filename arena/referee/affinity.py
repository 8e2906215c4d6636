"""One core for a match of process seats: the referee and every seat's processes share the core the referee is on.

A match is a relay: at any moment one of the referee and its seats runs while the others wait on a socket or
are frozen.  Handing the turn to a process on another core wakes that core, which in a virtual machine costs an
exit to the host: on the 2-core machine of docs/performance.md a round trip between two Python processes took
60 µs on two cores and 5 µs on one, and a sandboxed trivial agent's decision 151 µs against 81 µs.  Sharing
one core costs a match no parallelism, since its processes never run at once.

Matches running at once must not share a core, or a seat thinking in one halves the CPU of a seat in the other
for the rest of both matches.  So a match *reserves* its core: a referee binds an abstract Unix socket named
after the core (``arena-core-<uid>-<core>``), which only one socket on the machine can hold and which the
kernel drops when its holder closes it or dies, leaving no file behind.  The referee takes the core it is on if
that is free, else the first free core it may use, and pins nothing when every core is held.  Seats cannot
take a name: they live in their zygote's network namespace, whose abstract sockets the referee's does not see;
any other process of the user that takes one only keeps matches off that core (slower, not wrong).

A sandboxed seat cannot change its own mask (``arena.sandbox.seccomp``): moved onto another match's core, it
would halve the CPU of the seat pinned there.  An ``isolated`` seat can, which is a bug's freedom, not an
adversary's (docs/security.md).  Where a seat may use more than one core (``Limits.cpus`` over 1) nothing is
pinned, nor where the system refuses.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from collections.abc import Iterator

_outside = threading.local()
"""Per thread, while ``one_core`` pins it: ``cores``, the set of cores it had before."""


@contextlib.contextmanager
def one_core(wanted: bool) -> Iterator[int | None]:
    """While the block runs, keep the calling thread on a core reserved for it; that core (None if not pinned).

    The core is the one the thread is on if no other match holds it, else another free one (``reserve``); with
    every core held, nothing is pinned.  The thread's previous set of cores and the core's reservation are given
    back afterwards, however the block ends.
    """
    reservation = reserve() if wanted else None
    if reservation is None:
        yield None
        return
    core, held = reservation
    with held:
        try:
            before = os.sched_getaffinity(0)
            os.sched_setaffinity(0, {core})
        except OSError:
            yield None
            return
        _outside.cores = before
        try:
            yield core
        finally:
            _outside.cores = None
            with contextlib.suppress(OSError):
                os.sched_setaffinity(0, before)


def reserve() -> tuple[int, socket.socket] | None:
    """A core no other match holds, and the socket that holds it until closed; None if every core is held.

    The core the calling thread is on comes first (its caches are warm), then the others it may use in order.
    """
    try:
        allowed = sorted(os.sched_getaffinity(0))
    except OSError:
        return None
    here = current_core()
    for core in ([here] if here in allowed else []) + [core for core in allowed if core != here]:
        held = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
        try:
            held.bind(reservation_name(core))
        except OSError:  # held by another match (EADDRINUSE), or no abstract sockets here
            held.close()
            continue
        return core, held
    return None


def reservation_name(core: int) -> bytes:
    """The abstract socket name that holds ``core`` for one match of this user's referees."""
    return f"\0arena-core-{os.getuid()}-{core}".encode()


def unpin(pid: int) -> None:
    """Give process ``pid`` (just started by this thread) the cores this thread has outside a match.

    A long-lived helper started during a match (a plugin's zygote) would otherwise keep the match's one core
    for good, and fork every later seat there, whichever core their matches run on.
    """
    cores = getattr(_outside, "cores", None)
    if cores is not None:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(pid, cores)


@contextlib.contextmanager
def released() -> Iterator[None]:
    """While the block runs, the calling thread has its cores from outside the match back (for a program's build,
    whose compilers may use every core); the match's core after."""
    cores = getattr(_outside, "cores", None)
    if cores is None:
        yield
        return
    try:
        pinned = os.sched_getaffinity(0)
        os.sched_setaffinity(0, cores)
    except OSError:
        yield
        return
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, pinned)


PIN_LIMIT = 1024
"""Most processes ``pin_tree`` visits in one seat (a seat's pids limit is far below it)."""


def pin_tree(pid: int, core: int | None) -> None:
    """Put every thread of process ``pid`` and of its descendants on ``core``; nothing if ``core`` is None.

    Called once the seat is built and frozen: its agent builds on any core, in parallel with the other seats',
    and plays on the match's.  A thread or process that appears later inherits the mask of the thread that
    made it.  At most ``PIN_LIMIT`` processes are visited.  A failure (a process gone meanwhile, a mask the
    system refuses) leaves that thread where it was: a slower seat, not a wrong one.
    """
    if core is None:
        return
    pending = [pid]
    visited = 0
    while pending and visited < PIN_LIMIT:
        process = pending.pop()
        visited += 1
        try:
            threads = os.listdir(f"/proc/{process}/task")
        except OSError:
            continue
        for thread in threads:
            with contextlib.suppress(OSError, ValueError):
                os.sched_setaffinity(int(thread), {core})
            with contextlib.suppress(OSError, ValueError), open(f"/proc/{process}/task/{thread}/children") as file:
                pending.extend(int(child) for child in file.read().split())


def current_core() -> int | None:
    """The core the calling thread runs on (field 39 of its stat line), or None where that cannot be read."""
    try:
        with open("/proc/thread-self/stat", "rb") as stat:
            text = stat.read()
        return int(text[text.rindex(b")") + 2:].split()[36])
    except (OSError, ValueError, IndexError):
        return None
