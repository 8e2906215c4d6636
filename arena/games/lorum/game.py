"""``LorumGame``: Slovak Lorum's ``Game`` object (info, new states, sampling, readable logs)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from arena.games.base import (
    Action,
    ChanceOutcome,
    Deck,
    Game,
    GameInfo,
    Observation,
    OptionSpec,
    ScoreSpec,
    log_sentence,
    plural,
    seat_label,
)
from arena.games.lorum import view
from arena.games.lorum.cards import DECK, INDEX, POINTS, RANK_NAMES, SUIT_NAMES, describe_card
from arena.games.lorum.observation import LorumObservation, observation_from_json
from arena.games.lorum.rules import BIG, GAME_ID, PASS, PLAYERS, REGULAR, SMALL
from arena.games.lorum.sampler import sample_state
from arena.games.lorum.state import LorumState

DEFAULT_DEALS = 4
"""S-16: a game is 4 deals by default, so everyone deals once."""

MAX_DEALS = 1000
"""Most deals in one game: far beyond any real session, short of a game that never ends in a tournament."""

INFO = GameInfo(
    id=GAME_ID,
    name="lorum",
    title="Slovak Lorum",
    player_counts=(PLAYERS,),
    options=(
        OptionSpec(
            name="deals",
            default=DEFAULT_DEALS,
            choices=None,
            minimum=1,
            description="number of deals in a game (S-16; 4 lets everyone deal once)",
            maximum=MAX_DEALS,
        ),
    ),
    simultaneous_phases=(),
    chance=("dealer", "deal"),
    score=ScoreSpec(unit="chips", per_option="deals", per="deal"),  # S-17; per deal, so game lengths compare
)

_CALL_WORDS = {PASS: "passes", SMALL: "bids small", BIG: "bids big"}

if TYPE_CHECKING:
    from arena.conformance.coverage import CoveragePlan
    from arena.games.base import GameState
    from arena.games.drawing import CardFace, Table


class LorumGame(Game):
    """Slovak Lorum for exactly 4 players; see ``docs/rules/lorum.md``."""

    info: ClassVar[GameInfo] = INFO
    observation_type: ClassVar[type[Observation]] = LorumObservation

    def new_state(
        self,
        seed: int,
        options: Mapping[str, Any] | None = None,
        script: Sequence[ChanceOutcome] = (),
    ) -> LorumState:
        """A new game; ``options`` may hold ``players`` (must be 4) and ``deals``; ``script`` fixes chance."""
        info = self.info
        resolved = options if info.is_resolved(options) else info.resolve_options(None, options)
        return LorumState.new(seed, deals=resolved["deals"], script=script)  # type: ignore[index]

    def sample_state(self, observation: Observation, rng: random.Random) -> LorumState:
        """A state consistent with ``observation``, uniform over the hidden deals that fit (see ``sampler``)."""
        return sample_state(observation, rng)  # type: ignore[arg-type]

    def observation_from_json(self, data: Mapping[str, Any]) -> LorumObservation:
        """The exact inverse of ``LorumObservation.to_json()``."""
        return observation_from_json(data)

    def describe_event(self, event: Mapping[str, Any], names: Sequence[str] = ()) -> str:
        """One sentence per public event; trick lines say who played each card."""
        def label(seat: int) -> str:
            return seat_label(seat, names)

        kind = event.get("type")
        if kind == "deal_start":
            line = (f"deal {event['deal']} of {event['deals']}: {label(event['dealer'])} deals; "
                    f"{label(event['first_bidder'])} bids first")
        elif kind == "bid":
            line = f"{label(event['seat'])} {_CALL_WORDS.get(event['call'], event['call'])}"
        elif kind == "contract" and event["contract"] == REGULAR:
            line = f"everybody passed: regular game; {label(event['leader'])} leads"
        elif kind == "contract":
            goal = "to take every trick" if event["contract"] == BIG else "to take no trick"
            line = f"{label(event['bidder'])} plays {event['contract']} ({goal}) and leads"
        elif kind == "play":
            line = f"{label(event['seat'])} plays {event['card']}"
        elif kind == "trick_won":
            cards = ", ".join(f"{label(seat)} {card}" for seat, card in event["cards"])
            points = event["points"]
            line = (f"trick {event['trick']} to {label(event['seat'])}, {plural(points, 'point')}: "
                    f"{cards}")
        elif kind == "deal_end":
            changes = ", ".join(f"{label(seat)} {value:+d}" for seat, value in enumerate(event["changes"]))
            line = (f"deal {event['deal']} settled ({event['case']}): points {event['points']}, chips {changes}; "
                    f"pot {event['pot_before']} -> {event['pot_after']}; balances {event['balances']}")
        elif kind == "game_over":
            line = f"game over: chips {event['scores']}, ranks {event['ranks']}"
            if event["pot"]:
                line += f"; {event['pot']} chips left in the pot (not paid out, S-17)"
        else:
            line = f"{kind}: {dict(event)}"
        return log_sentence(line)

    def describe_observation(self, observation: Observation, names: Sequence[str] = ()) -> list[str]:
        """The deal, contract, chips, the trick so far with seat names, the hand by suit, and why cards are
        barred (``arena/games/lorum/view.py``)."""
        if not isinstance(observation, LorumObservation):
            return super().describe_observation(observation, names)
        return view.describe(observation, names)

    def describe_hand(self, observation: Observation) -> str | None:
        """The seat's cards grouped by suit, each suit from the ace down."""
        if not isinstance(observation, LorumObservation):
            return None
        return view.hand_line(observation.hand)

    def describe_seat_hand(self, state: GameState, seat: int) -> str | None:
        """``describe_hand`` read from the state's hand mask (no observation made to be described)."""
        if isinstance(state, LorumState) and type(seat) is int and 0 <= seat < PLAYERS:
            return view.mask_line(state.hands[seat])
        return super().describe_seat_hand(state, seat)

    def encoding(self, options: Mapping[str, Any]) -> Any:
        """The fixed-size view of a seat that ``arena.env`` trains on (``arena/games/lorum/encoding.py``).

        Imported on first use, so that the engine itself never loads numpy.
        """
        from arena.games.lorum.encoding import encoding

        return encoding(options)

    def coverage_plan(self) -> CoveragePlan:
        """Bidding, and leading and following in each contract (``arena/games/lorum/coverage.py``)."""
        from arena.games.lorum.coverage import (
            PLAN,  # imports arena.conformance.coverage: only arena check-agent needs it
        )

        return PLAN

    def table(self, state: GameState, viewer: int | None = None, hands: bool = True,
              names: Sequence[str] = ()) -> Table:
        """The table from ``viewer``'s seat or a spectator's (``arena.games.lorum.drawing``)."""
        # Imported on first use (the engine never draws); as a module, a third of ``from ... import`` 's cost,
        # which a site build pays at every step.
        import arena.games.lorum.drawing as drawing

        return drawing.lorum_table(state, viewer, hands, names)

    def card_faces(self) -> Mapping[str, CardFace]:
        """Every card's face for drawings."""
        from arena.games.lorum.drawing import FACES

        return FACES

    def deck(self) -> Deck:
        """The 32 cards, highest first, with the names logs and records use and their card points (S-9)."""
        rows = tuple((name, SUIT_NAMES[name[-1]], RANK_NAMES[name[:-1]], str(points))
                     for name, points in zip(DECK, POINTS, strict=True))
        cards = tuple({"name": name, "suit": suit, "rank": rank, "points": int(points)}
                      for name, suit, rank, points in rows)
        return Deck(
            title="Slovak Lorum deck (32 cards, highest first)",
            columns=(("name", "left"), ("suit", "left"), ("rank", "left"), ("points", "right")),
            rows=rows,
            cards=cards,
            caption="names: rank (A K O U 10 9 8 7) then suit (a acorns, g green, h hearts, b bells)",
        )

    def describe_action(self, observation: Observation, action: Action) -> str:
        """A menu label: the call explained, or the card's long name."""
        if action == PASS:
            return "pass"
        if action == SMALL:
            return "small: take no trick (10 from each opponent)"
        if action == BIG:
            return "big: take every trick (20 from each opponent)"
        if isinstance(action, str) and action in INDEX:
            return f"{action}: {describe_card(action)}"
        return str(action)


GAME = LorumGame()
"""The one Slovak Lorum game object, registered by ``plugin.py``."""
