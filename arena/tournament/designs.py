"""Combinatorial designs: which groups of a pool of entries meet, as evenly as the table cap allows.

Pure functions of counts and a seed; the schedule's formats (``arena.tournament.formats``) turn the groups
into tables of named entries.

With a pool of N entries and groups of k, every k-subset is a group (the
*complete* design) when there are at most ``max_groups`` of them (or when
N == k: one group).  Otherwise a *balanced incomplete* design is built: each
entry is in the same number r of groups, r = max(1, floor(max_groups * k / N)),
and pairs of entries meet as evenly as possible.  There are ceil(N * r / k)
groups; when N * r is not divisible by k, the e = groups * k - N * r (< k)
empty places go to e distinct entries, drawn with the seed, who are in one
extra group each (r + 1).  When every entry must play at least once,
ceil(N / k) groups may exceed ``max_groups``.

For pools of up to ``GREEDY_MAX_POOL`` entries the groups are chosen greedily
over the pair-count matrix (each new place goes to the entry that has met the
placed ones least) and then improved by swaps that keep every entry's count and
make pair counts more even.  For larger pools a *resolvable* construction is
used: each round is a seeded permutation of the entries cut into groups, which
keeps per-entry counts exact and pair counts close to uniform without an N x N
matrix.
"""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

import numpy as np

COMPLETE = "complete"
BALANCED = "balanced-incomplete"
"""The two kinds of design (``Design.kind``)."""

METHOD_ALL_SUBSETS = "all-subsets"  # the complete design: every subset once
METHOD_GREEDY = "greedy-pairs"  # greedy over the pair-count matrix, then seat swaps
METHOD_RESOLVABLE = "resolvable"  # rounds of seeded permutations cut into tables

GREEDY_MAX_POOL = 1000
"""Largest pool for the pair-matrix designs; larger pools use the resolvable construction."""

GREEDY_MAX_WORK = 20_000_000
"""Upper bound on pool * tables * seats for the greedy design (keeps it to about a second)."""

SWAP_STEPS_PER_TABLE = 4
SWAP_MIN_STEPS = 2_000
SWAP_MAX_WORK = 50_000_000
SWAP_CHECK_EVERY = 50
SEPARATE_SWEEPS = 3
"""Seat-swap improvement: up to max(``SWAP_MIN_STEPS``, this many per table) steps, and at
most ``SWAP_MAX_WORK`` elements scanned (each step scans tables x seats^2); the spread is
checked every ``SWAP_CHECK_EVERY`` steps; ``SEPARATE_SWEEPS`` passes over repeated groups."""


def group_count(pool: int, size: int, max_groups: int) -> int:
    """Groups of a design: every subset when there are at most ``max_groups`` (or ``pool == size``), else
    ``ceil(pool * appearances / size)`` (see ``choose_groups``)."""
    total = math.comb(pool, size)
    if total <= max_groups or pool == size:
        return total
    return -(-pool * _appearances(pool, size, max_groups) // size)


def _appearances(pool: int, size: int, max_groups: int) -> int:
    """Groups per pool entry in a balanced incomplete design."""
    return max(1, max_groups * size // pool)


def choose_groups(pool: int, size: int, max_groups: int, seed: int) -> tuple[list[tuple[int, ...]], dict[str, Any]]:
    """Choose the groups (sets of pool indices) of a design, and describe it."""
    total = math.comb(pool, size)
    if total <= max_groups or pool == size:
        groups = list(itertools.combinations(range(pool), size))
        # A seeded order, so that any prefix of the schedule is spread over the entries.
        random.Random(seed).shuffle(groups)
        pair = math.comb(pool - 2, size - 2) if size >= 2 else None
        info = {"kind": COMPLETE, "method": METHOD_ALL_SUBSETS, "pair_min": pair, "pair_max": pair}
        info.update(appearances=math.comb(pool - 1, size - 1), extra=0)
        return groups, info
    appearances = _appearances(pool, size, max_groups)
    count = group_count(pool, size, max_groups)
    extra = count * size - pool * appearances
    rng = random.Random(seed)
    info = {"kind": BALANCED, "appearances": appearances, "extra": extra, "pair_min": None, "pair_max": None}
    if size >= 2 and pool <= GREEDY_MAX_POOL and pool * count * size <= GREEDY_MAX_WORK:
        groups, pairs = _greedy_groups(pool, size, appearances, extra, rng)
        groups = _improve_groups(pool, size, groups, pairs, rng)
        upper = np.triu_indices(pool, 1)
        info.update(method=METHOD_GREEDY, pair_min=int(pairs[upper].min()), pair_max=int(pairs[upper].max()))
    else:
        groups = _resolvable_groups(pool, size, appearances, extra, rng)
        info.update(method=METHOD_RESOLVABLE)
    return groups, info


def _greedy_groups(
    pool: int, size: int, appearances: int, extra: int, rng: random.Random
) -> tuple[list[tuple[int, ...]], np.ndarray]:
    """Greedy groups over the pair-count matrix; returns the groups and the (pool x pool) pair counts.

    Every pool entry has a quota of ``appearances`` groups (``extra`` of them one
    more).  Each group is filled from the entries with the most quota left (so
    quotas never differ by more than one and the last groups can always be
    filled with distinct entries); each seat goes to the entry whose largest,
    then total, pair count with the already seated ones is smallest, ties
    broken by a seeded rank redrawn every round.
    """
    quota = np.full(pool, appearances, dtype=np.int64)
    if extra:
        quota[rng.sample(range(pool), extra)] += 1
    count = int(quota.sum()) // size
    pairs = np.zeros((pool, pool), dtype=np.int64)
    big = np.iinfo(np.int64).max // 4
    groups: list[tuple[int, ...]] = []
    level = -1
    rank = np.arange(pool, dtype=np.int64)
    max_pair = 0
    for _ in range(count):
        top = int(quota.max())
        if top != level:  # a new round: every entry with quota left plays once more
            level = top
            order = list(range(pool))
            rng.shuffle(order)
            rank[order] = np.arange(pool, dtype=np.int64)
        at_top = quota == top
        if int(at_top.sum()) >= size:
            allowed, chosen = at_top, []
        else:  # all of the top level must play now, the rest come from the next level
            chosen = [int(i) for i in np.flatnonzero(at_top)]
            allowed = quota == top - 1
        sums = np.zeros(pool, dtype=np.int64)
        maxima = np.zeros(pool, dtype=np.int64)
        for i in chosen:
            sums += pairs[i]
            np.maximum(maxima, pairs[i], out=maxima)
        while len(chosen) < size:
            weight = size * (max_pair + 1) + 1  # makes the largest pair count dominate the sum
            cost = np.where(allowed, (maxima * weight + sums) * pool + rank, big)
            cost[chosen] = big
            j = int(cost.argmin())
            chosen.append(j)
            sums += pairs[j]
            np.maximum(maxima, pairs[j], out=maxima)
        for a, b in itertools.combinations(chosen, 2):
            pairs[a, b] += 1
            pairs[b, a] += 1
            max_pair = max(max_pair, int(pairs[a, b]))
        quota[chosen] -= 1
        groups.append(tuple(sorted(chosen)))
    return groups, pairs


def _swap_deltas(pairs: np.ndarray, tables: np.ndarray, xi: int, a_pos: int) -> np.ndarray:
    """For every seated b, the change of the sum of squared pair counts if a = tables[xi, a_pos] and b swap.

    Returns a (groups x size) array, the largest int64 where the swap is not
    allowed (b already in X, a already in b's group, or b's group is X).
    Moving b into X and a into Y changes the sum by: over X's other members o,
    (2c[b,o] + 1) + (1 - 2c[a,o]); over Y's other members o, (2c[a,o] + 1) + (1 - 2c[b,o]);
    an o in both groups cancels out, hence -4 per shared member.
    """
    pool, size = len(pairs), tables.shape[1]
    x_group = tables[xi]
    a = int(x_group[a_pos])
    mates = np.delete(x_group, a_pos)
    in_x = np.zeros(pool, dtype=bool)
    in_x[x_group] = True
    is_mate = np.zeros(pool, dtype=bool)
    is_mate[mates] = True
    with_mates = pairs[mates].sum(0)[tables]
    a_with_y = pairs[a][tables]
    b_with_y = pairs[tables[:, :, None], tables[:, None, :]].sum(2)
    shared = is_mate[tables].sum(1)[:, None]
    delta = (
        2 * with_mates
        + 2 * (a_with_y.sum(1)[:, None] - a_with_y)
        - 2 * b_with_y
        - 2 * int(pairs[a][mates].sum())
        + 4 * (size - 1)
        - 4 * shared
    )
    valid = ~in_x[tables] & ~(tables == a).any(1)[:, None]
    valid[xi] = False
    return np.where(valid, delta, np.iinfo(np.int64).max)


def _swap(pairs: np.ndarray, tables: np.ndarray, xi: int, a_pos: int, yi: int, b_pos: int) -> None:
    """Swap tables[xi, a_pos] and tables[yi, b_pos], updating the pair counts."""
    a, b = int(tables[xi, a_pos]), int(tables[yi, b_pos])
    mates = np.delete(tables[xi], a_pos)
    others = np.delete(tables[yi], b_pos)
    pairs[a, mates] -= 1
    pairs[mates, a] -= 1
    pairs[b, mates] += 1
    pairs[mates, b] += 1
    pairs[b, others] -= 1
    pairs[others, b] -= 1
    pairs[a, others] += 1
    pairs[others, a] += 1
    tables[xi, a_pos], tables[yi, b_pos] = b, a


def _improve_groups(
    pool: int, size: int, groups: list[tuple[int, ...]], pairs: np.ndarray, rng: random.Random
) -> list[tuple[int, ...]]:
    """Even out pair counts by swapping entries between groups, then separate repeated groups.

    Updates ``pairs`` in place.  A swap of entry a (in group X) with entry b
    (in group Y) keeps every entry's number of groups.  Each step takes a
    random group X, its member a with the most (squared) meetings with its
    group-mates, and the swap that lowers the sum of squared pair counts most
    (the sum is smallest when all counts are within one of each other); a swap
    that leaves it equal is taken half the time, so the search can cross a
    plateau.  It stops once the spread is at most one, or after the budget.

    Then swaps that do not raise the sum are used to split repeated groups.
    Pair balance has priority: in dense designs (every pair meeting exactly
    as often) a group may still repeat, i.e. the same entries meet at two
    tables, on different deals.
    """
    tables = np.array(groups, dtype=np.int64)
    count = len(tables)
    if count < 2:
        return groups
    upper = np.triu_indices(pool, 1)
    budget = min(max(SWAP_MIN_STEPS, SWAP_STEPS_PER_TABLE * count), SWAP_MAX_WORK // (count * size * size))
    for step in range(budget):
        if step % SWAP_CHECK_EVERY == 0:
            spread = pairs[upper]
            if int(spread.max()) - int(spread.min()) <= 1:
                break
        xi = rng.randrange(count)
        x_group = tables[xi]
        within = pairs[np.ix_(x_group, x_group)]
        a_pos = int((within * within).sum(1).argmax())
        delta = _swap_deltas(pairs, tables, xi, a_pos)
        best = int(delta.min())
        if best > 0 or (best == 0 and rng.random() < 0.5):
            continue
        choices = np.flatnonzero(delta.ravel() == best)
        yi, b_pos = divmod(int(choices[rng.randrange(len(choices))]), size)
        _swap(pairs, tables, xi, a_pos, yi, b_pos)
    _separate_repeats(pairs, tables)
    return [tuple(sorted(int(i) for i in group)) for group in tables]


def _separate_repeats(pairs: np.ndarray, tables: np.ndarray) -> None:
    """Make repeated groups distinct by swaps that do not raise the sum of squared pair counts."""
    count, size = tables.shape

    def key(group: np.ndarray) -> tuple[int, ...]:
        return tuple(sorted(int(i) for i in group))

    seen: dict[tuple[int, ...], int] = {}
    for group in tables:
        seen[key(group)] = seen.get(key(group), 0) + 1
    repeats = count - len(seen)
    if repeats * SEPARATE_SWEEPS * count * size**3 > SWAP_MAX_WORK:
        return  # too big to scan: a dense design with many repeats
    for _sweep in range(SEPARATE_SWEEPS):
        moved = False
        for xi in range(count):
            x_key = key(tables[xi])
            if seen[x_key] <= 1:
                continue
            for a_pos in range(size):
                delta = _swap_deltas(pairs, tables, xi, a_pos)
                a = int(tables[xi, a_pos])
                done = False
                for flat in np.flatnonzero(delta.ravel() <= 0):
                    yi, b_pos = divmod(int(flat), size)
                    b = int(tables[yi, b_pos])
                    y_key = key(tables[yi])
                    new_x = tuple(sorted(b if i == a else i for i in x_key))
                    new_y = tuple(sorted(a if i == b else i for i in y_key))
                    if seen.get(new_x) or seen.get(new_y) or new_x == new_y:
                        continue
                    _swap(pairs, tables, xi, a_pos, yi, b_pos)
                    for old in (x_key, y_key):
                        seen[old] -= 1
                    seen[new_x] = seen[new_y] = 1
                    done = moved = True
                    break
                if done:
                    break
        if not moved:
            return


def _resolvable_groups(pool: int, size: int, appearances: int, extra: int, rng: random.Random) -> list[tuple[int, ...]]:
    """Rounds of seeded permutations cut into groups of ``size``: memory O(pool + groups).

    Each round is one appearance of every entry.  When ``pool`` is not a
    multiple of ``size`` a group straddles two rounds; an entry that would sit
    there twice is swapped with a later entry of its round.  The last partial
    group is completed by ``extra`` distinct entries, drawn with the seed.
    """
    groups: list[tuple[int, ...]] = []
    current: list[int] = []
    for _ in range(appearances):
        order = list(range(pool))
        rng.shuffle(order)
        for pos in range(pool):
            if order[pos] in current:
                # Only at the start of a round (current holds < size entries of the last
                # round, and pool >= size), so a later entry not at this table exists.
                later = next(j for j in range(pos + 1, pool) if order[j] not in current)
                order[pos], order[later] = order[later], order[pos]
            current.append(order[pos])
            if len(current) == size:
                groups.append(tuple(sorted(current)))
                current = []
    if current:
        seated = set(current)
        others = [i for i in range(pool) if i not in seated]
        current.extend(rng.sample(others, extra))
        groups.append(tuple(sorted(current)))
    return groups
