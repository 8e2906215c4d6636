"""What the pages and the API read from the ladder's store and files: read-only, cached by the files' state.

Reading never writes: the store is opened read-only while the player writes it (SQLite's write-ahead log
lets both run at once).  The published ``leaderboard.json`` is the leaderboard (rewritten by the player
after every run); the match rows stored since the last look are read when the store changed, at most once a
second, so a page view costs a look-up and the ladder storing matches costs the reads of those matches alone.
"""

from __future__ import annotations

import heapq
import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.tournament.store import MatchRow, Store, StoreError, store_path

REFRESH = 1.0
"""Seconds between two looks at whether the store changed."""
PATH_SHOWN = 200
"""Latest batches of an entry's rating history an agent's page shows."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The store's matches at one moment."""

    rows: tuple[MatchRow, ...]  # in schedule order
    by_id: dict[str, MatchRow]  # match id -> row
    position: dict[str, int]  # match id -> its place in ``rows``
    missing: frozenset[int] = frozenset()  # schedule positions below the last row's that no stored match holds

    def with_rows(self, new: Sequence[MatchRow]) -> Snapshot:
        """This snapshot with the rows ``new`` (in schedule order; none of them in it yet) added."""
        if not new:
            return self
        last = self.rows[-1].idx if self.rows else -1
        if new[0].idx > last:  # the usual case: each after the rest, so the places kept hold
            rows = (*self.rows, *new)
            position = {**self.position, **{row.id: place for place, row in enumerate(new, start=len(self.rows))}}
        else:  # a match that ended late, stored below others: the places after it move
            rows = tuple(heapq.merge(self.rows, new, key=lambda row: row.idx))
            position = {row.id: place for place, row in enumerate(rows)}
        top = rows[-1].idx
        missing = (self.missing | set(range(last + 1, top))) - {row.idx for row in new}
        return Snapshot(rows, {**self.by_id, **{row.id: row for row in new}}, position, frozenset(missing))


def full_snapshot(rows: Sequence[MatchRow]) -> Snapshot:
    """The snapshot of every stored match, ``rows`` (in schedule order)."""
    held = {row.idx for row in rows}
    missing = frozenset(set(range(rows[-1].idx)) - held) if rows else frozenset()
    return Snapshot(tuple(rows), {row.id: row for row in rows}, {row.id: place for place, row in enumerate(rows)},
                    missing)


class Results:
    """The competition's results, as the server shows them."""

    def __init__(self, leaderboards: Path, name: str) -> None:
        self.folder = leaderboards / name
        self.path = store_path(leaderboards, name)
        self._lock = threading.Lock()
        self._key: tuple[int, ...] | None = None
        self._snapshot = Snapshot((), {}, {})
        self._board_key: tuple[int, int] | None = None
        self._checked = -REFRESH
        self._board: dict[str, Any] = {}
        self._entries_key: tuple[int, int] | None = None
        self._entries: dict[str, dict[str, Any]] = {}

    def _state(self) -> tuple[int, ...]:
        key: list[int] = []
        for path in (self.path, self.path.with_name(self.path.name + "-wal")):
            try:
                stat = path.stat()
                key += [stat.st_mtime_ns, stat.st_size]
            except OSError:
                key += [0, 0]
        return tuple(key)

    def snapshot(self) -> Snapshot:
        """Every stored match (brought up to date when the store changed, at most every ``REFRESH`` seconds: a
        page may be that much behind the store while matches are being stored)."""
        now = time.monotonic()
        if now - self._checked < REFRESH:
            return self._snapshot
        self._checked = now
        key = self._state()
        with self._lock:
            if key != self._key:
                try:
                    with Store.open_readonly(self.path) as store:
                        self._snapshot = _updated(self._snapshot, store)
                except StoreError:
                    self._snapshot = Snapshot((), {}, {})
                self._key = key
            return self._snapshot

    def leaderboard(self) -> dict[str, Any]:
        """The published leaderboard (``leaderboard.json``), or an empty one before the first run."""
        path = self.folder / "leaderboard.json"
        try:
            stat = path.stat()
        except OSError:
            return {"rows": [], "matches": 0}
        key = (stat.st_mtime_ns, stat.st_size)
        with self._lock:
            if key != self._board_key:
                try:
                    self._board = json.loads(path.read_text())
                except (OSError, ValueError):
                    return self._board or {"rows": [], "matches": 0}
                self._board_key = key
            return self._board

    def viewable(self) -> Callable[[MatchRow], bool]:
        """Whether a stored match is in the published site yet (its viewer page has it): the site is rewritten
        after each batch, from the matches stored then, while the matches of the next batch are being stored."""
        published = int(self.leaderboard().get("matches") or 0)
        position = self.snapshot().position
        return lambda row: position.get(row.id, published) < published

    def ladder_entry(self, name: str) -> dict[str, Any] | None:
        """Entry ``name`` of the published ladder history (``ladder.json``): when it joined and left, its status,
        its rating after each of its latest ``PATH_SHOWN`` batches (``path``) and how many batches it has
        (``batches``); None before it is published.

        The file holds each entry's latest points (``arena.ladder.history.RECENT_POINTS``; it said every one, megabytes
        an hour, before), and is still read once per publish, never per request."""
        path = self.folder / "ladder.json"
        try:
            stat = path.stat()
        except OSError:
            return None
        key = (stat.st_mtime_ns, stat.st_size)
        with self._lock:
            if key != self._entries_key:
                self._entries = _latest_points(path)
                self._entries_key = key
            return self._entries.get(name)

    def record(self, match_id: str, mine: set[str] | None = None) -> dict[str, Any] | None:
        """One published match's record, or None: a match stored but not yet published is not shown, since the
        other rotations of its block (the same deal, the same hands) may still be being played.  The faults'
        messages (an agent's exception, the tail of its standard error) are kept only for the seats of the
        entries in ``mine`` (the caller's)."""
        row = self.snapshot().by_id.get(match_id)
        if row is None or not self.viewable()(row):
            return None
        try:
            with Store.open_readonly(self.path) as store:
                record = store.record(match_id)
        except (StoreError, KeyError):
            return None
        return public_record(record, mine or set())


def _updated(snapshot: Snapshot, store: Store) -> Snapshot:
    """``snapshot`` with the matches stored since it was taken: those past its last one, and those at the places
    below it that it lacked (stored as they ended, a match may land below one stored before it).  Matches are only
    ever deleted when an entry failed to start (``Store.drop_matches_of``), and its blocks are not played again: a
    count that differs from what the snapshot and the new rows hold says so, and everything is read afresh."""
    store.db.execute("BEGIN")  # one read transaction: the count and the rows of the same moment
    try:
        count = int(store.db.execute("SELECT COUNT(*) FROM matches").fetchone()[0])
        last = snapshot.rows[-1].idx if snapshot.rows else -1
        updated = snapshot.with_rows(list(store.rows_since(last, snapshot.missing)))
        return updated if len(updated.rows) == count else full_snapshot(list(store.rows()))
    finally:
        store.db.execute("COMMIT")


def _latest_points(path: Path) -> dict[str, dict[str, Any]]:
    """Each entry of ladder history ``path`` by name, with only its latest ``PATH_SHOWN`` points ({} if unreadable)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    found = {}
    for entry in data.get("entries", []) if isinstance(data, dict) else []:
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            found_points = entry.get("path")
            points: list[Any] = found_points if isinstance(found_points, list) else []
            batches = entry.get("batches")  # the file holds the latest points of a long path, and says how many
            total = batches if isinstance(batches, int) and batches >= len(points) else len(points)
            found[entry["name"]] = {**entry, "path": points[-PATH_SHOWN:], "batches": total}
    return found


HIDDEN_MESSAGE = "(shown to this agent's owner only)"


def public_record(record: dict[str, Any], mine: set[str]) -> dict[str, Any]:
    """``record`` with the message of every fault of a seat not in ``mine`` replaced by ``HIDDEN_MESSAGE``."""
    seats = record.get("seats")
    agents = [seat.get("agent") if isinstance(seat, dict) else None for seat in seats] if isinstance(seats, list) \
        else []

    def own(seat: Any) -> bool:
        return isinstance(seat, int) and 0 <= seat < len(agents) and agents[seat] in mine

    def redact(value: Any) -> Any:
        if isinstance(value, list):
            return [redact(item) for item in value]
        if not isinstance(value, dict):
            return value
        copy = {key: redact(item) for key, item in value.items()}
        if "message" in copy and "kind" in copy and not own(copy.get("seat")):
            copy["message"] = HIDDEN_MESSAGE
        return copy

    return redact(record)


def row_json(row: MatchRow, mine: set[str] | None = None, viewable: bool = False) -> dict[str, Any]:
    """A match row for the API: seats, scores and ranks, the site's viewer for it if published (else None); the
    faults only of the seats in ``mine`` (the caller's), their messages only once published (``HELD`` before)."""
    data: dict[str, Any] = {"idx": row.idx, "id": row.id, "agents": list(row.agents), "scores": list(row.scores),
            "ranks": list(row.ranks), "wall_seconds": row.wall_seconds,
            "viewer": f"/site/match.html#{row.idx}" if viewable else None}
    if mine is not None:
        data["faults"] = [dict(fault) if viewable or "message" not in fault else {**fault, "message": HELD}
                          for fault in row.faults if row.agents[int(fault["seat"])] in mine]
    return data


HELD = "(shown once the batch is published)"
"""A fault's message before its batch is published: it may quote the seat's hand, which the block's other
rotations deal again, as the seats' output may (``arena.serve.seat_logs`` holds that back too)."""
