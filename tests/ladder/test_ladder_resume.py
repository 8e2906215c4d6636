"""A ladder run killed with SIGKILL and resumed stores exactly what an uninterrupted run stores."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest

from arena.cli import main
from arena.tournament.store import store_path

MATCHES = 160


def without_times(row: tuple[object, ...]) -> tuple[object, ...]:
    """A stored match row with its record unpacked and the record's decision times left out (they vary)."""
    record = json.loads(zlib.decompress(row[-1]))  # type: ignore[arg-type]
    record.pop("move_seconds", None)
    return (*row[:-1], record)


def ladder_tables(database: Path) -> dict[str, list[tuple[object, ...]]]:
    """What must be equal between a resumed and an uninterrupted run: results, choices and ratings (no times)."""
    with sqlite3.connect(database) as db:
        return {
            "matches": [without_times(row) for row in db.execute(
                "SELECT idx, id, block_id, deal_seed, agents, scores, ranks, faults, record FROM matches ORDER BY idx")],
            "blocks": db.execute("SELECT b.number, b.block_id, t.entries, b.batch, b.run, b.focus, b.reason "
                                 "FROM ladder_blocks b JOIN ladder_tables t ON t.idx = b.table_idx "
                                 "ORDER BY b.number").fetchall(),
            "history": db.execute("SELECT batch, entry, matches, rating, lower, upper, rank, status "
                                  "FROM ladder_history ORDER BY batch, entry").fetchall(),
        }


def test_kill_minus_nine_then_resume_equals_an_uninterrupted_run(capsys: pytest.CaptureFixture[str],
                                                                 tmp_path: Path, lorum_ladder: Path) -> None:
    plugins = tmp_path / "no-plugins"  # the built-in agents only: no plugin to discover in each process
    plugins.mkdir()
    common = ["--workers", "1", "--json", "--plugins-dir", str(plugins)]
    whole = tmp_path / "whole"
    assert main(["ladder", "run", str(lorum_ladder), "--matches", str(MATCHES), *common,
                 "--leaderboards", str(whole)]) == 0
    capsys.readouterr()

    parts = tmp_path / "parts"
    database = store_path(parts, "four")
    child = subprocess.Popen([sys.executable, "-m", "arena", "ladder", "run", str(lorum_ladder), "--matches",
                              str(MATCHES), *common, "--leaderboards", str(parts)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    stored = 0
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and child.poll() is None:
        if database.is_file():
            try:
                with sqlite3.connect(database) as db:
                    stored = db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
            except sqlite3.OperationalError:
                stored = 0
            if stored >= 40:
                break
        time.sleep(0.01)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    with sqlite3.connect(database) as db:
        interrupted = db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
    assert 40 <= interrupted < MATCHES, "the run should have been killed part-way"

    # A new run is refused while one is unfinished: one line saying how to go on.
    status = main(["ladder", "run", "four", "--matches", "8", *common, "--leaderboards", str(parts)])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and "--resume" in err and "interrupted after" in err

    assert main(["ladder", "run", "four", "--resume", *common, "--leaderboards", str(parts)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["run"], summary["played"], summary["stored"]) == (1, MATCHES, MATCHES)
    assert ladder_tables(database) == ladder_tables(store_path(whole, "four"))
