"""`arena ladder` as a user runs it: every mistake is one line on stderr with a non-zero status."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from arena.cli import main
from tests.ladder.conftest import LORUM_FOUR, PLUGINS

BAD_AGENTS = Path(__file__).resolve().parents[1] / "bad_agents"


def variant(boards: Path, old: str, new: str, name: str = "other") -> str:
    path = boards / f"{name}.toml"
    path.write_text(LORUM_FOUR.format(name=name, seed=7).replace(old, new))
    return str(path)


CASES = [
    (["ladder", "run", "four"], "say how long to play: --matches N, --until settled"),
    (["ladder", "run", "nosuch", "--matches", "4"], "no ladder 'nosuch'"),
    (["ladder", "run", "four", "--matches", "0"], "argument --matches: expected an integer from 1 to 1,000,000"),
    (["ladder", "run", "four", "--resume"], "no interrupted run to resume"),
    (["ladder", "run", "four", "--until", "sometimes"], "invalid choice: 'sometimes'"),
    (["ladder", "run", "{blocks}", "--matches", "4"], "blocks: not used by a ladder"),
    (["ladder", "run", "{typo}", "--matches", "4"], 'ladder.levle: unknown key; did you mean "level"?'),
    (["ladder", "run", "{level}", "--matches", "4"], "ladder.level: expected a probability above 0.5"),
    (["ladder", "run", "{changed}", "--matches", "4"], "started from another config (it differs in: ladder)"),
    (["run", "{plainrun}"], "a ladder config; play it with 'arena ladder run"),
    (["ladder", "add", "four", "greedy", "--plugin", "greedy"], "already has an entry 'greedy'"),
    (["ladder", "add", "four", "x", "--plugin", "gredy"], "did you mean"),
    (["ladder", "add", "four", "x", "--plugin", "random", "--option", "depth=2"], "takes no options"),
    (["ladder", "add", "four", "bad name", "--plugin", "random"], "entry name \"bad name\": expected letters"),
    (["ladder", "add", "four", "twin", "--plugin", "greedy"], "is already greedy"),
    (["ladder", "add", "nosuch", "x", "--plugin", "greedy"], "no ladder 'nosuch'"),
    (["ladder", "retire", "four", "nosuch"], "has no entry 'nosuch'"),
    (["ladder", "history", "plain"], "'plain' is a tournament, not a ladder"),
    (["ladder", "history", "four", "--entry", "nosuch"], "has no entry 'nosuch'"),
]


@pytest.mark.parametrize("argv, expected", CASES, ids=[" ".join(argv[:3]) + f" #{i}" for i, (argv, _) in
                                                     enumerate(CASES)])
def test_bad_input_is_one_line(capsys: pytest.CaptureFixture[str], boards: Path, argv: list[str],
                               expected: str) -> None:
    files = {
        "{blocks}": variant(boards, 'format = "ladder"', 'format = "ladder"\nblocks = 3', name="blocks"),
        "{typo}": variant(boards, "min_blocks = 4", "levle = 0.9", name="typo"),
        "{level}": variant(boards, "min_blocks = 4", "level = 1.5", name="level"),
        "{changed}": variant(boards, "min_blocks = 4", "min_blocks = 5", name="four"),
        "{plainrun}": variant(boards, "min_blocks = 4", "min_blocks = 5", name="plainrun"),
    }
    argv = [files.get(word, word) for word in argv]
    try:
        status = main([*argv, "--leaderboards", str(boards / "boards")]
                      + (["--plugins-dir", str(PLUGINS)] if argv[0] == "ladder" and argv[1] in ("run", "add") else []))
    except SystemExit as exit:  # a usage error from argparse
        status = int(exit.code or 0)
    out, err = capsys.readouterr()
    assert status == 2  # each is the request's fault (a usage or config error), none a failure of the work
    assert out == ""  # nothing before the error, not even the blank line of a progress display never shown
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert expected in err, err


def test_retire_keeps_history_and_too_few_entries_refuse_to_run(capsys: pytest.CaptureFixture[str],
                                                                tmp_path: Path, boards: Path) -> None:
    folder = tmp_path / "boards"
    shutil.copytree(boards / "boards" / "four", folder / "four")
    assert main(["ladder", "retire", "four", "random-2", "--leaderboards", str(folder)]) == 0
    assert "tables of 4 need 4" in capsys.readouterr().out
    assert main(["ladder", "retire", "four", "random-2", "--leaderboards", str(folder)]) == 2
    assert "already retired" in capsys.readouterr().err
    assert main(["ladder", "run", "four", "--matches", "4", "--leaderboards", str(folder)]) == 1
    assert "has 3 active entries; tables of 4 need 4" in capsys.readouterr().err
    assert main(["ladder", "history", "four", "--json", "--leaderboards", str(folder)]) == 0
    history = json.loads(capsys.readouterr().out)
    retired = next(entry for entry in history["entries"] if entry["name"] == "random-2")
    assert retired["retired_after"] == 8 and retired["path"], "a retired entry keeps its history"


def test_an_agent_that_fails_its_check_is_not_added(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                    boards: Path) -> None:
    folder = tmp_path / "boards"
    shutil.copytree(boards / "boards" / "four", folder / "four")
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    shutil.copy(BAD_AGENTS / "illegal.py", plugins)
    status = main(["ladder", "add", "four", "cheat", "--plugin", "bad-illegal", "--check-matches", "1",
                   "--leaderboards", str(folder), "--plugins-dir", str(plugins)])
    captured = capsys.readouterr()
    assert status == 1 and "failed its check" in captured.err and captured.err.count("\n") == 1
    assert "illegal" in captured.out.lower()  # the check's report says what to fix
    assert main(["ladder", "history", "four", "--json", "--leaderboards", str(folder)]) == 0
    assert "cheat" not in {entry["name"] for entry in json.loads(capsys.readouterr().out)["entries"]}


def test_a_changed_plugin_is_a_new_entry_and_the_old_one_is_not_played(capsys: pytest.CaptureFixture[str],
                                                                         tmp_path: Path) -> None:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    shutil.copy(PLUGINS / "skilled.py", plugins)
    config = tmp_path / "versions.toml"
    config.write_text(LORUM_FOUR.format(name="versions", seed=7).replace(
        'name = "greedy-2"\nplugin = "greedy"', 'name = "mine"\nplugin = "skilled"\noptions = { skill = 0.5 }'))
    where = ["--leaderboards", str(tmp_path / "boards"), "--plugins-dir", str(plugins)]
    assert main(["ladder", "run", str(config), "--matches", "8", "--json", *where]) == 0
    capsys.readouterr()
    with open(plugins / "skilled.py", "a") as plugin:
        plugin.write("\n# version 1.1: the same agent name, other code\n")
    assert main(["ladder", "run", "versions", "--matches", "8", *where]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "entry 'mine' changed since it joined (plugin files changed" in err
    assert "'arena ladder retire versions mine', then 'arena ladder add versions mine-1.0 --plugin skilled'" in err


def test_the_commands_a_ladder_run_suggests_read_its_own_leaderboards_folder(
        lorum_ladder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # They named the default folder, so copying them read another ladder, or none.
    boards = tmp_path / "elsewhere"
    assert main(["ladder", "run", str(lorum_ladder), "--matches", "4", "--leaderboards", str(boards)]) == 0
    out = "".join(capsys.readouterr().out.split())  # the console wraps long lines, at a space or anywhere
    assert "run1:4matches(asmanyasasked)in" in out  # it read '4 matches (matches)'
    assert "".join(f"leaderboard: arena leaderboard four --leaderboards {boards}; "
                   f"history: arena ladder history four --leaderboards {boards}".split()) in out
