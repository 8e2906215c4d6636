"""The served site without the faults' messages: a match page's data shows every fault's seat, kind and move,
never its message (an agent's exception text, the tail of its standard error), which is its owner's only.

The site (arena.site) is built for the organiser, who may read everything; the server shows it to everyone,
so it rewrites each match chunk (``data/mNNNNN.js``) as it serves it: the message of every fault in the
record, in the page's fault list and in the log lines of its steps is replaced by ``HIDDEN_MESSAGE``.  The
owner reads their own seats' messages on their page and in ``/api/matches/ID`` with their token.  A
rewritten chunk is kept while its file is unchanged (the site is rewritten only between two batches).
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

from arena.records.log import fault_line
from arena.serve.results import HIDDEN_MESSAGE, public_record
from arena.site.chunks import chunk_script, packed, unpacked

MATCH_CHUNK = re.compile(r"^m\d{5}\.js$")
"""The names of the site's match chunks (``arena.site.chunks``), the only files with faults' messages."""

CACHED = 64
"""Rewritten chunks kept in memory (each at most a hundred matches, compressed)."""


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
    """Match chunks with the faults' messages hidden, cached by file state."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cache: dict[Path, tuple[tuple[int, int], bytes]] = {}

    def chunk(self, path: Path) -> bytes:
        """The public form of match chunk ``path`` (``OSError`` if it cannot be read)."""
        stat = path.stat()
        key = (stat.st_mtime_ns, stat.st_size)
        with self._lock:
            found = self._cache.get(path)
            if found is not None and found[0] == key:
                return found[1]
        text = path.read_text()
        try:
            number = int(path.stem[1:])
            pages = unpacked(text)  # schedule position -> the match's page
            if not isinstance(pages, dict):
                raise ValueError("not a match chunk")
            body = chunk_script("m", number, packed({key: _public_page(page) for key, page in pages.items()})).encode()
        except (ValueError, OSError, EOFError):  # not a chunk as the site writes it: shown as nothing
            body = b""
        with self._lock:
            if len(self._cache) >= CACHED:
                self._cache.pop(next(iter(self._cache)))
            self._cache[path] = (key, body)
        return body
