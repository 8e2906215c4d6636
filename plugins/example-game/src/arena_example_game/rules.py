"""Pledge's cards and its two rules of play: which cards a seat may play, and who wins a trick.

The deck is 24 cards: ranks 9, T (ten), J, Q, K, A (low to high) in clubs, diamonds, hearts and spades.
A card is named by rank then suit: ``"Ah"`` is the ace of hearts, ``"Tc"`` the ten of clubs.
"""

from __future__ import annotations

from collections.abc import Sequence

RANKS = ("9", "T", "J", "Q", "K", "A")
"""Ranks from low to high."""

SUITS = ("c", "d", "h", "s")
"""Suits, in the deck's order."""

SUIT_NAMES = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
RANK_NAMES = {"9": "nine", "T": "ten", "J": "jack", "Q": "queen", "K": "king", "A": "ace"}

DECK = tuple(rank + suit for suit in SUITS for rank in RANKS)
"""The 24 cards, suit by suit, each suit from low to high: the order of an unshuffled deck."""

ORDER = {card: index for index, card in enumerate(DECK)}
"""A card's position in ``DECK``: hands are kept sorted by it."""


def suit(card: str) -> str:
    """The card's suit letter."""
    return card[1]


def rank(card: str) -> int:
    """The card's rank, 0 (nine) to 5 (ace)."""
    return RANKS.index(card[0])


def playable(hand: Sequence[str], led: str | None) -> tuple[str, ...]:
    """The cards of ``hand`` a seat may play: any card when leading, else a card of the led suit if it holds one."""
    if led is None:
        return tuple(hand)
    following = tuple(card for card in hand if suit(card) == led)
    return following or tuple(hand)


def trick_winner(plays: Sequence[tuple[int, str]], trump: str) -> int:
    """The seat whose card wins the trick: the highest trump if any was played, else the highest of the led suit."""
    led = suit(plays[0][1])
    best_seat, best_card = plays[0]
    for seat, card in plays[1:]:
        beats = (suit(card) == suit(best_card) and rank(card) > rank(best_card)) or (
            suit(card) == trump and suit(best_card) != trump)
        if beats and suit(card) in (led, trump):
            best_seat, best_card = seat, card
    return best_seat


def score(bid: int, tricks: int) -> int:
    """Points for one seat: 10 plus the bid when it took exactly the tricks it pledged, else minus the miss."""
    return 10 + bid if tricks == bid else -abs(tricks - bid)


def describe_card(card: str) -> str:
    """``"ace of hearts"``."""
    return f"{RANK_NAMES[card[0]]} of {SUIT_NAMES[card[1]]}"
