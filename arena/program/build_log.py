"""A build's standard error, kept within bounds, and the one line of it that says why the build failed.

The referee drains the build's standard error on a thread (a pipe: a chatty compiler must never block the
archive the build writes on its standard output, nor fill a disk), keeps its first ``HEAD_BYTES`` and last
``TAIL_BYTES``, and on failure saves them beside the cache entry (``<name>-<key>.log``) for the author to read.
"""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path
from typing import IO

HEAD_BYTES = 1 << 20
"""How much of the start of a build's standard error is kept (where a compiler's first error is)."""

TAIL_BYTES = 64 << 10
"""How much of its end is kept (where the build's own last word is)."""

OWN_PREFIX = "arena build: "
"""What the build process starts its own messages with (a time limit, a command that cannot run): these win."""

ERROR_LINE = re.compile(r"(^|[\s:])(fatal )?error(\[[A-Za-z0-9]+\])?:", re.IGNORECASE)
"""A compiler's error line: gcc and clang ``file.c:3:5: error: ...``, rustc ``error[E0425]: ...``, make's
``make: *** ... Error 1`` is not one (it only says that something failed)."""

LINE_MAX = 300
"""Longest line quoted in a build error."""


class BuildLog:
    """Standard error of one build, drained from ``stream`` on a thread of its own."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.head = bytearray()
        self.tail = bytearray()
        self.skipped = 0  # bytes between the head and the tail, not kept
        self._thread = threading.Thread(target=self._drain, args=(stream,), daemon=True)
        self._thread.start()

    def _drain(self, stream: IO[bytes]) -> None:
        while chunk := os.read(stream.fileno(), 1 << 16):
            room = HEAD_BYTES - len(self.head)
            self.head += chunk[:room]
            self.tail += chunk[room:] if room > 0 else chunk
            if len(self.tail) > TAIL_BYTES:
                self.skipped += len(self.tail) - TAIL_BYTES
                del self.tail[:-TAIL_BYTES]

    def wait(self, seconds: float) -> None:
        """Wait for the end of the stream (the build and all it started have closed it)."""
        self._thread.join(seconds)

    def text(self) -> str:
        """What was kept, with a line saying how much was left out between head and tail."""
        middle = f"\n[... {self.skipped} bytes left out ...]\n" if self.skipped else ""
        return (bytes(self.head).decode(errors="replace") + middle + bytes(self.tail).decode(errors="replace"))

    def reason(self) -> str:
        """The line that says why the build failed: the build process's own word if it has one, else the first
        compiler error, else the last line."""
        lines = [line.strip() for line in self.text().splitlines() if line.strip()]
        if not lines:
            return "it exited with an error, saying nothing"
        own = [line for line in lines if line.startswith(OWN_PREFIX)]
        errors = [line for line in lines if ERROR_LINE.search(line)]
        chosen = own[-1].removeprefix(OWN_PREFIX) if own else errors[0] if errors else lines[-1]
        return chosen if len(chosen) <= LINE_MAX else chosen[:LINE_MAX - 3] + "..."

    def save(self, path: Path) -> None:
        """Write what was kept to ``path``."""
        path.write_text(self.text())
