"""Pledge's state machine (``PledgeState``) and the one place observations are made (``observe``).

The state holds everything, hidden cards included; ``observe(state, seat)`` copies out what that seat may
know: its own hand, the face-up trump card, and the public history (every bid and every card played).
The other hands and the undealt stock never leave the state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.games.base import (
    Chance,
    GameState,
    IllegalAction,
    Observation,
    Result,
    competition_ranks,
    scripted_cards,
    scripted_seat,
)
from arena_example_game.rules import DECK, ORDER, playable, score, suit, trick_winner

GAME_ID = "pledge-v1"
"""The versioned id: bumped on any change to the rules."""

BID, PLAY = "bid", "play"
"""The two phases."""


@dataclass(frozen=True, slots=True)
class PledgeObservation(Observation):
    """What one seat knows at one decision (plain, immutable data)."""

    hand_size: int  # cards dealt to each seat (the option ``hand``)
    dealer: int  # the dealing seat; the seat after it bids and leads first
    trump: str  # the face-up card whose suit is trumps
    hand: tuple[str, ...]  # this seat's cards still held, in deck order
    bids: tuple[int | None, ...]  # per seat: tricks pledged, None before it bids
    tricks: tuple[int, ...]  # per seat: tricks taken so far
    trick: tuple[tuple[int, str], ...]  # the current trick so far: (seat, card) in play order
    history: tuple[tuple[int, str], ...]  # every public action so far: (seat, bid or card)


class PledgeState(GameState):
    """A game of Pledge from the deal to the last trick."""

    def __init__(self, players: int, hand_size: int, chance: Chance) -> None:
        self.players = players
        self.hand_size = hand_size
        self.chance = chance
        # A scripted outcome comes from a record, untrusted: arena's checks return it in the shape used here.
        scripted = chance.scripted("dealer")
        dealer = scripted_seat(scripted, players) if scripted is not None else chance.rng.randrange(players)
        self.dealer: int = chance.record("dealer", dealer)
        deal = chance.scripted("deal")
        if deal is None:
            deal = list(DECK)
            chance.shuffle(deal)
        else:
            deal = scripted_cards(deal, len(DECK), ORDER)  # each of the 24 cards once, in deal order
        chance.record("deal", deal)
        self.hands = [sorted(deal[seat * hand_size:(seat + 1) * hand_size], key=ORDER.__getitem__)
                      for seat in range(players)]
        self.trump: str = deal[players * hand_size]  # turned face up; the rest of the deck stays hidden
        self.bids: list[int | None] = [None] * players
        self.tricks = [0] * players
        self.trick: list[tuple[int, str]] = []
        self.turn = (self.dealer + 1) % players
        self.phase = BID
        self.history: list[tuple[int, str]] = []
        self.log: list[dict[str, Any]] = [{"type": "deal", "dealer": self.dealer, "trump": self.trump}]

    def to_move(self) -> tuple[int, ...]:
        """The one seat to bid or play; () when every card is played."""
        return () if self.is_over() else (self.turn,)

    def legal_actions(self, seat: int) -> tuple[str, ...]:
        """Bids ``"0"`` to the hand size, or the cards the seat may play (follow suit when able)."""
        if seat != self.turn or self.is_over():
            return ()
        if self.phase == BID:
            return tuple(str(count) for count in range(self.hand_size + 1))
        led = suit(self.trick[0][1]) if self.trick else None
        return playable(self.hands[seat], led)

    def is_legal(self, seat: int, action: Any) -> bool:
        """Whether ``action`` is among the seat's legal actions now."""
        return isinstance(action, str) and action in self.legal_actions(seat)

    def apply(self, seat: int, action: Any) -> None:
        """Take a bid or a card; ``IllegalAction`` naming the legal ones otherwise."""
        if not self.is_legal(seat, action):
            raise IllegalAction(f"seat {seat} cannot {self.phase} {action!r} now "
                                f"(legal: {', '.join(self.legal_actions(seat)) or 'nothing, not its turn'})")
        self.history.append((seat, action))
        if self.phase == BID:
            self.bids[seat] = int(action)
            self.log.append({"type": "bid", "seat": seat, "bid": int(action)})
            self.turn = (seat + 1) % self.players
            if all(bid is not None for bid in self.bids):
                self.phase = PLAY  # the seat after the dealer leads the first trick
            return
        self.hands[seat].remove(action)
        self.trick.append((seat, action))
        self.log.append({"type": "play", "seat": seat, "card": action})
        self.turn = (seat + 1) % self.players
        if len(self.trick) == self.players:
            winner = trick_winner(self.trick, suit(self.trump))
            self.tricks[winner] += 1
            self.log.append({"type": "trick", "winner": winner, "cards": [list(play) for play in self.trick]})
            self.trick = []
            self.turn = winner
            if self.is_over():
                result = self.result()
                self.log.append({"type": "game_over", "scores": list(result.scores), "ranks": list(result.ranks)})

    def is_over(self) -> bool:
        """Every trick is played."""
        return self.phase == PLAY and not self.trick and sum(self.tricks) == self.hand_size

    def result(self) -> Result:
        """Points per seat (``rules.score``); seats with equal points share a rank."""
        scores = tuple(score(bid or 0, tricks) for bid, tricks in zip(self.bids, self.tricks, strict=True))
        return Result(scores=scores, ranks=competition_ranks(scores),
                      details={"bids": list(self.bids), "tricks": list(self.tricks)})

    def observation(self, seat: int) -> PledgeObservation:
        """What ``seat`` knows now."""
        return observe(self, seat)

    def clone(self) -> PledgeState:
        """An independent copy, RNG position included."""
        twin = object.__new__(PledgeState)
        twin.__dict__.update(self.__dict__)
        twin.chance = self.chance.copy()
        twin.hands = [list(hand) for hand in self.hands]
        twin.bids, twin.tricks, twin.trick = list(self.bids), list(self.tricks), list(self.trick)
        twin.history, twin.log = list(self.history), list(self.log)
        return twin

    def events(self, start: int = 0) -> list[dict[str, Any]]:
        """The public events from ``start`` on."""
        return self.log[start:]


def observe(state: PledgeState, seat: int) -> PledgeObservation:
    """The only place hidden information is removed: the seat's own hand, and public facts."""
    return PledgeObservation(
        game=GAME_ID, seat=seat, players=state.players, phase=state.phase, legal=state.legal_actions(seat),
        hand_size=state.hand_size, dealer=state.dealer, trump=state.trump, hand=tuple(state.hands[seat]),
        bids=tuple(state.bids), tricks=tuple(state.tricks), trick=tuple(state.trick), history=tuple(state.history),
    )
