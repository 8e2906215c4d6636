"""A ladder's state in its tournament store: the field, the tables, the planned blocks, the runs, the history.

A ladder lives in ``leaderboards/<name>/results.sqlite``, an ordinary tournament store
(``arena.tournament.store``): its ``matches`` rows are the same, so ``arena leaderboard`` and
``arena export`` read a ladder as a tournament, and its ``meta`` ``config`` is the tournament-shaped
config with every entry that ever joined.  The ladder adds tables of its own (``LADDER_SCHEMA``):
who joined and left when, which blocks were chosen (before they are played, so that a killed run
finishes exactly the blocks it chose), each run's request and outcome, and each entry's rating after
every batch.  Stored matches are only ever inserted, never changed.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from arena.tournament.store import Store, StoreError
from arena.tournament.transactions import WriteTransaction

LADDER_SCHEMA = """
CREATE TABLE IF NOT EXISTS ladder_entries (
    position INTEGER PRIMARY KEY,     -- order of joining, from 0 (the config's starting field first)
    name TEXT NOT NULL UNIQUE,        -- entry name
    entry TEXT NOT NULL,              -- JSON [[agents]] table: name, plugin, options, isolation
    added_at TEXT NOT NULL,           -- UTC time it joined
    added_after INTEGER NOT NULL,     -- matches stored when it joined
    retired_at TEXT,                  -- UTC time it was retired; NULL while active
    retired_after INTEGER,            -- matches stored when it was retired
    source TEXT NOT NULL              -- "config", or JSON of the check it passed when added
);
CREATE TABLE IF NOT EXISTS ladder_tables (
    idx INTEGER PRIMARY KEY,          -- the table of match ids (t0003): one set of entries
    entries TEXT NOT NULL UNIQUE      -- JSON list of entry names, in order of joining
);
CREATE TABLE IF NOT EXISTS ladder_blocks (
    number INTEGER PRIMARY KEY,       -- blocks in the order chosen; its matches are number*seats ...
    block_id TEXT NOT NULL UNIQUE,    -- e.g. t0003-b05
    table_idx INTEGER NOT NULL,
    block INTEGER NOT NULL,           -- the table's block number, from 0
    batch INTEGER NOT NULL,           -- the batch (one fit) that chose it
    run INTEGER NOT NULL,             -- the run that chose it
    focus TEXT NOT NULL,              -- the entry the table was chosen for
    reason TEXT NOT NULL              -- why: "quota", "new" or "uncertain"
);
CREATE TABLE IF NOT EXISTS ladder_runs (
    id INTEGER PRIMARY KEY,
    started_at TEXT NOT NULL,
    finished_at TEXT,                 -- NULL: running, or interrupted
    matches INTEGER NOT NULL,         -- most matches it may play
    until TEXT,                       -- "settled", or NULL
    outcome TEXT                      -- "settled", "matches", "budget" once finished
);
CREATE TABLE IF NOT EXISTS ladder_history (
    batch INTEGER NOT NULL,           -- after this batch's matches were stored
    entry TEXT NOT NULL,
    run INTEGER NOT NULL,
    matches INTEGER NOT NULL,         -- matches stored then
    at TEXT NOT NULL,                 -- UTC time
    rating REAL,                      -- NULL before its first match
    lower REAL,
    upper REAL,
    games INTEGER NOT NULL,
    blocks INTEGER NOT NULL,
    rank INTEGER,                     -- among the active entries, 1 = best; NULL when retired
    status TEXT NOT NULL,             -- "new", "unsettled", "settled" or "retired"
    PRIMARY KEY (batch, entry)
);
-- An entry's points are read by entry (its latest ones, its first settled one), never all at once: with these, what
-- a publish reads of the history does not grow with it.
CREATE INDEX IF NOT EXISTS ladder_history_entry ON ladder_history (entry, batch);
CREATE INDEX IF NOT EXISTS ladder_history_status ON ladder_history (entry, status, batch);
CREATE TABLE IF NOT EXISTS ladder_verdicts (
    entry_a TEXT NOT NULL,            -- the pair, names sorted
    entry_b TEXT NOT NULL,
    verdict TEXT NOT NULL,            -- entry_a's: "ahead", "behind" or "level" (standing.Standing.reached)
    batch INTEGER NOT NULL,           -- the last batch before the fit whose test reached it
    PRIMARY KEY (entry_a, entry_b)
);
"""

HISTORY_FIELDS = ("batch", "entry", "run", "matches", "at", "rating", "lower", "upper", "games", "blocks", "rank",
                  "status")
"""Columns of ``ladder_history``, in order: each row of ``LadderStore.history``."""


def now() -> str:
    """The current UTC time, as stored (ISO 8601, seconds)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True, slots=True)
class LadderEntry:
    """One entry that joined the ladder."""

    position: int  # order of joining, from 0
    name: str  # entry name
    entry: Mapping[str, Any]  # its [[agents]] table
    added_at: str  # UTC time it joined
    added_after: int  # matches stored when it joined
    retired_at: str | None  # UTC time it was retired; None while active
    retired_after: int | None  # matches stored when it was retired

    @property
    def active(self) -> bool:
        """Whether the ladder still schedules it."""
        return self.retired_at is None


@dataclass(frozen=True, slots=True)
class PlannedBlock:
    """A chosen block: a table and its block number; its matches are ``number * seats`` onwards."""

    number: int  # position in the order chosen
    table_idx: int  # table index
    entries: tuple[str, ...]  # the table's entries, in order of joining
    block: int  # the table's block number
    batch: int  # the batch that chose it
    run: int  # the run that chose it


@dataclass(frozen=True, slots=True)
class LadderRun:
    """One ``arena ladder run``."""

    id: int  # from 1
    matches: int  # most matches it may play
    until: str | None  # "settled" or None
    finished: bool  # whether it ended (else it was interrupted, or is running)
    outcome: str | None  # why it ended


class LadderStore:
    """A tournament store with the ladder's tables; open to write (``Store`` takes the write lock)."""

    def __init__(self, path: Path) -> None:
        self.store = Store(path)
        self.db = self.store.db
        try:
            self.db.executescript(LADDER_SCHEMA)
        except sqlite3.Error as error:
            self.store.close()
            raise StoreError(f"{path}: cannot add the ladder's tables: {error}") from None

    def close(self) -> None:
        """Close the database."""
        self.store.close()

    def __enter__(self) -> LadderStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def transaction(self) -> WriteTransaction:
        """One write transaction: all of it is stored, or none."""
        return WriteTransaction(self.db)

    # -- the field ------------------------------------------------------------------------------

    def entries(self) -> list[LadderEntry]:
        """Every entry that joined, in order of joining (retired ones included)."""
        return read_entries(self.db)

    def add_entry(self, entry: Mapping[str, Any], source: str, version: Mapping[str, str] | None = None) -> None:
        """Record an entry joining now (after the matches stored so far), with its agent's ``version`` if known.

        Inside the caller's transaction, so an entry never joins without the version it joined with
        (``Store.write_versions``; the config's starting field has its versions bound when the ladder first
        runs).
        """
        position = len(self.entries())
        self.db.execute("INSERT INTO ladder_entries (position, name, entry, added_at, added_after, source) "
                        "VALUES (?, ?, ?, ?, ?, ?)",
                        (position, entry["name"], json.dumps(dict(entry), sort_keys=True), now(), self.store.count(),
                         source))
        if version is not None:
            self.store.write_versions({entry["name"]: version})

    def retire_entry(self, name: str) -> None:
        """Record that ``name`` is scheduled no more (its matches and history stay)."""
        self.db.execute("UPDATE ladder_entries SET retired_at = ?, retired_after = ? WHERE name = ?",
                        (now(), self.store.count(), name))

    # -- tables and blocks ------------------------------------------------------------------------

    def table_index(self, entries: Sequence[str]) -> int:
        """The index of the table of ``entries`` (in order of joining), made if new (inside a transaction)."""
        key = json.dumps(list(entries))
        row = self.db.execute("SELECT idx FROM ladder_tables WHERE entries = ?", (key,)).fetchone()
        if row is not None:
            return int(row[0])
        idx = int(self.db.execute("SELECT COUNT(*) FROM ladder_tables").fetchone()[0])
        self.db.execute("INSERT INTO ladder_tables (idx, entries) VALUES (?, ?)", (idx, key))
        return idx

    def next_block(self, table_idx: int) -> int:
        """The next block number of table ``table_idx`` (counting the planned ones)."""
        row = self.db.execute("SELECT MAX(block) FROM ladder_blocks WHERE table_idx = ?", (table_idx,)).fetchone()
        return 0 if row[0] is None else int(row[0]) + 1

    def plan(self, block_id: str, table_idx: int, block: int, batch: int, run: int, focus: str, reason: str) -> None:
        """Record a chosen block (inside a transaction, with the rest of its batch)."""
        number = self.planned_count()
        self.db.execute("INSERT INTO ladder_blocks (number, block_id, table_idx, block, batch, run, focus, reason) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (number, block_id, table_idx, block, batch, run, focus,
                                                            reason))

    def planned_count(self) -> int:
        """Blocks chosen so far."""
        return int(self.db.execute("SELECT COUNT(*) FROM ladder_blocks").fetchone()[0])

    def planned(self, since: int = 0) -> list[PlannedBlock]:
        """The chosen blocks from number ``since`` on, in order."""
        rows = self.db.execute(
            "SELECT b.number, b.table_idx, t.entries, b.block, b.batch, b.run FROM ladder_blocks b "
            "JOIN ladder_tables t ON t.idx = b.table_idx WHERE b.number >= ? ORDER BY b.number", (since,))
        return [PlannedBlock(row[0], row[1], tuple(json.loads(row[2])), row[3], row[4], row[5]) for row in rows]

    def last_batch(self) -> int:
        """The number of the last batch chosen (0 before any)."""
        row = self.db.execute("SELECT MAX(batch) FROM ladder_blocks").fetchone()
        return 0 if row[0] is None else int(row[0])

    # -- runs -----------------------------------------------------------------------------------

    def runs(self) -> list[LadderRun]:
        """Every run, oldest first."""
        rows = self.db.execute("SELECT id, matches, until, finished_at, outcome FROM ladder_runs ORDER BY id")
        return [LadderRun(row[0], row[1], row[2], row[3] is not None, row[4]) for row in rows]

    def start_run(self, matches: int, until: str | None) -> int:
        """Record a new run; its id."""
        cursor = self.db.execute("INSERT INTO ladder_runs (started_at, matches, until) VALUES (?, ?, ?)",
                                 (now(), matches, until))
        return int(cursor.lastrowid or 0)

    def finish_run(self, run: int, outcome: str) -> None:
        """Record why run ``run`` ended."""
        self.db.execute("UPDATE ladder_runs SET finished_at = ?, outcome = ? WHERE id = ?", (now(), outcome, run))

    def run_matches(self, run: int) -> int:
        """Matches of the blocks run ``run`` chose that are stored."""
        row = self.db.execute(
            "SELECT COUNT(*) FROM matches m JOIN ladder_blocks b ON m.block_id = b.block_id WHERE b.run = ?",
            (run,)).fetchone()
        return int(row[0])

    # -- history --------------------------------------------------------------------------------

    def has_history(self, batch: int) -> bool:
        """Whether the ratings after ``batch`` are recorded."""
        return self.db.execute("SELECT 1 FROM ladder_history WHERE batch = ? LIMIT 1", (batch,)).fetchone() is not None

    def with_status(self, entries: Sequence[LadderEntry], status: str) -> set[str]:
        """Which of ``entries`` have a point with ``status`` recorded since they joined (one look-up each)."""
        return {entry.name for entry in entries if self.db.execute(
            "SELECT 1 FROM ladder_history WHERE entry = ? AND status = ? AND matches >= ? LIMIT 1",
            (entry.name, status, entry.added_after)).fetchone() is not None}

    def add_history(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Record the ratings after one batch (one row per entry)."""
        self.db.executemany(
            f"INSERT OR REPLACE INTO ladder_history ({', '.join(HISTORY_FIELDS)}) "
            f"VALUES ({', '.join('?' for _ in HISTORY_FIELDS)})",
            [tuple(row[field] for field in HISTORY_FIELDS) for row in rows])


    # -- verdicts --------------------------------------------------------------------------------

    def verdicts(self) -> dict[tuple[str, str], str]:
        """Every pair's verdict kept since its test reached it (keys: the two names, sorted)."""
        return {(a, b): verdict for a, b, verdict in self.db.execute(
            "SELECT entry_a, entry_b, verdict FROM ladder_verdicts ORDER BY entry_a, entry_b")}

    def add_verdicts(self, batch: int, verdicts: Mapping[tuple[str, str], str]) -> None:
        """Keep verdicts reached by the fit after ``batch``; a pair keeps its first."""
        self.db.executemany("INSERT OR IGNORE INTO ladder_verdicts (entry_a, entry_b, verdict, batch) "
                            "VALUES (?, ?, ?, ?)", [(a, b, verdict, batch) for (a, b), verdict in verdicts.items()])


def read_entries(db: sqlite3.Connection) -> list[LadderEntry]:
    """Every entry that joined a ladder, in order of joining (also from a read-only store)."""
    rows = db.execute("SELECT position, name, entry, added_at, added_after, retired_at, retired_after "
                      "FROM ladder_entries ORDER BY position")
    return [LadderEntry(row[0], row[1], json.loads(row[2]), row[3], row[4], row[5], row[6]) for row in rows]


def retired_names(db: sqlite3.Connection) -> frozenset[str]:
    """The retired entries of a ladder's store (none for a tournament's): the leaderboards list them apart."""
    return frozenset(entry.name for entry in read_entries(db) if not entry.active) if is_ladder(db) else frozenset()


RUN_FIELDS = ("id", "started_at", "finished_at", "matches", "until", "outcome")
BLOCK_FIELDS = ("block_id", "batch", "run", "focus", "reason")


def run_rows(db: sqlite3.Connection, latest: int | None = None) -> list[dict[str, Any]]:
    """Every run as plain JSON (or the ``latest`` ones), oldest first: when it started and finished, what it was
    asked, why it ended."""
    rows = db.execute(f"SELECT {', '.join(RUN_FIELDS)} FROM ladder_runs ORDER BY id DESC LIMIT ?",
                      (-1 if latest is None else latest,)).fetchall()
    return [dict(zip(RUN_FIELDS, row)) for row in reversed(rows)]


def block_rows(db: sqlite3.Connection, latest: int | None = None) -> list[dict[str, Any]]:
    """Every chosen block's provenance as plain JSON (or the ``latest`` ones'), in the order chosen: id, batch, run,
    the entry it was chosen for, and why."""
    rows = db.execute(f"SELECT {', '.join(BLOCK_FIELDS)} FROM ladder_blocks ORDER BY number DESC LIMIT ?",
                      (-1 if latest is None else latest,)).fetchall()
    return [dict(zip(BLOCK_FIELDS, row)) for row in reversed(rows)]


def counts(db: sqlite3.Connection) -> tuple[int, int]:
    """How many runs and blocks the ladder has (each table's largest key: no count of its rows)."""
    runs = db.execute("SELECT MAX(id) FROM ladder_runs").fetchone()[0]
    blocks = db.execute("SELECT MAX(number) FROM ladder_blocks").fetchone()[0]
    return int(runs or 0), 0 if blocks is None else int(blocks) + 1


def history_rows(db: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every recorded rating, by batch then entry, as plain JSON rows (also from a read-only store)."""
    try:
        cursor = db.execute(f"SELECT {', '.join(HISTORY_FIELDS)} FROM ladder_history ORDER BY batch, entry")
    except sqlite3.OperationalError:  # a tournament store: no ladder tables
        return []
    return [dict(zip(HISTORY_FIELDS, row)) for row in cursor]


POINT_FIELDS = HISTORY_FIELDS[:1] + HISTORY_FIELDS[2:]
"""An entry's point: a history row without the entry's name."""


def entry_points(db: sqlite3.Connection, entry: LadderEntry, latest: int | None = None) -> tuple[list[dict[str, Any]],
                                                                                                 int]:
    """Entry ``entry``'s points since it joined, oldest first (only its ``latest`` ones, if given), and the batches
    from its first point to its latest: how many points it has in all, since every batch records one for every
    playing entry, and one more once it retired (read from both ends: no count of its rows, which would grow with
    its history)."""
    points = "FROM ladder_history WHERE entry = ? AND matches >= ?"
    rows = db.execute(f"SELECT {', '.join(POINT_FIELDS)} {points} ORDER BY batch DESC LIMIT ?",
                      (entry.name, entry.added_after, -1 if latest is None else latest)).fetchall()
    if not rows:
        return [], 0
    first = db.execute(f"SELECT batch {points} ORDER BY batch LIMIT 1", (entry.name, entry.added_after)).fetchone()
    return [dict(zip(POINT_FIELDS, row)) for row in reversed(rows)], int(rows[0][0]) - int(first[0]) + 1


def first_with_status(db: sqlite3.Connection, entry: LadderEntry, status: str) -> int | None:
    """The matches stored when ``entry`` first had ``status`` (since it joined), or None."""
    row = db.execute("SELECT matches FROM ladder_history WHERE entry = ? AND status = ? AND matches >= ? "
                     "ORDER BY batch LIMIT 1", (entry.name, status, entry.added_after)).fetchone()
    return None if row is None else int(row[0])


def last_rated(db: sqlite3.Connection, entry: LadderEntry, statuses: Sequence[str]) -> dict[str, Any] | None:
    """``entry``'s latest rated point with one of ``statuses`` (the one it retired with, for a retired entry's
    playing ones): one look-up per status, however long its history."""
    found = [db.execute(f"SELECT {', '.join(POINT_FIELDS)} FROM ladder_history WHERE entry = ? AND status = ? "
                        "AND rating IS NOT NULL AND matches >= ? ORDER BY batch DESC LIMIT 1",
                        (entry.name, status, entry.added_after)).fetchone() for status in statuses]
    rows: list[tuple[Any, ...]] = [row for row in found if row is not None]
    if not rows:
        return None
    latest: tuple[Any, ...] = max(rows, key=lambda row: int(row[0]))  # the latest batch
    return dict(zip(POINT_FIELDS, latest))


def is_ladder(db: sqlite3.Connection) -> bool:
    """Whether the store holds a ladder (it has the ladder's tables)."""
    row = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ladder_entries'").fetchone()
    return row is not None
