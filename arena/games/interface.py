"""The imperfect-information game interface that every game module implements.

The referee drives a game only through this interface; agents never see a
``GameState``.  A game module exposes one ``Game`` object which

* declares its ``GameInfo`` up front (versioned id, player counts, options with
  their help, the unit of its score, its uniform random policy);
* builds an initial ``GameState`` from a seed, or from a scripted list of
  chance outcomes (an explicit deal, die rolls...);
* makes per-seat observations (``GameState.observation``): the only place where
  hidden information is removed;
* samples complete hidden states consistent with an observation
  (``Game.sample_state``), for search agents and the conformance kit;
* describes its deck (``Game.deck``) and its events and actions for people.

``arena.conformance.games.check_game`` checks all of this for any game (docs/writing-games.md).
"""

from __future__ import annotations

import dataclasses
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from arena.games.chance import RANDBELOW_MATCHES
from arena.games.luck import LuckSpec
from arena.games.types import Action, ChanceOutcome, InvalidSetup, to_json

if TYPE_CHECKING:
    from arena.conformance.coverage import CoveragePlan
    from arena.games.chance import Chance
    from arena.games.drawing import CardFace, Table


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One configurable game option: an integer in a range, or one of a few choices.

    The CLI exposes every option of every game generically (``arena play GAME --game-option NAME=VALUE``,
    or ``--NAME VALUE``), reading the value with ``parse`` and listing it with ``help_line``.
    """

    name: str  # key used in configs, records and on the command line
    default: Any  # value used when the option is not given
    choices: tuple[Any, ...] | None  # allowed values, or None for any integer >= minimum
    minimum: int | None  # smallest allowed integer when choices is None
    description: str  # one line for --help and `arena games`
    maximum: int | None = None  # largest allowed integer when choices is None (None: no bound)

    @property
    def kind(self) -> str:
        """``"int"`` for an integer in a range, ``"choice"`` for one of ``choices``."""
        return "int" if self.choices is None else "choice"

    def help_line(self) -> str:
        """``deals (integer 1 to 1000, default 4): number of deals ...``: one line for help and listings."""
        if self.choices is not None:
            allowed = "one of " + ", ".join(map(str, self.choices))
        elif self.maximum is not None:
            allowed = f"integer {self.minimum or 0} to {self.maximum}"
        else:
            allowed = f"integer >= {self.minimum or 0}"
        return f"{self.name} ({allowed}, default {self.default}): {self.description}"

    def parse(self, text: str) -> Any:
        """The value a person typed (``"8"``, a choice's text); ``InvalidSetup`` naming the option otherwise.

        Range checks are ``GameInfo.resolve_options``'s: this only reads the text as the option's type.
        """
        if self.choices is not None:
            for choice in self.choices:
                if str(choice) == text.strip():
                    return choice
            raise InvalidSetup(f"option {self.name!r} must be one of {', '.join(map(str, self.choices))}, "
                               f"not {text!r}")
        try:
            return int(text)
        except ValueError:
            raise InvalidSetup(f"option {self.name!r} must be an integer, not {text!r}") from None


@dataclass(frozen=True, slots=True)
class ScoreSpec:
    """What a seat's score counts, and what the score method of the leaderboards divides it by.

    A match's score is per game unless ``per_option`` names an option (e.g. ``deals``) whose value divides
    it, so that tournaments of different lengths compare (``arena.ratings.score``'s ``divisor``).
    """

    unit: str = "points"  # what the scores count, plural: "points", "chips"
    per_option: str | None = None  # option whose value divides a match's score, or None for per game
    per: str = "game"  # what one part of the divisor is called, singular: "deal" (with per_option)

    @property
    def label(self) -> str:
        """``"chips per deal"``, ``"points per game"``: the score column's unit."""
        return f"{self.unit} per {self.per}"

    def divisor(self, options: Mapping[str, Any]) -> int | None:
        """The number a match's score is divided by under ``options``, or None (per game)."""
        if self.per_option is None:
            return None
        value = options.get(self.per_option)
        return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


@dataclass(frozen=True, slots=True)
class Deck:
    """A game's cards for people (``arena cards GAME``): a table, and one JSON object per card."""

    title: str  # the table's title, e.g. "Lovat deck (80 cards)"
    columns: tuple[tuple[str, str], ...]  # (heading, "left" or "right") per column
    rows: tuple[tuple[str, ...], ...]  # one row of cells per card, in the columns' order
    cards: tuple[Mapping[str, Any], ...]  # one JSON object per card (``arena cards GAME --json``)
    caption: str = ""  # a line under the table: how card names read


RandomPolicy = Callable[["Observation", random.Random], Action]
"""A game's random policy (``GameInfo.random_action``): an action for an observation, drawn from ``rng`` alone."""


def uniform_or(rule_policy: RandomPolicy) -> RandomPolicy:
    """A policy uniform over ``observation.legal`` when it lists actions, ``rule_policy`` when it is empty.

    For a game whose legal set is described by a rule in some phase (Lovat's keep): the listed phases
    draw here, in the same call (the random agent's every decision comes through, so one call fewer
    counts), and the rule-described ones go to ``rule_policy``.
    """

    # The class whose draws the inlined choice below reproduces (RANDBELOW_MATCHES checked it at import), or
    # None if it does not: one test per call, of a closure variable.
    inlined = random.Random if RANDBELOW_MATCHES else None

    def policy(observation: Observation, rng: random.Random) -> Action:
        legal = observation.legal
        if not legal:
            return rule_policy(observation, rng)
        if type(rng) is not inlined:
            return rng.choice(legal)
        # rng.choice(legal) inlined: chance.randbelow's loop, written out because its two Python calls (or
        # randbelow's one) cost more than the draw. RANDBELOW_MATCHES checked both against this Python.
        n = len(legal)
        k = n.bit_length()
        j = rng.getrandbits(k)
        while j >= n:
            j = rng.getrandbits(k)
        return legal[j]

    policy.__doc__ = f"Uniform over the listed legal actions, else {rule_policy.__name__}."
    return policy


def _nothing_listed(observation: Observation, rng: random.Random) -> Action:
    """What ``uniform_random_action`` does when no legal action is listed: say the game needs its own policy."""
    raise ValueError(f"no legal action is listed in phase {observation.phase!r}: a game whose legal set is "
                     "described by a rule must declare its own GameInfo.random_action")


uniform_random_action: RandomPolicy = uniform_or(_nothing_listed)
uniform_random_action.__name__ = uniform_random_action.__qualname__ = "uniform_random_action"
uniform_random_action.__doc__ = """A uniformly random legal action: the default of ``GameInfo.random_action``.

For games whose legal actions are all listed in ``observation.legal``; a game whose legal set is
described by a rule in some phase (an empty ``legal``) declares its own policy (``uniform_or`` helps).
"""


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
    score: ScoreSpec = ScoreSpec()  # what the scores count and what the mean score is per
    luck: LuckSpec | None = None  # chance after the deal that the ``luck`` rating method takes out (None: none)
    # The uniform random policy: the substitute after a fault and the agent `random` play it (arena.seating.substitute).
    # Uniform over the legal actions, drawing only from ``rng`` so that a seeded agent is deterministic.
    random_action: Callable[[Observation, random.Random], Action] = field(
        default=uniform_random_action, compare=False, repr=False)

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
            problem = _option_problem(spec, value)
            if problem is not None:
                raise InvalidSetup(problem)
            resolved[spec.name] = value
        return resolved

    def is_resolved(self, options: Mapping[str, Any] | None) -> bool:
        """Whether ``options`` is already what ``resolve_options`` returns: a dict of ``players`` and every
        option, each valid. A tournament hands every game such a dict, and checking it costs less than
        resolving it again (``Game.new_state``'s fast path)."""
        if type(options) is not dict or len(options) != len(self.options) + 1:
            return False
        players = options.get("players")
        if type(players) is not int or players not in self.player_counts:
            return False
        return all(spec.name in options and _option_problem(spec, options[spec.name]) is None
                   for spec in self.options)


def _option_problem(spec: OptionSpec, value: Any) -> str | None:
    """Why ``value`` is not a valid value of the option ``spec``, in one line; None if it is."""
    if spec.choices is not None:
        return None if value in spec.choices else (
            f"option {spec.name!r} must be one of {list(spec.choices)}, not {value!r}")
    if isinstance(value, bool) or not isinstance(value, int) or value < (spec.minimum or 0):
        return f"option {spec.name!r} must be an integer >= {spec.minimum or 0}, not {value!r}"
    if spec.maximum is not None and value > spec.maximum:
        return f"option {spec.name!r} must be an integer from {spec.minimum or 0} to {spec.maximum}, not {value!r}"
    return None


@dataclass(frozen=True, slots=True)
class Result:
    """The outcome of a finished game."""

    scores: tuple[int, ...]  # per seat, in the unit of the game's ``GameInfo.score``
    ranks: tuple[int, ...]  # per seat: 1 is best; equal results share a rank (competition ranking)
    details: Mapping[str, Any] = field(default_factory=dict)  # game-specific JSON, e.g. tie-breaks, pot

    def to_json(self) -> dict[str, Any]:
        """Return the result as plain JSON data."""
        return {"scores": list(self.scores), "ranks": list(self.ranks), "details": to_json(self.details)}


def competition_ranks(keys: Sequence[Any]) -> tuple[int, ...]:
    """Rank seats by ``keys`` (higher is better); equal keys share the best rank ("1224")."""
    return tuple(1 + sum(1 for other in keys if other > key) for key in keys)


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
    def describe_event(self, event: Mapping[str, Any], names: Sequence[str] = ()) -> str:
        """One human-readable sentence for a public event (``arena play`` and ``arena replay --log``, the site).

        ``names`` labels the seats as ``seat_label`` does.  Every game writes its lines alike: a sentence
        that starts with a capital and ends with a full stop, naming each seat it mentions with its label.
        """

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

    def deck(self) -> Deck | None:
        """The game's cards for ``arena cards`` (None for a game without a deck to show)."""
        return None

    def table(self, state: GameState, viewer: int | None = None, hands: bool = True,
              names: Sequence[str] = ()) -> Table | None:
        """What is on the table in ``state`` (``arena.games.drawing``), or None for a game that draws nothing.

        ``viewer`` is the seat whose point of view it is (its own hand face up, every other hand face down), or
        None for a spectator, who sees every hand with ``hands`` and none without.  A game builds the scene
        from its seats' observations, so a seat's view holds nothing its observation does not.
        """
        return None

    def card_faces(self) -> Mapping[str, CardFace]:
        """How each card id a ``table`` names looks (``arena.games.drawing.CardFace``)."""
        return {}

    def draw(self, state: GameState, viewer: int | None = None, hands: bool = True, names: Sequence[str] = (),
             title: str = "") -> str | None:
        """``state`` as an SVG document from ``viewer``'s point of view (see ``table``), or None if the game
        draws nothing.  Every text in it is escaped (names and labels may come from agents' authors)."""
        from arena.games.drawing import svg

        scene = self.table(state, viewer, hands, names)
        return None if scene is None else svg(scene, self.card_faces(), title)

    def coverage_plan(self) -> CoveragePlan | None:
        """The cases ``arena check-agent`` drives an agent through and how to reach them
        (``arena.conformance.coverage``).

        None (the default): the check plays whole games and shows no coverage table.
        """
        return None

    def describe_hand(self, observation: Observation) -> str | None:
        """The seat's own cards as one readable line (for logs that show hands), or None if it holds none.

        Logs re-read a seat's hand only after that seat's own decision or a new chance outcome (a deal): a
        game whose hands change otherwise must say so here and in ``arena/records/log.py``.
        """
        return None

    def describe_seat_hand(self, state: GameState, seat: int) -> str | None:
        """``describe_hand`` of ``seat``'s observation in ``state``: a game may read it from the state itself.

        A site build describes a hand at nearly every step of every match, and an observation made only to be
        described costs more than the line; an override must return exactly what ``describe_hand`` does (the
        conformance kit, ``arena.conformance.games``, compares them at every decision it plays).
        """
        return self.describe_hand(state.observation(seat))

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


def log_sentence(text: str) -> str:
    """``text`` as a log line: first letter capitalised, ending with a full stop (how every game's log reads)."""
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def plural(count: int, word: str) -> str:
    """``"1 point"``, ``"2 points"``, ``"0 counters"``: a count and an English noun that takes an s."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def seat_label(seat: int, names: Sequence[str] = ()) -> str:
    """``"seat 2 (greedy)"``, or ``"seat 2"`` when ``names`` does not name that seat: how views name seats."""
    return f"seat {seat} ({names[seat]})" if 0 <= seat < len(names) and names[seat] else f"seat {seat}"
