"""The Lovat deal: the dealer, the shuffle, misdeal redeals, and a scripted deal's checks (L-2, L-3, L-6).

Steps 1-3 of the RNG consumption order (``state.py``); a game's first state
comes from ``deal_game``.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from arena.games.base import Chance, scripted_hands, scripted_seat
from arena.games.chance import randbelow
from arena.games.lovat.deck import CARD_IDS, LEVEL
from arena.games.lovat.rules import Variant, stuck_seats
from arena.games.lovat.state import LovatState


def validate_deal(value: Any, variant: Variant) -> list[tuple[str, ...]]:
    """Check a scripted deal and return it as sorted hands; ``InvalidSetup`` with one line if it is wrong."""
    hands = scripted_hands(value, variant.players, variant.dealt, LEVEL, " (ids are level then number, e.g. 'L1-01')")
    return [tuple(sorted(hand)) for hand in hands]


def shuffled_deal(chance: Chance, variant: Variant, dealer: int) -> list[tuple[str, ...]]:
    """L-3: shuffle the full deck and deal one card at a time clockwise from the dealer's left."""
    # Shuffling the card indices 0..79 draws exactly what shuffling the ids would (a shuffle's draws depend only
    # on the length), and indices sort faster than ids, in the same order (CARD_IDS is sorted, checked below).
    deck = list(_INDICES)
    chance.shuffle(deck)  # the same draws as chance.rng.shuffle(deck), faster
    players = variant.players
    first = (dealer + 1) % players
    dealt = players * variant.dealt
    # Card ``index`` goes to seat ``(first + index) % players``: seat s takes every players-th card from s - first.
    # itemgetter(*indices)(CARD_IDS) names a hand in one C-level call (every hand has more than one card).
    return [itemgetter(*sorted(deck[(seat - first) % players : dealt : players]))(CARD_IDS) for seat in range(players)]


_INDICES = tuple(range(len(CARD_IDS)))
"""The card indices in deck order: a new deck is a copy of it (a list copy, rather than a list filled from a range)."""

if list(CARD_IDS) != sorted(CARD_IDS):
    raise AssertionError("shuffled_deal sorts card indices for ids: CARD_IDS must be in sorted order")


def deal_game(variant: Variant, chance: Chance) -> LovatState:
    """Steps 1-3 of the RNG order: dealer, deal, misdeal redeals (L-2, L-3, L-6)."""
    players = variant.players
    dealer = chance.scripted("dealer")
    if dealer is None:
        dealer = randbelow(chance.rng, players)  # rng.randrange(players), inlined
    else:
        dealer = scripted_seat(dealer, players)
    chance.record_fresh("dealer", dealer)  # an exact int: nothing to copy
    misdeals: list[tuple[int, ...]] = []
    while True:
        scripted = chance.scripted("deal")
        hands = shuffled_deal(chance, variant, dealer) if scripted is None else validate_deal(scripted, variant)
        chance.record_fresh("deal", list(map(list, hands)))  # new lists of ids: no copy needed
        stuck = stuck_seats(hands, variant)  # both kinds of deal come as sorted hands (shuffled_deal, validate_deal)
        if not stuck:
            break
        misdeals.append(stuck)  # L-6: gather, reshuffle with the same RNG, redeal by the same dealer
    return LovatState.after_deal(variant, chance, dealer, hands, misdeals, presorted=True)
