"""A seat's log: what its agent printed (standard output and error, logging, tracebacks), one file per seat.

In the seat's process, before any agent code runs, ``capture`` points descriptors 1 and 2 and Python's
``sys.stdout``/``sys.stderr`` at ``LOG_NAME`` in the seat's private folder (the folder a sandboxed seat alone
may write, an isolated seat's own temporary folder).  The file is bounded: Python's streams stop writing at
``FILE_BYTES_MAX`` and drop the rest without raising, and ``RLIMIT_FSIZE`` bounds whatever writes the
descriptors directly (C code, a child process), a write past it failing with ``EFBIG`` instead of killing the
seat.  Either way the seat plays on.

The referee (``keep``) reads the last ``KEPT_BYTES`` of it just before the seat is killed and its folder
removed, through the path its zygote named (``locate``: only a file directly inside that zygote's seats'
folder), refusing anything but a regular file with one link; the text it keeps is decoded with replacement
and has its control characters escaped (``safe_text``), so it can be shown on a terminal or a page as it is.

Trusted seats run in the referee's own process: nothing of theirs is captured (their prints go wherever the
referee's go).
"""

from __future__ import annotations

import io
import os
import resource
import signal
import stat
import sys
import traceback
from typing import Any

from arena.referee.faults import describe_exception

LOG_NAME = "stderr.log"
"""The seat's log, in its private folder (the same name for agent programs: ``arena.referee.program_zygote``)."""

FILE_BYTES_MAX = 16 << 20
"""Largest file a seat may write (``RLIMIT_FSIZE``), its log included: a chatty agent cannot fill a disk."""

KEPT_BYTES = 64 << 10
"""How much of the end of a seat's log the referee keeps with the match."""

CUT_MARK = "[earlier output not kept]\n"
"""First line of a kept log whose beginning was cut."""


class _CappedFile(io.RawIOBase):
    """Descriptor ``fd`` for writing, at most ``limit`` bytes in all; past that, and on any error, writes are
    dropped (reported as done), so that a print never raises in the agent's code."""

    def __init__(self, fd: int, limit: int) -> None:
        super().__init__()
        self.fd = fd
        self.left = limit

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        size = len(memoryview(data).cast("B"))
        piece = bytes(data)[: max(0, self.left)]
        while piece:
            try:
                written = os.write(self.fd, piece)
            except OSError:  # EFBIG past RLIMIT_FSIZE, a full disk: the seat plays on
                self.left = 0
                break
            self.left -= written
            piece = piece[written:]
        return size


def capture(folder: str) -> None:
    """In a seat's process, before agent code runs: send its output to ``folder``/``LOG_NAME`` (bounded)."""
    try:
        log = os.open(os.path.join(folder, LOG_NAME),
                      os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError:
        return  # no log (the seat still plays; the referee finds none)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # past the bound a write fails instead of killing the seat
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_BYTES_MAX, FILE_BYTES_MAX))
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    # Fresh streams, never flushed from the zygote's (whose buffers a fork copied), written through at once: a
    # seat is killed, not exited, once its match is over.
    raw = _CappedFile(2, FILE_BYTES_MAX)
    stream = io.TextIOWrapper(raw, encoding="utf-8", errors="backslashreplace", write_through=True)  # type: ignore[type-var]
    sys.stdout = sys.stderr = stream


def described(error: BaseException) -> str:
    """In a seat's process: write ``error``'s traceback to the seat's log; its one-line description."""
    try:
        traceback.print_exception(error, file=sys.stderr)
    except BaseException:  # a broken __str__, a closed stream: the reply to the referee still goes
        pass
    return describe_exception(error)


def locate(reply: dict[str, Any], zygote: int | None, root: str | None) -> str | None:
    """Where the referee reads the log a zygote (process ``zygote``) named in its spawn ``reply``: a file
    ``LOG_NAME`` directly inside a folder directly inside ``root`` (its seats' folders), seen in the zygote's
    mount namespace; else None."""
    log = reply.get("log")
    if not isinstance(log, str) or not root or not zygote or os.path.normpath(log) != log:
        return None
    if os.path.basename(log) != LOG_NAME or os.path.dirname(os.path.dirname(log)) != os.path.realpath(root):
        return None
    return f"/proc/{zygote}/root{log}"


def read_tail(path: str, size: int) -> bytes | None:
    """The last ``size`` bytes of the regular, singly linked file at ``path`` (never following a link, never
    blocking on a pipe); with a first byte more when the file is longer, so a caller sees it was cut."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
            return None
        start = max(0, info.st_size - size - 1)
        return os.pread(descriptor, info.st_size - start, start)
    except OSError:
        return None
    finally:
        os.close(descriptor)


def safe_text(data: bytes, size: int) -> str:
    """``data`` (a tail of at most ``size`` bytes, one more if cut) as text: UTF-8 with replacement, every
    control character but newline and tab escaped, a cut first line replaced by ``CUT_MARK``."""
    cut = len(data) > size
    if cut:
        data = data[-size:]
        newline = data.find(b"\n")
        data = data[newline + 1:] if 0 <= newline < len(data) - 1 else data
    text = data.decode("utf-8", errors="replace")
    if not text.replace("\n", "").replace("\t", "").isprintable():  # the usual case is checked in C at once
        text = "".join(char if char.isprintable() or char in "\n\t" else repr(char)[1:-1] for char in text)
    return (CUT_MARK if cut else "") + text


def keep(path: str | None) -> str:
    """The kept end of the seat log at ``path`` (``KEPT_BYTES``), or "" when there is none."""
    if path is None:
        return ""
    data = read_tail(path, KEPT_BYTES)
    return safe_text(data, KEPT_BYTES) if data else ""

