"""A ladder's history as data: each entry's rating after every batch, and each newcomer's path to settled.

``snapshot`` makes the rows recorded after a batch; ``ladder_history`` reads a ladder's whole story
(read-only) as plain JSON (``stored_history`` from a store already open): the entries (when each joined and left,
its version, when it first settled, its latest rating and rank), each entry's path (rating, interval, rank and
status after every batch), the runs and why each block was chosen.  ``write_history`` puts the recent story (each
entry's latest points, the latest runs and blocks) in ``leaderboards/<name>/ladder.json`` for a site or a script
to show: written after every batch of a served ladder, it is read and written in a time that does not grow with
the history, which the store keeps whole.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.ladder.field import LadderRequestError, ladder_path
from arena.ladder.standing import NEW, RETIRED, SETTLED, UNSETTLED, Standing
from arena.ladder.store import (
    LadderEntry,
    block_rows,
    counts,
    entry_points,
    first_with_status,
    is_ladder,
    last_rated,
    now,
    read_entries,
    run_rows,
)
from arena.ratings import RatingTable
from arena.tournament.store import Store

HISTORY_FILE = "ladder.json"
"""The ladder's recent history (``stored_history`` with ``recent``), beside its leaderboard files: rewritten at every
publish."""
RECENT_POINTS = 200
"""Latest points of each entry's path that ``ladder.json`` and the site hold."""
RECENT_RUNS = 200
"""Latest runs that ``ladder.json`` holds (a served ladder makes one per batch)."""
RECENT_BLOCKS = 1000
"""Latest chosen blocks whose provenance ``ladder.json`` holds."""


def snapshot(batch: int, run: int, matches: int, entries: Sequence[LadderEntry], standing: Standing,
             table: RatingTable, level: float, min_blocks: int) -> list[dict[str, Any]]:
    """One history row per entry that has joined, after ``batch`` (``matches`` stored)."""
    order = standing.order()
    rated = set(table.agents)
    at = now()
    rows = []
    for entry in entries:
        name = entry.name
        row = table[name] if name in rated else None
        rows.append({
            "batch": batch, "entry": name, "run": run, "matches": matches, "at": at,
            "rating": None if row is None else row.rating,
            "lower": None if row is None else row.lower,
            "upper": None if row is None else row.upper,
            "games": standing.games.get(name, 0), "blocks": standing.blocks.get(name, 0),
            "rank": order.index(name) + 1 if entry.active else None,
            "status": standing.status(name, level, min_blocks) if entry.active else RETIRED,
        })
    return rows


def ladder_history(leaderboards: Path | str, name: str) -> dict[str, Any]:
    """The ladder's story as plain JSON (read-only): settings, entries with their paths, runs, block provenance.

    ``LadderError`` when there is no ladder of that name or the store holds a tournament; ``StoreError``
    when the store cannot be read.
    """
    with Store.open_readonly(ladder_path(leaderboards, name)) as store:
        if not is_ladder(store.db):
            raise LadderRequestError(f"{name!r} is a tournament, not a ladder; see 'arena leaderboard {name}'")
        return stored_history(store, name)


def stored_history(store: Store, name: str, recent: bool = False) -> dict[str, Any]:
    """``ladder_history`` from a ladder's store that the caller holds open (``publish`` reads it with the rest); with
    ``recent``, only each entry's latest ``RECENT_POINTS`` points, the latest ``RECENT_RUNS`` runs and the latest
    ``RECENT_BLOCKS`` blocks: what ``ladder.json`` and the site show, read in a time that does not grow with the
    history (each entry's ``batches``, ``run_count`` and ``block_count`` say how much there is in all)."""
    ladder = store.meta("ladder")
    entries = read_entries(store.db)
    versions = store.versions()
    listed = []
    for entry in entries:
        path, batches = entry_points(store.db, entry, RECENT_POINTS if recent else None)
        version = versions.get(entry.name, {}).get("version")
        status = RETIRED if not entry.active else path[-1]["status"] if path else NEW
        listed.append({"position": entry.position, "name": entry.name, "plugin": entry.entry.get("plugin"),
                       "options": entry.entry.get("options", {}), "version": version,
                       "added_at": entry.added_at, "added_after": entry.added_after, "retired_at": entry.retired_at,
                       "retired_after": entry.retired_after, "status": status,
                       "settled_after": first_with_status(store.db, entry, SETTLED),
                       "latest": last_rated(store.db, entry, (NEW, UNSETTLED, SETTLED)), "batches": batches,
                       "path": path})
    rank_active(listed)
    run_count, block_count = counts(store.db)
    return {"ladder": name, "game": (ladder or {}).get("game"), "settings": (ladder or {}).get("ladder"),
            "entries": listed, "run_count": run_count, "runs": run_rows(store.db, RECENT_RUNS if recent else None),
            "block_count": block_count, "blocks": block_rows(store.db, RECENT_BLOCKS if recent else None)}


def rank_active(entries: Sequence[dict[str, Any]]) -> None:
    """Set each listed entry's ``rank``: 1..N among the active entries by their latest rating (equal ratings share a
    rank), None for a retired entry or one without a rating.  The recorded ranks are as of their batch, so an entry
    retired since then would leave a gap in them."""
    ratings = [entry["latest"]["rating"] for entry in entries if entry["retired_at"] is None and entry["latest"]]
    for entry in entries:
        rated = entry["retired_at"] is None and entry["latest"]
        entry["rank"] = 1 + sum(other > entry["latest"]["rating"] for other in ratings) if rated else None


def rating_text(entry: Mapping[str, Any]) -> str:
    """An entry of ``ladder_history`` in a few words: its latest rating and its rank among the active entries, or for
    a retired entry the rating it retired with, frozen (it holds no rank); ``-`` before it has a rating."""
    point = entry.get("latest")
    if point is None:
        return "-"
    if entry.get("retired_at") is not None:
        return f"{point['rating']:.0f} (frozen when retired)"
    return f"{point['rating']:.0f} (#{entry['rank']})"


def write_history(leaderboards: Path | str, name: str, history: dict[str, Any] | None = None) -> Path:
    """Write ``leaderboards/<name>/ladder.json``: ``history`` (``stored_history`` with ``recent``), or else the
    recent history read now; its path."""
    path = Path(leaderboards) / name / HISTORY_FILE
    if history is None:
        with Store.open_readonly(ladder_path(leaderboards, name)) as store:
            history = stored_history(store, name, recent=True)
    path.write_text(json.dumps(history, indent=1))
    return path
