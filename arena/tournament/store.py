"""The tournament store: one embedded SQLite database per tournament.

``leaderboards/<name>/results.sqlite`` holds the config the tournament was
started with and one row per finished match: its place in the schedule, block,
seats, agents, seed, per-seat scores and ranks, faults, timings and the
compressed match record, and, where a rating method needs it, its luck correction
(``arena.tournament.luck``).  Each match is committed as it ends (a few at once when
a Ray worker sends several), so a run killed at any moment (``kill -9`` included)
keeps every match that had ended, and ``--resume`` plays only the missing ones;
readers get the rows sorted by their place in the schedule, whatever order they
were stored in.

A store is created whole or not at all (built under a temporary name, then
linked into place) with its format version and a random secret key, the key
of the tournament's deal and agent seeds when the config sets no ``seed``
(``arena.records.seeding.secret_seed``); the key never leaves the store.  Opening
checks that the file is an arena store of a format this arena reads before
anything is written to it, and readers open it read-only.  Making, locking and
explaining the file is ``arena.tournament.store_file``'s; a row as read back is
``arena.tournament.match_row``'s.
"""

from __future__ import annotations

import heapq
import json
import os
import sqlite3
import zlib
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.inputs import bounded_json
from arena.ratings.data import MatchOutcome
from arena.records import MAX_RECORD_BYTES
from arena.records.seeding import new_secret
from arena.tournament.errors import StoreError, StoreRequestError
from arena.tournament.match_row import MatchRow, match_row
from arena.tournament.store_file import SCHEMA, SCHEMA_VERSION, claim_store, create_store, explain_error
from arena.tournament.transactions import WriteTransaction

STORE_FILE = "results.sqlite"

DEFAULT_LEADERBOARDS = Path("leaderboards")
"""The folder of tournament folders unless told otherwise (``--leaderboards``)."""
ENTRY_FIELDS = ("agent", "plugin", "version", "files")
"""What ``Store.bind_versions`` keeps per entry."""

RESULT_COLUMNS = ("idx", "id", "block_id", "table_idx", "block", "rotation", "deal_seed", "agents", "scores", "ranks",
                  "faults")
"""Columns that must be identical between an interrupted-and-resumed run and an uninterrupted one."""


def version_changes(before: Mapping[str, str], now: Mapping[str, str]) -> list[str]:
    """How an entry's agent, version and plugin files differ between ``before`` and ``now`` ([] if they do not),
    as the refusals to play a changed entry name them."""
    changes = [f"{key} {before[key]} -> {now[key]}" for key in ("agent", "version") if before[key] != now[key]]
    if before["files"] != now["files"]:
        changes.append(f"plugin files changed (hash {before['files'][:12]} -> {now['files'][:12]})")
    return changes


def pack_record(record: Mapping[str, Any]) -> bytes:
    """A match record as the store keeps it: zlib-compressed JSON.

    Workers pack their records before sending them back, so that the process
    that writes the store does the least work per match (it shares the cores
    with them) and Ray ships a few hundred bytes instead of a nested record.
    """
    return zlib.compress(json.dumps(record, separators=(",", ":")).encode())


def store_path(leaderboards: Path | str, name: str) -> Path:
    """Where tournament ``name``'s database lives; ``StoreError`` for a name that is not a tournament name
    (``../x``, a slash, control characters...: it must name one folder inside ``leaderboards``)."""
    from arena.tournament.config import NAME_MAX, NAME_PATTERN  # the config defines what a name is

    if not NAME_PATTERN.fullmatch(name) or len(name) > NAME_MAX:
        shown = json.dumps(name[:40]) + ("..." if len(name) > 40 else "")
        raise StoreRequestError(f"tournament name {shown}: expected lowercase letters, digits, '-' and '_', starting "
                                f"with a letter or digit, at most {NAME_MAX} characters (the config's name)")
    return Path(leaderboards) / name / STORE_FILE


class Store:
    """An open tournament database."""

    def __init__(self, path: Path | str, readonly: bool = False) -> None:
        """Open the store at ``path`` to write, creating it if missing; or, ``readonly``, one that exists.

        ``StoreError`` (one line, nothing written) for a folder that cannot be
        made, a file that is not an arena store or is damaged, a store of a
        newer format, or one that cannot be written (read-only, in use).
        """
        self.path = Path(path)
        self._lock: int | None = None
        if not readonly and not os.path.lexists(self.path):
            create_store(self.path)
        if not readonly:
            self._lock = claim_store(self.path)
        try:
            if readonly:
                # Without a write-ahead log beside it (no run is writing) the database is opened as immutable,
                # which creates no -wal or -shm file; while a run writes, as an ordinary read-only reader.
                wal = self.path.with_name(self.path.name + "-wal")
                mode = "mode=ro" if wal.exists() else "mode=ro&immutable=1"
                self.db = sqlite3.connect(f"{self.path.resolve().as_uri()}?{mode}", uri=True, isolation_level=None)
            else:
                self.db = sqlite3.connect(self.path, isolation_level=None)
        except sqlite3.Error as error:
            self._release()
            raise StoreError(f"{self.path}: cannot open the results store: {error}") from None
        try:
            self._check(readonly)
            if not readonly:
                # WAL: a committed batch survives the process being killed; readers never block the writer.
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=NORMAL")
                self.db.executescript(SCHEMA)
        except sqlite3.Error as error:
            self.close()
            raise StoreError(explain_error(self.path, error)) from None
        except StoreError:
            self.close()
            raise

    def _check(self, readonly: bool) -> None:
        """Refuse, before writing anything, a file that is not an arena store of a format this arena reads."""
        tables = {row[0] for row in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        # A store from before luck corrections were kept, opened read-only, has no table of them (a writer adds it).
        self._luck_kept = not readonly or "luck" in tables
        if not {"meta", "matches"} <= tables:
            raise StoreError(f"{self.path}: not an arena results store (no meta and matches tables); move it away "
                             "or give the tournament another name")
        schema = self.meta("schema")
        if schema is not None and (not isinstance(schema, int) or schema > SCHEMA_VERSION):
            raise StoreError(f"{self.path}: a results store of format {schema!r}, newer than this arena reads "
                             f"(format {SCHEMA_VERSION}); upgrade arena to use it")
        if not readonly:
            # Claim the write lock now: a read-only file or another run's lock fails here, not after a match.
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("ROLLBACK")

    @property
    def secret(self) -> bytes:
        """The store's secret key for deal and agent seeds (made with the store; added to an older store)."""
        value = self.meta("secret")
        if not isinstance(value, str):
            self.set_meta({"secret": new_secret().hex()})
            value = self.meta("secret")
        try:
            return bytes.fromhex(value)
        except ValueError:
            raise StoreError(f"{self.path}: the store's secret key is damaged") from None

    @classmethod
    def open_readonly(cls, path: Path | str) -> Store:
        """Open an existing store for queries only: no file under its folder is created, written or touched."""
        if not Path(path).is_file():
            raise StoreRequestError(f"{path}: no tournament results there (run 'arena run CONFIG' first)")
        return cls(path, readonly=True)

    def close(self) -> None:
        """Close the database (and let another run write it)."""
        self.db.close()
        self._release()

    def _release(self) -> None:
        if self._lock is not None:
            os.close(self._lock)  # closing the only descriptor of the lock file drops the lock
            self._lock = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- meta --------------------------------------------------------------------------------

    def meta(self, key: str) -> Any:
        """A JSON value stored under ``key``, or None."""
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            return bounded_json.loads(row[0])
        except (TypeError, ValueError) as error:
            raise StoreError(f"{self.path}: damaged metadata {key!r}: {' '.join(str(error).split())[:100]}") from None

    def set_meta(self, values: Mapping[str, Any]) -> None:
        """Store JSON values under their keys, in one transaction."""
        with self._transaction():
            self.db.executemany(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                [(key, json.dumps(value, sort_keys=True)) for key, value in values.items()],
            )

    def bind(self, config: Mapping[str, Any], schedule: Mapping[str, Any], total: int, resume: bool) -> bool:
        """Tie the store to a tournament config, or check that it already is; True if the config grew.

        A fresh store records the config; an existing one must hold the same
        config, and a part-played one needs ``resume`` (so that two runs are
        never mixed by accident).  A complete one has nothing left to play.
        With ``resume``, a config that differs only by more ``blocks`` is
        accepted and True returned: matches run block by block, so the new
        blocks only append; the caller checks that every stored match keeps its
        id and seed, then calls ``extend``.
        """
        stored = self.meta("config")
        if stored is None:
            self.set_meta({"schema": SCHEMA_VERSION, "config": config, "schedule": schedule, "total": total})
            return False
        if stored != config:
            only_blocks_differ = {**stored, "blocks": config.get("blocks")} == config
            if resume and only_blocks_differ and config["blocks"] > stored["blocks"]:
                return True
            hint = "; to add blocks, raise only 'blocks' and run with --resume" if only_blocks_differ else ""
            raise StoreRequestError(
                f"{self.path} holds results of a different configuration of {config['name']!r} "
                f"({_first_difference(stored, config)}); give the tournament a new name, or delete that folder "
                f"to start over{hint}"
            )
        done = self.count()
        if done and done < total and not resume:
            raise StoreRequestError(
                f"{self.path} already holds {done} of {total} results; add --resume to play only what is missing"
            )
        return False

    def versions(self) -> dict[str, dict[str, str]]:
        """Entry name -> its stored ``agent``, ``plugin``, ``version`` and ``files`` hash ({} if none stored)."""
        try:
            cursor = self.db.execute(f"SELECT name, {', '.join(ENTRY_FIELDS)} FROM entries ORDER BY name")
        except sqlite3.OperationalError:  # a store from before versions were kept, opened read-only
            return {}
        return {row[0]: dict(zip(ENTRY_FIELDS, row[1:])) for row in cursor}

    def bind_versions(self, current: Mapping[str, Mapping[str, str]]) -> None:
        """Record each entry's agent version and plugin files hash, or check them against the stored ones.

        Entries not yet recorded (a new store, or one from before versions were kept) are recorded; a
        recorded entry whose version or files differ raises ``StoreError`` naming the entry and what
        changed, since resuming would rate two versions under one name.
        """
        for name, (before, changes) in self.changed_entries(current).items():
            now = current[name]
            # A new version gets a name of its own; changed files under the same version, a plain new name.
            new_name = f"{name}-{now['version']}" if now["version"] != before["version"] else f"{name}-new"
            restore = (f"reinstall {before['agent']} {before['version']}" if now["version"] != before["version"]
                       or now["agent"] != before["agent"] else
                       f"put {before['agent']}'s plugin files back as they were when its matches were played")
            raise StoreError(
                f"{self.path}: entry {name!r} changed since its matches were stored ({'; '.join(changes)}); "
                f"resuming would rate two versions as one. To rate the new version, add it as a new entry "
                f"(e.g. name = \"{new_name}\", plugin = \"{now['agent']}\") in a tournament with a new name; to "
                f"finish this one, {restore}"
            )
        self.record_versions(current)

    def changed_entries(self, current: Mapping[str, Mapping[str, str]]
                        ) -> dict[str, tuple[Mapping[str, str], list[str]]]:
        """The entries of ``current`` whose agent, version or plugin files differ from those their stored matches
        were played by: name -> (the stored version, what changed).  An entry with no match stored is never
        changed (nothing of it is rated yet)."""
        stored = self.versions() if self.count() else {}  # nothing stored yet: nothing to rate as one
        seated = self.seated_entries() if stored else set()
        changed: dict[str, tuple[Mapping[str, str], list[str]]] = {}
        for name, now in current.items():
            before = stored.get(name) if name in seated else None
            if before is not None and (changes := version_changes(before, now)):
                changed[name] = (before, changes)
        return changed

    def record_versions(self, current: Mapping[str, Mapping[str, str]]) -> None:
        """Record each entry's agent version and plugin files hash as they are now, unchecked.

        For a caller that compared them already by its own rule (a ladder: ``arena.ladder.field.check_versions``).
        """
        with self._transaction():
            self.write_versions(current)

    def write_versions(self, current: Mapping[str, Mapping[str, str]]) -> None:
        """``record_versions`` inside the caller's own transaction (a ladder entry joins with its version)."""
        self.db.executemany(
            f"INSERT OR REPLACE INTO entries (name, {', '.join(ENTRY_FIELDS)}) VALUES (?, ?, ?, ?, ?)",
            [(name, *(str(values[field]) for field in ENTRY_FIELDS)) for name, values in current.items()],
        )

    def extend(self, config: Mapping[str, Any], schedule: Mapping[str, Any], total: int) -> None:
        """Record the grown config (more blocks) that ``bind`` accepted."""
        self.set_meta({"config": config, "schedule": schedule, "total": total})

    # -- matches -----------------------------------------------------------------------------

    def done_indices(self) -> set[int]:
        """Schedule positions already stored."""
        return {row[0] for row in self.db.execute("SELECT idx FROM matches")}

    def count(self) -> int:
        """Number of stored matches."""
        return int(self.db.execute("SELECT COUNT(*) FROM matches").fetchone()[0])

    def seated_entries(self) -> set[str]:
        """The entries some stored match seats."""
        return {str(name) for (agents,) in self.db.execute("SELECT agents FROM matches") for name in json.loads(agents)}

    def drop_matches_of(self, entry: str) -> int:
        """Delete every stored match that seats ``entry``, and its seats' output; how many there were.

        For an entry that never started: the substitute played all of them, so none may rate it, and a run
        resumed once the agent is fixed plays them again.
        """
        doomed = [(idx, match_id) for idx, match_id, agents in self.db.execute("SELECT idx, id, agents FROM matches")
                  if entry in json.loads(agents)]
        with self._transaction():
            self.db.executemany("DELETE FROM seat_logs WHERE match_id = ?", [(match_id,) for _idx, match_id in doomed])
            self.db.executemany("DELETE FROM luck WHERE match_id = ?", [(match_id,) for _idx, match_id in doomed])
            self.db.executemany("DELETE FROM matches WHERE idx = ?", [(idx,) for idx, _match_id in doomed])
        return len(doomed)

    def add(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """Insert finished matches in one transaction (a match stored twice is an error, never a double count).

        Each row holds the columns of ``matches`` by name, ``record`` packed by ``pack_record``, and may hold its
        ``luck`` correction (a list per seat, or None).
        """
        with self._transaction():
            self.db.executemany(
                "INSERT INTO matches (idx, id, block_id, table_idx, block, rotation, deal_seed, agents, scores, ranks,"
                " faults, think_seconds, wall_seconds, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        row["idx"], row["id"], row["block_id"], row["table_idx"], row["block"], row["rotation"],
                        row["deal_seed"], json.dumps(row["agents"]), json.dumps(row["scores"]),
                        json.dumps(row["ranks"]), json.dumps(row["faults"]), json.dumps(row["think_seconds"]),
                        row["wall_seconds"], row["record"],
                    )
                    for row in rows
                ],
            )
            self.db.executemany(
                "INSERT INTO seat_logs (match_id, seat, log) VALUES (?, ?, ?)",
                [(row["id"], int(seat), zlib.compress(str(text).encode(), 6))
                 for row in rows for seat, text in dict(row.get("logs") or {}).items() if text],
            )
            self.db.executemany("INSERT INTO luck (match_id, seats) VALUES (?, ?)",
                                [(row["id"], json.dumps(row["luck"])) for row in rows if row.get("luck") is not None])

    def set_luck(self, corrections: Mapping[str, Sequence[float]]) -> None:
        """Store the luck corrections of matches stored without one (match id -> a number per seat), in one
        transaction (``arena luck``; a match that has one already is an error, never overwritten)."""
        with self._transaction():
            self.db.executemany("INSERT INTO luck (match_id, seats) VALUES (?, ?)",
                                [(match_id, json.dumps(list(seats))) for match_id, seats in corrections.items()])

    def without_luck(self) -> list[str]:
        """The ids of stored matches without a luck correction, in schedule order."""
        if not self._luck_kept:
            return [row[0] for row in self.db.execute("SELECT id FROM matches ORDER BY idx")]
        return [row[0] for row in self.db.execute(
            "SELECT id FROM matches WHERE id NOT IN (SELECT match_id FROM luck) ORDER BY idx")]

    def rows(self) -> Iterator[MatchRow]:
        """Every stored match, in schedule order, streamed."""
        return self._rows("", ())

    def rows_since(self, after: int, among: Collection[int] = ()) -> Iterator[MatchRow]:
        """The stored matches past schedule position ``after``, and those at the positions ``among`` (below it),
        in schedule order, streamed: what a reader that has read the rest needs (matches are stored as they end,
        so one may land below another already stored)."""
        below = self._rows(" WHERE matches.idx IN (SELECT value FROM json_each(?))", (json.dumps(sorted(among)),)) \
            if among else iter(())
        # Two look-ups by position, not one with OR, which SQLite answers by reading every row.
        return heapq.merge(below, self._rows(" WHERE matches.idx > ?", (after,)), key=lambda row: row.idx)

    def _rows(self, where: str, parameters: Sequence[Any]) -> Iterator[MatchRow]:
        luck = "luck.seats" if self._luck_kept else "NULL"
        join = " LEFT JOIN luck ON luck.match_id = matches.id" if self._luck_kept else ""
        cursor = self.db.execute(
            "SELECT idx, id, block_id, table_idx, block, rotation, deal_seed, agents, scores, ranks, faults,"
            f" think_seconds, wall_seconds, {luck} FROM matches{join}{where} ORDER BY idx", parameters
        )
        for row in cursor:
            try:
                yield match_row(row)
            except (TypeError, ValueError) as error:
                raise StoreError(f"{self.path}: match {str(row[1])[:40]!r}: damaged row "
                                 f"({' '.join(str(error).split())[:120]})") from None

    def outcomes(self) -> list[MatchOutcome]:
        """Every stored match as rating input."""
        return [row.outcome() for row in self.rows()]

    def record(self, match_id: str) -> dict[str, Any]:
        """The full match record of one match."""
        row = self.db.execute("SELECT record FROM matches WHERE id = ?", (match_id,)).fetchone()
        if row is None:
            raise StoreRequestError(f"{self.path}: no match {match_id!r}")
        try:
            inflater = zlib.decompressobj()
            data = inflater.decompress(row[0], MAX_RECORD_BYTES)
            if inflater.unconsumed_tail:
                raise ValueError(f"larger than {MAX_RECORD_BYTES >> 20} MiB")
            return bounded_json.loads(data)
        except (TypeError, ValueError, zlib.error) as error:
            raise StoreError(f"{self.path}: match {match_id}: damaged record ({error})") from None

    def seat_log(self, match_id: str, seat: int) -> str:
        """What seat ``seat`` of match ``match_id`` printed, as kept (arena.referee.seat_log); "" when nothing.

        For the seat's owner only: callers check who asks."""
        try:
            row = self.db.execute("SELECT log FROM seat_logs WHERE match_id = ? AND seat = ?",
                                  (match_id, seat)).fetchone()
        except sqlite3.OperationalError:  # a store from before seat logs, opened read-only: it has none
            return ""
        if row is None:
            return ""
        try:
            inflater = zlib.decompressobj()
            return inflater.decompress(row[0], 1 << 20).decode("utf-8", errors="replace")
        except (TypeError, zlib.error) as error:
            raise StoreError(f"{self.path}: match {match_id}: damaged seat log ({error})") from None

    def result_table(self) -> list[tuple[Any, ...]]:
        """The timing-free result columns of every match, for comparing runs."""
        return self.db.execute(f"SELECT {', '.join(RESULT_COLUMNS)} FROM matches ORDER BY idx").fetchall()

    def prune_seat_logs(self, keep_matches: int) -> int:
        """Drop the seats' output of every match but the latest ``keep_matches`` (in schedule order); rows dropped.

        A seat's output is kept only for its owner to read, up to 64 KiB a seat that a hostile agent makes
        incompressible: a served ladder that kept it all would fill its disk in days.
        """
        with self._transaction():
            dropped = self.db.execute(
                "DELETE FROM seat_logs WHERE match_id IN (SELECT id FROM matches ORDER BY idx DESC LIMIT -1 OFFSET ?)",
                (keep_matches,)).rowcount
        return max(dropped, 0)

    def _transaction(self) -> WriteTransaction:
        return WriteTransaction(self.db)


def _first_difference(stored: Any, given: Any, where: str = "") -> str:
    """Where the stored config first differs from the given one, as ``key: was X, now Y`` (short)."""
    if isinstance(stored, Mapping) and isinstance(given, Mapping):
        for key in sorted(set(stored) | set(given), key=str):
            if stored.get(key) != given.get(key):
                return _first_difference(stored.get(key), given.get(key), f"{where}.{key}" if where else str(key))
    if isinstance(stored, list) and isinstance(given, list) and len(stored) == len(given):
        for index, (old, new) in enumerate(zip(stored, given, strict=True)):
            if old != new:
                return _first_difference(old, new, f"{where}[{index}]")

    def show(value: Any) -> str:
        text = json.dumps(value)
        return text if len(text) <= 40 else text[:37] + "..."

    return f"{where or 'the config'}: was {show(stored)}, now {show(given)}"
