"""A ladder's history as data: each entry's rating after every batch, and each newcomer's path to settled.

``snapshot`` makes the rows recorded after a batch; ``ladder_history`` reads a ladder's whole story
(read-only) as plain JSON (``stored_history`` from a store already open), and ``write_history`` puts it in
``leaderboards/<name>/ladder.json`` for a site or a script to show: the entries (when each joined and left,
its version, when it first settled), each entry's path (rating, interval, rank and status after every
batch), the runs and why each block was chosen.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.ladder.field import LadderRequestError, ladder_path
from arena.ladder.standing import NEW, RETIRED, SETTLED, Standing
from arena.ladder.store import LadderEntry, block_rows, history_rows, is_ladder, now, read_entries, run_rows
from arena.ratings import RatingTable
from arena.tournament.store import Store

HISTORY_FILE = "ladder.json"
"""The ladder's history, beside its leaderboard files."""


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


def stored_history(store: Store, name: str) -> dict[str, Any]:
    """``ladder_history`` from a ladder's store that the caller holds open (``publish`` reads it with the rest)."""
    ladder = store.meta("ladder")
    rows = history_rows(store.db)
    entries = read_entries(store.db)
    versions = store.versions()
    runs = run_rows(store.db)
    blocks = block_rows(store.db)
    paths: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        point = {key: row[key] for key in ("batch", "run", "matches", "at", "rating", "lower", "upper", "games",
                                           "blocks", "rank", "status")}
        paths.setdefault(row["entry"], []).append(point)
    listed = []
    for entry in entries:
        path = [point for point in paths.get(entry.name, []) if point["matches"] >= entry.added_after]
        settled = next((point["matches"] for point in path if point["status"] == SETTLED), None)
        version = versions.get(entry.name, {}).get("version")
        status = RETIRED if not entry.active else path[-1]["status"] if path else NEW
        listed.append({"position": entry.position, "name": entry.name, "plugin": entry.entry.get("plugin"),
                       "options": entry.entry.get("options", {}), "version": version,
                       "added_at": entry.added_at, "added_after": entry.added_after, "retired_at": entry.retired_at,
                       "retired_after": entry.retired_after, "status": status, "settled_after": settled,
                       "latest": latest_point(path, entry), "path": path})
    rank_active(listed)
    return {"ladder": name, "game": (ladder or {}).get("game"), "settings": (ladder or {}).get("ladder"),
            "entries": listed, "runs": runs, "blocks": blocks}


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


def latest_point(path: Sequence[dict[str, Any]], entry: LadderEntry) -> dict[str, Any] | None:
    """The entry's latest rated point while it played: for a retired entry the last before it retired (its rating
    and rank then, frozen), for an active one its latest; None before it has a rating."""
    played = [point for point in path if point["rating"] is not None and point["status"] != RETIRED
              and (entry.retired_after is None or point["matches"] <= entry.retired_after)]
    return played[-1] if played else None


def write_history(leaderboards: Path | str, name: str, history: dict[str, Any] | None = None) -> Path:
    """Write ``leaderboards/<name>/ladder.json``: ``history``, or else ``ladder_history`` read now; its path."""
    path = Path(leaderboards) / name / HISTORY_FILE
    path.write_text(json.dumps(ladder_history(leaderboards, name) if history is None else history, indent=1))
    return path
