"""What a plugin reports about its agents, checked as untrusted data: names, specs as JSON, printable text.

A third-party plugin is imported only in a sandboxed child (``arena.plugin_system.discovery``), which sends its agents'
specs as JSON; these functions write that JSON and check it on the way back as they would any input from an
adversary (``arena.plugins`` keeps the result).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from arena.agent import AgentSpec

if TYPE_CHECKING:
    from arena.plugin_system.registry import PluginFactory

AGENT_NAME = re.compile(r"[a-z0-9][a-z0-9_.-]*")
"""An agent or game name, matched whole (``fullmatch``: ``$`` would also match before a trailing newline)."""
PLUGIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
"""A plugin's name (its file or distribution name), matched whole."""
NAME_MAX = 64
"""Longest agent, game or plugin name."""
VERSION_MAX = 64
"""Longest version string."""
DESCRIPTION_MAX = 500
"""Longest description kept; a longer one is cut (and ends with "...")."""
GAMES_MAX = 32
"""Most games one agent may say it plays."""


def name_problem(name: object, pattern: re.Pattern[str], what: str) -> str | None:
    """Why ``name`` is not acceptable (type, length, characters), or None."""
    if not isinstance(name, str):
        return f"{what} must be a string, not {type(name).__name__}"
    if not name or len(name) > NAME_MAX:
        return f"{what} must be 1 to {NAME_MAX} characters, not {len(name)}"
    if not pattern.fullmatch(name):
        allowed = "letters, digits, '.', '_' or '-'"
        hint = f"lowercase {allowed}" if pattern is AGENT_NAME else allowed
        return f"{what} {printable(name, NAME_MAX)!r} must be {hint}"
    return None


def spec_to_json(spec: AgentSpec) -> dict[str, Any]:
    """Every field of ``spec`` but the factory, as JSON data (tuples as lists, dataclasses as objects).

    Generic over ``dataclasses.fields`` so that fields added to ``AgentSpec`` travel too.
    Raises ``TypeError`` naming the field that is not JSON data.
    """
    data: dict[str, Any] = {}
    for item in dataclasses.fields(AgentSpec):
        if item.name == "factory":
            continue
        try:
            data[item.name] = _jsonable(getattr(spec, item.name), 0)
        except (TypeError, ValueError, RecursionError) as error:
            raise TypeError(f"field {item.name!r} is not JSON data: {one_line(error)}") from None
    return data


def spec_from_json(data: Any, factory: PluginFactory) -> tuple[AgentSpec | None, str | None]:
    """An ``AgentSpec`` (factory: ``factory``) from reported JSON, or None and why not.

    ``trusted`` is always False: a plugin cannot declare itself trusted.
    """
    if not isinstance(data, dict):
        return None, f"expected an agent object, got {type(data).__name__}"
    values: dict[str, Any] = {}
    for item in dataclasses.fields(AgentSpec):
        if item.name in ("factory", "trusted") or item.name not in data:
            continue
        value = data[item.name]
        decode = getattr(type(item.default), "from_json", None)  # a field of a JSON-able type (the options)
        if decode is not None:
            try:
                values[item.name] = decode(value)
            except (TypeError, ValueError) as error:
                return None, f"agent {printable(str(data.get('name')), NAME_MAX)!r}: {one_line(error)}"
        else:
            values[item.name] = tuple(value) if isinstance(value, list) else value
    values["trusted"] = False
    try:
        return AgentSpec(factory=factory, **values), None
    except (TypeError, ValueError) as error:
        return None, f"agent {printable(str(data.get('name')), NAME_MAX)!r}: {one_line(error)}"


def _jsonable(value: Any, depth: int) -> Any:
    if depth > 20:
        raise ValueError("nested too deeply")
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    to_json = getattr(value, "to_json", None)
    if callable(to_json) and not isinstance(value, type):  # a type with its own JSON form (the options)
        return _jsonable(to_json(), depth + 1)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {item.name: _jsonable(getattr(value, item.name), depth + 1) for item in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(key): _jsonable(item, depth + 1) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(item, depth + 1) for item in value]
    raise TypeError(f"{type(value).__name__} is not JSON data")


def get_field(data: Any, key: str) -> Any:
    """``data[key]`` when ``data`` is a JSON object, else None (the data came from an untrusted child)."""
    return data.get(key) if isinstance(data, dict) else None


def string_list(value: Any) -> list[str]:
    """The strings of ``value`` when it is a JSON array, ignoring anything else in it."""
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def printable(text: str, limit: int | None = None) -> str:
    """``text`` with control characters escaped and, given a ``limit``, cut to that many characters (for
    one-line messages)."""
    text = str(text) if limit is None else str(text)[: limit * 4]
    text = "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)
    return text if limit is None or len(text) <= limit else text[: limit - 3] + "..."


def one_line(error: BaseException) -> str:
    """``Type: message`` on one line, control characters escaped, at most 300 characters."""
    try:
        message = " ".join(str(error).split())
    except BaseException:  # an exception whose __str__ raises
        message = ""
    name = printable(type(error).__name__, 80)
    return printable(f"{name}: {message}" if message else name, 300)
