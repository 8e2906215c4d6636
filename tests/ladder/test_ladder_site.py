"""The site's ladder section: each entry's status and its path batch by batch; none on a tournament's page."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

import arena.leaderboard.publish as publishing
from arena.cli import main
from arena.ladder import ladder_history
from arena.site.ladder import ladder_section
from tests.ladder.conftest import PLUGINS


@pytest.fixture(scope="module")
def leaderboards(boards: Path) -> Path:
    """The leaderboards folder of ``boards``: ladder 'four' and tournament 'plain', each with its site."""
    return boards / "boards"


def _entry_block(page: str, name: str) -> str:
    match = re.search(rf'<details class="ladder-entry" data-agent="{re.escape(name)}">(.*?)</details>', page, re.S)
    assert match, f"no ladder path for {name}"
    return match.group(1)


def test_a_ladders_front_page_shows_each_entrys_status_and_path(leaderboards: Path) -> None:
    page = (leaderboards / "four" / "index.html").read_text()
    history = ladder_history(leaderboards, "four")
    assert '<section id="ladder">' in page
    assert [entry["name"] for entry in history["entries"]] == ["greedy", "random", "random-2", "greedy-2"]
    for entry in history["entries"]:
        block = _entry_block(page, entry["name"])
        assert f"{entry['name']}: {entry['status']}" in block
        assert len(entry["path"]) >= 1
        assert block.count("<tr data-status=") == len(entry["path"]), "one row per batch"
        last = entry["path"][-1]
        assert f'<td class="num">{last["matches"]}</td>' in block


def test_a_tournaments_front_page_has_no_ladder_section(leaderboards: Path) -> None:
    assert 'id="ladder"' not in (leaderboards / "plain" / "index.html").read_text()


def test_retire_rebuilds_the_site(leaderboards: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(leaderboards / "four", tmp_path / "four")
    assert main(["ladder", "retire", "four", "random-2", "--leaderboards", str(tmp_path)]) == 0
    page = (tmp_path / "four" / "index.html").read_text()
    retired = json.loads((tmp_path / "four" / "ladder.json").read_text())["entries"][2]
    assert retired["name"] == "random-2" and retired["retired_at"]
    table = page[page.index('<table id="ladder-entries">'):]
    row = re.search(r'<tr data-agent="random-2">.*?</tr>', table, re.S)
    assert row and retired["retired_at"] in row.group(0)


def test_ladder_commands_publish_with_the_users_plugins_folder(leaderboards: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The site's match pages replay with the games of --plugins-dir, as after 'arena run' (else a plugin's game
    reads as not installed)."""
    shutil.copytree(leaderboards / "four", tmp_path / "four")
    calls: list[dict[str, Any]] = []
    real = publishing.publish

    def spy(config: Any, leaderboards: Path, **options: Any) -> Any:
        calls.append(options)
        return real(config, leaderboards, **options)

    monkeypatch.setattr(publishing, "publish", spy)  # the commands load arena.leaderboard.publish when they publish
    assert main(["ladder", "run", "four", "--matches", "4", "--json", "--leaderboards", str(tmp_path),
                 "--plugins-dir", str(PLUGINS)]) == 0
    assert main(["ladder", "retire", "four", "random-2", "--leaderboards", str(tmp_path),
                 "--plugins-dir", str(PLUGINS)]) == 0
    assert [call["plugins_dir"] for call in calls] == [PLUGINS, PLUGINS]
    assert all(callable(call["progress"]) for call in calls), "the site's progress shows as after 'arena run'"


def test_entry_names_and_values_are_escaped() -> None:
    name = '<script>alert("x")</script>'
    point = {"batch": 1, "matches": 4, "rating": 1.5, "lower": 0.5, "upper": 2.5, "rank": 1, "status": "<b>"}
    html = ladder_section({"entries": [{"name": name, "added_at": "<i>", "added_after": 0, "retired_at": None,
                                        "status": "<b>", "settled_after": None, "path": [point]}]})
    assert "<script>" not in html and "<b>" not in html and "<i>" not in html
    assert "&lt;script&gt;" in html and "1.5" in html and "0.5 to 2.5" in html


def test_a_ladder_run_writes_ladder_json_from_the_sites_own_read(leaderboards: Path, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """``ladder.json`` after a run is the history the site was built from (one read of the store, not two)."""
    shutil.copytree(leaderboards / "four", tmp_path / "four")
    before = max(point["matches"] for entry in ladder_history(tmp_path, "four")["entries"] for point in entry["path"])
    (tmp_path / "four" / "ladder.json").unlink()
    capsys.readouterr()
    assert main(["ladder", "run", "four", "--matches", "4", "--json", "--leaderboards", str(tmp_path),
                 "--plugins-dir", str(PLUGINS)]) == 0
    files = json.loads(capsys.readouterr().out)["files"]
    assert files["ladder.json"] == str(tmp_path / "four" / "ladder.json")
    written = json.loads((tmp_path / "four" / "ladder.json").read_text())
    assert written == ladder_history(tmp_path, "four")
    assert max(point["matches"] for entry in written["entries"] for point in entry["path"]) == before + 4


def test_the_standing_says_the_confidence_and_the_level_verdict_apart(leaderboards: Path, tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """'level' is both the config key (the test's confidence) and a verdict; the title names each plainly."""
    shutil.copytree(leaderboards / "four", tmp_path / "four")
    assert main(["ladder", "run", "four", "--matches", "4", "--leaderboards", str(tmp_path),
                 "--plugins-dir", str(PLUGINS)]) == 0
    out = " ".join(capsys.readouterr().out.split())  # the title wraps at the terminal's width
    assert "settled when the test with each neighbour (confidence 0.95) has a verdict (ahead, behind, or level: " \
           "neither 40 Elo ahead)" in out
