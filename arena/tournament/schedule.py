"""Tournament schedules: who meets whom, at which table, in which seat, on which deal.

A schedule is a pure function of its inputs (the entry names, the seats per
table, the number of duplicate blocks, the format, the seed and the table cap):
the same inputs give the same tables, match ids, seatings and seeds on every
machine, serially or on Ray.  Nothing here uses Python's ``hash()`` or global
randomness; every seed comes from ``arena.records.seeding``.  Deal and agent seeds
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

Where things are
----------------
The formats (round-robin, gauntlet: which entries form the pool, how groups
become tables) are in ``arena.tournament.formats``, one module each; the
combinatorial designs that choose the groups are in ``arena.tournament.designs``;
ids and seeds in ``arena.tournament.ids``.  This module puts them together.

Order and ids
-------------
Matches are in block-major order: block 0 of every table, then block 1, ...,
each block's rotations together.  Adding blocks therefore only appends
matches: earlier ids, seats and seeds do not change.  A match id reads
``t0007-b02-r1`` (table 7, block 2, rotation 1; all counted from 0).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from arena.tournament.designs import (
    BALANCED,
    COMPLETE,
    METHOD_ALL_SUBSETS,
    METHOD_GREEDY,
    METHOD_RESOLVABLE,
    choose_groups,
    group_count,
)
from arena.tournament.formats import BY_NAME, GAUNTLET, ROUND_ROBIN, Format, ScheduleError, Table, format_names
from arena.tournament.ids import (
    SEED_TAG,
    agent_seed,
    block_id,
    deal_seed,
    design_seed,
    match_id,
    seating_order,
    table_id,
)


@dataclass(frozen=True, slots=True)
class Design:
    """Which design a schedule uses, with its parameters, so the CLI can say so."""

    format: str  # a format's name: "round-robin", "gauntlet" or a registered one (``arena.tournament.formats``)
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
        form = BY_NAME[self.format]
        how = "greedy pair balancing" if self.method == METHOD_GREEDY else "resolvable rounds"
        per = f"each {form.member} {self.appearances} {form.unit}{'s' if self.appearances != 1 else ''}"
        if self.extra:
            per += f" ({self.extra} at one more)"
        pairs = ""
        if self.pair_min is not None and self.pair_max is not None and self.group_size > 1:
            pairs = f"; pairs meet {self.pair_min}-{self.pair_max} times"
        return form.describe(self, how, per, pairs)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {item.name: getattr(self, item.name) for item in dataclasses.fields(self)}


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
        return block_matches(self.seed, table.group, table.index, table.entries, block, first_index, self.secret)

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


def block_matches(seed: int, group: int, table: int, entries: Sequence[str], block: int, first_index: int,
                  secret: bytes | None) -> list[Match]:
    """The ``len(entries)`` matches of one block, one per rotation, from schedule place ``first_index``.

    The seating and the deal and agent seeds come from ``group`` (the design's group of the table), the ids
    from ``table`` (its index); ``secret`` keys the seeds as in ``Schedule.with_secret``.  Tournaments and
    ladders both build their blocks here, so a block's matches are the same whichever plays it.
    """
    k = len(entries)
    order = seating_order(seed, group, block, k)
    base = tuple(entries[i] for i in order)
    deal = deal_seed(seed, group, block, secret)
    return [
        Match(
            id=match_id(table, block, rotation),
            index=first_index + rotation,
            table=table,
            block=block,
            block_id=block_id(table, block),
            rotation=rotation,
            # base[i] sits in seat (i + rotation) % k, so seat s holds base[(s - rotation) % k].
            seats=tuple(base[(seat - rotation) % k] for seat in range(k)),
            deal_seed=deal,
            agent_seeds=tuple(agent_seed(seed, group, block, rotation, seat, secret) for seat in range(k)),
        )
        for rotation in range(k)
    ]


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
        ``"round-robin"``, ``"gauntlet"`` or a registered format's name (``arena.tournament.formats``).
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
    form = _check_inputs(entries, seats, blocks, format, max_tables, candidates)
    pool = form.pool(entries, candidates)
    group_size, copies = form.group_size(seats), form.copies(len(candidates))
    max_groups = max(1, max_tables // copies)
    groups, info = choose_groups(len(pool), group_size, max_groups,
                                 design_seed(seed, format, len(pool), group_size, max_groups))
    tables = form.tables([tuple(pool[i] for i in sorted(group)) for group in groups], candidates)
    design = Design(
        format=format,
        kind=info["kind"],
        method=info["method"],
        pool=len(pool),
        group_size=group_size,
        groups=len(groups),
        candidates=form.candidate_count(candidates),
        tables=len(tables),
        appearances=info["appearances"],
        extra=info["extra"],
        pair_min=info["pair_min"],
        pair_max=info["pair_max"],
    )
    return Schedule(
        design=design,
        entries=entries,
        candidates=candidates if form.uses_candidates else (),
        seats=seats,
        blocks=blocks,
        seed=seed,
        tables=tuple(tables),
    )


def _check_inputs(
    entries: tuple[str, ...], seats: int, blocks: int, format: str, max_tables: int, candidates: tuple[str, ...]
) -> Format:
    """The format, once the inputs every format needs are checked (then the format checks its own)."""

    def integer(value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool)

    if format not in BY_NAME:
        raise ScheduleError(f"unknown format {format!r}: use one of {', '.join(format_names())}")
    if not integer(seats) or seats < 2:
        raise ScheduleError(f"seats per table must be an integer >= 2, not {seats!r}")
    if not integer(blocks) or blocks < 1:
        raise ScheduleError(f"blocks must be an integer >= 1, not {blocks!r}")
    if not integer(max_tables) or max_tables < 1:
        raise ScheduleError(f"max_tables must be an integer >= 1, not {max_tables!r}")
    if len(set(entries)) < len(entries):
        duplicates = sorted(name for name, count in Counter(entries).items() if count > 1)
        raise ScheduleError(f"entry names must be unique; repeated: {', '.join(duplicates)}")
    form = BY_NAME[format]
    form.check(entries, seats, candidates)
    return form


def table_count(entries: int, seats: int, format: str = ROUND_ROBIN, max_tables: int = 500,
                candidates: int = 0) -> int:
    """How many tables ``build_schedule`` makes for these counts, without building them (valid inputs)."""
    form = BY_NAME[format]
    copies = form.copies(candidates)
    pool = form.pool_size(entries, candidates)
    return group_count(pool, form.group_size(seats), max(1, max_tables // copies)) * copies


__all__ = [
    "BALANCED",
    "COMPLETE",
    "GAUNTLET",
    "METHOD_ALL_SUBSETS",
    "METHOD_GREEDY",
    "METHOD_RESOLVABLE",
    "ROUND_ROBIN",
    "SEED_TAG",
    "Design",
    "Match",
    "Schedule",
    "ScheduleError",
    "Table",
    "agent_seed",
    "block_id",
    "block_matches",
    "build_schedule",
    "deal_seed",
    "iter_matches",
    "match_id",
    "seating_order",
    "table_count",
    "table_id",
]
