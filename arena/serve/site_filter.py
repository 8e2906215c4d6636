"""The served site without the faults' messages: a match page's data shows every fault's seat, kind and move,
never its message (an agent's exception text, the tail of its standard error), which is its owner's only.

The site (arena.site) is built for the organiser, who may read everything; the server shows it to everyone,
so it rewrites each match chunk (``data/mNNNNN.js``) as it serves it: the message of every fault in the
record, in the page's fault list and in the log lines of its steps is replaced by ``HIDDEN_MESSAGE``.  The
owner reads their own seats' messages on their page and in ``/api/matches/ID`` with their token.

Rewriting a chunk (inflating, filtering and deflating a hundred matches) costs about 0.3 s of CPU, so each
version of a chunk is rewritten once, one at a time, and kept as a file outside the site (its name carries the
chunk's modification time and size): however many chunks a client asks for, and however often, the server
rewrites each only when the site has rewritten it (between two batches), never once per request.
"""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path
from typing import Any

from arena.records.log import fault_line
from arena.serve.results import HIDDEN_MESSAGE, public_record
from arena.site.chunks import chunk_script, packed, unpacked

MATCH_CHUNK = re.compile(r"^m\d{5}\.js$")
"""The names of the site's match chunks (``arena.site.chunks``), the only files with faults' messages."""


def is_match_chunk(parts: list[str]) -> bool:
    """Whether a site path (its parts) names a match chunk."""
    return len(parts) == 2 and parts[0] == "data" and MATCH_CHUNK.fullmatch(parts[1]) is not None


def _public_page(page: Any) -> Any:
    if not isinstance(page, dict):
        return page
    record = page.get("record")
    if not isinstance(record, dict):
        return {**page, "record": None, "steps": None, "faults": []}
    found = page.get("names")
    names: list[str] = [str(name) for name in found] if isinstance(found, list) else []
    lines: dict[str, str] = {}
    for fault in record.get("faults", []) if isinstance(record.get("faults"), list) else []:
        try:
            lines[fault_line(fault, names)] = fault_line({**fault, "message": HIDDEN_MESSAGE}, names)
        except (KeyError, TypeError, ValueError):
            continue
    public = public_record(record, set())
    steps = page.get("steps")
    if isinstance(steps, list):  # each step: [move, seat, decision, secret, seconds, fault lines, ...]
        steps = [[*step[:5], [lines.get(line, HIDDEN_MESSAGE) for line in step[5]], *step[6:]]
                 if isinstance(step, list) and len(step) > 5 and isinstance(step[5], list) else step
                 for step in steps]
    return {**page, "record": public, "faults": public.get("faults", []), "steps": steps}


class SiteFilter:
    """Match chunks with the faults' messages hidden, each version rewritten once into folder ``cache``."""

    def __init__(self, cache: Path) -> None:
        self.cache = cache
        self._lock = threading.Lock()

    def chunk(self, path: Path) -> Path:
        """The file holding the public form of match chunk ``path`` (``OSError`` if it cannot be read)."""
        stat = path.stat()
        public = self.cache / f"{path.stem}-{stat.st_mtime_ns}-{stat.st_size}.js"
        if public.is_file():
            return public
        # One rewrite at a time: a client asking for many new chunks at once waits for them, and holds one core.
        with self._lock:
            if public.is_file():  # rewritten while this request waited
                return public
            body = _public_chunk(path)
            self.cache.mkdir(parents=True, exist_ok=True)
            for older in self.cache.glob(f"{path.stem}-*"):
                older.unlink(missing_ok=True)
            temporary = self.cache / f".{public.name}.tmp"
            temporary.write_bytes(body)
            os.replace(temporary, public)  # whole or absent: another thread reads it without the lock
        return public


def _public_chunk(path: Path) -> bytes:
    """Match chunk ``path`` without the faults' messages (nothing, if it is not a chunk as the site writes it)."""
    text = path.read_text()
    try:
        number = int(path.stem[1:])
        pages = unpacked(text)  # schedule position -> the match's page
        if not isinstance(pages, dict):
            raise ValueError("not a match chunk")
        return chunk_script("m", number, packed({key: _public_page(page) for key, page in pages.items()})).encode()
    except (ValueError, OSError, EOFError):
        return b""
