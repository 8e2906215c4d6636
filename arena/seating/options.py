"""Agent options: what an agent declares it accepts, and the check every way of seating it runs first.

An agent declares its options in its ``AgentSpec`` as an ``AgentOptions`` of
``OptionSpec`` (name, type, range or choices, default, one line of help, and
optionally the games an option applies to)::

    AgentSpec(..., options=AgentOptions((
        OptionSpec("iterations", "int", default=240, minimum=1, help="playouts per move"),
        OptionSpec("value", "str", default="rank", choices=("rank", "points"), games=("lovat",),
                   help="what a playout scores"),
    )))

The schema is plain data (``to_json`` / ``from_json``), so a process that never
imports the plugin can check options against it.  An agent that declares no
options accepts none: a misspelt option must never be ignored silently, since
the agent would then play with its defaults under the entry's name.

``AgentOptions.check`` raises ``OptionError`` with one line: an unknown option
(with a did-you-mean), a value of the wrong type, or one out of range.
Options an agent is given are passed to its factory as given; defaults are
the agent's own to apply.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arena.inputs.suggest import closest

TYPES = ("int", "float", "str", "bool")
"""The option types an agent may declare."""


class OptionError(ValueError):
    """An option an agent does not accept, or a value it cannot take; one-line message."""


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One option an agent accepts."""

    name: str  # the key in a config's [agents.options] table, e.g. "iterations"
    type: str  # one of TYPES: "int", "float", "str" or "bool"
    default: Any = None  # the value the agent uses when the option is not given; None: unset
    help: str = ""  # one line for `arena agents NAME`
    minimum: float | None = None  # smallest allowed value (int and float only), inclusive
    maximum: float | None = None  # largest allowed value (int and float only), inclusive
    choices: tuple[str, ...] = ()  # the allowed values of a "str" option; () for any string
    games: tuple[str, ...] = ()  # short names of the games it applies to; () for every game the agent plays

    def __post_init__(self) -> None:
        problem = self._problem()
        if problem:
            raise OptionError(f"option {self.name!r}: {problem}")

    def _problem(self) -> str | None:
        """What is wrong with the declaration itself (a plugin's spec is not trusted to be sane)."""
        if not isinstance(self.name, str) or not self.name or not self.name.isidentifier():
            return "the name must be a Python-identifier-like string, e.g. 'iterations'"
        if self.type not in TYPES:
            return f"type must be one of {', '.join(TYPES)}, not {self.type!r}"
        if not isinstance(self.help, str):
            return "help must be a string"
        for bound in (self.minimum, self.maximum):
            if bound is not None and (self.type not in ("int", "float") or not _is_number(bound)):
                return "minimum and maximum are finite numbers, for int and float options only"
        if self.minimum is not None and self.maximum is not None and self.minimum > self.maximum:
            return f"minimum {self.minimum} is above maximum {self.maximum}"
        if not isinstance(self.choices, tuple) or not all(isinstance(choice, str) for choice in self.choices):
            return "choices must be a tuple of strings"
        if self.choices and self.type != "str":
            return "choices are for str options only"
        if not isinstance(self.games, tuple) or not all(isinstance(game, str) for game in self.games):
            return "games must be a tuple of game names"
        if self.default is not None and self.value_problem(self.default):
            return f"its default {self.default!r} is not allowed: {self.value_problem(self.default)}"
        return None

    def expected(self) -> str:
        """What a value must be, in words: ``an integer >= 1``, ``one of "rank", "points"``."""
        if self.choices:
            return "one of " + ", ".join(json.dumps(choice) for choice in self.choices)
        noun = {"int": "an integer", "float": "a number", "str": "a string", "bool": "true or false"}[self.type]
        if self.minimum is not None and self.maximum is not None:
            return f"{noun} from {_number(self.minimum)} to {_number(self.maximum)}"
        if self.minimum is not None:
            return f"{noun} >= {_number(self.minimum)}"
        if self.maximum is not None:
            return f"{noun} <= {_number(self.maximum)}"
        return noun

    def value_problem(self, value: Any) -> str | None:
        """None if ``value`` is allowed, else what is expected instead."""
        ok = {
            "int": _is_int(value),
            "float": _is_number(value),
            "str": isinstance(value, str) and (not self.choices or value in self.choices),
            "bool": isinstance(value, bool),
        }[self.type]
        if ok and self.type in ("int", "float"):
            ok = (self.minimum is None or value >= self.minimum) and (self.maximum is None or value <= self.maximum)
        return None if ok else f"expected {self.expected()}"

    def applies_to(self, game: str | None) -> bool:
        """Whether the option exists when playing ``game`` (None: any game)."""
        return game is None or not self.games or game in self.games

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data; ``OptionSpec.from_json`` reads it back."""
        return {"name": self.name, "type": self.type, "default": self.default, "help": self.help,
                "minimum": self.minimum, "maximum": self.maximum, "choices": list(self.choices),
                "games": list(self.games)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> OptionSpec:
        """An option from ``to_json`` data; ``OptionError`` if it is malformed."""
        if not isinstance(data, Mapping):
            raise OptionError(f"an option declaration must be an object, not {type(data).__name__}")
        try:
            return cls(name=data["name"], type=data["type"], default=data.get("default"), help=data.get("help", ""),
                       minimum=data.get("minimum"), maximum=data.get("maximum"),
                       choices=tuple(data.get("choices") or ()), games=tuple(data.get("games") or ()))
        except (KeyError, TypeError) as error:
            raise OptionError(f"malformed option declaration: {error}") from None


@dataclass(frozen=True, slots=True)
class AgentOptions:
    """Every option an agent accepts; empty (the default) means it accepts none."""

    options: tuple[OptionSpec, ...] = ()  # a name appears at most once per game

    def __post_init__(self) -> None:
        if not isinstance(self.options, tuple) or not all(isinstance(o, OptionSpec) for o in self.options):
            raise OptionError("options must be a tuple of arena.options.OptionSpec")
        seen: dict[str, tuple[str, ...]] = {}
        for option in self.options:
            earlier = seen.get(option.name)
            if earlier is not None and (not earlier or not option.games or set(earlier) & set(option.games)):
                raise OptionError(f"option {option.name!r} is declared twice for the same game")
            seen[option.name] = option.games

    def for_game(self, game: str | None) -> dict[str, OptionSpec]:
        """The options that exist when playing ``game`` (None: every declaration), by name."""
        return {option.name: option for option in self.options if option.applies_to(game)}

    def check(self, given: Mapping[str, Any], agent: str, game: str | None = None) -> None:
        """Raise ``OptionError`` (one line) for the first option ``agent`` does not accept in ``game``."""
        known = self.for_game(game)
        for key, value in given.items():
            option = known.get(key)
            if option is None:
                raise OptionError(self.unknown(key, agent, game))
            problem = option.value_problem(value)
            if problem:
                raise OptionError(f"option {key!r} of agent {agent!r}: {problem}, got {_show(value)}")

    def unknown(self, key: str, agent: str, game: str | None = None) -> str:
        """The message for an option ``agent`` does not have: a did-you-mean, and what it does have."""
        known = self.for_game(game)
        if not self.options:
            return f"agent {agent!r} takes no options, got {key!r}"
        where = f" in {game}" if game else ""
        elsewhere = sorted({name for option in self.options if option.name == key for name in option.games})
        other = f"; {key!r} is an option for {', '.join(elsewhere)}" if elsewhere else ""
        if not known:  # options for other games only: say which game's option this is
            return f"agent {agent!r} has no option {key!r}{where} (it takes none{where}{other})"
        close = closest(key, known)
        hint = f"; did you mean {close!r}?" if close else other
        return f"agent {agent!r} has no option {key!r}{where}{hint} (its options: {', '.join(sorted(known))})"

    def parse(self, key: str, text: str, game: str | None = None) -> Any:
        """A value typed on the command line (``--option key=text``) as the option's type, before ``check``.

        A ``str`` option takes the text as it is; other options read it as JSON (``80``, ``0.5``, ``true``),
        keeping the text when it is not JSON, so that ``check`` names the wrong type.
        """
        option = self.for_game(game).get(key)
        if option is not None and option.type == "str":
            return text
        try:
            return json.loads(text)
        except ValueError:
            return text

    def to_json(self) -> list[dict[str, Any]]:
        """Plain JSON data: one object per option."""
        return [option.to_json() for option in self.options]

    @classmethod
    def from_json(cls, data: Any) -> AgentOptions:
        """Options from ``to_json`` data (e.g. reported by a process that imported the plugin)."""
        if not isinstance(data, list):
            raise OptionError(f"agent options must be a list, not {type(data).__name__}")
        return cls(tuple(OptionSpec.from_json(item) for item in data))


NO_OPTIONS = AgentOptions()
"""What an agent that declares nothing accepts: no options at all."""


def parse_assignments(pairs: list[str] | None, what: str, example: str = "iterations=80") -> list[tuple[str, str]]:
    """``["k=v", ...]`` from a command line as (key, text) pairs; ``OptionError`` naming ``what`` (and showing
    ``example``, an assignment of that flag's kind) if malformed."""
    parsed = []
    for pair in pairs or ():
        key, equals, text = pair.partition("=")
        if not equals or not key.strip():
            raise OptionError(f"{what} {pair!r}: expected KEY=VALUE, e.g. {example}")
        parsed.append((key.strip(), text))
    return parsed


def _number(value: float) -> str:
    return f"{value:g}"


def _show(value: Any) -> str:
    """A value as a config or command line writes it: ``"80"``, ``80``, ``true``, ``[1, 2]``."""
    return json.dumps(value, default=repr)
