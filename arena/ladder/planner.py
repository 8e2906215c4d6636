"""Choosing a ladder's next tables: where a duplicate block tells the most about the ranks still open.

A pure function of a ``Standing`` (one fit of every stored match), the counts of what this run and
the whole ladder have played, and a seed; so the same store and seed always choose the same tables.

For each table of a batch (``choose_tables``):

1. **The focus entry.**  First any active entry that has fallen a whole table behind its fair
   share in this run (``fair_share`` of an even split, k/n of the tables): the quota that keeps
   every entry playing; its table must seat it.  Else the newest entry with fewer than
   ``min_blocks`` blocks, which must be seated too.  Else the table is free.
2. **The table.**  The one (containing the focus, if any) that most narrows the gaps the stopping
   rule still waits for: the sum over the *target pairs* of their need ``u`` times the share by
   which the table would cut the variance of the pair's gap (``information``).  The target pairs are
   the neighbours in the rating order (the only pairs the rule tests) and every pair of an entry
   without a rating with a rated one; ``u`` is the pair's unsettledness (``Standing.unsettledness``: 0 once its test
   has a verdict, kept ones included, else 1 - how near the test is to one; ``U_FLOOR`` for every
   target once none is open, so that a settled field still plays its closest pairs).  The variance comes
   from the Bradley-Terry information of every block the ladder has played (each pair's meetings
   times ``c (1 - c)``, ``c`` the chance one finishes ahead), so a table is also valued for what
   it tells about a pair through a third entry (a seat shared with both: each multiplayer match is
   a full finishing order), not only for the pairs it seats.  Every possible table is weighed when
   there are at most ``EXHAUSTIVE``; else the table is built seat by seat from the focus (or the
   target pair that a block of its own would narrow most).  Ties go to the tables whose entries
   have met least, then to a seeded order.  A newcomer is equally uncertain against everyone, so its first tables spread
   over the whole field.
3. **Within a batch** the fit is not redone: each chosen table's information is added before the
   next is chosen, so the batch's tables spread out over the open pairs.
4. **The batch ends early** once the tables chosen so far are forecast to give every open target pair its
   verdict (``_Forecast``: the pair's test at its present gap, with the fit's spread narrowed by the share
   those tables cut from its variance) and every entry has ``min_blocks``: the field is fitted again before
   more is played, so a run about to settle does not play a whole batch for pairs already decided.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from arena.ladder.config import DEFAULT_LEVEL
from arena.ladder.standing import Standing, gap_verdict
from arena.records.seeding import derive_seed

U_FLOOR = 0.01
"""Every target pair's need once none is open, so that a settled field still plays where it learns the most."""

EXHAUSTIVE = 2000
"""Fields with at most this many possible tables have every one weighed; larger ones are built seat by seat."""

RIDGE = 0.01
"""Added to the information of every entry: a weak prior, so that gaps never measured have a large finite variance."""

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
    index = {name: i for i, name in enumerate(active)}
    weight = np.zeros((n, n))  # c (1 - c) of each pair: the information one comparison carries
    for a, b in itertools.combinations(active, 2):
        c = standing.win_chance(a, b)
        weight[index[a], index[b]] = weight[index[b], index[a]] = c * (1 - c)
    known = RIDGE * np.eye(n)  # the information of every block played so far (a block: ``seats`` matches)
    for (a, b), met in meetings.items():
        if a in index and b in index:
            known += met * _information(weight, [index[a], index[b]], seats)
    targets = _targets(standing, level)
    forecast = _Forecast.of(standing, targets, known, index, level)
    met_count = {pair: meetings.get(pair, 0) for pair in itertools.combinations(sorted(active), 2)}
    blocks = {name: standing.blocks.get(name, 0) for name in active}
    sat = {name: run_blocks.get(name, 0) for name in active}
    tables = run_tables
    choices = []
    for _ in range(count):
        due = [name for name in active if sat[name] < int(fair_share * seats / n * (tables + 1))]
        new = [name for name in active if blocks[name] < min_blocks]
        focus: str | None
        if due:
            focus, reason = min(due, key=lambda name: (sat[name], index[name])), QUOTA
        elif new:
            focus, reason = max(new, key=lambda name: (index[name], -blocks[name])), NEW
        else:
            focus, reason = None, UNCERTAIN
        value = _Value(known, _gap_variances(known, targets, index), weight, seats, targets, index, met_count,
                       tiebreak)
        if math.comb(n, seats) <= EXHAUSTIVE:
            groups: list[tuple[str, ...]] = [group for group in itertools.combinations(active, seats)
                                             if focus is None or focus in group]
            best: tuple[str, ...] = max(groups, key=value)
            table = list(best)
        else:
            # From the focus, or else the target pair a block of its own would narrow most (so that a batch's
            # tables move on as their information adds up), then seat by seat.
            first: tuple[str, ...] = (focus,) if focus is not None else max(targets, key=value)
            table = list(first)
            while len(table) < seats:
                table.append(max((name for name in active if name not in table), key=value.adding(table)))
        if focus is None:  # the entry it was chosen for: the one in the least settled pair it seats
            focus = max(table, key=lambda name: (max((need for pair, need in targets.items() if name in pair
                                                      and set(pair) <= set(table)), default=0.0), -index[name]))
        known = known + _information(weight, [index[name] for name in table], seats)
        for a, b in itertools.combinations(table, 2):
            met_count[_pair(a, b)] += 1
        for name in table:
            blocks[name] += 1
            sat[name] += 1
        tables += 1
        choices.append(Choice(entries=tuple(sorted(table, key=index.__getitem__)), focus=focus, reason=reason))
        if forecast is not None and forecast.settles(known, blocks, min_blocks):
            break  # the batch so far is forecast to decide every open pair: look before playing more
    return choices


@dataclass(frozen=True, slots=True)
class _Value:
    """How much a table would narrow the target gaps (then how little its entries have met, then the seeded order),
    given the information ``known`` so far."""

    known: np.ndarray  # information of the blocks played and chosen so far
    before: Mapping[tuple[str, str], float]  # the target gaps' variances given ``known``
    weight: np.ndarray
    seats: int
    targets: Mapping[tuple[str, str], float]
    index: Mapping[str, int]
    met: Mapping[tuple[str, str], int]
    tiebreak: Mapping[str, float]

    def __call__(self, table: tuple[str, ...]) -> tuple[float, int, float]:
        seated = [self.index[name] for name in table]
        after = _gap_variances(self.known + _information(self.weight, seated, self.seats), self.targets, self.index)
        gain = sum(need * (1.0 - after[pair] / self.before[pair]) for pair, need in self.targets.items())
        # Rounded so that tables alike up to floating-point noise tie, and the same tie-breaks decide everywhere.
        return (round(gain, 9), -sum(self.met[_pair(a, b)] for a, b in itertools.combinations(table, 2)),
                sum(self.tiebreak[name] for name in table))

    def adding(self, table: Sequence[str]) -> Callable[[str], tuple[float, int, float]]:
        """The value of ``table`` with one more entry seated, as a function of that entry."""
        return lambda name: self((*table, name))


@dataclass(frozen=True, slots=True)
class _Forecast:
    """Whether the tables chosen so far are expected to give every open target pair its verdict: each pair's
    test read at its present gap with the spread the fit has now, narrowed by the share the chosen tables
    cut from its variance (the Bradley-Terry information, as the tables are weighed).  A batch stops there, so
    the last batch of a run that is about to settle is not played in full for pairs already decided."""

    gaps: Mapping[tuple[str, str], tuple[float, float]]  # each open target pair's gap and its spread (Elo)
    before: Mapping[tuple[str, str], float]  # its variance in the planner's model at the start of the batch
    index: Mapping[str, int]
    level: float

    @classmethod
    def of(cls, standing: Standing, targets: Mapping[tuple[str, str], float], known: np.ndarray,
           index: Mapping[str, int], level: float) -> _Forecast | None:
        """The forecast of a batch, or None when it cannot tell (no pair open, or a pair without a finite gap)."""
        open_pairs = [pair for pair in targets if standing.verdict(*pair, level) is None]
        gaps = {}
        for a, b in open_pairs:
            spread = standing.gap_sd.get((a, b), math.inf)
            if a not in standing.ratings or b not in standing.ratings or not math.isfinite(spread):
                return None
            gaps[a, b] = (standing.ratings[a] - standing.ratings[b], spread)
        if not gaps:
            return None
        return cls(gaps, _gap_variances(known, gaps, index), index, level)

    def settles(self, known: np.ndarray, blocks: Mapping[str, int], min_blocks: int) -> bool:
        """Whether, with ``known`` information and ``blocks`` per entry, every open pair is forecast a verdict
        (and every entry has its ``min_blocks``, without which nothing is settled)."""
        if any(count < min_blocks for count in blocks.values()):
            return False
        after = _gap_variances(known, self.gaps, self.index)
        return all(gap_verdict(gap, spread * math.sqrt(after[pair] / self.before[pair]), self.level) is not None
                   for pair, (gap, spread) in self.gaps.items())


def _targets(standing: Standing, level: float) -> dict[tuple[str, str], float]:
    """The pairs whose gaps the stopping rule waits for, each with its need (its ``unsettledness``, or ``U_FLOOR``
    for every one once none is open): every pair of neighbours in the rating order, and every pair of an entry
    without a rating with one that has a rating (a newcomer's place is open against the whole field).  Before
    anyone has a rating, the order is that of joining: measured, weighing every pair then cost a field of 8 at 6
    seats 7% more matches to settle."""
    neighbours = standing.neighbours()
    targets: dict[tuple[str, str], float] = {}
    for a, b in itertools.combinations(standing.active, 2):
        if b in neighbours[a] or (a in standing.ratings) != (b in standing.ratings):
            targets[_pair(a, b)] = standing.unsettledness(a, b, level)
    if not any(targets.values()):
        targets = dict.fromkeys(targets, U_FLOOR)
    return targets


def _information(weight: np.ndarray, seated: Sequence[int], seats: int) -> np.ndarray:
    """The Bradley-Terry information of one block of ``seats`` matches among the ``seated`` entries: every pair
    compared once per match, each comparison worth ``c (1 - c)``."""
    information = np.zeros_like(weight)
    for i, j in itertools.combinations(seated, 2):
        w = seats * weight[i, j]
        information[i, i] += w
        information[j, j] += w
        information[i, j] -= w
        information[j, i] -= w
    return information


def _gap_variances(information: np.ndarray, pairs: Iterable[tuple[str, str]],
                   index: Mapping[str, int]) -> dict[tuple[str, str], float]:
    """The variance of each pair's gap given this much information."""
    covariance = np.linalg.inv(information)
    return {(a, b): float(covariance[index[a], index[a]] + covariance[index[b], index[b]]
                          - 2 * covariance[index[a], index[b]]) for a, b in pairs}


def meeting_counts(tables: Sequence[Sequence[str]]) -> dict[tuple[str, str], int]:
    """Blocks each pair of entries shared, from the entries of every block played or chosen."""
    counts: dict[tuple[str, str], int] = {}
    for table in tables:
        for a, b in itertools.combinations(table, 2):
            counts[_pair(a, b)] = counts.get(_pair(a, b), 0) + 1
    return counts
