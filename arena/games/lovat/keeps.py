"""Lovat's keeps counted and drawn uniformly without enumerating them: the game's random policy for the keep.

``GameInfo.random_action`` (``arena.games.lovat.game``) draws a keep here, so the agent ``random`` and the
substitute after a fault keep uniformly among all legal keeps; the first-party agents reuse the counts.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from operator import add as _add
from operator import itemgetter

from arena.games.chance import randbelow
from arena.games.lovat.deck import LEVEL

KeepCounts = tuple[tuple[tuple[int, ...], ...], ...]
"""``ways[i][l][k]``, as ``count_keeps`` returns it."""


def count_keeps(cards: Sequence[str], level_sum: int) -> KeepCounts:
    """``ways[i][l][k]``: subsets of ``cards[:i]`` with level sum ``l`` and ``k`` cards (dynamic programme).

    The table depends only on the cards' levels in order, and dealt hands are
    sorted by id (level 1 first), so a few hundred tables serve every deal:
    they are cached, as tuples, so that no caller can change a table another game reads.
    """
    return _count_by_levels(tuple(map(LEVEL.__getitem__, cards)), level_sum)


@functools.lru_cache(maxsize=4096)
def _count_by_levels(levels: tuple[int, ...], level_sum: int) -> KeepCounts:
    # ways[i + 1][total][size] = ways[i][total][size] + ways[i][total - level][size - 1] (without or with card i).
    # Each layer is held flat, index total * width + size, so "with card i" is the layer shifted by
    # level * width + 1 places, and the addition is one C-level map over the layer instead of a Python loop
    # over every cell (a table costs a sixth of what it did; every new hand shape needs one).  Cells pushed
    # past the end are keeps over ``level_sum``; size never passes ``n``, so no cell wraps into the next total.
    width = len(levels) + 1
    cells = (level_sum + 1) * width
    layer = (1,) + (0,) * (cells - 1)
    layers = [layer]
    for level in levels:
        shift = min(level * width + 1, cells)
        layer = tuple(map(_add, layer, (0,) * shift + layer[: cells - shift]))
        layers.append(layer)
    return tuple([tuple([layer[start : start + width] for start in range(0, cells, width)]) for layer in layers])


def random_keep(
    cards: Sequence[str], level_sum: int, min_size: int, max_size: int, rng: random.Random
) -> tuple[str, ...]:
    """A keep drawn uniformly among all legal keeps, without enumerating subsets.

    Counts keeps by (cards considered, level sum, size), draws the size in
    proportion to the number of keeps of that size, then walks back through the
    cards deciding each one in proportion to the completions on either side.
    """
    # One C-level look-up of every level (a map over LEVEL.__getitem__ costs twice as much); it returns a bare
    # value, not a tuple, for a single card.
    levels = _levels(*cards)(LEVEL) if len(cards) > 1 else tuple(map(LEVEL.__getitem__, cards))
    ways = _count_by_levels(levels, level_sum)
    n = len(levels)
    counts = ways[n][level_sum]  # keeps of every size
    sizes = range(min_size, min(max_size, n) + 1)
    total = sum(counts[min_size : sizes.stop])
    if total == 0:
        raise ValueError(f"no keep of {list(cards)} has levels summing to {level_sum} with {min_size}-{max_size} cards")
    ticket = randbelow(rng, total)  # rng.randrange(total), inlined
    for size in sizes:
        if ticket < counts[size]:
            break
        ticket -= counts[size]
    chosen = []
    remaining_sum = level_sum
    # Card i - 1 from the last down, with ways[i - 1]: the keeps among the cards before it.  Once the keep is
    # full (size 0) the rest of the walk could take nothing (the only completion left is the empty one).
    for card_id, level, before in zip(reversed(cards), reversed(levels), reversed(ways[:n])):
        without = before[remaining_sum][size]
        if ticket >= without:  # the card is in the keep
            ticket -= without
            chosen.append(card_id)
            remaining_sum -= level
            size -= 1
            if not size:
                break
    return tuple(sorted(chosen))


_levels = itemgetter
"""``_levels(*cards)(LEVEL)``: the cards' levels as a tuple (for two cards or more) in one C-level call."""
