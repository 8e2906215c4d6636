"""A trusted plugin's rating method that raises leaves out its own leaderboard only, with one line on stderr.

The plugin is a drop-in file trusted by name, as an operator would trust one; ``arena run`` (its publish step)
and ``arena publish`` then still write every other method's leaderboard, its files and the site, and exit 0,
as they do when a plugin's view raises (tests/leaderboard/test_views.py).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.cli import main
from arena.plugins import TRUST_ENV
from arena.ratings import registry as ratings_registry
from tests.cli.test_queries_and_streams import CONFIG

PLUGIN = '''
from arena import hookimpl
from arena.ratings import elo
from arena.ratings.registry import MethodSpec

largest = 0


def broken(outcomes, **options):
    raise RuntimeError("no\\nluck")


def shaky(outcomes, **options):
    """Rates the whole tournament, and fails on any shorter prefix of it (the rating history's)."""
    global largest
    count = outcomes.n_matches if hasattr(outcomes, "n_matches") else len(outcomes)  # MatchArrays or a list
    largest = max(largest, count)
    if count < largest:
        raise ValueError(f"only {count} matches")
    return elo.fit(outcomes)


@hookimpl
def arena_register_rating_methods(register):
    register(MethodSpec("broken", broken, "broken"))
    register(MethodSpec("shaky", shaky, "shaky", history=True))
    register(MethodSpec("broken-pairs", broken, "broken", pairwise=True))
'''

NAME = "failing_methods"
BROKEN_LINE = ("arena: rating method 'broken' failed, left out of the leaderboards: RuntimeError: no luck")


@pytest.fixture
def plugins_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A plugins folder with the failing methods, trusted; the methods are removed from the registry afterwards."""
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / f"{NAME}.py").write_text(PLUGIN)
    monkeypatch.setenv(TRUST_ENV, NAME)
    try:
        yield folder
    finally:
        for method in ("broken", "shaky", "broken-pairs"):
            ratings_registry._SPECS.pop(method, None)
        for name in [name for name in sys.modules if name.startswith(f"arena_plugins.{NAME}")]:
            del sys.modules[name]  # imported here, trusted: gone for the tests that follow


def _plugin_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if "'broken'" in line or "'shaky'" in line or "no leaderboard" in line]


def test_a_raising_method_is_left_out_and_every_other_method_is_written(
        plugins_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "q.toml"
    config.write_text(CONFIG.format(name="q", blocks=2, first="random", isolation="auto")
                      .replace("blocks = 2\n", 'blocks = 2\nratings = ["broken", "elo", "score"]\n'))
    boards = tmp_path / "boards"
    common = ["--leaderboards", str(boards), "--plugins-dir", str(plugins_dir)]
    folder = boards / "q"

    assert main(["run", str(config), "--workers", "1", "--json", *common]) == 0  # the publish step of a run
    captured = capsys.readouterr()
    assert _plugin_lines(captured.err) == [BROKEN_LINE]
    assert list(json.loads(captured.out)["leaderboards"]) == ["elo", "score"]
    assert list(json.loads((folder / "ratings.json").read_text())) == ["elo", "score"]
    assert json.loads((folder / "leaderboard.json").read_text())["method"] == "elo"  # the first method that rated
    assert json.loads((folder / "history.json").read_text())["method"] == "elo"
    assert (folder / "index.html").is_file() and (folder / "leaderboard.md").is_file()

    (folder / "ratings.json").unlink()
    assert main(["publish", "q", *common]) == 0  # the stored config's methods, broken first
    assert _plugin_lines(capsys.readouterr().err) == [BROKEN_LINE]
    assert list(json.loads((folder / "ratings.json").read_text())) == ["elo", "score"]

    # A method that rates the tournament but fails on the rating history: its leaderboard stays, the history
    # is drawn with the next method that can.
    assert main(["publish", "q", "--method", "shaky", "--method", "elo", *common]) == 0
    assert _plugin_lines(capsys.readouterr().err) == [
        "arena: rating method 'shaky' failed, its rating history not drawn: ValueError: only 1 matches"]
    assert list(json.loads((folder / "ratings.json").read_text())) == ["shaky", "elo"]
    assert json.loads((folder / "history.json").read_text())["method"] == "elo"

    # Nothing left to publish: one line naming each method and its error, and a failure status; the files
    # already there stay as they were.
    before = (folder / "ratings.json").read_text()
    assert main(["publish", "q", "--method", "broken", "--method", "broken-pairs", *common]) == 1
    assert _plugin_lines(capsys.readouterr().err) == [
        "arena: error: q: no leaderboard: every rating method asked for failed: 'broken' (RuntimeError: no luck); "
        "'broken-pairs' (RuntimeError: no luck)"]
    assert (folder / "ratings.json").read_text() == before

    assert main(["leaderboard", "q", "--method", "broken", "--method", "elo", "--json", *common]) == 0
    captured = capsys.readouterr()
    assert _plugin_lines(captured.err) == [BROKEN_LINE]
    assert list(json.loads(captured.out)) == ["elo"]


def test_a_ladder_whose_method_raises_stops_in_one_line(
        plugins_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The ladder schedules and stops by its method: a plugin's that raises stops it, saying so, not a traceback.
    from tests.ladder.conftest import LORUM_FOUR

    config = tmp_path / "four.toml"
    config.write_text(LORUM_FOUR.format(name="four", seed=7).replace("[ladder]\n", '[ladder]\nmethod = "broken-pairs"\n'))
    status = main(["ladder", "run", str(config), "--matches", "8", "--leaderboards", str(tmp_path / "boards"),
                   "--plugins-dir", str(plugins_dir)])
    err = capsys.readouterr().err
    assert status == 1 and err.count("\n") == 1, err
    assert err.startswith("arena: error: rating method 'broken-pairs' failed: ")
    assert "; the ladder schedules and stops by it, so nothing more is played" in err

