"""The bar of issue 20, part one: a newcomer added to a ladder that has played is rated without replaying the field."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from arena.cli import main
from arena.ladder import HISTORY_FILE
from arena.tournament.store import store_path
from tests.ladder.conftest import PLUGINS


def stored_rows(database: Path) -> list[tuple[object, ...]]:
    """Every column of every stored match (the compressed record included), in store order."""
    with sqlite3.connect(database) as db:
        return db.execute("SELECT * FROM matches ORDER BY idx").fetchall()


def arena(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_a_fifth_entry_plays_most_new_matches_and_no_stored_match_changes(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, lorum_ladder: Path) -> None:
    boards = ["--leaderboards", str(tmp_path / "boards"), "--plugins-dir", str(PLUGINS)]
    status, out, err = arena(capsys, "ladder", "run", str(lorum_ladder), "--matches", "80", "--json", *boards)
    assert status == 0, err
    database = store_path(tmp_path / "boards", "four")
    before = stored_rows(database)
    assert len(before) == 80

    status, out, err = arena(capsys, "ladder", "add", "four", "half", "--plugin", "skilled", "--option", "skill=0.5",
                             "--check-matches", "1", *boards)
    assert status == 0, err
    assert "passed its check" in out and "5 active entries" in out
    status, out, err = arena(capsys, "ladder", "run", "four", "--matches", "80", "--json", *boards)
    assert status == 0, err
    assert json.loads(out)["played"] == 80

    after = stored_rows(database)
    assert after[:80] == before, "a stored match changed"
    new = [json.loads(str(row[7])) for row in after[80:]]  # the agents column
    assert len(new) == 80
    share = sum("half" in agents for agents in new) / len(new)
    # At least an even split (80%): its first min_blocks blocks are its own, then its tables compete with the open
    # pairs of the old field (two pairs of copies here), each weighed by how much a table narrows its gap.
    assert share >= 0.8, f"the newcomer played {share:.0%} of the new matches; an even split gives 80%"
    # Its first min_blocks (4) blocks were chosen for it as a newcomer, before anything else.
    with sqlite3.connect(database) as db:
        first = db.execute("SELECT focus, reason FROM ladder_blocks WHERE run = 2 ORDER BY number LIMIT 4").fetchall()
    assert first == [("half", "new")] * 4

    history = json.loads((tmp_path / "boards" / "four" / HISTORY_FILE).read_text())
    entry = next(item for item in history["entries"] if item["name"] == "half")
    assert entry["added_after"] == 80 and entry["plugin"] == "skilled" and entry["version"] == "1.0"
    assert [point["blocks"] for point in entry["path"]] == sorted(point["blocks"] for point in entry["path"])
    assert entry["path"][0]["matches"] > 80 and entry["path"][-1]["matches"] == 160

    status, out, err = arena(capsys, "leaderboard", "four", "--json", "--leaderboards", str(tmp_path / "boards"))
    assert status == 0, err
    rows = json.loads(out)["elo"]["rows"]
    assert {row["agent"] for row in rows} == {"greedy", "greedy-2", "random", "random-2", "half"}
