"""The values every game and the referee exchange: actions, chance outcomes, errors and JSON conversion.

Actions are JSON values: a string, or a tuple of strings (e.g. the card ids of a keep).
Chance outcomes are JSON objects ``{"kind": ..., "value": ...}`` logged in the
order they happen, so that a record can replay a game exactly.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

Action = str | tuple[str, ...]
"""A legal move: a string, or a tuple of strings (e.g. the card ids of a keep)."""

ChanceOutcome = dict[str, Any]
"""One chance outcome, ``{"kind": "deal" | "die" | ..., "value": <JSON>}``."""


class GameError(Exception):
    """Base class for errors raised by game engines."""


class IllegalAction(GameError):
    """An action that is not legal for that seat in that state.

    Raised, never silently corrected: the referee records it as a fault.
    """


class InvalidSetup(GameError):
    """Bad options or an inconsistent scripted chance outcome."""



def to_json(value: Any) -> Any:
    """Convert tuples, mappings and dataclasses to plain JSON types, recursively."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, Mapping):
        return {str(key): to_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(item) for item in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    raise TypeError(f"not JSON-serialisable: {type(value).__name__}")


def from_json(value: Any) -> Any:
    """Convert JSON lists back to tuples, recursively (the inverse of ``to_json`` for observation fields).

    Lists and dicts are recognised by exact type, as JSON decoding makes them, and scalars are not passed
    through a call of their own: a process seat rebuilds every observation it is sent with this.
    """
    kind = type(value)
    if kind is list:
        return tuple([from_json(item) if type(item) in _CONTAINERS else item for item in value])
    if kind is dict:
        return {key: from_json(item) if type(item) in _CONTAINERS else item for key, item in value.items()}
    return value


_CONTAINERS = (list, dict)

