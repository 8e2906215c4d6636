"""``PledgeGame``: what arena needs of Pledge, declared once (info, states, sampling, text, deck)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from arena.coverage import CoveragePlan, Scenario
from arena.games.base import (
    Action,
    Chance,
    ChanceOutcome,
    Deck,
    Game,
    GameInfo,
    GameState,
    Observation,
    OptionSpec,
    ScoreSpec,
    from_json,
    log_sentence,
    seat_label,
)
from arena.games.drawing import CardFace, Table
from arena_example_game.drawing import FACES, pledge_table
from arena_example_game.rules import DECK, RANK_NAMES, SUIT_NAMES, describe_card, suit
from arena_example_game.state import BID, GAME_ID, PledgeObservation, PledgeState

MAX_HAND = 4
"""Most cards per seat: five seats of four cards and the trump card need 21 of the 24."""

INFO = GameInfo(
    id=GAME_ID,
    name="pledge",
    title="Pledge",
    player_counts=(2, 3, 4, 5),
    options=(
        OptionSpec(name="hand", default=MAX_HAND, choices=None, minimum=1, maximum=MAX_HAND,
                   description="cards dealt to each seat, and so the number of tricks"),
    ),
    simultaneous_phases=(),  # one seat decides at a time
    chance=("dealer", "deal"),
    default_players=3,
    score=ScoreSpec(unit="points"),  # per game: 10 plus the bid when made, minus the miss otherwise
    # random_action: the default, uniform over observation.legal (every legal action is listed)
)

CASES = ("pledge", "lead", "follow suit", "discard")
"""The decisions an agent must handle: a pledge, leading a trick, following suit, and not being able to."""

SAMPLE_TRIES = 100_000
"""Rejection-sampling attempts before ``sample_state`` gives up (a consistent deal always exists)."""


class PledgeGame(Game):
    """Pledge for 2 to 5 players; the rules are in this package's README."""

    info: ClassVar[GameInfo] = INFO
    observation_type: ClassVar[type[Observation]] = PledgeObservation

    def new_state(self, seed: int, options: Mapping[str, Any] | None = None,
                  script: Sequence[ChanceOutcome] = ()) -> PledgeState:
        """A new game after the deal; ``script`` may fix the dealer and the deal (a list of the 24 cards)."""
        resolved = self.info.resolve_options(None, options)
        return PledgeState(resolved["players"], resolved["hand"], Chance(seed, script))

    def sample_state(self, observation: Observation, rng: random.Random) -> PledgeState:
        """A state uniform over the deals consistent with what the seat saw.

        Unseen cards are dealt at random to the other seats and the stock, and a deal is kept only if every
        seat that failed to follow a suit holds none of it (rejection keeps the draw uniform); then the
        public history is replayed on it.
        """
        if not isinstance(observation, PledgeObservation):
            raise TypeError(f"expected a PledgeObservation, got {type(observation).__name__}")
        players, size, me = observation.players, observation.hand_size, observation.seat
        played = {seat: [card for who, card in observation.history if who == seat and card in _CARDS]
                  for seat in range(players)}
        voids = _voids(observation.history, players)
        seen = set(observation.hand) | {observation.trump} | {card for cards in played.values() for card in cards}
        unseen = [card for card in DECK if card not in seen]
        for _attempt in range(SAMPLE_TRIES):
            rng.shuffle(unseen)
            hands, start = {}, 0
            for seat in range(players):
                if seat == me:
                    hands[seat] = list(observation.hand)
                    continue
                count = size - len(played[seat])
                hands[seat] = unseen[start:start + count]
                start += count
            if all(not any(suit(card) in voids[seat] for card in hands[seat]) for seat in range(players)):
                break
        else:
            raise RuntimeError("no deal consistent with the observation was found")
        deal = [card for seat in range(players) for card in played[seat] + hands[seat]]
        deal += [observation.trump, *unseen[start:]]
        state = PledgeState(players, size, Chance(rng.getrandbits(63), [
            {"kind": "dealer", "value": observation.dealer}, {"kind": "deal", "value": deal}]))
        for seat, action in observation.history:
            state.apply(seat, action)
        return state

    def observation_from_json(self, data: Mapping[str, Any]) -> PledgeObservation:
        """The exact inverse of ``PledgeObservation.to_json()``."""
        expected = set(PledgeObservation.__dataclass_fields__)
        if set(data) != expected:
            raise ValueError(f"not a Pledge observation: fields {sorted(set(data) ^ expected)} differ")
        return PledgeObservation(**{key: from_json(value) for key, value in data.items()})

    def describe_event(self, event: Mapping[str, Any], names: Sequence[str] = ()) -> str:
        """One readable sentence per public event, naming seats as ``seat_label`` does."""
        kind = event.get("type")
        if kind == "deal":
            return log_sentence(f"{seat_label(event['dealer'], names)} deals; the {describe_card(event['trump'])} "
                                f"is turned: trumps are {SUIT_NAMES[suit(event['trump'])]}")
        if kind == "bid":
            tricks = f"{event['bid']} trick{'s' if event['bid'] != 1 else ''}"
            return log_sentence(f"{seat_label(event['seat'], names)} pledges {tricks}")
        if kind == "play":
            return log_sentence(f"{seat_label(event['seat'], names)} plays {event['card']}")
        if kind == "trick":
            played = ", ".join(f"{seat_label(seat, names)} {card}" for seat, card in event["cards"])
            return log_sentence(f"Trick to {seat_label(event['winner'], names)}: {played}")
        if kind == "game_over":
            return log_sentence(f"Game over: points {event['scores']}, ranks {event['ranks']}")
        return log_sentence(f"{kind}: {dict(event)}")

    def describe_action(self, observation: Observation, action: Action) -> str:
        """``pledge 2 tricks`` or ``Ah: ace of hearts``."""
        if observation.phase == BID:
            return f"pledge {action} trick{'s' if action != '1' else ''}"
        return f"{action}: {describe_card(action)}" if isinstance(action, str) and action in _CARDS else str(action)

    def describe_hand(self, observation: Observation) -> str | None:
        """The seat's cards, in deck order."""
        return " ".join(observation.hand) if isinstance(observation, PledgeObservation) else None

    def table(self, state: GameState, viewer: int | None = None, hands: bool = True,
              names: Sequence[str] = ()) -> Table:
        """The table from ``viewer``'s seat or a spectator's (``arena_example_game.drawing``)."""
        return pledge_table(state, viewer, hands, names)

    def card_faces(self) -> Mapping[str, CardFace]:
        """Every card's face for drawings."""
        return FACES

    def coverage_plan(self) -> CoveragePlan:
        """What ``arena check-agent`` drives an agent through: pledging, leading, following and discarding."""
        return CoveragePlan(CASES, _case, lambda game, players: (
            Scenario("a whole game", players, {}, targets=CASES),))

    def deck(self) -> Deck:
        """The 24 cards (``arena cards pledge``)."""
        rows = tuple((card, SUIT_NAMES[card[1]], RANK_NAMES[card[0]]) for card in DECK)
        return Deck(title="Pledge deck (24 cards, each suit low to high)",
                    columns=(("card", "left"), ("suit", "left"), ("rank", "left")), rows=rows,
                    cards=tuple({"card": card, "suit": name, "rank": rank} for card, name, rank in rows),
                    caption="names: rank (9 T J Q K A) then suit (c clubs, d diamonds, h hearts, s spades)")


_CARDS = frozenset(DECK)


def _case(observation: Any) -> tuple[str, ...]:
    """Which of ``CASES`` a decision is."""
    if observation.phase == BID:
        return ("pledge",)
    if not observation.trick:
        return ("lead",)
    led = suit(observation.trick[0][1])
    return ("follow suit",) if any(suit(card) == led for card in observation.hand) else ("discard",)


def _voids(history: Sequence[tuple[int, str]], players: int) -> dict[int, set[str]]:
    """Per seat, the suits it showed it lacks: it did not follow a led suit."""
    voids: dict[int, set[str]] = {seat: set() for seat in range(players)}
    plays = [(seat, card) for seat, card in history if card in _CARDS]
    for start in range(0, len(plays), players):
        trick = plays[start:start + players]
        led = suit(trick[0][1])
        for seat, card in trick[1:]:
            if suit(card) != led:
                voids[seat].add(led)
    return voids


GAME = PledgeGame()
"""The one Pledge game object, registered by ``plugin.py``."""
