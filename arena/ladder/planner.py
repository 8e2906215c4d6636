"""Choosing a ladder's next tables: where a duplicate block tells the most about the ranks still open.

A pure function of a ``Standing`` (one fit of every stored match), the counts of what this run and
the whole ladder have played, and a seed; so the same store and seed always choose the same tables.

For each table of a batch (``choose_tables``):

1. **The focus entry.**  First any active entry that has fallen a whole table behind its fair
   share in this run (``fair_share`` of an even split, k/n of the tables): the quota that keeps
   every entry playing.  Else the newest entry with fewer than ``min_blocks`` blocks.  Else the
   entry whose rank is furthest from settled: the largest *unsettledness* with a neighbour in the
   rating order (``Standing.unsettledness``: 0 once the pair's test has a verdict, else 1 - how near
   the test is to one; newer entries first among equals).
2. **The table.**  The focus, then seat by seat the entry ``j`` that adds the most
   ``sum over seated a of (u(a, j) + U_FLOOR) * c(a, j) * (1 - c(a, j))``: ``u`` the pair's
   unsettledness, ``c`` the chance one finishes ahead of the other (so ``c(1 - c)``, the Fisher
   information of one comparison, favours close pairs).  Ties go to the entries that have met the
   seated ones least, then to a seeded order.  A newcomer is equally uncertain against everyone,
   so its first tables spread over the whole field (strengths mixed); as its rating firms up, its
   tables narrow to the entries its rank is still open against.
3. **Within a batch** the fit is not redone: each chosen table halves the unsettledness of its
   pairs (``DECAY``) and counts its blocks, so the batch's tables spread out.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena.ladder.config import DEFAULT_LEVEL
from arena.ladder.standing import Standing
from arena.seeding import derive_seed

DECAY = 0.5
"""Within a batch, a chosen table multiplies the unsettledness of each of its pairs by this."""

U_FLOOR = 0.01
"""Added to every pair's unsettledness, so that among settled pairs the informative ones still count."""

QUOTA = "quota"
NEW = "new"
UNCERTAIN = "uncertain"
"""Why a table was chosen: its focus was behind its share, new, or the least settled."""

SEED_TAG = "ladder-v1"
"""Mixed into the planner's seeds; bump it if the choice ever changes."""


@dataclass(frozen=True, slots=True)
class Choice:
    """One chosen table."""

    entries: tuple[str, ...]  # the table's entries, in order of joining
    focus: str  # the entry it was chosen for
    reason: str  # QUOTA, NEW or UNCERTAIN


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def choose_tables(
    standing: Standing,
    seats: int,
    count: int,
    *,
    seed: int,
    batch: int,
    run_blocks: Mapping[str, int],
    run_tables: int,
    meetings: Mapping[tuple[str, str], int],
    fair_share: float,
    min_blocks: int,
    level: float = DEFAULT_LEVEL,
) -> list[Choice]:
    """The next ``count`` tables of ``seats`` active entries.

    Parameters
    ----------
    standing
        The active field after the last fit.
    seed, batch
        The ladder's seed and the batch number: the tie-breaking order derives from both.
    run_blocks
        Blocks each entry has sat in during this run (chosen so far), for the quota.
    run_tables
        Blocks chosen so far in this run.
    meetings
        Blocks each pair of entries has shared (keys: the two names, sorted).
    fair_share
        Each active entry sits at no fewer than ``floor(fair_share * seats / n * tables)`` of the
        run's tables.
    min_blocks
        Blocks an entry plays before it is no longer new.
    level
        The stopping rule's level: a pair with a verdict at it draws no more blocks for itself.
    """
    active = list(standing.active)
    n = len(active)
    if n < seats:
        raise ValueError(f"{n} active entries cannot fill a table of {seats}")
    rng = random.Random(derive_seed(SEED_TAG, seed, "batch", batch))
    tiebreak = {name: rng.random() for name in active}
    unsettled = {_pair(a, b): standing.unsettledness(a, b, level) for a, b in itertools.combinations(active, 2)}
    information = {_pair(a, b): c * (1 - c) for a, b in itertools.combinations(active, 2)
                   for c in (standing.win_chance(a, b),)}
    met = {pair: meetings.get(pair, 0) for pair in unsettled}
    blocks = {name: standing.blocks.get(name, 0) for name in active}
    sat = {name: run_blocks.get(name, 0) for name in active}
    neighbours = standing.neighbours()
    joined = {name: i for i, name in enumerate(active)}
    tables = run_tables
    choices = []
    for _ in range(count):
        due = [name for name in active if sat[name] < int(fair_share * seats / n * (tables + 1))]
        if due:
            focus = min(due, key=lambda name: (sat[name], joined[name]))
            reason = QUOTA
        else:
            new = [name for name in active if blocks[name] < min_blocks]
            if new:
                focus = max(new, key=lambda name: (joined[name], -blocks[name]))
                reason = NEW
            else:
                def need(name: str) -> tuple[float, int, int]:
                    open_rank = max((unsettled[_pair(name, other)] for other in neighbours[name]), default=0.0)
                    return open_rank, -blocks[name], joined[name]
                focus = max(active, key=need)
                reason = UNCERTAIN
        table = [focus]
        while len(table) < seats:
            def gain(name: str, table: list[str] = table) -> tuple[float, int, float]:
                pairs = [_pair(name, seated) for seated in table]
                value = sum((unsettled[pair] + U_FLOOR) * information[pair] for pair in pairs)
                return value, -sum(met[pair] for pair in pairs), tiebreak[name]
            table.append(max((name for name in active if name not in table), key=gain))
        for a, b in itertools.combinations(table, 2):
            unsettled[_pair(a, b)] *= DECAY
            met[_pair(a, b)] += 1
        for name in table:
            blocks[name] += 1
            sat[name] += 1
        tables += 1
        choices.append(Choice(entries=tuple(sorted(table, key=joined.__getitem__)), focus=focus, reason=reason))
    return choices


def meeting_counts(tables: Sequence[Sequence[str]]) -> dict[tuple[str, str], int]:
    """Blocks each pair of entries shared, from the entries of every block played or chosen."""
    counts: dict[tuple[str, str], int] = {}
    for table in tables:
        for a, b in itertools.combinations(table, 2):
            counts[_pair(a, b)] = counts.get(_pair(a, b), 0) + 1
    return counts
