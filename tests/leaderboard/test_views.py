"""Leaderboard views are registry entries: one registered later, by hand or by a trusted plugin, is published."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.cli import main
from arena.leaderboard import View, build_leaderboard, head_to_head, register_view, write_leaderboard_files
from arena.leaderboard import views as views_module
from arena.plugins import TRUST_ENV
from arena.ratings.data import MatchOutcome
from tests.cli.test_queries_and_streams import write_config

OUTCOMES = [MatchOutcome(match_id=f"m{i}", block=f"b{i // 2}", agents=("a", "b", "c"), scores=(2.0, 1.0, 0.0),
                         ranks=(1, 2, 3)) for i in range(6)]

PLUGIN = '''
from arena import hookimpl
from arena.leaderboard import View


def names(board, pairs, title):
    return title + "\\n" + "\\n".join(row.agent for row in board.rows) + "\\n"


@hookimpl
def arena_register_views(register):
    register(View("names", "names.txt", names))
'''


@pytest.fixture
def clean_views() -> Iterator[None]:
    """Views registered in a test are gone after it."""
    before = dict(views_module._VIEWS)
    try:
        yield
    finally:
        views_module._VIEWS.clear()
        views_module._VIEWS.update(before)


def test_a_registered_view_is_written_beside_the_built_in_files(tmp_path: Path, clean_views: None) -> None:
    register_view(View("plain", "leaderboard.txt", lambda board, _pairs, title: f"{title}: {board.rows[0].agent}"))
    board = build_leaderboard(OUTCOMES, "elo")
    written = write_leaderboard_files(board, head_to_head(OUTCOMES), tmp_path, title="t", page=False)
    assert list(written) == ["leaderboard.md", "leaderboard.csv", "leaderboard.json", "leaderboard.txt"]
    assert (tmp_path / "leaderboard.txt").read_text() == "t: a"


@pytest.mark.parametrize(("file_name", "problem"), [("leaderboard.md", "is taken"), ("../out.txt", "plain file"),
                                                    (".hidden", "plain file")])
def test_a_view_may_not_overwrite_another_file_or_leave_the_folder(file_name: str, problem: str,
                                                                   clean_views: None) -> None:
    with pytest.raises(ValueError, match=problem):
        register_view(View("other", file_name, lambda board, _pairs, title: ""))


def test_a_trusted_plugins_view_is_published_and_an_untrusted_ones_is_not(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        clean_views: None) -> None:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "names_view.py").write_text(PLUGIN)
    boards = tmp_path / "boards"
    common = ["--leaderboards", str(boards), "--plugins-dir", str(plugins)]
    monkeypatch.delenv(TRUST_ENV, raising=False)
    assert main(["run", str(write_config(tmp_path)), "--workers", "1", "--json", *common]) == 0
    assert not (boards / "q" / "names.txt").exists()
    assert "view 'names' not loaded: a view runs in the driver's process" in capsys.readouterr().err
    monkeypatch.setenv(TRUST_ENV, "names_view")
    assert main(["publish", "q", *common]) == 0
    lines = (boards / "q" / "names.txt").read_text().splitlines()
    assert sorted(lines[1:]) == ["greedy", "greedy-2", "random", "random-2"]


def test_a_failing_plugin_view_skips_its_file_only_with_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], clean_views: None) -> None:
    def broken(board: object, pairs: object, title: str) -> str:
        raise RuntimeError("no\nluck")

    register_view(View("broken", "broken.txt", broken))
    written = write_leaderboard_files(build_leaderboard(OUTCOMES, "elo"), head_to_head(OUTCOMES), tmp_path, title="t")
    assert list(written) == ["leaderboard.md", "leaderboard.csv", "leaderboard.json", "index.html"]
    assert not (tmp_path / "broken.txt").exists()
    assert capsys.readouterr().err == ("arena: leaderboard view 'broken' failed, broken.txt not written: "
                                       "RuntimeError: no luck\n")
