"""The checks every part of a config's validation is built from: one problem per bad value, collected.

``Checks`` keeps the problems of one config (``source: key: message``) and checks a key's value by kind; the
helpers show a value as the user wrote it and suggest the name meant.  ``config_validation`` (the whole config)
and ``config_entries`` (its ``[[agents]]`` and a format's candidates) build on them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from arena.inputs.suggest import closest
from arena.records.seeding import MAX_SEED
from arena.referee.limits import MAX_SECONDS
from arena.tournament.config_types import MAX_OPTION_INTEGER

TOP_KEYS = (
    "name",
    "game",
    "seed",
    "format",
    "blocks",
    "max_tables",
    "ratings",
    "isolation",
    "game_options",
    "limits",
    "agents",
    "gauntlet",
    "max_startup_faults",
    "fault_share",
)


def show(value: Any) -> str:
    """A value as the user wrote it, in TOML terms: "fast", 3, true, an array, a table."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        shown = json.dumps(value[:SHOWN_CHARACTERS], ensure_ascii=False)
        return shown if len(value) <= SHOWN_CHARACTERS else f"{shown[:-1]}...\" ({len(value)} characters)"
    if isinstance(value, int) and abs(value) >= 10**SHOWN_CHARACTERS:
        return f"an integer of {len(str(abs(value)))} digits"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, (list, tuple)):
        return "an array"
    return f"{value} ({type(value).__name__})"


SHOWN_CHARACTERS = 40
"""Longest piece of a value quoted in a message: a 10,000-character name is still one short line."""


def suggest(word: str, known: Collection[str]) -> str:
    """``; did you mean "x"?`` when ``word`` is close to one of ``known``, else ""."""
    close = closest(word, known)
    return f'; did you mean "{close}"?' if close else ""


def misplaced_hint(key: str, prefix: str) -> str:
    """A hint for a top-level key found in a table: in TOML every key after a ``[table]`` header belongs to that
    table, so ``format = ...`` written below ``[limits]`` reads as ``limits.format``."""
    if not prefix or key not in TOP_KEYS:
        return ""
    table = prefix.rstrip(".")
    header = f"[[{table.split('[')[0]}]]" if "[" in table else f"[{table}]"
    return (f"; {key!r} is a top-level key: TOML puts every key below a {header} header into that table, "
            f"so write it above the first table")


def listing(known: Collection[str]) -> str:
    """The names in ``known``, sorted, or "none"."""
    return ", ".join(sorted(known)) or "none"


def is_int(value: Any) -> bool:
    """Whether ``value`` is an integer (a TOML boolean is not)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    """Whether ``value`` is a finite number (a TOML boolean is not)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def is_json(value: Any) -> bool:
    """Whether a TOML value (nested at most ``bounded_json.MAX_DEPTH``: checked first) is plain JSON data:
    no dates or times, finite numbers, 64-bit integers."""
    if value is None or isinstance(value, (str, bool)):
        return True
    if isinstance(value, int):
        return abs(value) <= MAX_OPTION_INTEGER
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, (list, tuple)):
        return all(is_json(item) for item in value)
    if isinstance(value, Mapping):
        return all(isinstance(key, str) and is_json(item) for key, item in value.items())
    return False


class Checks:
    """The problems found in one config so far, and the checks of one value each."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.problems: list[str] = []

    def problem(self, key: str, message: str) -> None:
        """Note one problem: ``source: key: message``."""
        self.problems.append(f"{self.source}: {key}: {message}")

    def unknown_keys(self, table: Mapping[str, Any], known: Sequence[str], prefix: str = "") -> None:
        """One problem per key of ``table`` not in ``known``, with a did-you-mean or the known keys."""
        for key in table:
            if key not in known:
                hint = (misplaced_hint(str(key), prefix) or suggest(str(key), known)
                        or f" (known keys: {', '.join(known)})")
                self.problem(f"{prefix}{key}", f"unknown key{hint}")

    def table(self, data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
        """The sub-table ``data[key]``, or {} (with a problem) when it is not a table."""
        value = data.get(key, {})
        if not isinstance(value, Mapping):
            self.problem(key, f"expected a table ([{key}] section), got {show(value)}")
            return {}
        return value

    def integer(self, data: Mapping[str, Any], key: str, default: Any, minimum: int, what: str,
                maximum: int = MAX_SEED) -> Any:
        """``data[key]`` as an integer from ``minimum`` to ``maximum``; ``default`` (and a problem) otherwise."""
        if data.get(key) is None and (key not in data or default is None):  # JSON null: to_json's "no seed"
            return default
        value = data[key]
        if not is_int(value) or not minimum <= value <= maximum:
            self.problem(key, f"expected {what}, got {show(value)}")
            return default
        return value

    def number(self, data: Mapping[str, Any], key: str, default: float, positive: bool, prefix: str) -> float:
        """``data[key]`` as a number of seconds (positive, or >= 0); ``default`` (and a problem) otherwise."""
        value = data.get(key, default)
        if not is_number(value) or value < 0 or (positive and value == 0) or value > MAX_SECONDS:
            what = "a positive number" if positive else "a number >= 0"
            what += f" up to {MAX_SECONDS:g}"
            self.problem(prefix + key, f"expected {what} (seconds), got {show(value)}")
            return default
        return float(value)

    def choice(self, value: Any, key: str, choices: Sequence[str], what: str) -> str | None:
        """``value`` if it is one of ``choices``; None (and a problem with a did-you-mean) otherwise."""
        if isinstance(value, str) and value in choices:
            return value
        hint = suggest(value, choices) if isinstance(value, str) else ""
        self.problem(key, f"expected {what}: one of {', '.join(choices)}, got {show(value)}{hint}")
        return None
