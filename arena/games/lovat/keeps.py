"""Lovat's keeps counted and drawn uniformly without enumerating them: the game's random policy for the keep.

``GameInfo.random_action`` (``arena.games.lovat.game``) draws a keep here, so the agent ``random`` and the
substitute after a fault keep uniformly among all legal keeps; the first-party agents reuse the counts.
"""

from __future__ import annotations

import functools
import random
from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate, combinations
from operator import add as _add
from operator import itemgetter
from typing import Any

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
def _keep_plan(levels: tuple[int, ...], level_sum: int, min_size: int, max_size: int) -> tuple[Any, ...]:
    """What ``random_keep`` needs of a hand shape: the number of keeps, the running totals of keeps by size from
    ``min_size`` on, and how to find the keep of a ticket within its size: by size, the blocks of a hand sorted
    by level (``_blocks``), or else the walk's columns (``_walk_plan``)."""
    if len(levels) > BLOCK_CARDS or levels != tuple(sorted(levels)):
        return _walk_plan(levels, level_sum, min_size, max_size)
    sizes = range(min_size, min(max_size, len(levels)) + 1)
    by_size = tuple(_blocks(levels.count(1), levels.count(2), levels.count(3), level_sum, size) for size in sizes)
    running = tuple(accumulate(starts[-1] for starts, _ in by_size)) if by_size else ()
    return (running[-1] if running else 0), running, by_size, None


def _blocks(ones: int, twos: int, threes: int, level_sum: int, size: int) -> tuple[Any, ...]:
    """The keeps of ``size`` cards from a hand sorted by level, in the order of the walk of ``_walk_plan``.

    That walk orders a size's keeps colexicographically (a keep without the last card first, then those
    with it, and so on down).  The level-3 cards come last in a sorted hand, so the keeps fall into blocks,
    one per set of level-3 cards in colex order (numeric order of its bit mask); a block's keeps take the
    same number of level-2 cards (``a2 + 2 * a3 = level_sum - size``) and of level-1 cards, and are ordered by
    their level-2 cards' colex rank, then their level-1 cards'.  Returns the first ticket of every block
    (and, last, the number of keeps) and per block (level-1 choices, level-2 choices, level-3 positions,
    number of level-1 choices), every choice a tuple of positions in the hand.
    """
    starts, blocks, total = [], [], 0
    for mask in range(1 << threes):
        three_count = mask.bit_count()
        two_count = level_sum - size - 2 * three_count
        one_count = size - two_count - three_count
        if not (0 <= two_count <= twos and 0 <= one_count <= ones):
            continue
        one_choices, two_choices = _colex(ones, one_count, 0), _colex(twos, two_count, ones)
        starts.append(total)
        blocks.append((one_choices, two_choices,
                       tuple(ones + twos + bit for bit in range(threes) if mask >> bit & 1), len(one_choices)))
        total += len(one_choices) * len(two_choices)
    starts.append(total)
    return tuple(starts), tuple(blocks)


BLOCK_CARDS = 16
"""The most cards a hand drawn from by blocks may hold (a dealt hand holds 12 or 14): a block lists its choices
of level-1 and level-2 cards, up to C(16, 8) = 12,870 of them."""


@functools.cache  # bounded: a hand of at most BLOCK_CARDS cards never asks for count + offset past it
def _colex(count: int, chosen: int, offset: int) -> tuple[tuple[int, ...], ...]:
    """Every way to choose ``chosen`` of ``count`` positions (from ``offset`` on), in colex order.

    Each choice lists its positions from the highest down.  ``combinations`` over the positions taken from the
    highest down yields the choices in lexicographic order of those lists, which is colex order from the last
    choice to the first: reversed, it is the order wanted, all in C.
    """
    return tuple(reversed(tuple(combinations(range(offset + count - 1, offset - 1, -1), chosen))))


def _walk_plan(
    levels: tuple[int, ...], level_sum: int, min_size: int, max_size: int
) -> tuple[int, tuple[int, ...], None, tuple[tuple[tuple[int, ...], ...], int]]:
    """``_keep_plan`` for a hand in any order: the running totals, and every cell's column of the count table
    (``column[i]`` = ``ways[i]``'s cell) with the width of a layer, for the walk back through the cards."""
    layers = _flat_layers(levels, level_sum)
    width = len(levels) + 1
    row = level_sum * width  # the last layer's cells of sum level_sum: keeps of every size
    running, total = [], 0
    for size in range(min_size, min(max_size, len(levels)) + 1):
        total += layers[-1][row + size]
        running.append(total)
    return total, tuple(running), None, (tuple(zip(*layers)), width)  # tuples: shared by every caller


def random_keep(
    cards: Sequence[str], level_sum: int, min_size: int, max_size: int, rng: random.Random
) -> tuple[str, ...]:
    """A keep drawn uniformly among all legal keeps, without enumerating subsets.

    Counts keeps by (cards considered, level sum, size), draws the size in
    proportion to the number of keeps of that size, then the keep of that size
    with the ticket's rank in the order of a walk back through the cards that
    decides each one in proportion to the completions on either side.
    """
    # One C-level look-up of every level (a map over LEVEL.__getitem__ costs twice as much); it returns a bare
    # value, not a tuple, for a single card.
    levels = itemgetter(*cards)(LEVEL) if len(cards) > 1 else tuple(map(LEVEL.__getitem__, cards))
    total, running, by_size, walk = _keep_plan(levels, level_sum, min_size, max_size)
    if total == 0:
        raise ValueError(f"no keep of {list(cards)} has levels summing to {level_sum} with {min_size}-{max_size} cards")
    ticket = randbelow(rng, total)  # rng.randrange(total)
    # The size: the first whose running total passes the ticket; the ticket then counts within that size.
    index = bisect_right(running, ticket)
    if index:
        ticket -= running[index - 1]
    if walk is None:  # a hand sorted by level (every dealt hand): the keep's block, then its rank in the block
        starts, blocks = by_size[index]
        block = bisect_right(starts, ticket) - 1
        one_choices, two_choices, threes, one_count = blocks[block]
        two_rank, one_rank = divmod(ticket - starts[block], one_count)
        positions = one_choices[one_rank] + two_choices[two_rank] + threes
        if len(positions) > 1:
            return tuple(sorted(itemgetter(*positions)(cards)))
        return tuple(cards[position] for position in positions)
    return _walk(cards, levels, level_sum, min_size + index, ticket, *walk)


def _walk(
    cards: Sequence[str], levels: tuple[int, ...], level_sum: int, size: int, ticket: int,
    columns: tuple[tuple[int, ...], ...], width: int,
) -> tuple[str, ...]:
    """The keep of ``size`` cards of rank ``ticket`` in the walk back through ``cards``, in any order."""
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
