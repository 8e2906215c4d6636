"""Queries write nothing, `arena publish` does; a closed pipe is quiet; `--json` stays one JSON document when a
Ray worker dies mid-run; `arena agents` shows options."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli import main

CONFIG = """
name = "{name}"
game = "lorum"
seed = 3
blocks = {blocks}

[game_options]
deals = 1

[[agents]]
name = "greedy"

[[agents]]
name = "{first}"
isolation = "{isolation}"

[[agents]]
name = "random-2"
plugin = "random"

[[agents]]
name = "greedy-2"
plugin = "greedy"
"""


def write_config(folder: Path, name: str = "q", blocks: int = 2, first: str = "random",
                 isolation: str = "auto") -> Path:
    path = folder / f"{name}.toml"
    path.write_text(CONFIG.format(name=name, blocks=blocks, first=first, isolation=isolation))
    return path


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {str(path.relative_to(folder)): (path.read_bytes(), path.stat().st_mtime_ns)
            for path in sorted(folder.rglob("*")) if path.is_file()}


def test_leaderboard_and_export_write_nothing_and_publish_rewrites_the_files(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    boards = tmp_path / "boards"
    assert main(["run", str(write_config(tmp_path)), "--workers", "1", "--json", "--leaderboards", str(boards),
                 "--plugins-dir", str(tmp_path / "none")]) == 0
    folder = boards / "q"
    before = snapshot(folder)
    assert {"results.sqlite", "leaderboard.md", "index.html", "ratings.json", "matches.html", "match.html",
            "data/l00000.js", "data/m00000.js"} <= set(before)
    for argv in (["leaderboard", "q"], ["leaderboard", "q", "--method", "score", "--json"],
                 ["leaderboard", "q", "--vs", "greedy", "random"], ["export", "q", "--format", "jsonl"],
                 ["export", "q", "--match", "t0000-b00-r0"]):
        assert main([*argv, "--leaderboards", str(boards)]) == 0, argv
    capsys.readouterr()
    assert snapshot(folder) == before  # every file byte-identical, same mtime, and no new file
    assert main(["publish", "q", "--method", "score", "--leaderboards", str(boards)]) == 0
    out = capsys.readouterr().out
    assert "leaderboard files:" in out
    written = json.loads((folder / "leaderboard.json").read_text())
    assert written["method"] == "score" and all(row["version"] for row in written["rows"])
    assert "Version" in (folder / "leaderboard.md").read_text()
    assert 'id="method-score"' in (folder / "index.html").read_text()


@pytest.mark.slow
def test_export_into_a_closed_pipe_exits_quietly(tmp_path: Path) -> None:
    boards = tmp_path / "boards"
    assert main(["run", str(write_config(tmp_path, blocks=6)), "--workers", "1", "--json",
                 "--leaderboards", str(boards), "--plugins-dir", str(tmp_path / "none")]) == 0
    export = subprocess.Popen([sys.executable, "-m", "arena", "export", "q", "--format", "jsonl",
                               "--leaderboards", str(boards)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert export.stdout is not None and export.stderr is not None
    export.stdout.readline()
    export.stdout.close()  # as `| head -1` does
    status = export.wait(timeout=60)
    assert (status, export.stderr.read()) == (0, b"")


KILLER = '''
import os
from pathlib import Path

from arena_agents.lorum import RandomLorumAgent

from arena import hookimpl
from arena.agent import AgentSpec

MARK = Path({mark!r})


def make(seat, game, players, seed, options):
    # The first time only: kill the process this match is played in (a Ray worker: the run is on Ray).
    try:
        MARK.open("x").close()
    except FileExistsError:
        pass
    else:
        os.kill(os.getpid(), 9)
    return RandomLorumAgent(seat=seat, game=game, players=players, seed=seed, options={{}})


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="killer", games=("lorum",), factory=make, description="kills its worker once",
                       version="1"))
'''


@pytest.mark.ray
def test_json_is_one_document_when_a_ray_worker_is_killed_mid_run(tmp_path: Path) -> None:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    mark = tmp_path / "killed"
    (plugins / "killer.py").write_text(KILLER.format(mark=str(mark)))
    # Seated trusted (the user's explicit choice), the agent runs in the Ray worker's process and can kill it.
    config = write_config(tmp_path, name="k", blocks=2, first="killer", isolation="trusted")
    env = {key: value for key, value in os.environ.items() if key != "RAY_ADDRESS"}
    done = subprocess.run([sys.executable, "-m", "arena", "run", str(config), "--json", "--workers", "2",
                           "--leaderboards", str(tmp_path / "boards"), "--plugins-dir", str(plugins)],
                          capture_output=True, text=True, timeout=600, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert mark.exists()  # a worker was killed
    summary = json.loads(done.stdout)  # exactly one JSON document, nothing of Ray's around it
    assert summary["backend"] == "ray" and summary["played"] == summary["matches"]
    assert done.stderr == ""
    assert (tmp_path / "boards" / "k" / "ray.log").is_file()


def test_agents_show_their_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["agents", "--json", "--plugins-dir", "no-such-folder"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows["greedy"]["options"] == []
    search = {(option["name"], tuple(option["games"])): option for option in rows["search"]["options"]}
    assert search[("iterations", ("lorum",))]["default"] == 240 and search[("iterations", ("lovat",))]["minimum"] == 1
    assert search[("value", ("lovat",))]["choices"] == ["rank", "points"]
    assert main(["agents", "search", "--plugins-dir", "no-such-folder"]) == 0
    out = capsys.readouterr().out
    assert "iterations" in out and "an integer >= 1" in out and "[agents.options]" in out
    assert main(["agents", "serch", "--plugins-dir", "no-such-folder"]) == 2
    assert "did you mean 'search'?" in capsys.readouterr().err


def test_first_party_option_defaults_match_the_agents() -> None:
    from arena_agents.plugin import SEARCH_OPTIONS
    from arena_agents.search import lorum as search_lorum
    from arena_agents.search import lovat as search_lovat

    assert SEARCH_OPTIONS.for_game("lovat")["iterations"].default == search_lovat.DEFAULT_ITERATIONS
    assert SEARCH_OPTIONS.for_game("lorum")["iterations"].default == search_lorum.DEFAULT_ITERATIONS
    assert set(SEARCH_OPTIONS.for_game("lovat")) == set(search_lovat.OPTIONS)
    assert set(SEARCH_OPTIONS.for_game("lorum")) == set(search_lorum.OPTIONS)
    assert SEARCH_OPTIONS.for_game("lovat")["value"].choices == search_lovat.VALUES
    assert SEARCH_OPTIONS.for_game("lovat")["playouts"].choices == search_lovat.PLAYOUTS


def test_a_piped_listing_keeps_every_line_whole(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    listed = subprocess.run([sys.executable, "-m", "arena", "agents", "--plugins-dir", str(tmp_path)], env=env,
                            capture_output=True, text=True, check=True, cwd=tmp_path, timeout=60).stdout
    search = next(line for line in listed.splitlines() if line.startswith("search: "))
    assert search.endswith("plays them out (docs/agents/search-lovat.md, docs/agents/search-lorum.md).")
    assert "greedy" in next(line for line in listed.splitlines() if line.strip().startswith("greedy "))
