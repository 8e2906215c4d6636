"""First-party Slovak Lorum agents: ``RandomLorumAgent`` and ``GreedyLorumAgent``.

Both decide from the observation alone (no state, no search).  The greedy agent
is a one-trick heuristic: it bids only with hands that cannot lose the
contract, avoids points in regular games, and plays to make or break a contract.
"""

from __future__ import annotations

from arena.agent import Agent
from arena.games.base import Action, Observation
from arena.games.lorum.cards import (
    ABOVE_MASKS,
    DECK,
    FULL_DECK_MASK,
    INDEX,
    POINTS,
    SUIT_MASKS,
    indices_of,
    mask_of,
)
from arena.games.lorum.observation import LorumObservation
from arena.games.lorum.sampler import excluded_cards
from arena.games.lorum.state import BIG, PASS, PLAYERS, SMALL
from arena.seating.substitute import RandomAgent

BELOW_MASKS: tuple[int, ...] = tuple(SUIT_MASKS[card >> 3] & ~ABOVE_MASKS[card] & ~(1 << card) for card in range(32))
"""For each card, the mask of the cards of its suit ranked below it."""


class RandomLorumAgent(RandomAgent):
    """Uniform over the legal actions, from its own seeded RNG (the game's declared policy)."""


def big_is_safe(hand: int) -> bool:
    """Whether leading from ``hand`` wins every trick whatever the opponents hold (S-14).

    With no trumps a led card wins when no unseen card of its suit is higher.  A
    suit is safe when its cards are the top of the suit (A, K, O... unbroken), or
    when the unbroken top run is at least as long as the opponents' holding of the
    suit, which it then exhausts (every lead draws at least one of their cards).
    """
    for suit in range(4):
        held = hand & SUIT_MASKS[suit]
        length = held.bit_count()
        if not length:
            continue
        top = 0
        for card in range(suit * 8, suit * 8 + 8):
            if not held >> card & 1:
                break
            top += 1
        if top != length and top < 8 - length:
            return False
    return True


def small_is_safe(hand: int) -> bool:
    """Whether ``hand`` can never be forced to win a trick in the small game (S-15, S-8).

    Every held suit must be the bottom of the suit (7, 8, 9... unbroken): any card
    someone else leads or plays in it is then higher, so must-beat never forces
    us over, and our own opening lead is beaten by whoever follows.
    """
    for suit in range(4):
        held = hand & SUIT_MASKS[suit]
        length = held.bit_count()
        if not length:
            continue
        if length == 8:
            return False  # nobody could follow the lead
        bottom = 0
        for card in range(suit * 8 + 7, suit * 8 - 1, -1):
            if not held >> card & 1:
                break
            bottom += 1
        if bottom != length:
            return False
    return True


class GreedyLorumAgent(Agent):
    """A heuristic player: safe bids only, avoids points, makes or breaks contracts."""

    def act(self, observation: Observation) -> Action:
        """Pick a call or a card by the heuristics below; always one of ``observation.legal``."""
        if not isinstance(observation, LorumObservation):
            raise TypeError(f"GreedyLorumAgent needs a LorumObservation, not {type(observation).__name__}")
        legal = observation.legal
        if len(legal) == 1:
            return legal[0]
        if observation.phase == "bid":
            return self._bid(observation)
        view = _View(observation)
        if observation.contract == BIG:
            card = view.play_big()
        elif observation.contract == SMALL:
            card = view.play_small()
        else:
            card = view.play_regular()
        return DECK[card]  # every heuristic picks from the legal cards

    def _bid(self, observation: LorumObservation) -> Action:
        hand = mask_of(observation.hand)
        if BIG in observation.legal and big_is_safe(hand):
            return BIG
        if SMALL in observation.legal and small_is_safe(hand):
            return SMALL
        return PASS


class _View:
    """The facts the greedy heuristics need, computed once per decision."""

    def __init__(self, observation: LorumObservation) -> None:
        self.obs = observation
        self.me = observation.seat
        self.hand = mask_of(observation.hand)
        self.legal = mask_of(observation.legal)  # type: ignore[arg-type]  # card names: Lorum has no tuple action
        self.unseen = FULL_DECK_MASK & ~self.hand & ~mask_of(observation.played)
        self.trick = [(seat, INDEX[name]) for seat, name in observation.trick]
        self.position = len(self.trick)  # 0 when leading
        self.last = self.position == PLAYERS - 1
        if self.trick:
            led = self.trick[0][1]
            self.suit = led >> 3
            self.best, self.best_seat = led, self.trick[0][0]
            for seat, card in self.trick[1:]:
                if card >> 3 == self.suit and card < self.best:
                    self.best, self.best_seat = card, seat
        else:
            self.suit = self.best = self.best_seat = -1
        self.following = bool(self.trick) and bool(self.legal & SUIT_MASKS[self.suit])
        self.cards = indices_of(self.legal)

    # ------------------------------------------------------------- helpers

    def higher_unseen(self, card: int) -> int:
        """Unseen cards of ``card``'s suit that beat it."""
        return (self.unseen & ABOVE_MASKS[card]).bit_count()

    def lower_unseen(self, card: int) -> int:
        """Unseen cards of ``card``'s suit that it beats."""
        return (self.unseen & BELOW_MASKS[card]).bit_count()

    def played_in_trick(self, seat: int) -> bool:
        return any(who == seat for who, _card in self.trick)

    # -------------------------------------------------------------- regular

    def play_regular(self) -> int:
        """Avoid tricks with points: lead losers, play under the winner, dump Obers and hearts when void."""
        cards = self.cards
        if not self.trick:
            # Lead the card most likely to be beaten; never a sure winner if avoidable; points last.
            return min(cards, key=lambda c: (self.higher_unseen(c) == 0, POINTS[c], -self.higher_unseen(c), -c))
        if not self.following:
            # Void: dump the green Ober, the acorn Ober, high hearts, then the riskiest high card.
            return max(cards, key=lambda c: (POINTS[c], -self.higher_unseen(c), -(c & 7)))
        under = [c for c in cards if c > self.best]
        if under:
            # Somebody else wins: give them our points and our highest safe card.
            return max(under, key=lambda c: (POINTS[c], -(c & 7)))
        if self.last:
            # We win anyway: win with the highest card that adds no points.
            return max(cards, key=lambda c: (-POINTS[c], -(c & 7)))
        # Not last and we must go over: the lowest winner, keeping point cards back.
        return min(cards, key=lambda c: (POINTS[c], -(c & 7)))

    # ------------------------------------------------------------------ big

    def play_big(self) -> int:
        """Bidder: lead sure winners.  Opponents: beat the bidder when possible."""
        bidder = self.obs.bidder
        assert bidder is not None  # a big game has a bidder
        cards = self.cards
        if self.me == bidder:
            # We lead every trick while the contract stands: a card with nothing unseen above it wins.
            sure = [c for c in cards if self.higher_unseen(c) == 0]
            if sure:
                # Prefer the suit where we hold the most (drawing the opponents' cards), then the top card.
                return min(sure, key=lambda c: (-(self.hand & SUIT_MASKS[c >> 3]).bit_count(), c))
            return min(cards, key=lambda c: (self.higher_unseen(c), c))
        if not self.trick:
            return min(cards, key=lambda c: (self.higher_unseen(c), c))
        if not self.following:
            # Keep cards that might win later: discard the one with most unseen above it.
            return max(cards, key=lambda c: (self.higher_unseen(c), c & 7))
        bidder_winning = self.best_seat == bidder
        bidder_to_come = not self.played_in_trick(bidder)
        if bidder_winning or bidder_to_come:
            return min(cards)  # our highest card of the led suit
        return max(cards)  # a partner already beats the bidder: keep high cards

    # ---------------------------------------------------------------- small

    def play_small(self) -> int:
        """Bidder: duck every trick.  Opponents: force the bidder to win one."""
        bidder = self.obs.bidder
        assert bidder is not None  # a small game has a bidder
        cards = self.cards
        if self.me == bidder:
            if not self.trick:
                # Lead our lowest card where the most unseen cards are above it (someone must beat it, S-8).
                return max(cards, key=lambda c: (self.higher_unseen(c), c & 7))
            if not self.following:
                # Void: shed the card most likely to be forced over later (fewest unseen below it).
                return min(cards, key=lambda c: (self.lower_unseen(c), c & 7))
            under = [c for c in cards if c > self.best]
            if under:
                return min(under)  # our highest card that still ducks
            return max(cards)  # forced to beat (S-8): the lowest, hoping a later player must beat it too
        # Opponents.
        bidder_played = self.played_in_trick(bidder)
        if not self.trick:
            # Lead low in a suit the bidder still holds, so must-beat (S-8) may force the bidder over.
            voids = excluded_cards(self.obs)[bidder]
            live = [c for c in cards if (SUIT_MASKS[c >> 3] & self.unseen & ~voids)]
            return max(live or cards, key=lambda c: (c & 7, -self.higher_unseen(c)))
        if not self.following:
            return min(cards, key=lambda c: (c & 7))  # shed a high card, a liability when must-beat applies
        if not bidder_played:
            return max(cards)  # keep the bar low for the bidder
        if self.best_seat == bidder:
            under = [c for c in cards if c > self.best]
            if under:
                return min(under)  # leave the bidder winning, shed our highest card below
            return min(cards)  # forced over the bidder (S-8): shed our highest, a liability later
        return min(cards)  # the bidder is already beaten: shed our highest
