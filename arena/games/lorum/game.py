"""``LorumGame``: Slovak Lorum's ``Game`` object (info, new states, sampling, readable logs)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from arena.games.base import Action, ChanceOutcome, Game, GameInfo, Observation, OptionSpec
from arena.games.lorum import view
from arena.games.lorum.cards import INDEX, describe_card
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
)

_CALL_WORDS = {PASS: "passes", SMALL: "bids small", BIG: "bids big"}


def _signed(values: Sequence[int]) -> str:
    return ", ".join(f"seat {seat} {value:+d}" for seat, value in enumerate(values))


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
        resolved = self.info.resolve_options(None, options)
        return LorumState.new(seed, deals=resolved["deals"], script=script)

    def sample_state(self, observation: Observation, rng: random.Random) -> LorumState:
        """A state consistent with ``observation``, uniform over the hidden deals that fit (see ``sampler``)."""
        return sample_state(observation, rng)  # type: ignore[arg-type]

    def observation_from_json(self, data: Mapping[str, Any]) -> LorumObservation:
        """The exact inverse of ``LorumObservation.to_json()``."""
        return observation_from_json(data)

    def describe_event(self, event: Mapping[str, Any]) -> str:
        """One readable line per public event."""
        kind = event.get("type")
        if kind == "deal_start":
            return (
                f"Deal {event['deal']} of {event['deals']}: seat {event['dealer']} deals; "
                f"seat {event['first_bidder']} bids first."
            )
        if kind == "bid":
            return f"Seat {event['seat']} {_CALL_WORDS.get(event['call'], event['call'])}."
        if kind == "contract":
            if event["contract"] == REGULAR:
                return f"Everybody passed: regular game; seat {event['leader']} leads."
            goal = "to take every trick" if event["contract"] == BIG else "to take no trick"
            return f"Seat {event['bidder']} plays {event['contract']} ({goal}) and leads."
        if kind == "play":
            return f"Seat {event['seat']} plays {event['card']}."
        if kind == "trick_won":
            cards = " ".join(card for _seat, card in event["cards"])
            points = event["points"]
            return (
                f"Trick {event['trick']} ({cards}) to seat {event['seat']}, "
                f"{points} point{'s' if points != 1 else ''}."
            )
        if kind == "deal_end":
            return (
                f"Deal {event['deal']} settled ({event['case']}): points {event['points']}, "
                f"chips {_signed(event['changes'])}; pot {event['pot_before']} -> {event['pot_after']}; "
                f"balances {event['balances']}."
            )
        if kind == "game_over":
            line = f"Game over: chips {event['scores']}, ranks {event['ranks']}"
            if event["pot"]:
                line += f"; {event['pot']} chips left in the pot (not paid out, S-17)"
            return line + "."
        return f"{kind}: {dict(event)}"

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

    def encoding(self, options: Mapping[str, Any]) -> Any:
        """The fixed-size view of a seat that ``arena.env`` trains on (``arena/games/lorum/encoding.py``).

        Imported on first use, so that the engine itself never loads numpy.
        """
        from arena.games.lorum.encoding import encoding

        return encoding(options)

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
