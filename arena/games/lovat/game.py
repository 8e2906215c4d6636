"""The Lovat game module: declared info, state construction, sampling and readable text."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from arena.games.base import (
    Action,
    Chance,
    ChanceOutcome,
    Deck,
    Game,
    GameInfo,
    LuckSpec,
    Observation,
    ScoreSpec,
    from_json,
    log_sentence,
    plural,
    seat_label,
    uniform_or,
    uniform_random_action,
)
from arena.games.lovat import view
from arena.games.lovat.deal import deal_game
from arena.games.lovat.deck import COLOUR_INDEX, COLOURS, LEVEL, STRENGTH, deck_json
from arena.games.lovat.keeps import random_keep
from arena.games.lovat.observation import LovatObservation
from arena.games.lovat.rules import (
    BLANK,
    COLOUR,
    COUNTER,
    DECLARE,
    FACES,
    GAME_ID,
    KEEP,
    PASS,
    PLAY,
    VOID,
    keep_problem,
    variant_for,
)
from arena.games.lovat.sampler import sample_state
from arena.games.lovat.state import LovatState

if TYPE_CHECKING:
    from arena.conformance.coverage import CoveragePlan
    from arena.games.base import GameState
    from arena.games.drawing import CardFace, Table


def random_keep_action(observation: Observation, rng: random.Random) -> Action:
    """A keep uniform over every legal keep (L-5): the keep is the one phase whose legal set is a rule."""
    if observation.phase == KEEP and isinstance(observation, LovatObservation):
        return random_keep(observation.dealt, observation.level_sum, observation.min_size, observation.max_size, rng)
    return uniform_random_action(observation, rng)  # nothing listed outside the keep: its error


random_action = uniform_or(random_keep_action)
"""Lovat's uniform random policy: uniform over ``legal`` where it is listed, the keep by ``random_keep_action``."""


INFO = GameInfo(
    id=GAME_ID,
    name="lovat",
    title="Lovat",
    player_counts=(3, 4, 5, 6),  # L-4
    options=(),  # the dealer comes from chance (L-2), everything else from the variant table
    simultaneous_phases=(KEEP,),  # L-5
    chance=("dealer", "deal", "die"),  # L-2, L-3 (and L-6 redeals), L-14
    default_players=4,  # the rule text is written for four players
    score=ScoreSpec(unit="points"),  # points per game (L-16)
    # The die round's rolls (L-14), which the rotations of a deal do not share; greedy's play-outs value them
    # (deterministic, and quick enough: docs/ratings.md, "Luck").
    luck=LuckSpec(faces=(("die", FACES),), reference="greedy", text="Lovat's die (L-14)"),
    random_action=random_action,
)


class LovatGame(Game):
    """Lovat for 3-6 players (rules as implemented: docs/rules/lovat.md)."""

    info: ClassVar[GameInfo] = INFO
    observation_type: ClassVar[type[Observation]] = LovatObservation

    def new_state(
        self,
        seed: int,
        options: Mapping[str, Any] | None = None,
        script: Sequence[ChanceOutcome] = (),
    ) -> LovatState:
        """A new game in the keep phase; ``script`` may fix the dealer, deals and die rolls (L-18)."""
        info = self.info
        resolved = options if info.is_resolved(options) else info.resolve_options(None, options)
        variant = variant_for(resolved["players"])  # type: ignore[index]
        return deal_game(variant, Chance(seed, script))

    def sample_state(self, observation: Observation, rng: random.Random) -> LovatState:
        if not isinstance(observation, LovatObservation):
            raise TypeError(f"expected a LovatObservation, got {type(observation).__name__}")
        return sample_state(observation, rng)

    def observation_from_json(self, data: Mapping[str, Any]) -> LovatObservation:
        """Rebuild an observation from ``to_json()`` output (lists back to tuples)."""
        expected = set(LovatObservation.__dataclass_fields__)
        if set(data) != expected:
            missing, extra = sorted(expected - set(data)), sorted(set(data) - expected)
            raise ValueError(f"not a Lovat observation: missing fields {missing}, unknown fields {extra}")
        return LovatObservation(**{key: from_json(value) for key, value in data.items()})

    def describe_event(self, event: Mapping[str, Any], names: Sequence[str] = ()) -> str:
        """One sentence per event naming colours, dice, passes, plays with strength, winners and points."""
        def label(seat: int) -> str:
            return seat_label(seat, names)

        kind = event.get("type")
        who = label(event["seat"]) if "seat" in event else ""
        turn = f"turn {event['turn'] + 1}: " if "turn" in event else ""
        if kind == "misdeal":
            seats = ", ".join(label(seat) for seat in event["seats"])
            line = f"misdeal {event['number']}: {seats} had no legal keep; the dealer redeals (L-6)"
        elif kind == "deal":
            line = (f"{label(event['dealer'])} deals {event['cards_each']} cards to each of {event['players']} "
                    f"players; {label(event['first_player'])} plays first")
        elif kind == "keep_done":
            line = "hands kept: " + ", ".join(
                f"{label(index)} keeps {size} ({plural(counters, 'counter')})"
                for index, (size, counters) in enumerate(zip(event["hand_sizes"], event["counters"])))
        elif kind == "counter_discard" and not event["count"]:
            line = "no counters are discarded at the start (L-8)"
        elif kind == "counter_discard":
            line = f"everyone discards {plural(event['count'], 'counter')}; counters now {event['counters']}"
        elif kind == "die":
            face = event["face"]
            line = f"{turn}{who} rolls the die: " + ("blank: they name the colour" if face == BLANK else face)
        elif kind == "colour":
            line = f"{turn}{who} names {event['colour']}"
        elif kind == "declare":
            forced = " (forced)" if event["forced"] else ""
            if event["decision"] == PASS:
                line = f"{turn}{who} passes{forced}, discarding a counter ({event['counters']} left)"
            else:
                line = f"{turn}{who} will play{forced}"
        elif kind == "play":
            line = f"{turn}{who} plays {event['card']} (level {event['level']}), {event['colour']} {event['strength']}"
        elif kind == "turn_won":
            points = plural(event["points"], "point")
            line = f"{turn}{who} wins with {event['card']} ({event['colour']} {event['strength']}), now {points}"
        elif kind == "void_turn":
            lost = ", ".join(event["discarded_points"]) or "none"
            line = (f"{turn}{who} has no cards: void turn, discards a counter and point cards ({lost}); "
                    "nobody wins (L-12)")
        elif kind == "void_discard":
            what = "a counter" if event["item"] == COUNTER else "a card face down"
            line = f"{turn}{who} discards {what}"
        elif kind == "game_over":
            line = "game over: " + ", ".join(
                f"{label(index)}: {plural(score, 'point')} (levels {levels}), rank {rank}"
                for index, (score, levels, rank) in enumerate(
                    zip(event["scores"], event["level_sums"], event["ranks"])))
        else:
            line = f"{kind}: {dict(event)}"
        return log_sentence(line)

    def action_error(self, observation: Observation, action: Action) -> str | None:
        """Why ``action`` is illegal for ``observation`` (one line), or None; checks the keep rule (L-5)."""
        if observation.phase == KEEP and isinstance(observation, LovatObservation):
            if observation.keep is not None:
                return f"seat {observation.seat} has already kept"
            return keep_problem(action, observation.dealt, variant_for(observation.players))
        return super().action_error(observation, action)

    def describe_observation(self, observation: Observation, names: Sequence[str] = ()) -> list[str]:
        """What the seat knows, as lines for a person at the terminal (``arena/games/lovat/view.py``)."""
        if not isinstance(observation, LovatObservation):
            return super().describe_observation(observation, names)
        return view.describe(observation, names)

    def describe_hand(self, observation: Observation) -> str | None:
        """The seat's cards by level, with its counters (the dealt cards until it has kept)."""
        if not isinstance(observation, LovatObservation):
            return None
        return view.hand_line(observation)

    def parse_action(self, observation: Observation, text: str) -> Action | None:
        """A typed keep (card ids in any order and case), or a menu action by name in any case."""
        if observation.phase == KEEP and isinstance(observation, LovatObservation):
            return view.parse_keep(observation, text)
        return super().parse_action(observation, text)

    def encoding(self, options: Mapping[str, Any]) -> Any:
        """The fixed-size view of a seat that ``arena.env`` trains on (``arena/games/lovat/encoding.py``).

        Imported on first use, so that the engine itself never loads numpy.
        """
        from arena.games.lovat.encoding import encoding

        return encoding(options)

    def coverage_plan(self) -> CoveragePlan:
        """The keep, colour, declarations, plays, void turns and the die round (``arena/games/lovat/coverage.py``)."""
        from arena.games.lovat.coverage import (
            PLAN,  # imports arena.conformance.coverage: only arena check-agent needs it
        )

        return PLAN

    def table(self, state: GameState, viewer: int | None = None, hands: bool = True,
              names: Sequence[str] = ()) -> Table:
        """The table from ``viewer``'s seat or a spectator's (``arena.games.lovat.drawing``)."""
        from arena.games.lovat.drawing import lovat_table

        return lovat_table(state, viewer, hands, names)

    def card_faces(self) -> Mapping[str, CardFace]:
        """Every card's face for drawings."""
        from arena.games.lovat.drawing import FACES

        return FACES

    def deck(self) -> Deck:
        """The 80 cards with level and strength in each colour (``arena cards lovat``)."""
        cards = deck_json()
        rows = tuple((card["id"], str(card["level"]), *(str(card["strengths"][colour]) for colour in COLOURS))
                     for card in cards)
        columns = (("id", "left"), ("level", "right"), *((colour, "right") for colour in COLOURS))
        return Deck(title="Lovat deck (80 cards)", columns=columns, rows=rows, cards=tuple(cards))

    def describe_action(self, observation: Observation, action: Action) -> str:
        """A short label for a menu: the keep's levels and size, a card's strength in the turn's colour."""
        phase = observation.phase
        if phase == KEEP and isinstance(action, tuple):
            levels = sum(LEVEL.get(card_id, 0) for card_id in action)
            return f"keep {' '.join(action)} ({plural(len(action), 'card')}, levels {levels})"
        colour = getattr(observation, "colour", None)
        if phase == COLOUR:
            return f"name {action}"
        if phase == DECLARE:
            return "pass (discard a counter)" if action == PASS else "play a card this turn"
        if phase == PLAY and isinstance(action, str) and action in STRENGTH and colour:
            return f"play {action} (level {LEVEL[action]}, {colour} {STRENGTH[action][COLOUR_INDEX[colour]]})"
        if phase == VOID:
            return "discard a counter" if action == COUNTER else f"discard {action} face down"
        return str(action)


GAME = LovatGame()
"""The Lovat ``Game`` object registered with arena."""
