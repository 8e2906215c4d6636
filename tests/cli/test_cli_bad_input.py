"""Hostile files and names at the command line: one line on stderr, a non-zero status, no traceback."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import sys
from pathlib import Path

import pytest

from arena.cli import main

CONFIG = """name = "{name}"
game = "lovat"
seed = 3
blocks = 1
{extra}
[[agents]]
name = "greedy"
[[agents]]
name = "random"
[[agents]]
name = "random-2"
plugin = "random"
[[agents]]
name = "greedy-2"
plugin = "greedy"
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    try:
        status = main(list(argv))
    except SystemExit as exited:  # a usage error argparse found (an option's type): status 2
        status = int(exited.code or 0)
    err = capsys.readouterr().err
    return status, err


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert len(lines[0]) < 400
    return lines[0]


@pytest.mark.parametrize(
    "record, message",
    [
        ("[" * 100_000 + "]" * 100_000, "nested more than 64 levels"),
        ('{"game": "lovat-v1", "seed": ' + "1" * 5000 + ', "actions": []}', "a number of 5000 characters"),
        ('{"game": "lovat-v1", "seed": NaN, "actions": []}', "NaN is not a JSON number"),
        ('{"game": "lovat-v1", "seed": 1e999, "actions": []}', "too large to be finite"),
        ('{"game": "lovat-v1", "seed": 1, "actions": [], "seats": [{"agent": "\\ud800"}]}', "lone surrogate"),
        ('{"game": "lorum-v1", "seed": 1, "actions": [], "options": {"deals": 1000000000}}', "from 1 to 1000"),
    ],
)
def test_replay_refuses_a_hostile_record_in_one_line(capsys, tmp_path: Path, record: str, message: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(record)
    status, err = run(capsys, "replay", str(path), "--plugins-dir", str(tmp_path))
    assert status == 1 and message in one_line(err)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--move-seconds", "inf"], "argument --move-seconds: expected a positive number up to 86400 (seconds), "
                                    "got 'inf'"),
        (["--move-seconds", "nan"], "got 'nan'"),
        (["--move-seconds", "1e999"], "got '1e999'"),
        (["--startup-seconds", "86400.5"], "argument --startup-seconds: expected a positive number up to 86400"),
        (["--bank-seconds", "-0.5"], "argument --bank-seconds: expected a number >= 0 up to 86400 (seconds)"),
        (["--memory-mb", str(1 << 40)], "argument --memory-mb: expected an integer from 1 to 1,048,576 (megabytes)"),
        (["--matches", "0"], "argument --matches: expected an integer from 1 to 10,000 (matches), got '0'"),
        (["--seed", str(2**63)], "argument --seed: 9223372036854775808 is outside 0..2**63-1"),
    ],
)
def test_check_agent_limits_have_the_configs_bounds(capsys, argv: list[str], message: str) -> None:
    # --move-seconds inf ended in an OverflowError traceback from the protocol's socket timeout.
    status, err = run(capsys, "check-agent", "random", "--game", "lovat", "--players", "4", "--matches", "1", *argv)
    assert status == 2 and message in one_line(err)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["run", "x.toml", "--workers", "0"], "argument --workers: expected an integer from 1 to 4,096 (workers)"),
        (["ladder", "run", "x", "--matches", "-1"], "argument --matches: expected an integer from 1 to 1,000,000"),
        (["ladder", "run", "x", "--workers", "many"], "argument --workers: expected an integer from 1 to 4,096"),
        (["ladder", "add", "x", "y", "--plugin", "random", "--check-matches", "0"], "argument --check-matches: "),
        (["leaderboard", "x", "--bootstrap", "-1"], "argument --bootstrap: expected an integer from 0 to 100,000"),
        (["publish", "x", "--bootstrap", "1e9"], "argument --bootstrap: expected an integer from 0 to 100,000"),
    ],
)
def test_numeric_options_are_bounded_before_any_work(capsys, argv: list[str], message: str) -> None:
    status, err = run(capsys, *argv)
    assert status == 2 and message in one_line(err)


LOVAT_HAND = [f"L1-{number:02d}" for number in range(1, 15)]
"""Fourteen distinct Lovat ids: the size of a 4-player hand."""


@pytest.mark.parametrize(
    "game, chance, message",
    [
        # A deal of lists where card names belong (it was 'unhashable type' with a traceback).
        ("lovat-v1", [{"kind": "dealer", "value": 0}, {"kind": "deal", "value": [[["L1-01"]] * 14] * 4}],
         'scripted deal: seat 0 holds unknown card ["L1-01"]'),
        ("lorum-v1", [{"kind": "dealer", "value": 0}, {"kind": "deal", "value": [[["Ah"]] * 8] * 4}],
         'scripted deal: seat 0 holds unknown card ["Ah"]'),
        ("lovat-v1", [{"kind": "dealer", "value": 0}, {"kind": "deal", "value": [[{"a": 1}] * 14] * 4}],
         'seat 0 holds unknown card {"a": 1}'),
        ("lorum-v1", [{"kind": "dealer", "value": 0}, {"kind": "deal", "value": [{"Ah": 1}] * 4}],
         'scripted deal: seat 0 must hold a list of 8 cards, not {"Ah": 1}'),
        ("lorum-v1", [{"kind": "dealer", "value": 0}, {"kind": "deal", "value": {"0": []}}],
         'scripted deal must be a list of 4 hands (one per seat), not {"0": []}'),
        ("lovat-v1", [{"kind": "dealer", "value": [0]}], "scripted dealer must be a seat 0..3, not [0]"),
        ("lorum-v1", [{"kind": "dealer", "value": 1.0}], "scripted dealer must be a seat 0..3, not 1.0"),
        ("lorum-v1", [{"kind": "dealer", "value": True}], "scripted dealer must be a seat 0..3, not true"),
        ("lovat-v1", [{"kind": "dealer", "value": 0}, {"kind": "deal", "value": [LOVAT_HAND] * 4}],
         "scripted deal: card L1-01 is dealt twice"),
        ("lorum-v1", [5], "chance outcome 0 must be an object {'kind': ..., 'value': ...} with a string kind, not 5"),
        ("lovat-v1", [{"kind": ["dealer"], "value": 0}], "chance outcome 0 must be an object"),
    ],
)
def test_replay_refuses_a_chance_value_of_the_wrong_type_or_shape_in_one_line(capsys, tmp_path: Path, game: str,
                                                                             chance: list[object], message: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"game": game, "seed": 1, "actions": [], "chance": chance}))
    status, err = run(capsys, "replay", str(path), "--plugins-dir", str(tmp_path))
    assert status == 1 and message in one_line(err)


@pytest.mark.parametrize("name", ["../../x", "a/b", "x" * 10_000, "a\x1b[2Jb"])
@pytest.mark.parametrize("command", ["leaderboard", "export"])
def test_reading_commands_refuse_a_name_outside_the_leaderboards_folder(capsys, tmp_path: Path, name: str,
                                                                        command: str) -> None:
    status, err = run(capsys, command, name, "--leaderboards", str(tmp_path))
    line = one_line(err)
    assert status == 2 and "expected lowercase letters" in line and "\x1b" not in line


def test_run_refuses_a_deep_config_and_an_impossible_leaderboards_folder(capsys, tmp_path: Path) -> None:
    deep = tmp_path / "deep.toml"
    deep.write_text(CONFIG.format(name="t", extra="x = " + "[" * 50_000 + "]" * 50_000))
    status, err = run(capsys, "run", str(deep), "--workers", "1", "--plugins-dir", str(tmp_path))
    assert status == 2 and "nested too deeply" in one_line(err)
    config = tmp_path / "ok.toml"
    config.write_text(CONFIG.format(name="t", extra=""))
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    for leaderboards in (blocker, blocker / "below"):  # refused before the schedule is printed: stdout is empty
        status = main(["run", str(config), "--workers", "1", "--leaderboards", str(leaderboards),
                       "--plugins-dir", str(tmp_path)])
        out, err = capsys.readouterr()
        assert status == 2 and out == ""
        assert one_line(err) == f"arena: error: --leaderboards {leaderboards}: {blocker} is a file, not a folder"


def test_run_refuses_a_foreign_store_and_leaves_it_byte_identical(capsys, tmp_path: Path) -> None:
    config = tmp_path / "ok.toml"
    config.write_text(CONFIG.format(name="t", extra=""))
    store = tmp_path / "lb" / "t" / "results.sqlite"
    store.parent.mkdir(parents=True)
    store.write_bytes(b"SQLite format 3\x00" + bytes(range(256)) * 20)  # a corrupt header
    before = hashlib.sha256(store.read_bytes()).hexdigest()
    for argv in (("run", str(config), "--workers", "1"), ("leaderboard", "t"), ("export", "t")):
        status, err = run(capsys, *argv, "--leaderboards", str(tmp_path / "lb"), *(
            ("--plugins-dir", str(tmp_path)) if argv[0] == "run" else ()))
        assert status == 1 and "results store" in one_line(err)
    assert hashlib.sha256(store.read_bytes()).hexdigest() == before


def test_run_json_says_whether_deals_were_public(capsys, tmp_path: Path) -> None:
    config = tmp_path / "ok.toml"
    config.write_text(CONFIG.format(name="t", extra="").replace("seed = 3\n", ""))
    status = main(["run", str(config), "--workers", "1", "--json", "--leaderboards", str(tmp_path / "lb"),
                   "--plugins-dir", str(tmp_path)])
    summary = json.loads(capsys.readouterr().out)
    assert status == 0 and summary["deals"] == "secret"


LINKED_PLUGIN = """from arena import hookimpl
from arena.agent import AgentSpec
from arena.seating.substitute import RandomAgent


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="linked", games=("lovat",), factory=RandomAgent, description="links out", version="1"))
"""


def test_run_refuses_a_plugin_that_links_out_of_its_folder(capsys, tmp_path: Path) -> None:
    """Code behind such a link is outside the files hash that --resume and ladders compare: one line, status 1."""
    plugins = tmp_path / "plugins"
    (plugins / "linked").mkdir(parents=True)
    (plugins / "linked" / "__init__.py").write_text(LINKED_PLUGIN)
    (tmp_path / "elsewhere").mkdir()
    (plugins / "linked" / "lib").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    config = tmp_path / "linked.toml"
    config.write_text(CONFIG.format(name="t", extra="").replace('name = "random"\n', 'name = "linked"\n'))
    status, err = run(capsys, "run", str(config), "--workers", "1", "--leaderboards", str(tmp_path / "lb"),
                      "--plugins-dir", str(plugins))
    line = one_line(err)
    assert status == 1 and "entry 'linked':" in line and "linked/lib links out of the plugin's folder" in line


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The leaderboards folder of a finished one-block tournament ``t`` (greedy and random agents, Lovat), run
    once for the module."""
    folder = tmp_path_factory.mktemp("finished")
    config = folder / "t.toml"
    config.write_text(CONFIG.format(name="t", extra=""))
    assert main(["run", str(config), "--workers", "1", "--json", "--leaderboards", str(folder / "lb"),
                 "--plugins-dir", str(folder)]) == 0
    return folder / "lb"


@pytest.fixture
def stored(capsys, finished: Path, tmp_path: Path) -> Path:
    """A fresh copy of ``finished`` for one test to alter."""
    capsys.readouterr()
    shutil.copytree(finished, tmp_path / "lb")
    return tmp_path / "lb"


def test_a_copied_tournament_folder_reads_and_writes_itself(capsys, stored: Path) -> None:
    """`arena publish COPY` must write the copy, and `arena leaderboard COPY` rate the copy's own matches."""
    shutil.copytree(stored / "t", stored / "copy")
    with sqlite3.connect(stored / "copy" / "results.sqlite") as db:
        db.execute("DELETE FROM matches WHERE idx >= 2")
    original = (stored / "t" / "leaderboard.json").read_bytes()
    assert main(["leaderboard", "copy", "--leaderboards", str(stored), "--json"]) == 0
    boards = json.loads(capsys.readouterr().out)
    assert {row["games"] for board in boards.values() for row in board["rows"]} <= {1, 2}  # 2 matches, not 4
    assert main(["publish", "copy", "--leaderboards", str(stored), "--plugins-dir", str(stored)]) == 0
    assert (stored / "t" / "leaderboard.json").read_bytes() == original  # the original is left alone
    assert json.loads((stored / "copy" / "leaderboard.json").read_text())["matches"] == 2
    shutil.rmtree(stored / "t")
    assert main(["leaderboard", "copy", "--leaderboards", str(stored)]) == 0  # the original's absence is no matter


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("UPDATE matches SET ranks = '[1, 2]' WHERE idx = 1", "4 agents need 4 ranks from 1 to 4, got [1, 2]"),
        ("UPDATE matches SET scores = '[\"x\", 0, 0, 0]' WHERE idx = 1", "4 agents need 4 finite numeric scores"),
        ("UPDATE matches SET scores = '[NaN, 0, 0, 0]' WHERE idx = 1", "4 agents need 4 finite numeric scores"),
        ("UPDATE matches SET faults = '[1]' WHERE idx = 1", "a fault must name a seat 0..3"),
        ("UPDATE matches SET agents = '\"abcd\"' WHERE idx = 1", "must each be a list"),
        ("UPDATE matches SET agents = '{not json' WHERE idx = 1", "damaged row"),
        ("UPDATE matches SET faults = '[{\"seat\": 9, \"kind\": \"timeout\"}]' WHERE idx = 1",
         "a fault must name a seat 0..3"),
        ("UPDATE matches SET agents = '[\"mallory\", \"random\", \"random-2\", \"greedy-2\"]' WHERE idx = 1",
         "seats 'mallory', an entry the store holds no version of"),
        ("UPDATE meta SET value = '[]' WHERE key = 'config'", "the stored tournament config is missing or damaged"),
        ("DELETE FROM meta WHERE key = 'config'", "the stored tournament config is missing or damaged"),
    ],
)
@pytest.mark.parametrize("command", ["leaderboard", "publish", "export"])
def test_a_damaged_or_altered_store_is_refused_in_one_line(capsys, stored: Path, change: str, message: str,
                                                          command: str) -> None:
    with sqlite3.connect(stored / "t" / "results.sqlite") as db:
        db.execute(change)
    if command == "export" and ("mallory" in message or "config" in message):
        return  # the table is exported as stored: neither rates, nor reads the config
    status, err = run(capsys, command, "t", "--leaderboards", str(stored), *(
        ("--plugins-dir", str(stored)) if command == "publish" else ()))
    assert status == 1 and message in one_line(err)


def test_a_store_the_user_cannot_read_is_one_line(capsys, stored: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As a user whom the folder's mode shuts out would see it (root passes every mode check, so the refusal
    is the system's answer, simulated)."""
    path = stored / "t" / "results.sqlite"

    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(os, "stat", refuse)
    monkeypatch.setattr(sqlite3, "connect", refuse)
    status, err = run(capsys, "leaderboard", "t", "--leaderboards", str(stored))
    assert status == 1 and one_line(err) == f"arena: error: {path}: Permission denied"


def test_a_record_path_below_a_file_says_the_file_is_not_a_folder(capsys, tmp_path: Path) -> None:
    blocker = tmp_path / "afile"
    blocker.write_text("a file")
    status = main(["play", "lorum", "--record", str(blocker / "x.json")])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert one_line(err) == f"arena: error: --record {blocker / 'x.json'}: {blocker} is a file, not a folder"
    status = main(["play", "lorum", "--record", str(tmp_path / "none" / "x.json")])
    assert status == 2 and one_line(capsys.readouterr().err).endswith(f"folder {tmp_path / 'none'} does not exist")


def test_an_option_is_matched_whole_never_by_its_prefix(capsys: pytest.CaptureFixture[str]) -> None:
    status, err = run(capsys, "run", "configs/quickstart-lovat.toml", "--work", "1")  # not --workers
    assert status == 2
    assert "unrecognized arguments: --work 1" in one_line(err)


def test_submit_of_a_missing_file_is_a_wrong_request_and_a_refused_connection_asks_if_the_server_runs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("httpx")
    monkeypatch.setenv("ARENA_TOKEN", "alice.x")
    assert main(["submit", "http://127.0.0.1:9", str(tmp_path / "my_agent.py")]) == 2
    assert capsys.readouterr().err == f"arena: error: {tmp_path / 'my_agent.py'}: no such file\n"
    agent = tmp_path / "my_agent.py"
    agent.write_text("x = 1\n")
    assert main(["submit", "http://127.0.0.1:9", str(agent)]) == 1  # nothing listens on port 9
    err = capsys.readouterr().err
    assert err.startswith("arena: error: http://127.0.0.1:9: ") and err.count("\n") == 1
    assert err.endswith("; is 'arena serve' running there, at that port?\n")


@pytest.mark.parametrize(("argv", "missing", "says"), [
    (["serve", "serve.toml"], "arena.serve.server", "'arena serve' needs the serve extra: "),
    (["serve", "serve.toml"], "uvicorn", "'arena serve' needs the serve extra: "),  # imported only at start
    (["submit", "http://127.0.0.1:9", "my_agent.py"], "httpx", "'arena submit' needs httpx, in the serve extra: "),
])
def test_a_missing_extra_names_the_install_from_arenas_folder(capsys: pytest.CaptureFixture[str],
                                                               monkeypatch: pytest.MonkeyPatch, argv: list[str],
                                                               missing: str, says: str) -> None:
    """'pip install arena[serve]' would fetch whatever an index calls arena: the hint installs this folder's."""
    monkeypatch.setitem(sys.modules, missing, None)  # import of it raises ImportError, as without the extra
    monkeypatch.setenv("ARENA_TOKEN", "alice.x")
    assert main(argv) == 1
    err = one_line(capsys.readouterr().err)
    assert says in err and "pip install -e '.[serve]' in arena's folder" in err and "'arena[" not in err


def test_an_empty_leaderboards_folder_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # '' was the working directory: the run wrote its tournament folder there.
    monkeypatch.chdir(tmp_path)
    status, err = run(capsys, "leaderboard", "x", "--leaderboards", "")
    assert status == 2 and "argument --leaderboards: an empty name: give a folder" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv", [["--game-option", "deals=2", "--deals", "3"], ["--deals", "1", "--deals", "2"]])
def test_a_game_option_given_twice_is_refused(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    # The last value won, silently.
    status, err = run(capsys, "play", "lorum", *argv)
    assert status == 2 and "game option 'deals' is given twice" in err and err.count("\n") == 1
