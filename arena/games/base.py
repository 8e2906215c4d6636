"""The imperfect-information game interface that every game module implements.

The referee drives a game only through this interface; agents never see a
``GameState``.  A game module exposes one ``Game`` object which

* declares its ``GameInfo`` up front (versioned id, player counts, options);
* builds an initial ``GameState`` from a seed, or from a scripted list of
  chance outcomes (an explicit deal, die rolls...);
* makes per-seat observations (``GameState.observation``): the only place where
  hidden information is removed;
* samples complete hidden states consistent with an observation
  (``Game.sample_state``), for search agents.

Actions are JSON values: a string, or a tuple of strings (Lovat's keep).
Chance outcomes are JSON objects ``{"kind": ..., "value": ...}`` logged in the
order they happen, so that a record can replay a game exactly.
"""

from __future__ import annotations

import dataclasses
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

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


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One configurable game option."""

    name: str  # key used in configs, records and on the command line
    default: Any  # value used when the option is not given
    choices: tuple[Any, ...] | None  # allowed values, or None for any integer >= minimum
    minimum: int | None  # smallest allowed integer when choices is None
    description: str  # one line for --help and `arena games`
    maximum: int | None = None  # largest allowed integer when choices is None (None: no bound)


@dataclass(frozen=True, slots=True)
class GameInfo:
    """What a game declares up front, before any state exists."""

    id: str  # versioned id, e.g. "lovat-v1"; bumped on any rules change
    name: str  # short name used on the command line, e.g. "lovat"
    title: str  # human title, e.g. "Lovat"
    player_counts: tuple[int, ...]  # allowed numbers of seats
    options: tuple[OptionSpec, ...]  # configurable options besides the player count
    simultaneous_phases: tuple[str, ...]  # phases in which several seats decide at once, unseen
    chance: tuple[str, ...]  # kinds of chance outcome the game logs, e.g. ("dealer", "deal", "die")
    default_players: int | None = None  # player count when none is given (default: the first allowed)

    def resolve_options(self, players: int | None, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Return a complete, validated option dict including ``players``.

        Raises ``InvalidSetup`` with a one-line message naming the bad option.
        """
        given = dict(options or {})
        if players is None:
            players = given.pop("players", self.default_players or self.player_counts[0])
        else:
            given.pop("players", None)
        if isinstance(players, bool) or not isinstance(players, int) or players not in self.player_counts:
            allowed = ", ".join(map(str, self.player_counts))
            raise InvalidSetup(f"{self.title} is played by {allowed} players, not {players!r}")
        resolved: dict[str, Any] = {"players": players}
        known = {spec.name: spec for spec in self.options}
        for key in given:
            if key not in known:
                raise InvalidSetup(f"unknown {self.title} option {key!r} (known: {', '.join(['players', *known])})")
        for spec in self.options:
            value = given.get(spec.name, spec.default)
            if spec.choices is not None and value not in spec.choices:
                raise InvalidSetup(f"option {spec.name!r} must be one of {list(spec.choices)}, not {value!r}")
            if spec.choices is None and (
                isinstance(value, bool) or not isinstance(value, int) or value < (spec.minimum or 0)
            ):
                raise InvalidSetup(f"option {spec.name!r} must be an integer >= {spec.minimum or 0}, not {value!r}")
            if spec.choices is None and spec.maximum is not None and value > spec.maximum:
                raise InvalidSetup(f"option {spec.name!r} must be an integer from {spec.minimum or 0} to "
                                   f"{spec.maximum}, not {value!r}")
            resolved[spec.name] = value
        return resolved


@dataclass(frozen=True, slots=True)
class Result:
    """The outcome of a finished game."""

    scores: tuple[int, ...]  # per seat: points (Lovat) or chips (Lorum)
    ranks: tuple[int, ...]  # per seat: 1 is best; equal results share a rank (competition ranking)
    details: Mapping[str, Any] = field(default_factory=dict)  # game-specific JSON, e.g. tie-breaks, pot

    def to_json(self) -> dict[str, Any]:
        """Return the result as plain JSON data."""
        return {"scores": list(self.scores), "ranks": list(self.ranks), "details": to_json(self.details)}


def competition_ranks(keys: Sequence[Any]) -> tuple[int, ...]:
    """Rank seats by ``keys`` (higher is better); equal keys share the best rank ("1224")."""
    return tuple(1 + sum(1 for other in keys if other > key) for key in keys)


class Chance:
    """The game's single source of randomness (L-18, S-19).

    Each outcome is drawn from the seeded RNG unless a scripted outcome of the
    same kind is waiting, in which case the script is used; either way the
    outcome is appended to ``log``.  A record's chance list is this log, so
    replaying it reproduces the game without the seed, and a hand-written
    record can script just the deal and leave the rest to the seed.

    ``copy()`` is copy-on-write, because search clones states far more often
    than it draws from them: the copy shares the RNG, the script and the log
    with the original, and whichever side first touches one of them (through
    ``rng``, ``script``, ``log``, ``scripted``, ``record`` or ``shuffle``) takes
    its own copy of that part then.  Copying the Mersenne Twister's state
    (``getstate``/``setstate``) costs about 11 µs, fifty times the rest of a
    copy, and most search clones never draw again.  Do not keep a reference to
    ``rng`` across a ``copy()``: draw through the attribute.
    """

    __slots__ = ("_rng", "_script", "_log", "_shared")

    def __init__(self, seed: int, script: Sequence[ChanceOutcome] = ()) -> None:
        self._rng = random.Random(seed)
        self._script = list(reversed([dict(outcome) for outcome in script]))
        self._log: list[ChanceOutcome] = []
        self._shared = 0  # bit per part that may be shared with a copy: _RNG, _SCRIPT, _LOG

    # -- the three parts, each copied on first use after a ``copy()`` ---------------------------

    @property
    def rng(self) -> random.Random:
        """The seeded ``random.Random`` (this object's own: copied first if it was shared)."""
        if self._shared & _RNG:
            # Random.__new__ skips __init__'s seeding from os.urandom (half the cost); setstate sets everything.
            twin = _new_random(random.Random) if type(self._rng) is random.Random else random.Random()
            twin.setstate(self._rng.getstate())
            self._rng = twin
            self._shared &= ~_RNG
        return self._rng

    @rng.setter
    def rng(self, value: random.Random) -> None:
        self._rng = value
        self._shared &= ~_RNG

    @property
    def script(self) -> list[ChanceOutcome]:
        """Scripted outcomes still to come, the next one last."""
        if self._shared & _SCRIPT:
            self._script = list(self._script)
            self._shared &= ~_SCRIPT
        return self._script

    @script.setter
    def script(self, value: list[ChanceOutcome]) -> None:
        self._script = value
        self._shared &= ~_SCRIPT

    @property
    def log(self) -> list[ChanceOutcome]:
        """Every outcome so far, in order: ``{"kind": ..., "value": <JSON>}``."""
        if self._shared & _LOG:
            self._log = list(self._log)
            self._shared &= ~_LOG
        return self._log

    @log.setter
    def log(self, value: list[ChanceOutcome]) -> None:
        self._log = value
        self._shared &= ~_LOG

    # -- drawing and recording ------------------------------------------------------------------

    def scripted(self, kind: str) -> Any | None:
        """Pop the next scripted outcome if it is of ``kind``; ``None`` when the script is exhausted."""
        if not self._script:  # an empty script is never written to, shared or not
            return None
        script = self.script
        if script[-1].get("kind") != kind:
            raise InvalidSetup(
                f"chance outcome {len(self._log)} should be {kind!r}, the record has {script[-1].get('kind')!r}"
            )
        value = script.pop().get("value")
        if value is None:  # None is reserved for "not scripted"
            raise InvalidSetup(f"chance outcome {len(self._log)} ({kind!r}) has no value")
        return value

    def record(self, kind: str, value: Any) -> Any:
        """Append an outcome to the log and return its value."""
        self.log.append({"kind": kind, "value": _json_copy(value)})
        return value

    def shuffle(self, items: list[Any]) -> None:
        """Shuffle ``items`` in place exactly as ``rng.shuffle(items)`` does: the same draws, the same order.

        CPython's ``Random.shuffle`` calls ``_randbelow(i + 1)`` for ``i`` from
        ``len - 1`` down to 1, and ``_randbelow(n)`` draws ``getrandbits(n.bit_length())``
        until the result is below ``n``.  Inlining that loop halves the cost of a
        deal.  ``_SHUFFLE_MATCHES`` checks at import that it still matches this
        Python's ``shuffle``; if not (or for an RNG of another class), ``rng.shuffle`` is used.
        """
        rng = self.rng
        if not _SHUFFLE_MATCHES or type(rng) is not random.Random:
            rng.shuffle(items)
            return
        _inline_shuffle(rng, items)

    def copy(self) -> Chance:
        """An independent copy with the same RNG position, script and log (copy-on-write, see the class)."""
        twin = _new_chance(Chance)
        twin._rng = self._rng
        twin._script = self._script
        twin._log = self._log
        twin._shared = self._shared = _ALL_PARTS
        return twin


_RNG, _SCRIPT, _LOG = 1, 2, 4
_ALL_PARTS = _RNG | _SCRIPT | _LOG
_new_chance = object.__new__
_new_random = random.Random.__new__

_BIT_LENGTHS: tuple[int, ...] = tuple((i + 1).bit_length() for i in range(1024))
"""``(i + 1).bit_length()`` by ``i``: the bits ``_randbelow(i + 1)`` draws."""

_JSON_SCALARS = frozenset({str, int, float, bool, type(None)})


def _inline_shuffle(rng: random.Random, items: list[Any]) -> None:
    """``rng.shuffle(items)`` with ``_randbelow`` inlined (see ``Chance.shuffle``)."""
    getrandbits = rng.getrandbits
    bits = _BIT_LENGTHS
    for i in range(len(items) - 1, 0, -1):
        if i >= 1024:
            j = rng._randbelow(i + 1)  # type: ignore[attr-defined]
        else:
            k = bits[i]
            j = getrandbits(k)
            while j > i:
                j = getrandbits(k)
        items[i], items[j] = items[j], items[i]


def _shuffle_matches() -> bool:
    """Whether ``_inline_shuffle`` reproduces this Python's ``Random.shuffle`` (checked once at import)."""
    for seed, size in ((0, 2), (1, 32), (2, 80), (3, 33), (4, 5)):
        ours, theirs = random.Random(seed), random.Random(seed)
        a, b = list(range(size)), list(range(size))
        _inline_shuffle(ours, a)
        theirs.shuffle(b)
        if a != b or ours.getstate() != theirs.getstate():
            return False
    return True


_SHUFFLE_MATCHES = _shuffle_matches()


def _json_copy(value: Any) -> Any:
    """``to_json(value)``, with a fast path for the flat lists of strings and numbers that deals are made of."""
    kind = type(value)
    if kind in _JSON_SCALARS:
        return value
    if kind is list or kind is tuple:
        if _JSON_SCALARS.issuperset(map(type, value)):
            return list(value)
        return [_json_copy(item) for item in value]
    return to_json(value)


class GameState(ABC):
    """A complete game state, hidden information included.

    Only the referee and search agents' private simulations hold states;
    agents receive ``observation(seat)`` instead.
    """

    players: int
    chance: Chance

    @abstractmethod
    def to_move(self) -> tuple[int, ...]:
        """Seats whose decision is pending, ascending; several only in a simultaneous phase; () when over."""

    @abstractmethod
    def legal_actions(self, seat: int) -> tuple[Action, ...]:
        """The legal actions of ``seat``; may be () when the legal set is described by a rule (Lovat's keep)."""

    @abstractmethod
    def is_legal(self, seat: int, action: Action) -> bool:
        """Whether ``seat`` may take ``action`` now (works for rule-described sets too)."""

    @abstractmethod
    def apply(self, seat: int, action: Action) -> None:
        """Apply ``action`` by ``seat``; raise ``IllegalAction`` with a clear message if it is not legal."""

    @abstractmethod
    def is_over(self) -> bool:
        """Whether the game has ended."""

    @abstractmethod
    def result(self) -> Result:
        """The result of a finished game."""

    @abstractmethod
    def observation(self, seat: int) -> Observation:
        """Everything ``seat`` may know, and nothing else, including its legal actions."""

    @abstractmethod
    def clone(self) -> GameState:
        """A deep, independent copy (including the RNG position) for search."""

    @abstractmethod
    def events(self, start: int = 0) -> list[dict[str, Any]]:
        """The public log of the game so far from event ``start`` on, for readable logs and agents' event feeds.

        A new list (the event dicts must not be mutated).  The referee asks after every
        decision for the events since the last ask, so ``start`` saves copying the whole log.
        """


@dataclass(frozen=True, slots=True)
class Observation:
    """What one seat sees at one decision.  Immutable and JSON-serialisable.

    Game modules subclass it with their own fields (all of JSON types:
    ints, strings, bools, None and tuples of them).
    """

    game: str  # versioned game id
    seat: int  # the observing seat
    players: int  # number of seats
    phase: str  # game-specific phase name, e.g. "keep", "declare", "bid", "play"
    legal: tuple[Action, ...]  # the legal actions (empty when a rule describes them, see subclass)

    def to_json(self) -> dict[str, Any]:
        """Return the observation as plain JSON data (tuples become lists)."""
        return {f.name: to_json(getattr(self, f.name)) for f in dataclasses.fields(self)}


class Game(ABC):
    """A game module: info, state construction and hidden-state sampling."""

    info: ClassVar[GameInfo]
    observation_type: ClassVar[type[Observation]]

    @abstractmethod
    def new_state(
        self,
        seed: int,
        options: Mapping[str, Any] | None = None,
        script: Sequence[ChanceOutcome] = (),
    ) -> GameState:
        """A new game; ``options`` must include ``players``; ``script`` fixes chance outcomes (a deal...)."""

    @abstractmethod
    def sample_state(self, observation: Observation, rng: random.Random) -> GameState:
        """A complete state consistent with ``observation``, uniform over the hidden deals that fit it.

        The returned state's future chance is drawn from ``rng``.
        """

    @abstractmethod
    def observation_from_json(self, data: Mapping[str, Any]) -> Observation:
        """Rebuild an observation from ``Observation.to_json()`` output (for isolated agents)."""

    @abstractmethod
    def describe_event(self, event: Mapping[str, Any]) -> str:
        """One human-readable line for a public event (used by `arena play` logs)."""

    @abstractmethod
    def describe_action(self, observation: Observation, action: Action) -> str:
        """A short human-readable label for an action (used by the human player's menu)."""

    def action_error(self, observation: Observation, action: Action) -> str | None:
        """Why ``action`` is not legal for ``observation`` (one line), or ``None`` if it is.

        Works from the observation alone, so isolated referees, the conformance
        kit and the human player can check an action without a state.  Games
        whose legal set is described by a rule (Lovat's keep) override this.
        """
        if action in observation.legal:
            return None
        return f"{action!r} is not one of the legal actions {list(observation.legal)}"

    def describe_observation(self, observation: Observation, names: Sequence[str] = ()) -> list[str]:
        """Lines showing a seat what it knows, for a person playing in the terminal.

        ``names`` labels the seats (``names[seat]``, e.g. the agents' names); seats past its end are
        shown by number alone.  Games override this with a readable view (hand grouped and sorted, the
        trick so far, why some cards are not allowed).
        """
        return [f"{key}: {value}" for key, value in observation.to_json().items() if key != "legal"]

    def describe_hand(self, observation: Observation) -> str | None:
        """The seat's own cards as one readable line (for logs that show hands), or None if it holds none."""
        return None

    def parse_action(self, observation: Observation, text: str) -> Action | None:
        """The action a person typed as ``text``, or None if it names none.

        By default the legal action whose text equals ``text`` ignoring case; games whose legal set is
        described by a rule (Lovat's keep) override this to read such an action.  The result is still
        checked with ``action_error`` before it is played.
        """
        wanted = text.strip().casefold()
        for action in observation.legal:
            if isinstance(action, str) and action.casefold() == wanted:
                return action
        return None


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
    """Convert JSON lists back to tuples, recursively (the inverse of ``to_json`` for observation fields)."""
    if isinstance(value, list):
        return tuple(from_json(item) for item in value)
    if isinstance(value, dict):
        return {key: from_json(item) for key, item in value.items()}
    return value


def fast_constructor(cls: type) -> Callable[..., Any]:
    """A function equal to ``cls(*values)`` for a frozen, slotted dataclass, about seven times faster.

    The frozen dataclass's ``__init__`` stores each field through
    ``object.__setattr__`` (about 90 ns a field: 3 µs for an observation's 31).
    Instead the function creates an instance of a private subclass that adds no
    slots and keeps ``object``'s plain ``__setattr__``, so each field is a plain
    slot store (about 10 ns), then makes it a ``cls`` by ``__class__``
    assignment (allowed: the layouts are identical).  The result is an ordinary
    ``cls`` instance, equal to and indistinguishable from ``cls(*values)``;
    that is checked once here.
    """
    names = [field.name for field in dataclasses.fields(cls)]
    builder = type(
        f"_{cls.__name__}Builder",
        (cls,),
        {"__slots__": (), "__setattr__": object.__setattr__, "__delattr__": object.__delattr__},
    )
    stores = "".join(f"    obj.{name} = {name}\n" for name in names)
    source = (
        f"def build({', '.join(names)}):\n    obj = new(builder)\n{stores}    obj.__class__ = cls\n    return obj\n"
    )
    namespace: dict[str, Any] = {"new": object.__new__, "builder": builder, "cls": cls}
    exec(source, namespace)
    build = namespace["build"]
    sample = tuple(range(len(names)))
    made = build(*sample)
    if type(made) is not cls or made != cls(*sample) or dataclasses.astuple(made) != sample:  # type: ignore[call-overload]
        raise AssertionError(f"fast_constructor({cls.__name__}) does not reproduce the dataclass constructor")
    return build


def seat_label(seat: int, names: Sequence[str] = ()) -> str:
    """``"seat 2 (greedy)"``, or ``"seat 2"`` when ``names`` does not name that seat: how views name seats."""
    return f"seat {seat} ({names[seat]})" if 0 <= seat < len(names) and names[seat] else f"seat {seat}"
