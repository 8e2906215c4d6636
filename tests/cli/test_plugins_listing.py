"""``arena plugins`` names every rating method, format and view the driver has, and where each came from.

A trusted plugin's (plugins/openskill-ratings, dropped into a plugins folder, and a view in a plain file) is
listed under that plugin, arena's own as built-in; an untrusted plugin's is not listed at all, since it was
never loaded.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.cli import main
from arena.leaderboard import views as views_module
from arena.plugins import TRUST_ENV
from arena.ratings import registry as ratings_registry
from tests.leaderboard.test_views import PLUGIN as VIEW_PLUGIN
from tests.ratings.test_openskill_plugin import NAME as OPENSKILL
from tests.ratings.test_openskill_plugin import PLUGIN as OPENSKILL_PLUGIN

BUILT_IN = {"rating_methods": ["elo", "plackett-luce", "trueskill", "score", "luck"],
            "formats": ["round-robin", "gauntlet"], "views": ["markdown", "csv", "json", "page"]}


@pytest.fixture
def plugins_dir(tmp_path: Path) -> Iterator[Path]:
    """A plugins folder with the OpenSkill method and a view; what they install is removed afterwards."""
    folder = tmp_path / "plugins"
    shutil.copytree(OPENSKILL_PLUGIN, folder / OPENSKILL)
    (folder / "names_view.py").write_text(VIEW_PLUGIN)
    views_before = dict(views_module._VIEWS)
    try:
        yield folder
    finally:
        ratings_registry._SPECS.pop("openskill", None)
        views_module._VIEWS.clear()
        views_module._VIEWS.update(views_before)
        # Trusted, the plugins were imported here: later tests check an untrusted one never is.
        for name in [name for name in sys.modules if name.startswith(("arena_plugins.arena_openskill",
                                                                      "arena_plugins.names_view"))]:
            del sys.modules[name]


def _listed(capsys: pytest.CaptureFixture[str], plugins_dir: Path) -> dict[str, dict]:
    assert main(["plugins", "--json", "--plugins-dir", str(plugins_dir)]) == 0
    return {row["name"]: row for row in json.loads(capsys.readouterr().out)}


def test_trusted_plugins_methods_and_views_are_listed_under_them_and_arenas_own_as_built_in(
        plugins_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(TRUST_ENV, f"{OPENSKILL},names_view")
    rows = _listed(capsys, plugins_dir)
    assert {key: rows[OPENSKILL][key] for key in BUILT_IN} == {"rating_methods": ["openskill"], "formats": [],
                                                               "views": []}
    assert {key: rows["names_view"][key] for key in BUILT_IN} == {"rating_methods": [], "formats": [],
                                                                  "views": ["names"]}
    assert rows["arena"]["source"] == "builtin"
    assert {key: rows["arena"][key] for key in BUILT_IN} == BUILT_IN
    assert rows["lovat"]["games"] == ["lovat"] and rows["lovat"]["rating_methods"] == []

    assert main(["plugins", "--plugins-dir", str(plugins_dir)]) == 0
    table = capsys.readouterr().out
    by_name = {line.split()[-2]: line.split() for line in table.splitlines()
               if line.strip().startswith(("rating method", "tournament format", "leaderboard view"))}
    assert by_name["openskill"] == ["rating", "method", "openskill", OPENSKILL]
    assert by_name["names"] == ["leaderboard", "view", "names", "names_view"]
    assert by_name["elo"] == ["rating", "method", "elo", "built-in"]
    assert by_name["gauntlet"] == ["tournament", "format", "gauntlet", "built-in"]


def test_an_untrusted_plugins_method_is_not_listed_and_one_line_says_why(
        plugins_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv(TRUST_ENV, raising=False)
    assert main(["plugins", "--json", "--plugins-dir", str(plugins_dir)]) == 0
    captured = capsys.readouterr()
    rows = {row["name"]: row for row in json.loads(captured.out)}
    assert rows[OPENSKILL]["rating_methods"] == [] and rows["names_view"]["views"] == []
    assert {key: rows["arena"][key] for key in BUILT_IN} == BUILT_IN
    assert [line for line in captured.err.splitlines() if "'openskill' not loaded" in line] == [
        f"arena: plugin {OPENSKILL!r} ({plugins_dir / OPENSKILL}): rating method 'openskill' not loaded: a rating "
        f"method runs in the driver's process, so those of third-party plugins load only when {TRUST_ENV} names "
        "the plugin"]
