"""Lovat's keeps counted and drawn uniformly without enumerating them: the game's random policy for the keep.

``GameInfo.random_action`` (``arena.games.lovat.game``) draws a keep here, so the agent ``random`` and the
substitute after a fault keep uniformly among all legal keeps; the first-party agents reuse the counts.
"""

from __future__ import annotations

import functools
import random
from bisect import bisect_right
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
    width = len(levels) + 1
    cells = (level_sum + 1) * width
    return tuple([tuple([layer[start : start + width] for start in range(0, cells, width)])
                  for layer in _flat_layers(levels, level_sum)])


def _flat_layers(levels: tuple[int, ...], level_sum: int) -> tuple[tuple[int, ...], ...]:
    """``ways[i]`` for every ``i``, each flat: cell ``total * width + size`` with ``width = len(levels) + 1``."""
    # ways[i + 1][total][size] = ways[i][total][size] + ways[i][total - level][size - 1] (without or with card i).
    # Flat, "with card i" is the layer shifted by level * width + 1 places, and the addition is one C-level map
    # over the layer rather than a Python loop over every cell.  Cells pushed past the end are keeps over
    # ``level_sum``; size never passes ``len(levels)``, so no cell wraps into the next total.
    width = len(levels) + 1
    cells = (level_sum + 1) * width
    layer = (1,) + (0,) * (cells - 1)
    layers = [layer]
    for level in levels:
        shift = min(level * width + 1, cells)
        layer = tuple(map(_add, layer, (0,) * shift + layer[: cells - shift]))
        layers.append(layer)
    return tuple(layers)


@functools.lru_cache(maxsize=4096)
def _keep_plan(
    levels: tuple[int, ...], level_sum: int, min_size: int, max_size: int
) -> tuple[int, tuple[int, ...], tuple[tuple[int, ...], ...], int]:
    """What ``random_keep`` needs of a hand shape: the number of keeps, the running totals of keeps by size from
    ``min_size`` on, every cell's column (``column[i]`` = ``ways[i]``'s cell), and the width of a layer."""
    layers = _flat_layers(levels, level_sum)
    width = len(levels) + 1
    row = level_sum * width  # the last layer's cells of sum level_sum: keeps of every size
    running, total = [], 0
    for size in range(min_size, min(max_size, len(levels)) + 1):
        total += layers[-1][row + size]
        running.append(total)
    return total, tuple(running), tuple(zip(*layers)), width  # tuples: shared by every caller


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
    total, running, columns, width = _keep_plan(levels, level_sum, min_size, max_size)
    if total == 0:
        raise ValueError(f"no keep of {list(cards)} has levels summing to {level_sum} with {min_size}-{max_size} cards")
    ticket = randbelow(rng, total)  # rng.randrange(total), inlined
    # The size: the first whose running total passes the ticket; the ticket then counts within that size.
    index = bisect_right(running, ticket)
    size = min_size + index
    if index:
        ticket -= running[index - 1]
    chosen = []
    remaining_sum = level_sum
    # Walking back from the last card, card c is in the keep when the ticket reaches ways[c][remaining_sum][size]
    # (the keeps among the cards before it).  That count never falls as c grows, so the next card in the keep
    # is the last c below the previous one with a count at most the ticket: one bisection of the cell's
    # column per card kept, rather than a test per card.
    below = len(levels)
    while size:
        column = columns[remaining_sum * width + size]
        below = bisect_right(column, ticket, 0, below) - 1
        ticket -= column[below]
        chosen.append(cards[below])
        remaining_sum -= levels[below]
        size -= 1
    return tuple(sorted(chosen))


_levels = itemgetter
"""``_levels(*cards)(LEVEL)``: the cards' levels as a tuple (for two cards or more) in one C-level call."""
