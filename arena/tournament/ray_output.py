"""Keep Ray's own output off the terminal and out of stdout: it goes to ``leaderboards/<name>/ray.log``.

Ray writes from three places: its native code (to file descriptors 1 and 2
directly), its Python logger ``ray`` (to whatever ``sys.stderr`` is when it
logs), and its driver threads ``ray_listen_error_messages`` and
``ray_print_logs`` (to ``sys.stdout`` / ``sys.stderr``; this is where "a node
died" messages come from).  For the length of a Ray session this module
points descriptors 1 and 2 at the log, gives the ``ray`` logger a handler on
the log, and replaces ``sys.stdout`` / ``sys.stderr`` with streams that send
Ray's threads to the log and every other thread (arena's own output, the
progress display) to the real terminal or pipe.  So ``arena run --json``
prints exactly one JSON document on stdout whatever Ray does.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

RAY_LOG = "ray.log"
"""The log file's name in the tournament folder."""

RAY_THREAD_PREFIX = "ray_"
"""Ray names its driver threads ``ray_...``; their writes go to the log."""


class _ThreadRouter(io.TextIOBase):
    """A text stream that sends writes from Ray's threads to the log and all others to the terminal side."""

    def __init__(self, terminal: TextIO, log: TextIO) -> None:
        self.terminal = terminal
        self.log = log

    def _target(self) -> TextIO:
        return self.log if threading.current_thread().name.startswith(RAY_THREAD_PREFIX) else self.terminal

    def write(self, text: str) -> int:
        """Write ``text`` to the log or the terminal side, by the writing thread."""
        return self._target().write(text)

    def flush(self) -> None:
        """Flush both sides."""
        self.terminal.flush()
        self.log.flush()

    def isatty(self) -> bool:
        """Whether the terminal side is a terminal (so that progress displays behave as before).

        False once the session is over: Ray imported while the router was in place keeps it (colorama asks
        it at exit).
        """
        return not self.terminal.closed and self.terminal.isatty()

    def fileno(self) -> int:
        """The terminal side's descriptor."""
        return self.terminal.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self.terminal.encoding


@contextlib.contextmanager
def ray_output_to(log_path: Path) -> Iterator[TextIO]:
    """Send Ray's output to ``log_path`` (appended) for the block; yield the log as a text stream."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    ray_logger = logging.getLogger("ray")
    saved_handlers = list(ray_logger.handlers)
    saved_streams = (sys.stdout, sys.stderr)
    for stream in saved_streams:
        stream.flush()
    with open(log_path, "a", buffering=1, encoding="utf-8") as log:
        handler = logging.StreamHandler(log)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        saved_fds = (os.dup(1), os.dup(2))
        terminals = [open(fd, "w", buffering=1, encoding=stream.encoding or "utf-8", errors="replace",  # noqa: SIM115
                          closefd=False) for fd, stream in zip(saved_fds, saved_streams)]
        try:
            ray_logger.handlers = [handler]
            os.dup2(log.fileno(), 1)
            os.dup2(log.fileno(), 2)
            sys.stdout = _ThreadRouter(terminals[0], log)
            sys.stderr = _ThreadRouter(terminals[1], log)
            yield log
        finally:
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):
                    stream.flush()
            sys.stdout, sys.stderr = saved_streams
            for terminal in terminals:
                terminal.close()  # flushes; closefd=False leaves the descriptor to the lines below
            os.dup2(saved_fds[0], 1)
            os.dup2(saved_fds[1], 2)
            for fd in saved_fds:
                os.close(fd)
            ray_logger.handlers = saved_handlers


@contextlib.contextmanager
def all_output_to(log: TextIO) -> Iterator[None]:
    """Within ``ray_output_to``: send this thread's Python-level output to the log too (Ray's start and stop
    print from the main thread)."""
    with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
        yield
