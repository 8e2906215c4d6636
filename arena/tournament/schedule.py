"""Tournament schedules: who meets whom, at which table, in which seat, on which deal.

A schedule is a pure function of its inputs (the entry names, the seats per
table, the number of duplicate blocks, the format, the seed and the table cap):
the same inputs give the same tables, match ids, seatings and seeds on every
machine, serially or on Ray.  Nothing here uses Python's ``hash()`` or global
randomness; every seed comes from ``arena.seeding``.  Deal and agent seeds
come from the tournament's secret key when the schedule has one
(``Schedule.with_secret``: HMAC-SHA256, so no agent can compute a deal), else
from the public seed (BLAKE2b); the tables, the design and the seatings always
come from the public seed, so the schedule's shape is known before any store.

Vocabulary
----------
* An **entry** is one named participant of the tournament (a plugin agent with
  its options); two entries may use the same plugin under different names.
* A **table** is a set of ``seats`` entries that play each other.
* A **block** is one deal played ``seats`` times at a table with the entries
  rotated through the seats (the ``seats`` cyclic rotations), so that every
  entry holds every seat's cards exactly once.  Blocks are the unit of
  statistics downstream, so every ``Match`` carries its ``block_id``.
* A **match** is one game: one table, one block, one rotation.

Designs
-------
Round-robin
    With N entries and k seats, every k-subset of the entries is a table (the
    *complete* design) when there are at most ``max_tables`` of them (or when
    N == k: one table).  Otherwise a *balanced incomplete* design is built: each
    entry sits at the same number r of tables, r = max(1, floor(max_tables * k / N)),
    and pairs of entries meet as evenly as possible.  There are
    ceil(N * r / k) tables; when N * r is not divisible by k, the e = tables * k - N * r
    (< k) empty seats go to e distinct entries, drawn with the seed, who sit at
    one extra table each (r + 1).  When every entry must play at least once,
    ceil(N / k) tables may exceed ``max_tables``.

    For pools of up to ``GREEDY_MAX_POOL`` entries the tables are chosen greedily
    over the pair-count matrix (each new seat goes to the entry that has met the
    seated ones least) and then improved by seat swaps that keep every entry's
    count and make pair counts more even.  For larger pools a *resolvable*
    construction is used: each round is a seeded permutation of the entries cut
    into tables, which keeps per-entry counts exact and pair counts close to
    uniform without an N x N matrix.

Gauntlet
    One or more candidates each play the same field tables: every table is one
    candidate and k - 1 field entries, the field groups being chosen exactly as
    in round-robin (all (k-1)-subsets of the field, or a balanced design when
    candidates * C(F, k-1) exceeds ``max_tables``).  The tables of different
    candidates against the same field group share their deal seeds, seatings
    and agent seeds, so candidates are compared on identical deals.

Order and ids
-------------
Matches are in block-major order: block 0 of every table, then block 1, ...,
each block's rotations together.  Adding blocks therefore only appends
matches: earlier ids, seats and seeds do not change.  A match id reads
``t0007-b02-r1`` (table 7, block 2, rotation 1; all counted from 0).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena.seeding import derive_seed, secret_seed

ROUND_ROBIN = "round-robin"
GAUNTLET = "gauntlet"
FORMATS = (ROUND_ROBIN, GAUNTLET)
"""The tournament formats a schedule can be built for."""

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

SEED_TAG = "schedule-v1"
"""Mixed into every derived seed; bump it if the derivation ever changes."""


class ScheduleError(ValueError):
    """Inputs from which no schedule can be built (too few entries, bad counts...)."""


@dataclass(frozen=True, slots=True)
class Design:
    """Which design a schedule uses, with its parameters, so the CLI can say so."""

    format: str  # "round-robin" or "gauntlet"
    kind: str  # "complete" or "balanced-incomplete"
    method: str  # "all-subsets", "greedy-pairs" or "resolvable"
    pool: int  # entries the design chooses groups from (all entries, or the gauntlet field)
    group_size: int  # pool entries per table: seats (round-robin) or seats - 1 (gauntlet)
    groups: int  # number of distinct groups chosen from the pool
    candidates: int  # gauntlet candidates, each playing every group; 0 for round-robin
    tables: int  # tables in the schedule: groups, times candidates in a gauntlet
    appearances: int  # groups per pool entry (r); entries with an extra appearance have r + 1
    extra: int  # pool entries with one extra appearance (0 when pool * r divides by group size)
    pair_min: int | None  # fewest groups any two pool entries share; None when not computed
    pair_max: int | None  # most groups any two pool entries share; None when not computed

    def describe(self) -> str:
        """One line for the CLI, e.g. ``complete round-robin: all 15 tables of 4 from 6 entries``."""
        seats = self.group_size + (1 if self.format == GAUNTLET else 0)
        if self.kind == COMPLETE:
            if self.format == ROUND_ROBIN:
                return f"complete round-robin: all {self.tables} tables of {seats} from {self.pool} entries"
            return (
                f"complete gauntlet: {self.candidates} candidate(s) x all {self.groups} groups of "
                f"{self.group_size} from {self.pool} field entries ({self.tables} tables of {seats})"
            )
        how = "greedy pair balancing" if self.method == METHOD_GREEDY else "resolvable rounds"
        if self.format == ROUND_ROBIN:
            per = f"each entry at {self.appearances} table{'s' if self.appearances != 1 else ''}"
        else:
            per = f"each field entry in {self.appearances} group{'s' if self.appearances != 1 else ''}"
        if self.extra:
            per += f" ({self.extra} at one more)"
        pairs = ""
        if self.pair_min is not None and self.pair_max is not None and self.group_size > 1:
            pairs = f"; pairs meet {self.pair_min}-{self.pair_max} times"
        if self.format == ROUND_ROBIN:
            return (
                f"balanced incomplete round-robin ({how}): {self.tables} tables of {seats} "
                f"from {self.pool} entries; {per}{pairs}"
            )
        return (
            f"balanced incomplete gauntlet ({how}): {self.candidates} candidate(s) x {self.groups} groups of "
            f"{self.group_size} from {self.pool} field entries ({self.tables} tables of {seats}); {per}{pairs}"
        )

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {item.name: getattr(self, item.name) for item in dataclasses.fields(self)}


@dataclass(frozen=True, slots=True)
class Table:
    """One table: a set of entries that play ``blocks`` duplicate blocks together."""

    index: int  # position in the schedule's table order, from 0; the "t0007" of match ids
    entries: tuple[str, ...]  # the entries, in entry order (a gauntlet's candidate first)
    group: int  # the design group; tables sharing it share deal seeds (gauntlet candidates)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {"index": self.index, "entries": list(self.entries), "group": self.group}


@dataclass(frozen=True, slots=True)
class Match:
    """One game of the schedule: a table, a block and a rotation of the seats."""

    id: str  # stable readable id, e.g. "t0007-b02-r1"
    index: int  # position in schedule order, from 0
    table: int  # table index
    block: int  # block number at this table, from 0
    block_id: str  # unique id of the duplicate block, e.g. "t0007-b02": the unit of statistics
    rotation: int  # which cyclic rotation of the block's seating, 0 .. seats-1
    seats: tuple[str, ...]  # entry name per seat, seat 0 first
    deal_seed: int  # game seed: the same for every rotation of a block
    agent_seeds: tuple[int, ...]  # per seat: the seed handed to that seat's agent

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {
            "id": self.id,
            "index": self.index,
            "table": self.table,
            "block": self.block,
            "block_id": self.block_id,
            "rotation": self.rotation,
            "seats": list(self.seats),
            "deal_seed": self.deal_seed,
            "agent_seeds": list(self.agent_seeds),
        }


def table_id(table: int) -> str:
    """The table part of match ids: ``t0007``."""
    return f"t{table:04d}"


def block_id(table: int, block: int) -> str:
    """The id of one duplicate block: ``t0007-b02``."""
    return f"t{table:04d}-b{block:02d}"


def match_id(table: int, block: int, rotation: int) -> str:
    """The stable id of one match: ``t0007-b02-r1``."""
    return f"t{table:04d}-b{block:02d}-r{rotation}"


def deal_seed(seed: int, group: int, block: int, secret: bytes | None = None) -> int:
    """The game seed of one block: a 63-bit hash of the table's group and the block, keyed by ``secret``
    (HMAC) or, without one, of the public tournament seed too."""
    if secret is not None:
        return secret_seed(secret, SEED_TAG, "deal", group, block)
    return derive_seed(SEED_TAG, seed, "deal", group, block)


def agent_seed(seed: int, group: int, block: int, rotation: int, seat: int, secret: bytes | None = None) -> int:
    """The seed handed to the agent in ``seat`` of one match (keyed like ``deal_seed``, on its own parts)."""
    if secret is not None:
        return secret_seed(secret, SEED_TAG, "agent", group, block, rotation, seat)
    return derive_seed(SEED_TAG, seed, "agent", group, block, rotation, seat)


def seating_order(seed: int, group: int, block: int, seats: int) -> tuple[int, ...]:
    """The block's base seating: table entry ``order[i]`` sits in seat ``(i + rotation) % seats``.

    Cyclic rotations keep who-follows-whom fixed within a block, so the base
    order is shuffled per block (seeded) to vary neighbours between blocks.
    """
    order = list(range(seats))
    random.Random(derive_seed(SEED_TAG, seed, "seating", group, block)).shuffle(order)
    return tuple(order)


@dataclass(frozen=True, slots=True)
class Schedule:
    """Every table of a tournament; matches are generated on demand, in schedule order.

    ``len(schedule)`` is the number of matches; ``iter_matches()`` streams them
    without building a list, and ``match_at(i)`` computes any one of them.
    """

    design: Design  # which design was used, with its parameters
    entries: tuple[str, ...]  # all entry names, in config order
    candidates: tuple[str, ...]  # gauntlet candidates; () for round-robin
    seats: int  # seats per table (k)
    blocks: int  # duplicate blocks per table
    seed: int  # tournament seed
    tables: tuple[Table, ...]  # every table, in table-index order
    secret: bytes | None = dataclasses.field(default=None, repr=False, compare=False)  # deal key; None: public

    def with_secret(self, secret: bytes | None) -> Schedule:
        """The same schedule with deal and agent seeds keyed by ``secret`` (a store's key; None: the public seed)."""
        return dataclasses.replace(self, secret=secret)

    def __len__(self) -> int:
        return self.match_count

    @property
    def match_count(self) -> int:
        """Number of matches: tables x blocks x seats."""
        return len(self.tables) * self.blocks * self.seats

    @property
    def block_count(self) -> int:
        """Number of duplicate blocks in all: tables x blocks."""
        return len(self.tables) * self.blocks

    def tables_per_entry(self) -> dict[str, int]:
        """How many tables each entry sits at (every table is played ``blocks * seats`` times)."""
        counts = dict.fromkeys(self.entries, 0)
        for table in self.tables:
            for name in table.entries:
                counts[name] += 1
        return counts

    def match_at(self, index: int) -> Match:
        """The match at position ``index`` of schedule order."""
        if not 0 <= index < self.match_count:
            raise IndexError(f"match index {index} out of range for a schedule of {self.match_count} matches")
        block, rest = divmod(index, len(self.tables) * self.seats)
        table, rotation = divmod(rest, self.seats)
        return self._block_matches(self.tables[table], block, index - rotation)[rotation]

    def iter_matches(self, start: int = 0) -> Iterator[Match]:
        """Yield the matches in schedule order from position ``start`` (to resume a tournament)."""
        if start >= self.match_count:
            return
        start = max(start, 0)
        per_block_round = len(self.tables) * self.seats
        first_block, rest = divmod(start, per_block_round)
        first_table = rest // self.seats
        for block in range(first_block, self.blocks):
            for table in self.tables[first_table if block == first_block else 0 :]:
                index = block * per_block_round + table.index * self.seats
                for match in self._block_matches(table, block, index):
                    if match.index >= start:
                        yield match

    def _block_matches(self, table: Table, block: int, first_index: int) -> list[Match]:
        k = self.seats
        order = seating_order(self.seed, table.group, block, k)
        base = tuple(table.entries[i] for i in order)
        deal = deal_seed(self.seed, table.group, block, self.secret)
        bid = block_id(table.index, block)
        matches = []
        for rotation in range(k):
            # base[i] sits in seat (i + rotation) % k, so seat s holds base[(s - rotation) % k].
            seats = tuple(base[(seat - rotation) % k] for seat in range(k))
            matches.append(
                Match(
                    id=f"{bid}-r{rotation}",
                    index=first_index + rotation,
                    table=table.index,
                    block=block,
                    block_id=bid,
                    rotation=rotation,
                    seats=seats,
                    deal_seed=deal,
                    agent_seeds=tuple(agent_seed(self.seed, table.group, block, rotation, s, self.secret)
                                      for s in range(k)),
                )
            )
        return matches

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data: the design and the tables (matches are derived from them)."""
        return {
            "design": self.design.to_json(),
            "entries": list(self.entries),
            "candidates": list(self.candidates),
            "seats": self.seats,
            "blocks": self.blocks,
            "seed": self.seed,
            "match_count": self.match_count,
            "tables": [table.to_json() for table in self.tables],
        }


def iter_matches(schedule: Schedule, start: int = 0) -> Iterator[Match]:
    """Stream the matches of ``schedule`` in schedule order from position ``start``."""
    return schedule.iter_matches(start)


def build_schedule(
    entries: Sequence[str],
    seats: int,
    blocks: int,
    format: str = ROUND_ROBIN,
    seed: int = 0,
    max_tables: int = 500,
    candidates: Sequence[str] = (),
) -> Schedule:
    """Build the schedule of a tournament.

    Parameters
    ----------
    entries
        Unique entry names, in config order (table entries keep this order).
    seats
        Seats per table, k >= 2.
    blocks
        Duplicate blocks per table, >= 1.
    format
        ``"round-robin"`` or ``"gauntlet"``.
    seed
        Tournament seed: every table choice, seating and seed derives from it.
    max_tables
        Cap on the number of tables before a balanced incomplete design is used
        (exceeded only when every entry needs a table: ceil(pool / group size)).
    candidates
        Gauntlet candidates (entry names); the other entries are the field.

    Raises
    ------
    ScheduleError
        With a message naming the bad input and the fix.
    """
    entries = tuple(entries)
    candidates = tuple(candidates)
    _check_inputs(entries, seats, blocks, format, max_tables, candidates)
    if format == ROUND_ROBIN:
        pool, group_size, copies = entries, seats, 1
    else:
        pool = tuple(name for name in entries if name not in set(candidates))
        group_size, copies = seats - 1, len(candidates)
    max_groups = max(1, max_tables // copies)
    design_seed = derive_seed(SEED_TAG, seed, "design", format, len(pool), group_size, max_groups)
    groups, info = _choose_groups(len(pool), group_size, max_groups, design_seed)
    tables: list[Table] = []
    for g, group in enumerate(groups):
        members = tuple(pool[i] for i in sorted(group))
        if format == ROUND_ROBIN:
            tables.append(Table(index=len(tables), entries=members, group=g))
        else:
            for candidate in candidates:
                tables.append(Table(index=len(tables), entries=(candidate, *members), group=g))
    design = Design(
        format=format,
        kind=info["kind"],
        method=info["method"],
        pool=len(pool),
        group_size=group_size,
        groups=len(groups),
        candidates=len(candidates) if format == GAUNTLET else 0,
        tables=len(tables),
        appearances=info["appearances"],
        extra=info["extra"],
        pair_min=info["pair_min"],
        pair_max=info["pair_max"],
    )
    return Schedule(
        design=design,
        entries=entries,
        candidates=candidates if format == GAUNTLET else (),
        seats=seats,
        blocks=blocks,
        seed=seed,
        tables=tuple(tables),
    )


def _check_inputs(
    entries: tuple[str, ...], seats: int, blocks: int, format: str, max_tables: int, candidates: tuple[str, ...]
) -> None:
    def integer(value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool)

    if format not in FORMATS:
        raise ScheduleError(f"unknown format {format!r}: use one of {', '.join(FORMATS)}")
    if not integer(seats) or seats < 2:
        raise ScheduleError(f"seats per table must be an integer >= 2, not {seats!r}")
    if not integer(blocks) or blocks < 1:
        raise ScheduleError(f"blocks must be an integer >= 1, not {blocks!r}")
    if not integer(max_tables) or max_tables < 1:
        raise ScheduleError(f"max_tables must be an integer >= 1, not {max_tables!r}")
    if len(set(entries)) < len(entries):
        duplicates = sorted(name for name, count in Counter(entries).items() if count > 1)
        raise ScheduleError(f"entry names must be unique; repeated: {', '.join(duplicates)}")
    if format == ROUND_ROBIN:
        if candidates:
            raise ScheduleError("candidates are only used by the gauntlet format")
        if len(entries) < seats:
            raise ScheduleError(
                f"a round-robin at tables of {seats} needs at least {seats} entries, got {len(entries)}: "
                "add entries (the same agent may be entered twice under different names)"
            )
        return
    if not candidates:
        raise ScheduleError("a gauntlet needs at least one candidate")
    if len(set(candidates)) < len(candidates):
        raise ScheduleError("gauntlet candidates must be unique")
    missing = [name for name in candidates if name not in entries]
    if missing:
        raise ScheduleError(f"gauntlet candidates are not entries: {', '.join(missing)}")
    field = len(entries) - len(candidates)
    if field < seats - 1:
        raise ScheduleError(
            f"a gauntlet at tables of {seats} needs at least {seats - 1} field entries besides the candidates, "
            f"got {field}"
        )


def table_count(entries: int, seats: int, format: str = ROUND_ROBIN, max_tables: int = 500,
                candidates: int = 0) -> int:
    """How many tables ``build_schedule`` makes for these counts, without building them (valid inputs)."""
    copies = candidates if format == GAUNTLET else 1
    pool = entries - candidates if format == GAUNTLET else entries
    size = seats - 1 if format == GAUNTLET else seats
    return _group_count(pool, size, max(1, max_tables // copies)) * copies


def _group_count(pool: int, size: int, max_groups: int) -> int:
    """Groups of a design: every subset when there are at most ``max_groups`` (or ``pool == size``), else
    ``ceil(pool * appearances / size)`` (see ``_choose_groups``)."""
    total = math.comb(pool, size)
    if total <= max_groups or pool == size:
        return total
    return -(-pool * _appearances(pool, size, max_groups) // size)


def _appearances(pool: int, size: int, max_groups: int) -> int:
    """Groups per pool entry in a balanced incomplete design."""
    return max(1, max_groups * size // pool)


def _choose_groups(pool: int, size: int, max_groups: int, seed: int) -> tuple[list[tuple[int, ...]], dict[str, Any]]:
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
    count = _group_count(pool, size, max_groups)
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
