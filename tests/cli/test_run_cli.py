"""`arena run`, `arena leaderboard` and `arena export` as a user runs them, including a kill -9 and resume."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.cli import main, stopping
from arena.cli.console import PIPED_WIDTH
from arena.tournament.store import Store, store_path

TINY = """
name = "{name}"
game = "{game}"
seed = 3
blocks = {blocks}

[game_options]
{options}

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


def write_config(folder: Path, name: str = "tiny", game: str = "lovat", blocks: int = 2,
                 options: str = "players = 4") -> Path:
    path = folder / f"{name}.toml"
    path.write_text(TINY.format(name=name, game=game, blocks=blocks, options=options))
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_run_writes_store_and_leaderboard_files(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    config = write_config(tmp_path, game="lorum", options="deals = 2")
    boards = tmp_path / "boards"
    status, out, err = run(capsys, "run", str(config), "--workers", "1", "--json", "--leaderboards", str(boards))
    assert status == 0, err
    summary = json.loads(out)
    assert summary["matches"] == summary["played"] == 2 * 4  # one table, 2 blocks, 4 rotations
    assert {row["agent"] for row in summary["leaderboards"]["elo"]} == {"greedy", "greedy-2", "random", "random-2"}
    folder = boards / "tiny"
    for name in ("results.sqlite", "leaderboard.md", "leaderboard.csv", "leaderboard.json", "index.html"):
        assert (folder / name).is_file(), name
    rows = list(csv.DictReader((folder / "leaderboard.csv").open()))
    assert sorted(row["agent"] for row in rows) == ["greedy", "greedy-2", "random", "random-2"]
    # Lorum's score is chips per deal: the score method's mean equals the stored chips / 2 deals.
    with Store.open_readonly(store_path(boards, "tiny")) as store:
        chips = [(agent, score) for row in store.rows() for agent, score in zip(row.agents, row.scores)]
    greedy_mean = sum(score for agent, score in chips if agent == "greedy") / 8 / 2
    [score_row] = [row for row in summary["leaderboards"]["score"] if row["agent"] == "greedy"]
    assert score_row["rating"] == pytest.approx(greedy_mean)


def test_leaderboard_and_export_read_the_store(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    config = write_config(tmp_path)
    boards = tmp_path / "boards"
    assert run(capsys, "run", str(config), "--workers", "1", "--json", "--leaderboards", str(boards))[0] == 0
    status, out, _ = run(capsys, "leaderboard", "tiny", "--method", "trueskill", "--json", "--leaderboards",
                         str(boards))
    assert status == 0 and list(json.loads(out)) == ["trueskill"]
    status, out, _ = run(capsys, "leaderboard", "tiny", "--method", "elo", "--bootstrap", "50", "--json",
                         "--leaderboards", str(boards))
    bootstrapped = json.loads(out)["elo"]["rows"]
    status, out, _ = run(capsys, "leaderboard", "tiny", "--method", "elo", "--json", "--leaderboards", str(boards))
    curvature = json.loads(out)["elo"]["rows"]
    assert [row["rating"] for row in bootstrapped] == [row["rating"] for row in curvature]
    assert [row["lower"] for row in bootstrapped] != [row["lower"] for row in curvature]
    status, out, _ = run(capsys, "leaderboard", "tiny", "--vs", "greedy", "random", "--json", "--leaderboards",
                         str(boards))
    comparison = json.loads(out)
    assert status == 0 and comparison["games"] == 2 and comparison["matches"] == 8  # 2 deals of 4 rotations
    assert 0.0 <= comparison["probability_a_stronger"] <= 1.0 and comparison["gap_lower"] < comparison["gap_upper"]
    status, _, err = run(capsys, "leaderboard", "tiny", "--vs", "greedy", "grredy", "--leaderboards", str(boards))
    assert status == 2 and err.strip() == ("arena: error: agent 'grredy' played no match in these outcomes; did you "
                                           "mean 'greedy'? (known: greedy, greedy-2, random, random-2)")
    status, out, _ = run(capsys, "export", "tiny", "--format", "csv", "--leaderboards", str(boards))
    table = list(csv.DictReader(io.StringIO(out)))
    assert status == 0 and [row["idx"] for row in table] == [str(i) for i in range(8)]
    status, out, _ = run(capsys, "export", "tiny", "--format", "jsonl", "--leaderboards", str(boards))
    assert [json.loads(line)["id"] for line in out.splitlines()] == [row["id"] for row in table]
    # One match's record comes out in the format 'arena replay' reads, and replays to the stored result.
    saved = tmp_path / "match.json"
    status, _, _ = run(capsys, "export", "tiny", "--match", table[5]["id"], "--output", str(saved),
                       "--leaderboards", str(boards))
    assert status == 0 and json.loads(saved.read_text())["match"] == table[5]["id"]
    status, out, err = run(capsys, "replay", str(saved))
    assert status == 0 and "recorded actions legal" in out, err
    status, _, err = run(capsys, "export", "tiny", "--match", "t9999-b00-r0", "--leaderboards", str(boards))
    assert status == 2 and "no match 't9999-b00-r0'" in err
    status, _, err = run(capsys, "export", "tiny", "--match", table[5]["id"], "--format", "jsonl",
                         "--leaderboards", str(boards))
    assert status == 2 and "--format applies to the match table" in err
    for argv in (["--match", table[5]["id"]], ["--format", "csv"]):  # a write that fails is one line, not a traceback
        status, _, err = run(capsys, "export", "tiny", *argv, "--output", "/proc/version", "--leaderboards", str(boards))
        assert status != 0 and err.startswith("arena: error: --output /proc/version:") and "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["leaderboard", "nothing-here"], "no tournament results there"),
        (["export", "nothing-here"], "no tournament results there"),
        (["run", "/no/such.toml"], "/no/such.toml: cannot read the file"),
    ],
)
def test_bad_input_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str],
                               message: str) -> None:
    status, _, err = run(capsys, *argv, *(["--leaderboards", str(tmp_path)] if argv[0] != "run" else []))
    assert status != 0 and message in err
    assert len(err.strip().splitlines()) == 1


def test_config_errors_are_one_line_each(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('name = "bad"\ngame = "lovat"\nblocks = "many"\nsede = 1\n[[agents]]\nname = "nobody"\n')
    status, _, err = run(capsys, "run", str(path), "--workers", "1")
    assert status == 2
    lines = err.strip().splitlines()
    assert any("blocks" in line for line in lines)
    assert any("sede" in line and "seed" in line for line in lines)  # did-you-mean
    assert any("nobody" in line for line in lines)
    assert all(str(path) in line for line in lines) and "Traceback" not in err


@pytest.mark.slow
def test_kill_minus_nine_then_resume_equals_an_uninterrupted_run(capsys: pytest.CaptureFixture[str],
                                                                 tmp_path: Path) -> None:
    config = write_config(tmp_path, name="killed", blocks=30)
    whole = tmp_path / "whole"
    assert run(capsys, "run", str(config), "--workers", "1", "--json", "--leaderboards", str(whole))[0] == 0
    parts = tmp_path / "parts"
    database = store_path(parts, "killed")
    child = subprocess.Popen(
        [sys.executable, "-m", "arena", "run", str(config), "--workers", "1", "--json", "--leaderboards", str(parts)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    stored = 0
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and child.poll() is None:
        if database.is_file():
            try:
                stored = sqlite3.connect(database).execute("SELECT COUNT(*) FROM matches").fetchone()[0]
            except sqlite3.OperationalError:
                stored = 0
            if stored >= 10:
                break
        time.sleep(0.02)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    with Store.open_readonly(database) as store:
        interrupted = store.count()
    assert 10 <= interrupted < 120, "the run should have been killed part-way"
    status, out, err = run(capsys, "run", str(config), "--workers", "1", "--resume", "--json",
                           "--leaderboards", str(parts))
    assert status == 0, err
    assert json.loads(out)["played"] == 120 - interrupted
    with Store.open_readonly(database) as resumed, Store.open_readonly(store_path(whole, "killed")) as reference:
        assert resumed.result_table() == reference.result_table()


def test_run_prints_the_ratings_of_every_method_in_whole_lines(capsys: pytest.CaptureFixture[str],
                                                               tmp_path: Path) -> None:
    config = write_config(tmp_path, game="lorum", options="deals = 2")
    status, out, err = run(capsys, "run", str(config), "--workers", "1", "--leaderboards", str(tmp_path / "boards"))
    assert status == 0, err
    lines = out.splitlines()
    assert "Ratings by method" in out and "chips per deal" in out  # Lorum's score method is per deal
    assert max(map(len, lines)) <= PIPED_WIDTH  # captured output is not a terminal: the piped width
    folded = "".join(out.split())  # a table's caption still folds to the table's width
    assert "".join(f"arena leaderboard tiny --leaderboards {tmp_path / 'boards'} --method METHOD".split()) in folded
    board = next(line for line in lines if line.lstrip().startswith("#") and "Agent" in line)
    assert board.split() == ["#", "Agent", "Rating", "95%", "interval", "Games", "Chips/deal", "Wins", "Faults"]
    # Every table's mean score is the score method's figure: chips per deal, not per match of two deals.
    ratings = json.loads((tmp_path / "boards" / "tiny" / "ratings.json").read_text())
    scores = {row["agent"]: row["rating"] for row in ratings["score"]["rows"]}
    for method in ("elo", "score"):
        assert ratings[method]["score_unit"] == "chips per deal"
        assert {row["agent"]: row["mean_score"] for row in ratings[method]["rows"]} == pytest.approx(scores)


def test_an_unreachable_ray_address_fails_at_once(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    config = write_config(tmp_path)
    status, _, err = run(capsys, "run", str(config), "--address", "127.0.0.1:1", "--leaderboards", str(tmp_path))
    assert status == 1
    assert err.strip() == ("arena: error: cannot reach a Ray cluster at 127.0.0.1:1: Connection refused (wrong "
                           "address or port? the head prints its address when started: ray start --head)")
    assert not (tmp_path / "tiny").exists()  # refused before the store was made


def test_ctrl_c_says_what_is_stored_and_how_to_go_on(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import arena.cli.run as run_command

    config = write_config(tmp_path)
    real = run_command.run_tournament

    def interrupted(*args, on_progress, **kwargs):
        def stop(progress):
            on_progress(progress)
            if progress.played_now >= 3:
                raise KeyboardInterrupt

        return real(*args, on_progress=stop, **kwargs)

    monkeypatch.setattr(run_command, "run_tournament", interrupted)
    status, _, err = run(capsys, "run", str(config), "--workers", "1", "--leaderboards", str(tmp_path / "boards"))
    assert status == 130
    boards = tmp_path / "boards"
    assert err.strip() == (f"arena: error: interrupted: 3 of 8 matches are stored; run 'arena run {config} "
                           f"--leaderboards {boards} --workers 1 --resume' to play the rest")
    monkeypatch.setattr(run_command, "run_tournament", real)
    status, out, err = run(capsys, "run", str(config), "--workers", "1", "--leaderboards", str(tmp_path / "boards"))
    assert status == 2 and "add --resume" in err
    assert "matches " not in out  # a refused run shows no progress bar
    assert "" not in out.splitlines()  # nor the blank line an unshown progress display leaves when it stops
    changed = tmp_path / "changed.toml"  # the same name with another seed: the stored results do not match it
    changed.write_text(config.read_text().replace("seed = ", "seed = 1", 1))
    status, out, err = run(capsys, "run", str(changed), "--workers", "1", "--leaderboards", str(boards))
    assert status == 2 and "holds results of a different configuration" in err and err.count("\n") == 1
    assert out.strip() and "" not in out.splitlines()  # the schedule's line, then the error: no blank line


@pytest.mark.parametrize(("signum", "status", "said"), [(signal.SIGINT, 130, "arena: interrupted"),
                                                       (signal.SIGTERM, 143, "arena: stopped by SIGTERM")])
def test_a_stop_while_the_command_loads_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch, signum: int, status: int,
                                                     said: str) -> None:
    import arena.cli

    saved = {number: signal.getsignal(number) for number in stopping.STOPPING_SIGNALS}  # a stop leaves them ignored

    def loading(command: str | None) -> None:  # `arena run` loads its module: scipy and all, a second when busy
        if signum == signal.SIGINT:
            raise KeyboardInterrupt  # what Python's own Ctrl-C handler raises
        if signal.getsignal(signum) is signal.SIG_DFL:  # it would end this test process
            pytest.fail("SIGTERM would kill the command outright while it loads")
        os.kill(os.getpid(), signum)
        time.sleep(5)
        pytest.fail("SIGTERM did not stop the command while it loaded")

    monkeypatch.setattr(arena.cli, "build_parser", loading)
    try:
        status_now, out, err = run(capsys, "run", str(write_config(tmp_path)))
    except KeyboardInterrupt:
        pytest.fail("a stop while the command loads ends it with a traceback")
    finally:
        for number, handler in saved.items():
            signal.signal(number, handler)
    assert (status_now, out, err) == (status, "", said + "\n")


@pytest.mark.parametrize("command", ["run", "luck"])
def test_a_stop_while_the_plugins_load_is_a_stop_not_a_plugin_that_failed(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    # Discovery takes whatever a plugin's import raises for its failure: a stop raised there was reported as the
    # game's plugin failing to import, then as an unknown game (status 2), instead of as a stop.
    import arena.plugin_system.registration as registration

    real = registration.load_plugin
    saved = {number: signal.getsignal(number) for number in stopping.STOPPING_SIGNALS}  # a stop leaves them ignored

    def stopped_meanwhile(source):
        os.kill(os.getpid(), signal.SIGTERM)  # handled at once, inside the plugin's import
        return real(source)

    monkeypatch.setattr(registration, "load_plugin", stopped_meanwhile)
    target = str(write_config(tmp_path)) if command == "run" else "tiny"
    try:
        status, out, err = run(capsys, command, target, "--leaderboards", str(tmp_path / "boards"))
    finally:
        for number, handler in saved.items():
            signal.signal(number, handler)
    assert (status, out, err) == (143, "", "arena: stopped by SIGTERM\n")


def test_ctrl_c_while_the_site_is_written_says_every_match_is_stored_and_how_to_publish(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import arena.leaderboard.publish

    config = write_config(tmp_path)
    boards = tmp_path / "boards"
    real = arena.leaderboard.publish.publish

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(arena.leaderboard.publish, "publish", interrupted)
    status, _, err = run(capsys, "run", str(config), "--workers", "1", "--leaderboards", str(boards))
    assert status == 130
    assert err.strip() == ("arena: error: interrupted while writing the leaderboard files and the site; every match "
                           f"is stored: run 'arena publish tiny --leaderboards {boards}' to write them")
    monkeypatch.setattr(arena.leaderboard.publish, "publish", real)
    status, _, err = run(capsys, "publish", "tiny", "--leaderboards", str(boards))  # the advice, followed
    assert status == 0, err
    assert (boards / "tiny" / "index.html").is_file()
