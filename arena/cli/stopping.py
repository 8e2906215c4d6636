"""How a command stops on a signal: SIGTERM and SIGHUP as Ctrl-C does, and what an ended run left is removed.

SIGINT raises ``KeyboardInterrupt`` in the main thread; SIGTERM (``kill``, the end of a ``timeout``)
and SIGHUP (a closed terminal) raise ``Stopped``, a ``KeyboardInterrupt`` that knows its signal, so
every command stops the same way whatever stopped it: its ``finally`` blocks stop the seats, zygotes
and the Ray it started, a run says how many matches are stored, and the exit status is 128 plus
the signal's number.  A second SIGTERM or SIGHUP while that clean-up runs is ignored (a second
Ctrl-C is not: it is how a person insists).  Whatever a process could not clean up, its lease's
janitor does (``arena.sandbox.lease``); and ``sweep`` removes, at the start of a command, what
runs whose janitor died too left behind.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

STOPPING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
"""The signals that stop a command as Ctrl-C does."""


class Stopped(KeyboardInterrupt):
    """A command stopped by ``signum`` (SIGTERM or SIGHUP)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def install() -> None:
    """Make SIGTERM and SIGHUP raise ``Stopped`` in the main thread (call it from the main thread)."""
    for number in STOPPING_SIGNALS:
        signal.signal(number, _stop)


def _stop(signum: int, _frame: FrameType | None) -> None:
    for number in STOPPING_SIGNALS:
        signal.signal(number, signal.SIG_IGN)  # the clean-up this starts is not interrupted by another
    raise Stopped(signum)


@contextmanager
def deferred() -> Iterator[None]:
    """Hold SIGTERM, SIGHUP and Ctrl-C while the block runs, then stop as the first of them asked (``Stopped``, or
    ``KeyboardInterrupt`` for Ctrl-C), whatever the block raised meanwhile (call it from the main thread).

    For plugin discovery: it takes whatever a plugin raises, ``KeyboardInterrupt`` included, as that plugin's
    failure, so a stop raised inside it would be taken for a plugin that failed to load (a game "unknown") or
    lost altogether, and the command would run on.  Discovery takes a second or a few; the stop waits that long.
    """
    received: list[int] = []

    def hold(signum: int, _frame: FrameType | None) -> None:
        received.append(signum)

    held = (*STOPPING_SIGNALS, signal.SIGINT)
    previous = {number: signal.signal(number, hold) for number in held}
    try:
        yield
    except Exception:
        if not received:
            raise
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    if received:
        raise _interrupt(received[0])


def _interrupt(signum: int) -> KeyboardInterrupt:
    if signum == signal.SIGINT:
        return KeyboardInterrupt()
    for number in STOPPING_SIGNALS:
        signal.signal(number, signal.SIG_IGN)  # as _stop: the clean-up this starts is not interrupted by another
    return Stopped(signum)


def exit_status(interrupt: KeyboardInterrupt) -> int:
    """The exit status of a command stopped by ``interrupt``: 128 plus its signal's number (130 for Ctrl-C)."""
    return 128 + (interrupt.signum if isinstance(interrupt, Stopped) else signal.SIGINT)


def describe(interrupt: KeyboardInterrupt) -> str:
    """"interrupted", or "stopped by SIGTERM" for a signal other than Ctrl-C."""
    return f"stopped by {interrupt.args[0]}" if isinstance(interrupt, Stopped) else "interrupted"


def say(line: str) -> None:
    """Print ``line`` on stderr if it can still be written (after SIGHUP the terminal may be gone)."""
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def sweep() -> None:
    """Remove what ended runs whose janitor died too left behind (``arena.sandbox.lease.sweep``); say so."""
    from arena.sandbox import lease

    try:
        swept = [stale for stale in lease.sweep() if not stale.found.empty()]
    except OSError:
        return  # no lease folder of ours to read: nothing of ours to sweep
    for stale in swept:
        say(f"arena: removed what an ended arena process (pid {stale.pid}) left behind: {stale.found.describe()}")
