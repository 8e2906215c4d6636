"""``ladder.json`` and the site's Ladder section hold the recent history, read and written in a time that does not grow
with it; the whole story stays in the store, and ``ladder_history`` reads it.

A busy served ladder publishes after every batch, and each batch adds a point per entry: written whole, the file
grew by some 10 MB an hour and each publish read and wrote all of it.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from arena.cli import main
from arena.ladder import ladder_history, write_history
from arena.ladder.history import RECENT_BLOCKS, RECENT_POINTS, RECENT_RUNS, stored_history
from arena.ladder.store import HISTORY_FIELDS, LadderStore
from arena.site.ladder import ladder_section
from arena.tournament.store import Store
from tests.ladder.conftest import PLUGINS

ENTRIES = ("greedy", "random", "random-2", "greedy-2")


def grow(database: Path, batches: int) -> int:
    """Add ``batches`` batches of made-up history (a point per entry, two blocks, one run each) to the ladder's
    store, as a served ladder's runs add them; the last batch."""
    with LadderStore(database) as store, store.transaction():  # opened to write, as the runner does
        db = store.db
        first = int(db.execute("SELECT MAX(batch) FROM ladder_history").fetchone()[0]) + 1
        number = int(db.execute("SELECT MAX(number) FROM ladder_blocks").fetchone()[0]) + 1
        run = int(db.execute("SELECT MAX(id) FROM ladder_runs").fetchone()[0]) + 1
        for batch in range(first, first + batches):
            db.executemany(f"INSERT INTO ladder_history ({', '.join(HISTORY_FIELDS)}) VALUES "
                           f"({', '.join('?' for _ in HISTORY_FIELDS)})",
                           [(batch, name, run, batch * 8, "2026-12-06T00:00:00+00:00", 1500.0 + rank, 1400.0, 1600.0,
                             batch * 8, batch * 2, rank + 1, "unsettled") for rank, name in enumerate(ENTRIES)])
            db.executemany("INSERT INTO ladder_blocks (number, block_id, table_idx, block, batch, run, focus, reason) "
                           "VALUES (?, ?, 0, ?, ?, ?, 'greedy', 'uncertain')",
                           [(number + k, f"t0000-b{number + k:05d}", number + k, batch, run) for k in range(2)])
            db.execute("INSERT INTO ladder_runs (id, started_at, finished_at, matches, until, outcome) "
                       "VALUES (?, 'then', 'then', 8, NULL, 'matches')", (run,))
            number, run = number + 2, run + 1
        return first + batches - 1


@pytest.fixture(scope="module")
def busy(boards: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of ladder 'four' with 600 batches of history: more points, runs and blocks than ``ladder.json``
    holds."""
    folder = tmp_path_factory.mktemp("busy")
    shutil.copytree(boards / "boards" / "four", folder / "four")
    grow(folder / "four" / "results.sqlite", 600)
    return folder


def test_ladder_json_holds_each_entrys_latest_points_and_says_how_many_there_are(busy: Path) -> None:
    written = json.loads(write_history(busy, "four").read_text())
    whole = ladder_history(busy, "four")
    for recent, every in zip(written["entries"], whole["entries"], strict=True):
        assert len(every["path"]) > RECENT_POINTS, "the whole story keeps every point"
        assert recent["path"] == every["path"][-RECENT_POINTS:]
        assert recent["batches"] == every["batches"] == len(every["path"])
        assert recent["latest"] == every["latest"] and recent["settled_after"] == every["settled_after"]
    assert written["runs"] == whole["runs"][-RECENT_RUNS:] and written["run_count"] == len(whole["runs"])
    assert written["blocks"] == whole["blocks"][-RECENT_BLOCKS:] and written["block_count"] == len(whole["blocks"])


def steps(folder: Path) -> int:
    """SQLite's work (in hundreds of virtual-machine steps) to read the recent history of ladder 'four'."""
    counted = [0]

    def tick() -> int:
        counted[0] += 1
        return 0

    with Store.open_readonly(folder / "four" / "results.sqlite") as store:
        store.db.set_progress_handler(tick, 100)
        stored_history(store, "four", recent=True)
    return counted[0]


def test_what_a_publish_reads_and_writes_does_not_grow_with_the_history(busy: Path, tmp_path: Path) -> None:
    shutil.copytree(busy / "four", tmp_path / "four")
    before, size = steps(tmp_path), write_history(tmp_path, "four").stat().st_size
    grow(tmp_path / "four" / "results.sqlite", 1200)  # three times the history
    assert steps(tmp_path) <= before * 1.1
    assert write_history(tmp_path, "four").stat().st_size <= size * 1.1


def test_an_old_store_gains_the_history_indexes_when_opened_to_write(busy: Path, tmp_path: Path) -> None:
    shutil.copytree(busy / "four", tmp_path / "four")
    database = tmp_path / "four" / "results.sqlite"
    with sqlite3.connect(database) as db:
        db.execute("DROP INDEX ladder_history_entry")
        db.execute("DROP INDEX ladder_history_status")
    LadderStore(database).close()
    with sqlite3.connect(database) as db:
        names = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {"ladder_history_entry", "ladder_history_status"} <= names


def test_the_sites_ladder_section_shows_the_latest_points_and_says_so(busy: Path) -> None:
    with Store.open_readonly(busy / "four" / "results.sqlite") as store:
        history = stored_history(store, "four", recent=True)
    html = ladder_section(history)
    total = history["entries"][0]["batches"]
    assert f"The latest {RECENT_POINTS} of {total:,} batches" in html
    assert html.count("<tr data-status=") == RECENT_POINTS * len(ENTRIES)


def test_ladder_json_is_rebuilt_from_the_store(busy: Path, tmp_path: Path) -> None:
    """Nothing but the store is needed: a lost ladder.json is written again by the next command that publishes."""
    shutil.copytree(busy / "four", tmp_path / "four")
    (tmp_path / "four" / "ladder.json").unlink(missing_ok=True)
    assert main(["ladder", "retire", "four", "random-2", "--leaderboards", str(tmp_path),
                 "--plugins-dir", str(PLUGINS)]) == 0
    with Store.open_readonly(tmp_path / "four" / "results.sqlite") as store:
        assert json.loads((tmp_path / "four" / "ladder.json").read_text()) == stored_history(store, "four",
                                                                                            recent=True)
