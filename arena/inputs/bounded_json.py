"""JSON decoding with bounds, for everything arena reads that someone else wrote.

Agents' replies, match records, a store's metadata: each may come from someone
who wants to crash the reader.  Python's ``json`` module accepts text that
breaks the code after it: nesting deep enough to raise ``RecursionError``
(there or in any later ``repr``), integers past the int/str conversion limit
(a bare ``ValueError``), ``NaN`` and ``Infinity``, and strings with lone
surrogates (which cannot be printed or encoded as UTF-8).  ``loads`` refuses
all of these with one ``ValueError`` whose message says what was wrong.

``check_value`` applies the same nesting and string bounds to data that was
parsed some other way (a TOML config).
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from pathlib import Path
from typing import Any

MAX_DEPTH = 64
"""Deepest nesting of arrays and objects accepted (arena's own data nests a handful of levels)."""

MAX_NUMBER_CHARS = 100
"""Longest number literal accepted: far beyond any 64-bit value, far below Python's 4,300-digit limit."""

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
"""A ``\\uD800``..``\\uDFFF`` escape: half of a pair, or a lone surrogate (checked after decoding)."""


_SCALARS = {code: None for code in range(128) if chr(code) not in "[]{}"}
"""What JSON text holds outside its strings besides brackets (``str.translate`` removes it): ASCII only."""

_INNERMOST = re.compile(r"\[\]|\{\}")
"""An array or object with nothing but other text inside (strings and scalars removed)."""


class JSONLimitError(ValueError):
    """Well-formed JSON (or TOML) that is over one of the bounds; the message is one line."""


def _integer(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:
        raise JSONLimitError(f"a number of {len(text)} characters (the limit is {MAX_NUMBER_CHARS})")
    return int(text)


def _float(text: str) -> float:
    if len(text) > MAX_NUMBER_CHARS:
        raise JSONLimitError(f"a number of {len(text)} characters (the limit is {MAX_NUMBER_CHARS})")
    value = float(text)
    if not math.isfinite(value):
        raise JSONLimitError(f"the number {text} is too large to be finite")
    return value


def _constant(name: str) -> Any:
    raise JSONLimitError(f"{name} is not a JSON number")


_DECODER = json.JSONDecoder(parse_int=_integer, parse_float=_float, parse_constant=_constant)


def loads(data: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """Decode JSON text (``bytes`` must be UTF-8) within the bounds.

    Raises ``ValueError``: ``UnicodeDecodeError`` for bytes that are not UTF-8,
    ``json.JSONDecodeError`` for text that is not JSON, ``JSONLimitError``
    for JSON over a bound.  Nothing else escapes (``RecursionError`` included).
    """
    text = data.decode("utf-8") if isinstance(data, (bytes, bytearray)) else data
    try:
        value = _DECODER.decode(text)
    except RecursionError:
        raise JSONLimitError(f"nested more than {max_depth} levels deep") from None
    # With no more brackets than the depth bound, the nesting cannot exceed it; else the text says how deep
    # it nests, at the regular expressions' speed (a match record has thousands of brackets, a handful deep).
    if text.count("[") + text.count("{") > max_depth and _nested_deeper(text, max_depth):
        raise JSONLimitError(f"nested more than {max_depth} levels deep")
    if _SURROGATE_ESCAPE.search(text) is not None:
        check_value(value, max_depth)
    return value


def _nested_deeper(text: str, max_depth: int) -> bool:
    """Whether valid JSON ``text`` nests arrays and objects more than ``max_depth`` deep.

    Its strings go first: without the escaped backslashes and then the escaped quotes, every other quote
    opens or closes one, so the text outside them is every second piece between quotes.  Then everything but
    the brackets, and each pass removes the innermost level of those: the levels are the passes it takes.
    All of it at the speed of ``str`` methods (a walk over the decoded value took twice as long).
    """
    unescaped = text.replace("\\\\", "").replace('\\"', "")
    brackets = "".join(unescaped.split('"')[::2]).translate(_SCALARS)
    for _ in range(max_depth):
        if not brackets:
            return False
        brackets = _INNERMOST.sub("", brackets)
    return bool(brackets)


def check_value(value: Any, max_depth: int = MAX_DEPTH) -> None:
    """Raise ``JSONLimitError`` if ``value`` nests lists and dicts deeper than ``max_depth`` or holds a string
    (value or key) that is not valid Unicode (a lone surrogate).  Iterative: any depth is safe to check."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            _check_text(item)
            continue
        if isinstance(item, dict):
            children: Any = item.items()
        elif isinstance(item, (list, tuple)):
            children = item
        else:
            continue
        if depth >= max_depth:
            raise JSONLimitError(f"nested more than {max_depth} levels deep")
        for child in children:
            if isinstance(item, dict):
                key, child = child
                if isinstance(key, str):
                    _check_text(key)
            if isinstance(child, (str, dict, list, tuple)):
                stack.append((child, depth + 1))


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise JSONLimitError("a string holds a lone surrogate (not valid Unicode)") from None


def read_file(path: Path, limit: int, too_large: str) -> bytes:
    """A regular file's bytes, at most ``limit`` of them; ``ValueError`` (one line) otherwise.

    Opened without blocking, so a FIFO in the file's place is refused instead of waited on;
    ``too_large`` is the message for a file over ``limit``.
    """
    with open(path, "rb", opener=lambda name, flags: os.open(name, flags | os.O_NONBLOCK)) as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            raise ValueError("not a regular file")
        data = file.read(limit + 1)
    if len(data) > limit:
        raise ValueError(too_large)
    return data
