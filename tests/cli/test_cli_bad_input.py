"""Hostile files and names at the command line: one line on stderr, a non-zero status, no traceback."""

from __future__ import annotations

import hashlib
import json
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
    status = main(list(argv))
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


@pytest.mark.parametrize("name", ["../../x", "a/b", "x" * 10_000, "a\x1b[2Jb"])
@pytest.mark.parametrize("command", ["leaderboard", "export"])
def test_reading_commands_refuse_a_name_outside_the_leaderboards_folder(capsys, tmp_path: Path, name: str,
                                                                        command: str) -> None:
    status, err = run(capsys, command, name, "--leaderboards", str(tmp_path))
    line = one_line(err)
    assert status == 1 and "expected lowercase letters" in line and "\x1b" not in line


def test_run_refuses_a_deep_config_and_an_impossible_leaderboards_folder(capsys, tmp_path: Path) -> None:
    deep = tmp_path / "deep.toml"
    deep.write_text(CONFIG.format(name="t", extra="x = " + "[" * 50_000 + "]" * 50_000))
    status, err = run(capsys, "run", str(deep), "--workers", "1", "--plugins-dir", str(tmp_path))
    assert status == 2 and "nested too deeply" in one_line(err)
    config = tmp_path / "ok.toml"
    config.write_text(CONFIG.format(name="t", extra=""))
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    status, err = run(capsys, "run", str(config), "--workers", "1", "--leaderboards", str(blocker),
                      "--plugins-dir", str(tmp_path))
    assert status == 1 and "cannot make the tournament folder" in one_line(err)


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
from arena.substitute import RandomAgent


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
