"""``PlayoutDeal``: the rest of one Lorum deal on card masks, and the rules the seats follow in playouts.

The Lorum search's simulator: just enough of the rules to play the current deal out
and settle it (several times faster than driving ``LorumState``; a test checks it
against the engine), and the fast heuristics the seats follow in playouts.  Each other
seat plays a ``Style`` (the deal's ``styles`` say which): for each kind of decision (its
calls, leads, follows and void discards) one of the ``FAMILIES`` of rules: the rollout
policy, which plays like the greedy agent, or the ducking or the cautious rule of simpler
players.  The searching seat plays the rollout policy, but for its own later cards after
a card decision (``lorum.play_out_searching``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache

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
from arena.games.lorum.sampler import excluded_cards
from arena.games.lorum.state import BIG, PASS, PLAYERS, REGULAR, SMALL, settle_contract, settle_regular
from arena_agents.lorum import BELOW_MASKS, big_is_safe, small_is_safe

_NONE = -1  # no card / no seat / no suit yet


class PlayoutDeal:
    """The rest of one deal on card masks: just enough of the rules to play it out and settle it.

    Mirrors ``LorumState`` for one deal (S-4..S-8, S-14, S-15 early ends) without
    names, logs or later deals.  ``known_out[seat]`` is the public mask of cards
    ``seat`` cannot hold (voids, S-6; must-beat, S-8): rollout policies may use it,
    it is what every seat knows.
    """

    __slots__ = (
        "best",
        "best_seat",
        "bidder",
        "called",
        "contract",
        "dealer",
        "hands",
        "in_trick",
        "known_out",
        "led",
        "over",
        "played",
        "points",
        "pot",
        "styles",
        "to_act",
        "trick_cards",
        "trick_points",
        "tricks",
        "tricks_won",
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
    trick_cards: int  # the cards in the current trick (mask)
    tricks: int  # completed tricks this deal
    points: list[int]  # card points taken per seat (S-9)
    tricks_won: list[int]  # tricks taken per seat
    pot: int  # the pot before this deal is settled (S-10)
    styles: Sequence[Style]  # per seat: the families it follows (shared by copies, never changed)
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
        deal.styles = ROLLOUT_STYLES
        deal.over = False
        deal.in_trick = len(observation.trick)
        deal.led = deal.best = deal.best_seat = _NONE
        deal.trick_points = deal.trick_cards = 0
        for seat, name in observation.trick:
            card = INDEX[name]
            deal.trick_cards |= 1 << card
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
        deal.in_trick = deal.trick_points = deal.trick_cards = deal.tricks = 0
        deal.led = deal.best = deal.best_seat = _NONE
        deal.points = [0] * PLAYERS
        deal.tricks_won = [0] * PLAYERS
        deal.pot = pot
        deal.styles = ROLLOUT_STYLES
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
        twin.trick_cards = self.trick_cards
        twin.tricks = self.tricks
        twin.points = self.points[:]
        twin.tricks_won = self.tricks_won[:]
        twin.pot = self.pot
        twin.styles = self.styles
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
        self.trick_cards |= bit
        self.in_trick += 1
        if self.in_trick < PLAYERS:
            self.to_act = (seat + 1) % PLAYERS
            return
        winner = self.best_seat
        self.points[winner] += self.trick_points
        self.tricks_won[winner] += 1
        self.tricks += 1
        self.in_trick = self.trick_points = self.trick_cards = 0
        self.led = self.best = self.best_seat = _NONE
        self.to_act = winner
        if (
            self.tricks == TRICKS_PER_DEAL
            or (self.contract == BIG and winner != self.bidder)  # S-14: big fails at once
            or (self.contract == SMALL and winner == self.bidder)  # S-15: small fails at once
        ):
            self.over = True

    def chip_changes(self) -> tuple[int, ...]:
        """Every seat's chip change when the deal is settled (S-11..S-15), by the engine's own settlement."""
        contract = self.contract
        if contract is None:
            raise ValueError("the deal cannot be settled before its contract is fixed")
        if contract == REGULAR:
            return settle_regular(self.points, self.tricks_won, self.pot)[0]
        return settle_contract(contract, self.bidder, self.tricks_won)[0]


# ------------------------------------------------------------ rollout policy
#
# A fast heuristic the seats follow in playouts (the searching seat's later cards after a
# card decision apart, ``lorum.play_out_searching``).  It sees only what that seat
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
    """The rollout policy's card for the seat to move (deterministic: playouts differ by their worlds)."""
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
            # Every unseen card is in another hand, so a lead with an unseen card above it is safe: its
            # holder must follow and beat it (S-8).  Lead the riskiest such card (fewest unseen above) and
            # keep the low ones for later; with none safe the trick is lost whatever we lead.
            safe = [c for c in cards if unseen & ABOVE_MASKS[c]]
            return min(safe or cards, key=lambda c: ((unseen & ABOVE_MASKS[c]).bit_count(), -c))
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


# ------------------------------------------------------------- ducking rule
#
# A simpler player's rule, the one ``plugins/example-agent`` plays and docs/writing-agents.md's
# reader is likely to write first: never bid; in a regular game lead the lowest card of the
# shortest suit and follow with the highest card that still loses the trick, whatever its
# points (void: the highest card held); in a small game the lowest instead; chase a big
# bidder, else throw the lowest card.  Ties go to
# the card whose name sorts first, as a name-based agent's ``min`` and ``max`` would.


def pass_call(deal: PlayoutDeal, seat: int) -> str:
    """Never bid (the ducking and the cautious rule)."""
    return PASS


def ducking_card(deal: PlayoutDeal) -> int:
    """The ducking rule's card for the seat to move (see the comment above)."""
    legal = deal.legal()
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    cards = indices_of(legal)
    seat, contract, bidder = deal.to_act, deal.contract, deal.bidder
    if contract == BIG and seat == bidder:
        return min(cards, key=lambda c: c & 7)  # our own big: the highest card
    if contract == BIG:
        if not deal.in_trick:
            return min(cards, key=_rank_and_name)
        winners = [c for c in cards if c >> 3 == deal.led and c & 7 < deal.best & 7]
        return min(winners, key=_rank_and_name) if winners else max(cards, key=_rank_and_name)
    if not deal.in_trick:  # the lowest card of the shortest suit
        hand = deal.hands[seat]
        return max(cards, key=lambda c: (-(hand & SUIT_MASKS[c >> 3]).bit_count(), c & 7, DECK[c]))
    losing = [c for c in cards if c >> 3 != deal.led or c & 7 > deal.best & 7]
    if not losing:
        return min(cards, key=_rank_and_name)  # forced over: the highest
    # A small contract's other seats (and its bidder) duck with the lowest losing card, else the highest.
    return (max if contract == SMALL else min)(losing, key=_rank_and_name)


def _rank_and_name(card: int) -> tuple[int, str]:
    """Sort key: the rank (0 for the ace), then the card's name."""
    return card & 7, DECK[card]


# ------------------------------------------------------------ cautious rule
#
# Another rule a first agent often follows: never bid; lead the lowest card of the longest
# suit; follow with the lowest card, but as the last player of a regular trick that it must
# take anyway, with its highest card of the fewest points; void, shed the costliest card (the
# most points, then the highest).  In a big contract, bidder or not, it plays its highest card.
# Ties go to the card whose name sorts last (in a big contract, first).


def cautious_card(deal: PlayoutDeal) -> int:
    """The cautious rule's card for the seat to move (see the comment above)."""
    legal = deal.legal()
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    cards = indices_of(legal)
    if deal.contract == BIG:
        return min(cards, key=_rank_and_name)
    if not deal.in_trick:
        hand = deal.hands[deal.to_act]
        return max(cards, key=lambda c: ((hand & SUIT_MASKS[c >> 3]).bit_count(), c & 7, DECK[c]))
    if cards[0] >> 3 != deal.led:
        return max(cards, key=lambda c: (POINTS[c], -(c & 7), DECK[c]))
    if deal.in_trick == PLAYERS - 1 and deal.contract != SMALL and not any(c & 7 > deal.best & 7 for c in cards):
        return max(cards, key=lambda c: (-POINTS[c], -(c & 7), DECK[c]))
    return max(cards, key=_rank_and_name)


# ------------------------------------------------------------------- styles
#
# A seat's style names a family of rules for each kind of decision: its calls, its leads, its
# cards when it can follow suit and its cards when it cannot.  So a seat that leads like one
# rule and follows like another is still modelled, and each kind is learned from its own
# decisions (``lorum_beliefs``, ``lorum_styles``).

FAMILIES: tuple[str, ...] = ("rollout", "ducking", "cautious")
"""The families of rules another seat may follow, by index."""

CALL_RULES: tuple[Callable[[PlayoutDeal, int], str], ...] = (rollout_call, pass_call, pass_call)
"""Each family's bid, by family index."""

CARD_RULES: tuple[Callable[[PlayoutDeal], int], ...] = (rollout_card, ducking_card, cautious_card)
"""Each family's card, by family index."""

KINDS: tuple[str, ...] = ("call", "lead", "follow", "void")
"""The kinds of decision a style gives a family each (a ``Style`` is indexed by these)."""

CALL, LEAD, FOLLOW, VOID = range(len(KINDS))
"""The index of each kind of decision in ``KINDS`` (and in a ``Style``)."""

Style = tuple[int, ...]
"""A seat's family for each of ``KINDS``."""

ROLLOUT_STYLE: Style = (0,) * len(KINDS)
"""The rollout policy for every kind of decision."""

ROLLOUT_STYLES = (ROLLOUT_STYLE,) * PLAYERS
"""Every seat on the rollout policy (a deal's ``styles`` until told otherwise)."""


def card_kind(deal: PlayoutDeal, card: int) -> int:
    """The kind of the decision that played ``card`` (the seat to move's, before it is played)."""
    if not deal.in_trick:
        return LEAD
    return FOLLOW if card >> 3 == deal.led else VOID


@cache
def card_rule(style: Style) -> Callable[[PlayoutDeal], int]:
    """The card a seat of ``style`` plays: its lead, follow or void family's, whichever the position asks for."""
    lead, follow, void = (CARD_RULES[family] for family in style[LEAD:])
    if lead is follow is void:
        return lead

    def mixed(deal: PlayoutDeal) -> int:
        if not deal.in_trick:
            return lead(deal)
        return follow(deal) if deal.hands[deal.to_act] & SUIT_MASKS[deal.led] else void(deal)

    return mixed


def play_out(deal: PlayoutDeal) -> tuple[int, ...]:
    """Finish ``deal`` in place, every seat by its style's rules, and return every seat's chip change."""
    styles = deal.styles
    while deal.contract is None:
        who = deal.to_act
        deal.bid(who, CALL_RULES[styles[who][CALL]](deal, who))
    rules = [card_rule(style) for style in styles]
    while not deal.over:
        deal.play(rules[deal.to_act](deal))
    return deal.chip_changes()
