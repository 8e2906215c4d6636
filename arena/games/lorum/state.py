"""The Slovak Lorum engine: one ``LorumState`` per game, settled deal by deal.

Rulings S-1..S-19 decide every gap in the rules and are cited by label; the
rules as implemented, with every ruling, are written up in ``docs/rules/lorum.md``.

Seats are numbered in play order: the next player is ``(i + 1) % 4`` (S-1).
A game is ``deals`` deals (S-16); each deal is a bidding circuit (phase
``"bid"``) and then up to 8 tricks (phase ``"play"``).  When the game is over
the phase is ``"over"``.

Randomness (S-19) comes from the game's single ``Chance`` and is consumed in
this fixed order:

1. the first dealer: ``rng.randrange(4)`` (kind ``"dealer"``, S-2);
2. then, for each deal in turn, the deal: ``rng.shuffle`` of the 32 cards in
   canonical order (``cards.DECK``), dealt in two batches of 4 starting with
   the dealer's next player (S-3); logged as kind ``"deal"`` with the value
   ``[[seat 0's 8 cards], ..., [seat 3's]]`` (each hand in canonical order).

A scripted outcome replaces the draw (and consumes no randomness); either way
the outcome is appended to the chance log, which replays the game.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.games.base import (
    Action,
    Chance,
    ChanceOutcome,
    GameError,
    GameState,
    IllegalAction,
    Result,
    competition_ranks,
    scripted_seat,
    shown,
)
from arena.games.events import Event, EventKinds
from arena.games.lorum.cards import (
    ABOVE_MASKS,
    DECK,
    INDEX,
    POINTS,
    SUIT_MASKS,
    SUIT_NAMES,
    SUITS,
    TOTAL_POINTS,
    TRICKS_PER_DEAL,
    mask_names,
    names_of,
)
from arena.games.lorum.deal import draw_deal, validate_deal
from arena.games.lorum.observation import build_observation
from arena.games.lorum.rules import (
    BID,
    BIG,
    GAME_ID,
    OVER,
    PASS,
    PLAY,
    PLAYERS,
    REGULAR,
    SMALL,
    settle_contract,
    settle_regular,
)

_TO_MOVE: dict[int | None, tuple[int, ...]] = {None: (), **{seat: (seat,) for seat in range(PLAYERS)}}
"""``to_move`` by the seat to act: shared tuples rather than one per call."""

_ALL_CALLS, _AFTER_SMALL, _AFTER_BIG = (PASS, SMALL, BIG), (PASS, BIG), (PASS,)
"""The calls open to a bidder (S-4): before any small or big, after a small, after a big."""


def _describe_names(mask: int) -> str:
    return " ".join(names_of(mask)) or "nothing"


EVENTS = EventKinds({
    "deal_start": ("deal", "deals", "dealer", "first_bidder"),  # S-1, S-3
    "bid": ("deal", "seat", "call"),  # S-4
    "contract": ("deal", "contract", "bidder", "leader"),  # S-4, S-5
    "play": ("deal", "trick", "seat", "card"),  # S-6..S-8
    "trick_won": ("deal", "trick", "seat", "points", "cards"),  # S-6
    "deal_end": ("deal", "contract", "bidder", "case", "points", "tricks", "changes", "pot_before", "pot_after",
                 "balances"),  # S-11..S-15
    "game_over": ("scores", "ranks", "pot"),  # S-16
})
"""Lorum's public events: by type, the keys of the event dict after ``"type"``, in order (the stored tuples'
order too; ``arena/games/events.py``)."""

_read_events = EVENTS.reader()
"""``LorumState.events`` (and what ``log`` reads, whatever ``events`` is replaced by)."""


class LorumState(GameState):
    """A complete Slovak Lorum game state, hidden hands included.

    Hands are card masks (see ``cards``); the public history of the current deal
    is kept as tuples of card names, shared between clones.
    """

    __slots__ = (
        "_events", "balances", "best_card", "best_seat", "bidder", "bids", "chance", "contract", "deal", "dealer",
        "deals", "hands", "leader", "led_suit", "past_deals", "phase", "played", "players", "points", "pot",
        "to_act", "trick", "trick_points", "tricks", "tricks_won",
    )

    players: int  # always 4
    chance: Chance  # the game's single source of randomness (S-19); clones share it copy-on-write
    deals: int  # deals in the game (S-16)
    deal: int  # current deal, 1-based
    dealer: int  # dealer of the current deal
    phase: str  # "bid", "play" or "over"
    to_act: int | None  # the seat to move, None when over
    hands: list[int]  # per seat: the mask of the cards still held
    bids: tuple[tuple[int, str], ...]  # (seat, call) this deal, in order
    contract: str | None  # None while bidding, then "regular", "big" or "small"
    bidder: int | None  # who called the contract (None in a regular game)
    leader: int | None  # leader of the current trick (None while bidding / when over)
    trick: tuple[tuple[int, str], ...]  # (seat, card) of the current trick, in order
    played: tuple[str, ...]  # every card played this deal, in order (kept for observations, which show it)
    led_suit: int  # suit number led in the current trick (-1 when empty)
    best_card: int  # index of the highest led-suit card in the current trick (-1 when empty)
    best_seat: int  # who played it (-1 when empty)
    trick_points: int  # card points in the current trick so far
    tricks: tuple[tuple[tuple[tuple[int, str], ...], int], ...]  # completed tricks of this deal: (plays, winner)
    points: list[int]  # card points taken per seat this deal
    tricks_won: list[int]  # tricks taken per seat this deal
    balances: list[int]  # chips per seat (S-10)
    pot: int  # chips in the pot (S-10)
    past_deals: tuple[tuple[Any, ...], ...]  # settled deals, see ``LorumObservation.past_deals``
    _events: list[Event]  # public events so far as stored tuples (``EVENTS``; ``events()`` makes the dicts)

    # ----------------------------------------------------------------- set-up

    @classmethod
    def new(cls, seed: int, deals: int, script: Sequence[ChanceOutcome] = ()) -> LorumState:
        """A new game: draw (or take from the script) the first dealer, then deal the first deal."""
        chance = Chance(seed, script)
        scripted = chance.scripted("dealer")
        if scripted is None:
            dealer = chance.rng.randrange(PLAYERS)  # S-2: first dealer from the seeded RNG
        else:
            dealer = scripted_seat(scripted, PLAYERS)
        chance.record("dealer", dealer)
        state = cls.blank(chance, deals=deals, deal=1, dealer=dealer, balances=[0] * PLAYERS, pot=0, past_deals=())
        state.start_deal(draw_deal(chance, dealer))
        return state

    @classmethod
    def blank(
        cls,
        chance: Chance,
        *,
        deals: int,
        deal: int,
        dealer: int,
        balances: list[int],
        pot: int,
        past_deals: tuple[tuple[Any, ...], ...],
    ) -> LorumState:
        """A state between deals, before ``deal`` is dealt (used by ``new`` and the sampler)."""
        state = cls.__new__(cls)
        state.players = PLAYERS
        state.chance = chance
        state.deals = deals
        state.deal = deal
        state.dealer = dealer
        state.balances = list(balances)
        state.pot = pot
        state.past_deals = past_deals
        state._events = []
        return state

    def start_deal(self, hands: list[int]) -> None:
        """Start the current deal with ``hands`` (masks by seat): bidding from the dealer's next player (S-4).

        Used by ``new`` and after each deal with a drawn deal, and by the sampler with a sampled one.
        """
        self.hands = list(hands)
        self.phase = BID
        self.to_act = (self.dealer + 1) % PLAYERS
        self.bids = ()
        self.contract = None
        self.bidder = None
        self.leader = None
        self._clear_trick()
        self.tricks = ()
        self.played = ()
        self.points = [0] * PLAYERS
        self.tricks_won = [0] * PLAYERS
        self._events.append(("deal_start", self.deal, self.deals, self.dealer, self.to_act))

    def _clear_trick(self) -> None:
        self.trick = ()
        self.led_suit = -1
        self.best_card = -1
        self.best_seat = -1
        self.trick_points = 0

    # ---------------------------------------------------------- the interface

    def to_move(self) -> tuple[int, ...]:
        """The seat to move, or () when the game is over."""
        return _TO_MOVE[self.to_act]

    def bid_calls(self) -> tuple[str, ...]:
        """The calls open to the seat to bid (S-4): small only while nobody bid, big only while nobody bid big."""
        calls: tuple[str, ...] = _ALL_CALLS
        for _seat, call in self.bids:
            if call == BIG:
                return _AFTER_BIG
            if call == SMALL:
                calls = _AFTER_SMALL
        return calls

    def legal_mask(self) -> int:
        """The mask of the cards the seat to play may play (S-6, S-7, S-8)."""
        hand = self.hands[self.to_act]  # type: ignore[index]  # asked only while a seat is to act
        if not self.trick:
            return hand  # S-7: any card may be led
        follow = hand & SUIT_MASKS[self.led_suit]
        if not follow:
            return hand  # S-6: void in the led suit, any card
        if self.contract == SMALL:
            beat = follow & ABOVE_MASKS[self.best_card]
            if beat:
                return beat  # S-8: must beat the highest led-suit card when able
        return follow  # S-6: follow suit

    def legal_actions(self, seat: int) -> tuple[Action, ...]:
        """Legal calls or card names for ``seat``; () when it is not that seat's turn."""
        if seat != self.to_act:
            return ()
        if self.phase == BID:
            return self.bid_calls()
        return mask_names(self.legal_mask())

    def is_legal(self, seat: int, action: Action) -> bool:
        """Whether ``seat`` may take ``action`` now."""
        if seat != self.to_act or not isinstance(action, str):
            return False
        if self.phase == BID:
            return action in self.bid_calls()
        card = INDEX.get(action)
        return card is not None and bool(self.legal_mask() >> card & 1)

    def apply(self, seat: int, action: Action) -> None:
        """Apply a call or a card; raise ``IllegalAction`` naming what, who and what was expected."""
        if isinstance(seat, bool) or not isinstance(seat, int):  # True == 1, but it is no seat
            raise IllegalAction(f"seat {seat!r} does not exist: Lorum has seats 0..{PLAYERS - 1}")
        if self.to_act is None:
            raise IllegalAction(f"seat {seat} tried {shown(action)} but the game is over")
        if seat != self.to_act:
            doing = "bid" if self.phase == BID else "play a card"
            raise IllegalAction(
                f"seat {seat} acted ({shown(action)}) out of turn: seat {self.to_act} is to {doing} "
                f"in deal {self.deal}"
            )
        if self.phase == BID:
            self._apply_bid(seat, action)
        else:
            self._apply_play(seat, action)

    def is_over(self) -> bool:
        """Whether all deals have been played."""
        return self.phase == OVER

    def result(self) -> Result:
        """Chips per seat, competition ranks by chips, and the pot left over (S-17: reported, not paid)."""
        if self.phase != OVER:
            raise GameError(f"the game is not over: deal {self.deal} of {self.deals} is in the {self.phase} phase")
        scores = tuple(self.balances)
        return Result(
            scores=scores,
            ranks=competition_ranks(scores),
            details={
                "pot": self.pot,
                "deals": self.deals,
                "first_dealer": (self.dealer - (self.deal - 1)) % PLAYERS,
                "cases": [record[4] for record in self.past_deals],
            },
        )

    # What ``seat`` may know (built in ``observation.py``, the one place hidden cards are removed); the method
    # is the function itself, one call fewer per observation.
    observation = build_observation

    def clone(self) -> LorumState:
        """An independent copy; immutable parts (tuples, the stored events) are shared.

        ``Chance.copy()`` is copy-on-write: both states share the RNG until one of
        them draws (the next deal).  Copying the RNG state costs about 20 us, far
        more than the rest of a clone, and most search clones never deal again.
        """
        twin = LorumState.__new__(LorumState)
        twin.players = self.players
        twin.chance = self.chance.copy()
        twin.deals = self.deals
        twin.deal = self.deal
        twin.dealer = self.dealer
        twin.phase = self.phase
        twin.to_act = self.to_act
        twin.hands = self.hands[:]
        twin.bids = self.bids
        twin.contract = self.contract
        twin.bidder = self.bidder
        twin.leader = self.leader
        twin.trick = self.trick
        twin.played = self.played
        twin.led_suit = self.led_suit
        twin.best_card = self.best_card
        twin.best_seat = self.best_seat
        twin.trick_points = self.trick_points
        twin.tricks = self.tricks
        twin.points = self.points[:]
        twin.tricks_won = self.tricks_won[:]
        twin.balances = self.balances[:]
        twin.pot = self.pot
        twin.past_deals = self.past_deals
        twin._events = self._events[:]
        return twin

    events = _read_events  # the public log from event ``start`` on, as new dicts (``EVENTS``)

    @property
    def log(self) -> list[dict[str, Any]]:
        """The whole public log as event dicts: ``events()``, under the attribute name the log has always had."""
        return _read_events(self)

    # ---------------------------------------------------------------- bidding

    def _apply_bid(self, seat: int, action: Action) -> None:
        calls = self.bid_calls()
        if action not in calls:
            if action == SMALL and len(calls) == 2:
                why = "a second small is illegal (S-4)"
            elif action in (SMALL, BIG) and calls == (PASS,):
                why = "after big only pass is legal (S-4)"
            else:
                why = "that is not a call"
            raise IllegalAction(
                f"seat {seat} cannot call {shown(action)} in the bidding of deal {self.deal}: {why}; "
                f"legal calls: {', '.join(calls)}"
            )
        self.bids = self.bids + ((seat, action),)
        self._events.append(("bid", self.deal, seat, action))
        if seat != self.dealer:
            self.to_act = (seat + 1) % PLAYERS
            return
        # S-4: the circuit ends with the dealer; the highest call wins.
        self.contract, self.bidder = REGULAR, None
        for bidder, call in self.bids:
            if call == BIG:
                self.contract, self.bidder = BIG, bidder
                break
            if call == SMALL:
                self.contract, self.bidder = SMALL, bidder
        # S-5: all pass, the dealer's next player leads; otherwise the bidder leads.
        self.leader = (self.dealer + 1) % PLAYERS if self.bidder is None else self.bidder
        self.phase = PLAY
        self.to_act = self.leader
        self._events.append(("contract", self.deal, self.contract, self.bidder, self.leader))

    # ------------------------------------------------------------------- play

    def _apply_play(self, seat: int, action: Action) -> None:
        card = INDEX.get(action) if isinstance(action, str) else None
        if card is None or not isinstance(action, str):
            if action in (PASS, SMALL, BIG):  # a second bidding circuit written into a record, say
                raise IllegalAction(
                    f"seat {seat} called {action!r} in the play of deal {self.deal}: the bidding is over (each "
                    f"seat calls once, the dealer last: S-4); play one of {_describe_names(self.legal_mask())}"
                )
            raise IllegalAction(
                f"seat {seat} played {shown(action)}, which is not a card name (rank then suit, e.g. 'Ah', 'Og', "
                "'10b')"
            )
        bit = 1 << card
        hand = self.hands[seat]
        if not hand & bit:
            raise IllegalAction(f"seat {seat} played {action}, which is not in its hand ({_describe_names(hand)})")
        legal = self.legal_mask() if self.trick else hand  # S-7: any card may be led (and the hand holds it)
        if not legal & bit:
            led = SUITS[self.led_suit]
            if card >> 3 != self.led_suit:
                raise IllegalAction(
                    f"seat {seat} played {action} but must follow {SUIT_NAMES[led]} (S-6) "
                    f"with one of {_describe_names(legal)}"
                )
            raise IllegalAction(
                f"seat {seat} played {action} but must beat {DECK[self.best_card]} in the small game (S-8) "
                f"with one of {_describe_names(legal)}"
            )
        self.hands[seat] = hand ^ bit
        if not self.trick:
            self.led_suit, self.best_card, self.best_seat = card >> 3, card, seat
        elif card >> 3 == self.led_suit and card < self.best_card:  # smaller index = higher card (S-6)
            self.best_card, self.best_seat = card, seat
        self.trick_points += POINTS[card]
        self.trick = trick = self.trick + ((seat, action),)  # a card name: checked above
        self.played = self.played + (action,)
        self._events.append(("play", self.deal, len(self.tricks) + 1, seat, action))
        if len(trick) < PLAYERS:
            self.to_act = (seat + 1) % PLAYERS
            return
        # The trick is complete: the highest card of the led suit wins (S-6).
        winner = self.best_seat
        self.tricks = self.tricks + ((self.trick, winner),)
        self.points[winner] += self.trick_points
        self.tricks_won[winner] += 1
        self._events.append(
            ("trick_won", self.deal, len(self.tricks), winner, self.trick_points, list(map(list, self.trick)))
        )
        self._clear_trick()
        if (
            (self.contract == BIG and winner != self.bidder)  # S-14: big fails at once
            or (self.contract == SMALL and winner == self.bidder)  # S-15: small fails at once
            or len(self.tricks) == TRICKS_PER_DEAL
        ):
            self._end_deal()
        else:
            self.leader = self.to_act = winner  # S-6: the winner leads the next trick

    # ------------------------------------------------------------- settlement

    def _end_deal(self) -> None:
        """Settle the deal (S-11..S-15), check S-10, then deal again or end the game."""
        pot_before = self.pot
        if self.contract == REGULAR:
            deltas, pot_after, case = settle_regular(self.points, self.tricks_won, self.pot)
        else:
            deltas, _, case = settle_contract(self.contract, self.bidder, self.tricks_won)  # type: ignore[arg-type]
            pot_after = self.pot  # S-14, S-15: the pot is untouched
        for seat in range(PLAYERS):
            self.balances[seat] += deltas[seat]
        self.pot = pot_after
        # S-10: a real check (not an ``assert``, which -O strips).
        if sum(self.balances) + self.pot != 0 or self.pot < 0:
            raise AssertionError(
                f"S-10 broken after deal {self.deal}: balances {self.balances} + pot {self.pot} != 0"
            )
        if self.contract == REGULAR and sum(self.points) != TOTAL_POINTS:
            raise AssertionError(f"deal {self.deal} scored {sum(self.points)} points, not {TOTAL_POINTS}")
        self.past_deals = self.past_deals + (
            (self.deal, self.dealer, self.contract, self.bidder, case, deltas, pot_before, pot_after),
        )
        self._events.append(
            ("deal_end", self.deal, self.contract, self.bidder, case, list(self.points), list(self.tricks_won),
             list(deltas), pot_before, pot_after, list(self.balances))
        )
        if self.deal == self.deals:
            self.phase = OVER
            self.to_act = None
            self.leader = None
            result = self.result()
            self._events.append(("game_over", list(result.scores), list(result.ranks), self.pot))
            return
        self.deal += 1
        self.dealer = (self.dealer + 1) % PLAYERS  # S-1: the deal passes to the next player
        self.start_deal(draw_deal(self.chance, self.dealer))

    # ------------------------------------------------------------------ debug

    def hand_names(self, seat: int) -> tuple[str, ...]:
        """The cards ``seat`` holds (hidden information: for tests and the referee only)."""
        return names_of(self.hands[seat])

    def __repr__(self) -> str:
        hands = " | ".join(" ".join(names_of(mask)) for mask in self.hands) if self.phase != OVER else ""
        return (
            f"LorumState(deal {self.deal}/{self.deals}, dealer {self.dealer}, {self.phase}, "
            f"to act {self.to_act}, contract {self.contract}, balances {self.balances}, pot {self.pot}, "
            f"hands {hands})"
        )


__all__ = [  # the rules are re-exported here, where the engine's users have always imported them from
    "BID", "BIG", "GAME_ID", "OVER", "PASS", "PLAY", "PLAYERS", "REGULAR",
    "SMALL", "LorumState", "settle_contract", "settle_regular", "validate_deal",
]
