"""``SearchLorumAgent``: determinized Monte Carlo search for Slovak Lorum.

At each decision with more than one legal action the agent

1. samples hidden deals consistent with its observation (``sampler.sample_hidden_hands``:
   uniform over the deals that fit the public voids and must-beat facts).  Once the
   others have played cards this deal, each world played out is picked from
   ``MODEL_DRAWS`` such samples by how well it explains their play (``history_likelihood``:
   a seat's card counts 1 if the rollout policy would have played it there, else
   ``MODEL_EPSILON``), so worlds in which the others played sensibly count more;
2. in each world plays every candidate out: the candidate, then the rest of the
   current deal (remaining calls and all tricks) by a fast rollout policy in which
   every seat decides from its own hand and the public cards only;
3. scores a playout by the seat's chip change over the current deal (settled by the
   engine's own ``settle_regular`` / ``settle_contract``, so pot, splits and contract
   stakes count exactly as in the game);
4. plays the candidate with the best mean (common random numbers: all candidates
   share each world, so their comparison is not blurred by the luck of the deal).

The bid is judged the same way: ``pass``, ``small`` and ``big`` are each played out
over the same sampled deals, and the call with the best expected chip change wins.
Cards that are interchangeable (same suit, nothing of the others' between them, the
same points) are searched once.

Playouts run on ``PlayoutDeal``, a bare simulator of one deal on card masks (several times
faster than driving ``LorumState``); a test checks it against the engine.

Options (``self.options``): ``iterations`` playouts per move (default
``DEFAULT_ITERATIONS``, deterministic for a seed), and/or ``ms`` milliseconds per move
(time-dependent).  The last decision's figures are kept in ``self.stats``.
See ``docs/agents/search-lorum.md`` for the measured strength and speed.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from arena.agent import Agent
from arena.games.base import Action, GameInfo, Observation
from arena.games.lorum.cards import (
    ABOVE_MASKS,
    DECK,
    FULL_DECK_MASK,
    INDEX,
    POINTS,
    SUIT_MASKS,
    TRICKS_PER_DEAL,
    indices_of,
    mask_of,
)
from arena.games.lorum.observation import LorumObservation
from arena.games.lorum.sampler import excluded_cards, sample_hidden_hands
from arena.games.lorum.state import BIG, PASS, PLAYERS, REGULAR, SMALL, settle_contract, settle_regular
from arena_agents.lorum import BELOW_MASKS, big_is_safe, small_is_safe
from arena_agents.search_common import BUDGET_OPTIONS, Budget, SearchStats, check_options, determinized_search, move_rng

DEFAULT_ITERATIONS = 240
"""Playouts per move by default: a median of about 18 ms and at most about 40 ms of CPU a move
(docs/agents/search-lorum.md)."""

OPTIONS = BUDGET_OPTIONS
"""The options the agent accepts."""

_NONE = -1  # no card / no seat / no suit yet


class PlayoutDeal:
    """The rest of one deal on card masks: just enough of the rules to play it out and settle it.

    Mirrors ``LorumState`` for one deal (S-4..S-8, S-14, S-15 early ends) without
    names, logs or later deals.  ``known_out[seat]`` is the public mask of cards
    ``seat`` cannot hold (voids, S-6; must-beat, S-8): rollout policies may use it,
    it is what every seat knows.
    """

    __slots__ = (
        "hands",
        "played",
        "known_out",
        "dealer",
        "called",
        "contract",
        "bidder",
        "to_act",
        "in_trick",
        "led",
        "best",
        "best_seat",
        "trick_points",
        "tricks",
        "points",
        "tricks_won",
        "pot",
        "over",
    )

    hands: list[int]  # per seat: the cards held (mask)
    played: int  # every card played this deal (mask)
    known_out: list[int]  # per seat: cards it publicly cannot hold
    dealer: int  # the dealer: the bidding ends with them (S-4)
    called: list[tuple[int, str]]  # (seat, call) so far while bidding
    contract: str | None  # None while bidding, then "regular", "big" or "small"
    bidder: int  # the big or small bidder, _NONE in a regular game
    to_act: int  # the seat to move
    in_trick: int  # cards in the current trick (0 when a trick is to be led)
    led: int  # suit led in the current trick
    best: int  # highest led-suit card in the current trick
    best_seat: int  # who played it
    trick_points: int  # card points in the current trick
    tricks: int  # completed tricks this deal
    points: list[int]  # card points taken per seat (S-9)
    tricks_won: list[int]  # tricks taken per seat
    pot: int  # the pot before this deal is settled (S-10)
    over: bool  # the deal has ended (all tricks, or a contract decided early)

    @classmethod
    def from_observation(cls, observation: LorumObservation, hands: list[int]) -> PlayoutDeal:
        """The current deal as ``observation`` shows it, with ``hands`` (masks by seat) for the hidden cards."""
        deal = cls.__new__(cls)
        deal.hands = list(hands)
        deal.played = mask_of(observation.played)
        deal.known_out = excluded_cards(observation)
        deal.dealer = observation.dealer
        deal.called = list(observation.bids)
        deal.contract = observation.contract
        deal.bidder = _NONE if observation.bidder is None else observation.bidder
        deal.to_act = observation.to_move if observation.to_move is not None else _NONE
        deal.tricks = len(observation.tricks)
        deal.points = list(observation.points)
        deal.tricks_won = list(observation.tricks_won)
        deal.pot = observation.pot
        deal.over = False
        deal.in_trick = len(observation.trick)
        deal.led = deal.best = deal.best_seat = _NONE
        deal.trick_points = 0
        for seat, name in observation.trick:
            card = INDEX[name]
            if deal.best == _NONE:
                deal.led, deal.best, deal.best_seat = card >> 3, card, seat
            elif card >> 3 == deal.led and card < deal.best:  # a smaller index is a higher card
                deal.best, deal.best_seat = card, seat
            deal.trick_points += POINTS[card]
        return deal

    @classmethod
    def start(cls, dealer: int, hands: list[int], pot: int) -> PlayoutDeal:
        """A deal before the first call: ``hands`` as dealt, bidding from the dealer's next player (S-4)."""
        deal = cls.__new__(cls)
        deal.hands = list(hands)
        deal.played = 0
        deal.known_out = [0] * PLAYERS
        deal.dealer = dealer
        deal.called = []
        deal.contract = None
        deal.bidder = _NONE
        deal.to_act = (dealer + 1) % PLAYERS
        deal.in_trick = deal.trick_points = deal.tricks = 0
        deal.led = deal.best = deal.best_seat = _NONE
        deal.points = [0] * PLAYERS
        deal.tricks_won = [0] * PLAYERS
        deal.pot = pot
        deal.over = False
        return deal

    def copy(self) -> PlayoutDeal:
        """An independent copy (lists copied, the rest immutable)."""
        twin = PlayoutDeal.__new__(PlayoutDeal)
        twin.hands = self.hands[:]
        twin.played = self.played
        twin.known_out = self.known_out[:]
        twin.dealer = self.dealer
        twin.called = self.called[:]
        twin.contract = self.contract
        twin.bidder = self.bidder
        twin.to_act = self.to_act
        twin.in_trick = self.in_trick
        twin.led = self.led
        twin.best = self.best
        twin.best_seat = self.best_seat
        twin.trick_points = self.trick_points
        twin.tricks = self.tricks
        twin.points = self.points[:]
        twin.tricks_won = self.tricks_won[:]
        twin.pot = self.pot
        twin.over = self.over
        return twin

    # ---------------------------------------------------------------- bidding

    def calls(self) -> tuple[str, ...]:
        """The calls open to the seat to bid (S-4)."""
        made = {call for _seat, call in self.called}
        if BIG in made:
            return (PASS,)
        if SMALL in made:
            return (PASS, BIG)
        return (PASS, SMALL, BIG)

    def bid(self, seat: int, call: str) -> None:
        """Record a call; after the dealer's, fix the contract and the leader (S-4, S-5)."""
        self.called.append((seat, call))
        if seat != self.dealer:
            self.to_act = (seat + 1) % PLAYERS
            return
        self.contract, self.bidder = REGULAR, _NONE
        for who, made in self.called:
            if made == BIG:
                self.contract, self.bidder = BIG, who
                break
            if made == SMALL:
                self.contract, self.bidder = SMALL, who
        self.to_act = (self.dealer + 1) % PLAYERS if self.bidder == _NONE else self.bidder

    # ------------------------------------------------------------------- play

    def legal(self) -> int:
        """The cards the seat to move may play (S-6, S-7, S-8)."""
        hand = self.hands[self.to_act]
        if not self.in_trick:
            return hand
        follow = hand & SUIT_MASKS[self.led]
        if not follow:
            return hand
        if self.contract == SMALL:
            beat = follow & ABOVE_MASKS[self.best]
            if beat:
                return beat
        return follow

    def play(self, card: int) -> None:
        """The seat to move plays ``card`` (assumed legal); completes tricks and ends the deal when decided."""
        seat = self.to_act
        bit = 1 << card
        self.hands[seat] ^= bit
        self.played |= bit
        if not self.in_trick:
            self.led, self.best, self.best_seat = card >> 3, card, seat
        elif card >> 3 == self.led:
            if card < self.best:
                self.best, self.best_seat = card, seat
            elif self.contract == SMALL:
                self.known_out[seat] |= ABOVE_MASKS[self.best]  # S-8: it could not beat
        else:
            self.known_out[seat] |= SUIT_MASKS[self.led]  # S-6: void in the led suit
        self.trick_points += POINTS[card]
        self.in_trick += 1
        if self.in_trick < PLAYERS:
            self.to_act = (seat + 1) % PLAYERS
            return
        winner = self.best_seat
        self.points[winner] += self.trick_points
        self.tricks_won[winner] += 1
        self.tricks += 1
        self.in_trick = self.trick_points = 0
        self.led = self.best = self.best_seat = _NONE
        self.to_act = winner
        if (
            self.tricks == TRICKS_PER_DEAL
            or (self.contract == BIG and winner != self.bidder)  # S-14: big fails at once
            or (self.contract == SMALL and winner == self.bidder)  # S-15: small fails at once
        ):
            self.over = True

    def chip_change(self, seat: int) -> int:
        """``seat``'s chip change when the deal is settled (S-11..S-15), by the engine's own settlement."""
        if self.contract == REGULAR:
            return settle_regular(self.points, self.tricks_won, self.pot)[0][seat]
        return settle_contract(self.contract, self.bidder, self.tricks_won)[0][seat]  # type: ignore[arg-type]


# ------------------------------------------------------------ rollout policy
#
# A fast heuristic every seat follows in playouts.  It sees only what that seat
# would see: its own hand, the cards played and the public voids (``known_out``).
# The bids reuse the greedy agent's safe-hand tests; the card play is written for
# card masks (the greedy agent's ``_View`` works on observations, too slow here).


def rollout_call(deal: PlayoutDeal, seat: int) -> str:
    """Bid only what cannot lose (the greedy agent's tests): big, then small, else pass."""
    calls = deal.calls()
    hand = deal.hands[seat]
    if BIG in calls and big_is_safe(hand):
        return BIG
    if SMALL in calls and small_is_safe(hand):
        return SMALL
    return PASS


def rollout_card(deal: PlayoutDeal) -> int:
    """The card the seat to move plays in a playout (deterministic: playouts differ by their worlds)."""
    legal = deal.legal()
    if not legal & (legal - 1):
        return legal.bit_length() - 1  # a single legal card
    cards = indices_of(legal)
    seat = deal.to_act
    unseen = FULL_DECK_MASK & ~deal.hands[seat] & ~deal.played
    if deal.contract == REGULAR:
        return _regular_card(deal, cards, unseen)
    if deal.contract == BIG:
        return _big_card(deal, seat, cards, unseen)
    return _small_card(deal, seat, cards, unseen)


def _regular_card(deal: PlayoutDeal, cards: list[int], unseen: int) -> int:
    """Regular game: take no points (S-11).  Lead low, duck under the winner, dump points when void."""
    if not deal.in_trick:
        # Lead the card others most surely beat; a sure winner or a point card last.
        return min(
            cards,
            key=lambda c: (not unseen & ABOVE_MASKS[c], POINTS[c], -(unseen & ABOVE_MASKS[c]).bit_count(), -c),
        )
    best = deal.best
    if cards[0] >> 3 != deal.led:
        # Void: dump the costliest card, then the one most likely to win a trick later.
        return max(
            cards,
            key=lambda c: (POINTS[c], (unseen & BELOW_MASKS[c]).bit_count() - (unseen & ABOVE_MASKS[c]).bit_count()),
        )
    under = [c for c in cards if c > best]
    if under:
        # Someone else takes this trick: hand them our points, then our highest card below the winner.
        return max(under, key=lambda c: (POINTS[c], -c))
    if deal.in_trick == PLAYERS - 1:
        # Last and forced over: we take it anyway, so get rid of our highest pointless card.
        return min(cards, key=lambda c: (POINTS[c], c))
    # Forced over with players to come: the lowest winner, point cards kept back.
    return min(cards, key=lambda c: (POINTS[c], -c))


def _big_card(deal: PlayoutDeal, seat: int, cards: list[int], unseen: int) -> int:
    """Big (S-14): the bidder leads winners; the others beat the bidder when they can."""
    bidder = deal.bidder
    if seat == bidder:
        if not deal.in_trick:
            # A card with nothing unseen above it wins; draw the longest suit first.
            hand = deal.hands[seat]
            return min(
                cards,
                key=lambda c: ((unseen & ABOVE_MASKS[c]).bit_count(), -(hand & SUIT_MASKS[c >> 3]).bit_count(), c),
            )
        return cards[0]  # never reached: the bidder leads every trick while the contract stands
    if cards[0] >> 3 != deal.led or (deal.in_trick and deal.best_seat != bidder and _has_played(deal, bidder)):
        # Void, or a partner already beats the bidder: keep the cards that may win later.
        return max(cards, key=lambda c: ((unseen & ABOVE_MASKS[c]).bit_count(), c))
    over = [c for c in cards if c < deal.best]
    if over and _has_played(deal, bidder):
        return over[-1]  # the lowest card that beats the bidder
    return cards[0]  # our highest card: the bidder, still to come, must beat it


def _small_card(deal: PlayoutDeal, seat: int, cards: list[int], unseen: int) -> int:
    """Small (S-15, S-8): the bidder ducks; the others try to leave the bidder on top."""
    bidder = deal.bidder
    if seat == bidder:
        if not deal.in_trick:
            # Lead the low card with the most unseen cards above it: someone must beat it (S-8).
            return max(cards, key=lambda c: ((unseen & ABOVE_MASKS[c]).bit_count(), c))
        if cards[0] >> 3 != deal.led:
            # Void: shed the card most likely to be forced over later (fewest unseen above it).
            return min(cards, key=lambda c: ((unseen & ABOVE_MASKS[c]).bit_count(), c))
        under = [c for c in cards if c > deal.best]
        if under:
            return under[0]  # our highest card that still ducks
        return cards[-1]  # forced over (S-8): the lowest, which a later player may have to beat
    if not deal.in_trick:
        # Lead low in a suit the bidder may still hold, so must-beat (S-8) may push the bidder over.
        live = [c for c in cards if SUIT_MASKS[c >> 3] & unseen & ~deal.known_out[bidder]]
        return max(live or cards, key=lambda c: (c & 7, -(unseen & ABOVE_MASKS[c]).bit_count()))
    if cards[0] >> 3 != deal.led:
        return min(cards, key=lambda c: (c & 7, c))  # void: shed a high card, a liability under must-beat
    if not _has_played(deal, bidder):
        return cards[-1]  # keep the bar low for the bidder
    if deal.best_seat == bidder:
        under = [c for c in cards if c > deal.best]
        if under:
            return under[0]  # leave the bidder on top, shedding our highest card below
    return cards[0]  # the bidder is beaten either way: shed our highest


def _has_played(deal: PlayoutDeal, seat: int) -> bool:
    """Whether ``seat`` has played to the current trick (seats play in order from the leader)."""
    if not deal.in_trick:
        return False
    leader = (deal.to_act - deal.in_trick) % PLAYERS
    return (seat - leader) % PLAYERS < deal.in_trick


def play_out(deal: PlayoutDeal, seat: int) -> int:
    """Finish ``deal`` in place by the rollout policy and return ``seat``'s chip change."""
    while deal.contract is None:
        who = deal.to_act
        deal.bid(who, rollout_call(deal, who))
    while not deal.over:
        deal.play(rollout_card(deal))
    return deal.chip_change(seat)


# ----------------------------------------------------------- opponent model

MODEL_EPSILON = 0.05
"""Relative likelihood of a call or card the rollout policy would not have chosen (1 when it would)."""

MODEL_DRAWS = 4
"""Worlds sampled per world played out, picked by likelihood (1: importance weights instead)."""

MAX_WORLDS = 60
"""At most this many worlds per move, whatever the budget: with two or three candidates sampling and
weighing a world costs more than its playouts, and more worlds add time but, measured, no strength."""


def history_likelihood(observation: LorumObservation, hands: list[int], epsilon: float = MODEL_EPSILON) -> float:
    """How well a world with ``hands`` explains the other seats' calls and cards this deal.

    The deal is replayed from its start (the sampled hands plus the cards played);
    every decision of another seat with a choice counts 1 when the rollout policy,
    in that seat's place, would have made it and ``epsilon`` when not.  So worlds
    in which the others' play looks sensible weigh more, yet none is ruled out.
    """
    me = observation.seat
    dealt = list(hands)
    plays = _plays(observation)
    for seat, name in plays:
        dealt[seat] |= 1 << INDEX[name]
    deal = PlayoutDeal.start(observation.dealer, dealt, observation.pot)
    weight = 1.0
    for seat, call in observation.bids:
        if seat != me and rollout_call(deal, seat) != call:
            weight *= epsilon
        deal.bid(seat, call)
    for seat, name in plays:
        card = INDEX[name]
        if seat != me:
            legal = deal.legal()
            if legal & (legal - 1) and rollout_card(deal) != card:
                weight *= epsilon
        deal.play(card)
    return weight


def _plays(observation: LorumObservation) -> list[tuple[int, str]]:
    """Every ``(seat, card)`` played this deal, in order."""
    plays = [play for trick, _winner in observation.tricks for play in trick]
    plays.extend(observation.trick)
    return plays


# ------------------------------------------------------------------ the agent


def card_candidates(deal: PlayoutDeal) -> list[int]:
    """The legal cards of the seat to move, one per class of interchangeable cards.

    Two cards of one suit are interchangeable when every card still in play
    between them is in the same hand (so they beat and lose to exactly the same
    cards of the others) and they carry the same points (S-9).  The highest card
    of each class stands for it.
    """
    hand = deal.hands[deal.to_act]
    live = FULL_DECK_MASK & ~deal.played
    chosen: list[int] = []
    for card in indices_of(deal.legal()):
        if not any(
            other >> 3 == card >> 3
            and POINTS[other] == POINTS[card]
            and not ABOVE_MASKS[card] & BELOW_MASKS[other] & live & ~hand
            for other in chosen
        ):
            chosen.append(card)
    return chosen


class SearchLorumAgent(Agent):
    """Determinized Monte Carlo search over the current deal's chip change (see the module docstring)."""

    def __init__(self, seat: int, game: GameInfo, players: int, seed: int, options: Mapping[str, Any]) -> None:
        super().__init__(seat=seat, game=game, players=players, seed=seed, options=options)
        check_options(self.options, OPTIONS, "search")
        self.budget = Budget.from_options(self.options, DEFAULT_ITERATIONS)
        self.stats: dict[str, Any] = {}  # the last decision's search figures (SearchStats.to_json), {} if none

    def act(self, observation: Observation) -> Action:
        """The legal action with the best mean chip change over sampled deals."""
        if not isinstance(observation, LorumObservation):
            raise TypeError(f"SearchLorumAgent needs a LorumObservation, not {type(observation).__name__}")
        if not observation.legal:
            raise ValueError(f"seat {self.seat} has no legal action: it is seat {observation.to_move}'s turn")
        me = self.seat
        own = [0] * PLAYERS
        own[me] = mask_of(observation.hand)
        template = PlayoutDeal.from_observation(observation, own)
        if observation.phase == "bid":
            candidates: list[Action] = list(observation.legal)
        else:
            candidates = [DECK[card] for card in card_candidates(template)]
        if len(candidates) == 1:  # one legal action, or several that are all the same
            self.stats = SearchStats().to_json()
            return candidates[0]

        def sample(rng: random.Random) -> PlayoutDeal:
            deal = template.copy()
            deal.hands = sample_hidden_hands(observation, rng)
            return deal

        def playout(world: PlayoutDeal, action: Action, _rng: random.Random) -> float:
            deal = world.copy()
            if deal.contract is None:
                deal.bid(me, action)  # type: ignore[arg-type]
            else:
                deal.play(INDEX[action])  # type: ignore[index]
            return play_out(deal, me)

        def weight(world: PlayoutDeal) -> float:
            return history_likelihood(observation, world.hands, MODEL_EPSILON)

        # Only the others' cards this deal tell much about their hands (the policy's bids are rare).
        informative = any(seat != me for seat, _card in _plays(observation))
        rng = move_rng(self.seed, observation.deal, len(observation.bids), len(observation.played))
        stats: SearchStats[Action] = determinized_search(
            candidates,
            sample,
            playout,
            self.budget,
            rng,
            weight=weight if informative else None,
            draws=MODEL_DRAWS,
            max_worlds=MAX_WORLDS,
        )
        self.stats = stats.to_json()
        return stats.best()
