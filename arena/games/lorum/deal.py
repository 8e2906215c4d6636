"""The Slovak Lorum deal: shuffled and dealt, or scripted and checked (S-3, S-19).

Step 2 of the RNG consumption order (``state.py``): each deal is drawn here as
four hand masks and logged in the game's chance log either way.
"""

from __future__ import annotations

from typing import Any

from arena.games.base import Chance, scripted_hands
from arena.games.lorum.cards import BITS, CARDS_PER_HAND, DECK, INDEX, mask_names, mask_of
from arena.games.lorum.rules import PLAYERS


def draw_deal(chance: Chance, dealer: int) -> list[int]:
    """The next deal as 4 hand masks by seat: scripted, or shuffled and dealt by ``dealer`` (S-3); logged either way."""
    scripted = chance.scripted("deal")
    if scripted is not None:
        masks = validate_deal(scripted)
    else:
        # Shuffling the card indices 0..31 draws exactly what shuffling DECK would (a shuffle's draws
        # depend only on the length) and gives the dealt cards as indices, ready for the masks.
        deck = list(range(len(DECK)))
        chance.shuffle(deck)  # the same draws as chance.rng.shuffle(deck), faster
        # S-3: two batches of 4, from the dealer's next player: the k-th run of 4 cards (k = 0..7)
        # goes to seat (dealer + 1 + k) % 4, so seat (dealer + 1 + j) takes runs j and j + 4.
        masks = [0] * PLAYERS
        bit = BITS
        for j in range(PLAYERS):
            a, b, c, d = deck[4 * j : 4 * j + 4]
            e, f, g, h = deck[4 * j + 16 : 4 * j + 20]
            masks[(dealer + 1 + j) % PLAYERS] = bit[a] | bit[b] | bit[c] | bit[d] | bit[e] | bit[f] | bit[g] | bit[h]
    chance.record_fresh("deal", [list(mask_names(mask)) for mask in masks])  # new lists: no copy needed
    return masks


def validate_deal(value: Any) -> list[int]:
    """Check a scripted ``deal`` value and return the 4 hands as masks (one-line ``InvalidSetup`` errors)."""
    hands = scripted_hands(value, PLAYERS, CARDS_PER_HAND, INDEX, " (names are rank then suit, e.g. 'Ah', 'Og', '10b')")
    return [mask_of(hand) for hand in hands]
