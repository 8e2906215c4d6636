"""Lovat's rules as data: the game id, phases and action names, the variant table and the keep rule.

Everything here is a constant or a pure function of cards and a variant; the
state machine (``state.py``), the deal (``deal.py``), observations, the
sampler, the encoding and the agents all read the rules from here.  Rulings
are cited by label (L-n); the rules as implemented are in ``docs/rules/lovat.md``.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import repeat
from operator import is_, itemgetter, lt
from typing import Any

from arena.games.base import InvalidSetup
from arena.games.lovat.deck import CARD_IDS, COLOURS, LEVEL, LEVEL_COUNT

GAME_ID = "lovat-v1"
"""Versioned game id; bump on any rules change."""

BLANK = "blank"
"""The die's sixth face: the active player names the colour (L-14)."""

FACES: tuple[str, ...] = COLOURS + (BLANK,)
"""The die's faces in roll order: ``FACES[rng.randrange(6)]`` (L-14)."""

KEEP, COLOUR, DECLARE, PLAY, VOID, OVER = "keep", "colour", "declare", "play", "void", "over"
"""Phase names."""

PHASES: tuple[str, ...] = (KEEP, COLOUR, DECLARE, PLAY, VOID, OVER)
"""Every phase, in the order a game meets them."""

PASS, PLAY_DECISION = "pass", "play"
"""The two declarations of the declare phase (L-10, L-11)."""

COUNTER = "counter"
"""The void-phase action that discards a counter rather than a card (L-12)."""

DECLARATIONS: tuple[tuple[tuple[str, ...], tuple[str, ...]], tuple[tuple[str, ...], tuple[str, ...]]] = (
    ((PLAY_DECISION,), (PLAY_DECISION,)),  # no counters: must play (L-11)
    ((PASS,), (PASS, PLAY_DECISION)),  # counters but no cards: must pass (L-11); both: either
)
"""``DECLARATIONS[has counters][has cards]``: the declarations open to a seat (L-11), as shared tuples."""

@dataclass(frozen=True, slots=True)
class Variant:
    """One row of the variant table (``docs/rules/lovat.md``, Variants)."""

    players: int  # number of seats
    dealt: int  # cards dealt to each seat (L-3)
    level_sum: int  # exact level sum of a keep (L-5)
    min_keep: int  # fewest cards a keep may have (L-5)
    max_keep: int  # most cards a keep may have (L-5)
    discard: int  # counters discarded right after the keeps (L-8)
    rounds: int  # rounds in the game; the last one is the die round (L-14, L-15)
    turns: int = field(init=False)  # turns in the game (L-15): rounds x players

    def __post_init__(self) -> None:
        # Stored rather than a property: the engine and every observation read it (a property is a call).
        object.__setattr__(self, "turns", self.rounds * self.players)

    @property
    def undealt(self) -> int:
        """Cards left in the deck after the deal (L-3)."""
        return len(CARD_IDS) - self.players * self.dealt


VARIANTS: dict[int, Variant] = {
    3: Variant(players=3, dealt=12, level_sum=9, min_keep=5, max_keep=9, discard=3, rounds=3),
    4: Variant(players=4, dealt=14, level_sum=12, min_keep=6, max_keep=12, discard=2, rounds=3),
    5: Variant(players=5, dealt=12, level_sum=10, min_keep=5, max_keep=10, discard=2, rounds=2),
    6: Variant(players=6, dealt=12, level_sum=12, min_keep=6, max_keep=12, discard=0, rounds=2),
}
"""The variant table, keyed by player count (L-4, L-5, L-8, L-15)."""


def variant_for(players: Any) -> Variant:
    """The variant for ``players`` seats; ``InvalidSetup`` for any other count (L-4)."""
    if isinstance(players, bool) or not isinstance(players, int) or players not in VARIANTS:
        raise InvalidSetup(f"Lovat is played by 3, 4, 5 or 6 players, not {players!r} (L-4)")
    return VARIANTS[players]


def level_counts(cards: Sequence[str]) -> tuple[int, int, int]:
    """How many level-1, level-2 and level-3 cards ``cards`` holds."""
    levels = list(map(LEVEL.__getitem__, cards))  # C-level passes: every deal checks every hand (L-6)
    return levels.count(1), levels.count(2), levels.count(3)


def keep_compositions(n1: int, n2: int, n3: int, variant: Variant) -> list[tuple[int, int, int]]:
    """The level compositions (a1, a2, a3) of legal keeps from a hand with n1/n2/n3 cards per level (L-5)."""
    found = []
    for a3 in range(min(n3, variant.level_sum // 3) + 1):
        for a2 in range(min(n2, (variant.level_sum - 3 * a3) // 2) + 1):
            a1 = variant.level_sum - 3 * a3 - 2 * a2
            if a1 <= n1 and variant.min_keep <= a1 + a2 + a3 <= variant.max_keep:
                found.append((a1, a2, a3))
    return found


def sorted_level_counts(cards: Sequence[str]) -> tuple[int, int, int]:
    """``level_counts`` of cards sorted by id, found by two bisections (ids start with their level: "L1-07").

    Every deal checks every dealt hand (L-6), and dealt hands are sorted: this is a third of the cost.
    """
    ones = bisect_left(cards, "L2")
    below_three = bisect_left(cards, "L3", ones)
    return ones, below_three - ones, len(cards) - below_three


def admits_keep(cards: Sequence[str], variant: Variant, *, presorted: bool = False) -> bool:
    """Whether a dealt hand has at least one legal keep (L-5, L-6); ``presorted``: ``cards`` are sorted by id."""
    counts = sorted_level_counts(cards) if presorted else level_counts(cards)
    admitting = _ADMITTING.get(variant.players)
    if admitting is not None and admitting[0] is variant:  # a row of the table: no hashing of the variant
        return counts in admitting[1]
    return _admits(*counts, variant)


def stuck_seats(hands: Sequence[Sequence[str]], variant: Variant) -> tuple[int, ...]:
    """The seats whose hand, sorted by id, admits no legal keep (L-6): ``admits_keep(presorted=True)`` per hand."""
    return tuple(seat for seat, hand in enumerate(hands) if not admits_keep(hand, variant, presorted=True))


@cache
def _admits(n1: int, n2: int, n3: int, variant: Variant) -> bool:
    """Whether a hand with n1/n2/n3 cards per level has a legal keep (a few hundred cases per variant: cached)."""
    return bool(keep_compositions(n1, n2, n3, variant))


def keep_problem(cards: Any, dealt: Sequence[str], variant: Variant) -> str | None:
    """Why ``cards`` is not a legal keep from ``dealt`` (L-5), or None if it is."""
    # C-level passes (map, set, itemgetter) rather than generators: every keep of every game is checked here.
    if type(cards) is tuple and all(map(is_, map(type, cards), repeat(str))):  # identity tests: no code of theirs runs
        # Strings of the exact type (every keep an agent makes from its dealt cards) compare and hash as strings:
        # listed once each and sorted ascending is then strictly ascending, found without a set or a sort.
        ordered = all(map(lt, cards, cards[1:]))
    elif not isinstance(cards, tuple) or not all(map(isinstance, cards, repeat(str))):
        return "a keep is a list of card ids, in Python a tuple of strings"
    else:
        ordered = list(cards) == sorted(set(cards))
    dealt_set = set(dealt)
    if not dealt_set.issuperset(cards):  # before the order: a card not dealt is the mistake to fix first
        missing = [card_id for card_id in cards if card_id not in dealt_set]
        return f"{', '.join(missing)} {'was' if len(missing) == 1 else 'were'} not dealt to this seat"
    if not ordered:
        return f"a keep lists its card ids once each, sorted ascending: {json.dumps(sorted(set(cards)))}"
    total = sum(itemgetter(*cards)(LEVEL)) if len(cards) > 1 else sum(map(LEVEL.__getitem__, cards))
    if total != variant.level_sum:
        return f"its levels sum to {total}; a keep's levels must sum to exactly {variant.level_sum} (L-5)"
    if not variant.min_keep <= len(cards) <= variant.max_keep:
        return f"it has {len(cards)} cards; a keep has {variant.min_keep} to {variant.max_keep} cards (L-5)"
    return None


_ADMITTING: dict[int, tuple[Variant, frozenset[tuple[int, int, int]]]] = {
    players: (variant, frozenset(
        (n1, n2, n3)
        for n3 in range(LEVEL_COUNT[3] + 1)
        for n2 in range(LEVEL_COUNT[2] + 1)
        if 0 <= (n1 := variant.dealt - n2 - n3) <= LEVEL_COUNT[1] and _admits(n1, n2, n3, variant)
    ))
    for players, variant in VARIANTS.items()
}
"""Per player count, the table's variant and the level counts (n1, n2, n3) of the dealt hands that admit a keep.

Every deal checks every hand (L-6): a set look-up instead of hashing the variant (a dataclass hash is a
Python call) for the cache of ``_admits``.
"""
