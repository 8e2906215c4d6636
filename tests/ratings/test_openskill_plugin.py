"""A rating method added by a plugin (plugins/openskill-ratings): trusted code, loaded only when trusted.

The plugin is dropped into a plugins folder as a third party would, with no edit to arena: trusted by name, its
method is a config's choice, rates a stored tournament in ``arena leaderboard --method`` and is published
beside the built-in methods; untrusted, it is never imported in the driver and one line says why.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.cli import main
from arena.plugin_system.extensions import install
from arena.plugins import TRUST_ENV, load_registry
from arena.ratings import registry as ratings_registry
from tests.cli.test_queries_and_streams import CONFIG

PLUGIN = Path(__file__).resolve().parents[2] / "plugins" / "openskill-ratings" / "src" / "arena_openskill"
NAME = "arena_openskill"  # the drop-in's plugin name: its folder's


@pytest.fixture
def plugins_dir(tmp_path: Path) -> Iterator[Path]:
    """A plugins folder holding the OpenSkill plugin; the method it installs is removed again afterwards."""
    folder = tmp_path / "plugins"
    shutil.copytree(PLUGIN, folder / NAME)
    try:
        yield folder
    finally:
        ratings_registry._SPECS.pop("openskill", None)


def _imported_in_driver() -> list[str]:
    return [name for name in sys.modules if name.startswith(f"arena_plugins.{NAME}")]


def test_an_untrusted_rating_method_is_never_imported_and_one_line_says_why(
        plugins_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TRUST_ENV, raising=False)
    registry = install(load_registry(plugins_dir=plugins_dir).registry)
    assert registry.rating_methods == {}
    assert "openskill" not in ratings_registry.method_names()
    assert not _imported_in_driver()
    lines = [line for line in registry.errors if "openskill" in line]
    assert lines == [f"plugin {NAME!r} ({plugins_dir / NAME}): rating method 'openskill' not loaded: a rating method "
                     f"runs in the driver's process, so those of third-party plugins load only when {TRUST_ENV} "
                     "names the plugin"]


def test_a_trusted_rating_method_rates_a_tournament_shown_and_published(
        plugins_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(TRUST_ENV, NAME)
    config = tmp_path / "q.toml"
    config.write_text(CONFIG.format(name="q", blocks=2, first="random", isolation="auto")
                      .replace('blocks = 2\n', 'blocks = 2\nratings = ["openskill", "elo"]\n'))
    boards = tmp_path / "boards"
    common = ["--leaderboards", str(boards), "--plugins-dir", str(plugins_dir)]
    assert main(["run", str(config), "--workers", "1", "--json", *common]) == 0
    published = json.loads((boards / "q" / "ratings.json").read_text())
    assert list(published) == ["openskill", "elo"]  # the config's methods, in its order
    assert published["openskill"]["scale"].startswith("OpenSkill plackett-luce mu")
    assert "openskill" in (boards / "q" / "index.html").read_text()  # the site shows every method
    capsys.readouterr()
    assert main(["leaderboard", "q", "--method", "openskill", "--json", *common]) == 0
    board = json.loads(capsys.readouterr().out)["openskill"]
    rows = board["rows"]
    assert sorted(row["agent"] for row in rows) == ["greedy", "greedy-2", "random", "random-2"]
    assert all(row["lower"] < row["rating"] < row["upper"] for row in rows)
    assert [row["rating"] for row in rows] == sorted((row["rating"] for row in rows), reverse=True)
    assert main(["leaderboard", "q", "--method", "openskill", "--method", "elo", *common]) == 0
    assert "OpenSkill mu" in capsys.readouterr().out  # the method's own column label, from its MethodSpec


def test_a_method_no_plugin_offers_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv(TRUST_ENV, raising=False)
    status = main(["leaderboard", "q", "--method", "openskill", "--leaderboards", str(tmp_path),
                   "--plugins-dir", str(tmp_path / "none")])
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1 and "--method: unknown rating method 'openskill'; choose one of elo" in err


def test_a_trusted_plugin_registering_something_else_as_a_method_is_refused_in_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "fake_method.py").write_text(
        "from arena import hookimpl\n\n\nclass Fake:\n    name = 'fake'\n\n\n"
        "@hookimpl\ndef arena_register_rating_methods(register):\n    register(Fake())\n")
    monkeypatch.setenv(TRUST_ENV, "fake_method")
    registry = install(load_registry(plugins_dir=folder).registry)
    assert "fake" not in ratings_registry.method_names()
    assert "rating method 'fake' not installed: expected an arena.ratings.registry.MethodSpec, got Fake" \
        in registry.errors
