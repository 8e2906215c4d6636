"""A ladder's retired entries, everywhere the ladder shows its standings: apart from the active ones and unranked.

The active entries are ranked 1..N among themselves; a retired entry holds no rank and its rating is shown as its
last (the leaderboards) or as the one it retired with (the ladder's history).  'greedy' is second of four in the
fit of the shared ladder, so retiring it leaves a gap that a board ranking every entry would show.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import re
import shutil
from pathlib import Path

import pytest

from arena.cli import main
from arena.ladder import ladder_history
from arena.leaderboard import build_leaderboard
from arena.leaderboard.build import set_apart
from arena.leaderboard.files import to_html
from arena.leaderboard.head_to_head import head_to_head
from arena.ratings.simulate import simulate_outcomes
from tests.ladder.conftest import PLUGINS

ACTIVE = {"greedy-2", "random", "random-2"}


@pytest.fixture(scope="module")
def retired(boards: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the shared ladder 'four' with 'greedy' retired (its site and files rebuilt by the retire)."""
    folder = tmp_path_factory.mktemp("retired")
    shutil.copytree(boards / "boards" / "four", folder / "four")
    board = json.loads((folder / "four" / "leaderboard.json").read_text())
    assert [row["agent"] for row in board["rows"]].index("greedy") == 1, "greedy is ranked above active entries"
    assert main(["ladder", "retire", "four", "greedy", "--leaderboards", str(folder),
                 "--plugins-dir", str(PLUGINS)]) == 0
    return folder


def test_leaderboard_json_ranks_the_active_entries_and_lists_the_retired_apart(retired: Path) -> None:
    board = json.loads((retired / "four" / "leaderboard.json").read_text())
    assert {row["agent"] for row in board["rows"]} == ACTIVE
    assert [row["rank"] for row in board["rows"]] == [1, 2, 3]
    assert [(row["agent"], row["rank"]) for row in board["retired"]] == [("greedy", None)]
    assert board["retired"][0]["rating"] is not None and board["retired"][0]["games"] == 8
    every = json.loads((retired / "four" / "ratings.json").read_text())
    for method, each in every.items():
        assert [row["rank"] for row in each["rows"]] == [1, 2, 3], method
        assert [row["agent"] for row in each["retired"]] == ["greedy"], method


def test_leaderboard_csv_leaves_a_retired_entrys_rank_empty(retired: Path) -> None:
    rows = list(csv.DictReader(io.StringIO((retired / "four" / "leaderboard.csv").read_text())))
    assert [(row["rank"], row["retired"]) for row in rows] == [("1", "False"), ("2", "False"), ("3", "False"),
                                                               ("", "True")]
    assert rows[-1]["agent"] == "greedy" and float(rows[-1]["rating"])


def test_leaderboard_md_has_a_retired_section(retired: Path) -> None:
    text = (retired / "four" / "leaderboard.md").read_text()
    ranked, _, apart = text.partition("## Retired")
    assert "greedy (trusted)" not in ranked.replace("greedy-2 (trusted)", "")
    assert re.findall(r"^\| (\d) \| ", ranked, re.M) == ["1", "2", "3"]
    assert "| - | greedy (trusted) |" in apart.split("## P(stronger)")[0]
    assert "hold no rank" in apart and "frozen" in apart
    assert "| | 1 | 2 | 3 |" in apart, "P(stronger) over the ranked entries only"


def test_the_site_shows_the_retired_apart_in_every_methods_board(retired: Path) -> None:
    page = (retired / "four" / "index.html").read_text()
    for method in ("elo", "plackett-luce"):
        section = page[page.index(f'id="method-{method}"'):]
        ranked = section[:section.index("</table>")]
        assert 'data-agent="greedy"' not in ranked, method
        assert re.findall(r'<tr data-agent="[^"]+"><td class="num">(\d+)</td>', ranked) == ["1", "2", "3"]
        apart = section[section.index(f'id="retired-{method}"'):]
        assert re.match(r'.*?<tr data-agent="greedy"><td class="num">-</td>', apart, re.S), method


def test_the_sites_ladder_section_shows_the_frozen_rating_and_ranks_the_active(retired: Path) -> None:
    page = (retired / "four" / "index.html").read_text()
    table = page[page.index('<table id="ladder-entries">'):]
    cells = dict(re.findall(r'<tr data-agent="([^"]+)">.*?<td class="num ladder-rating">([^<]*)</td>', table,
                            re.S))
    assert cells["greedy"].endswith("(frozen when retired)")
    assert sorted(cells[name][-4:] for name in ACTIVE) == ["(#1)", "(#2)", "(#3)"]


def test_ladder_json_says_retired_and_keeps_the_rating_it_retired_with(retired: Path) -> None:
    history = json.loads((retired / "four" / "ladder.json").read_text())
    assert history == ladder_history(retired, "four")
    entries = {entry["name"]: entry for entry in history["entries"]}
    greedy = entries["greedy"]
    assert greedy["status"] == "retired" and greedy["rank"] is None
    assert greedy["latest"] == greedy["path"][-1] and greedy["latest"]["matches"] <= greedy["retired_after"]
    assert sorted(entries[name]["rank"] for name in ACTIVE) == [1, 2, 3]


def test_the_terminal_leaderboard_and_history_show_the_retired_apart(retired: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["leaderboard", "four", "--leaderboards", str(retired)]) == 0
    out = capsys.readouterr().out
    ranks = re.findall(r"^ *(\d|-) +(\S+) \S+ \(trusted\)", out, re.M)
    assert ranks[:4] == [("1", "greedy-2"), ("2", "random"), ("3", "random-2"), ("-", "greedy")]
    assert "greedy 0.1.0 (trusted) (retired)" in out
    assert main(["ladder", "history", "four", "--leaderboards", str(retired)]) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.strip().startswith("greedy "))
    assert "retired" in line and "(frozen when retired)" in line and "#" not in line
    assert sorted(re.findall(r"\(#(\d)\)", out)) == ["1", "2", "3"]


def test_set_apart_ranks_the_rest_among_themselves_keeping_ties() -> None:
    board = build_leaderboard(simulate_outcomes({"a": 1.0, "b": 0.5, "c": 0.0, "d": -0.5}, blocks=6, players=3,
                                                seed=1, score_step=1.0), "elo")
    top = board.rows[0].agent
    apart = set_apart(board, {top})
    assert [row.rank for row in apart.rows] == [1, 2, 3] and [row.rank for row in apart.retired] == [None]
    assert apart.retired[0].rating == board.rows[0].rating, "a retired entry keeps its fitted rating"
    level = dataclasses.replace(board.rows[3], rating=board.rows[2].rating)
    assert [row.rank for row in set_apart(dataclasses.replace(board, rows=(*board.rows[:3], level)), {top}).rows] \
        == [1, 2, 2]
    assert set_apart(board, ()) is board
    page = to_html(apart, head_to_head([]), "t")
    assert 'id="retired-table"' in page and f'data-agent="{top}" data-rank="-"' in page


def test_a_retired_entry_gets_one_retired_point_not_one_every_batch(boards: Path, retired: Path,
                                                                    tmp_path: Path) -> None:
    # A served ladder retires an entry at each new version: a point per retired entry per batch would grow
    # every batch's rows with every version ever retired.
    shutil.copytree(retired / "four", tmp_path / "four")
    assert main(["ladder", "add", "four", "half", "--plugin", "skilled", "--option", "skill=0.5",
                 "--leaderboards", str(tmp_path), "--plugins-dir", str(PLUGINS)]) == 0
    for _ in range(2):
        assert main(["ladder", "run", str(boards / "four.toml"), "--matches", "4", "--json", "--leaderboards",
                     str(tmp_path), "--plugins-dir", str(PLUGINS)]) == 0
    history = ladder_history(tmp_path, "four")
    entries = {entry["name"]: entry for entry in history["entries"]}
    statuses = [point["status"] for point in entries["greedy"]["path"]]
    assert statuses.count("retired") == 1 and statuses[-1] == "retired", statuses
    assert entries["greedy"]["batches"] == len(statuses)
    playing = entries["random"]["path"]
    assert playing[-1]["batch"] > entries["greedy"]["path"][-1]["batch"]  # the others went on being recorded
    assert entries["random"]["batches"] == len(playing)
