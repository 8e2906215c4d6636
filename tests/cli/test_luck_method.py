"""The luck method as a user meets it: a run whose config chooses it, resuming, older stores and `arena luck`."""

from __future__ import annotations

import csv
import dataclasses
import html
import io
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.cli import main
from arena.games.lovat import LovatGame
from arena.games.luck import LuckSpec
from arena.plugins import load_registry
from arena.tournament.errors import TournamentError
from arena.tournament.luck import reference_policy
from arena.tournament.store import Store, store_path
from tests.process_helpers import outliving

CONFIG = """
name = "{name}"
game = "lovat"
seed = 11
blocks = {blocks}
ratings = {ratings}
isolation = "trusted"

[game_options]
players = 3

[[agents]]
name = "greedy"

[[agents]]
name = "random"

[[agents]]
name = "counting"
"""


def write(folder: Path, name: str, blocks: int, ratings: str) -> Path:
    path = folder / f"{name}.toml"
    path.write_text(CONFIG.format(name=name, blocks=blocks, ratings=ratings))
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def corrections(boards: Path, name: str) -> dict[str, tuple[float, ...] | None]:
    with Store.open_readonly(store_path(boards, name)) as store:
        return {row.id: row.luck for row in store.rows()}


def test_a_run_that_chooses_luck_stores_each_correction_and_every_view_says_what_it_subtracted(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    boards = tmp_path / "boards"
    status, out, err = run(capsys, "run", str(write(tmp_path, "lucky", 2, '["luck", "elo"]')), "--workers", "1",
                           "--leaderboards", str(boards))
    assert status == 0, err
    stored = corrections(boards, "lucky")
    assert len(stored) == 6 and all(luck is not None and len(luck) == 3 for luck in stored.values())
    assert any(any(value != 0 for value in luck or ()) for luck in stored.values())  # the die did matter
    line = "luck: Lovat's die (L-14) valued by greedy's play-outs subtracted, in seats beaten"
    assert line in " ".join(out.split())  # the terminal's caption (folded to the table's width)
    folder = boards / "lucky"
    board = json.loads((folder / "leaderboard.json").read_text())
    assert board["method"] == "luck" and board["ratings"]["extras"]["subtracted"].startswith(line)
    for page in ("leaderboard.md", "index.html"):
        assert line in html.unescape((folder / page).read_text()), page
    # The rating is the mean of seats beaten less the correction, per agent.
    with Store.open_readonly(store_path(boards, "lucky")) as store:
        rows = list(store.rows())
    for entry in board["rows"]:
        values = [sum((mine < other) + 0.5 * (mine == other) for other in row.ranks) - 0.5 - row.luck[seat]
                  for row in rows for seat, (agent, mine) in enumerate(zip(row.agents, row.ranks))
                  if agent == entry["agent"] and row.luck is not None]
        assert entry["rating"] == pytest.approx(sum(values) / len(values))


def test_resuming_keeps_the_stored_corrections_and_computes_the_new_ones(capsys: pytest.CaptureFixture[str],
                                                                         tmp_path: Path) -> None:
    boards = tmp_path / "boards"
    assert run(capsys, "run", str(write(tmp_path, "grown", 1, '["luck"]')), "--workers", "1",
               "--leaderboards", str(boards))[0] == 0
    first = corrections(boards, "grown")
    status, _out, err = run(capsys, "run", str(write(tmp_path, "grown", 2, '["luck"]')), "--workers", "1",
                            "--resume", "--leaderboards", str(boards))
    assert status == 0, err
    grown = corrections(boards, "grown")
    assert len(first) == 3 and len(grown) == 6
    assert {match: grown[match] for match in first} == first
    # The same as a run that played both blocks at once: the correction depends on the match alone.
    assert run(capsys, "run", str(write(tmp_path, "whole", 2, '["luck"]')), "--workers", "1",
               "--leaderboards", str(boards))[0] == 0
    assert corrections(boards, "whole") == grown


def test_an_older_store_is_refused_in_one_line_until_arena_luck_fills_it_in(capsys: pytest.CaptureFixture[str],
                                                                            tmp_path: Path) -> None:
    boards = tmp_path / "boards"
    assert run(capsys, "run", str(write(tmp_path, "plain", 2, '["elo"]')), "--workers", "1",
               "--leaderboards", str(boards))[0] == 0
    assert set(corrections(boards, "plain").values()) == {None}  # no configured method needed them
    status, out, _err = run(capsys, "export", "plain", "--leaderboards", str(boards))
    assert status == 0 and {row["luck"] for row in csv.DictReader(io.StringIO(out))} == {""}
    for extra in ((), ("--vs", "greedy", "random")):
        status, out, err = run(capsys, "leaderboard", "plain", "--method", "luck", "--leaderboards", str(boards),
                               *extra)
        assert status == 2 and not out
        assert err.count("\n") == 1 and "6 of 6 stored matches have no luck correction" in err
        assert f"compute them with 'arena luck plain --leaderboards {boards}'" in err
    status, out, err = run(capsys, "luck", "plain", "--leaderboards", str(boards))
    assert status == 0, err
    assert "computed the luck correction of 6 matches" in out
    filled = corrections(boards, "plain")
    assert None not in filled.values()
    # The export carries them: a JSON list per row, and a CSV cell of the same list.
    status, out, err = run(capsys, "export", "plain", "--format", "jsonl", "--leaderboards", str(boards))
    assert status == 0, err
    assert {row["id"]: tuple(row["luck"]) for row in map(json.loads, out.splitlines())} == filled
    status, out, err = run(capsys, "export", "plain", "--leaderboards", str(boards))
    table = list(csv.DictReader(io.StringIO(out)))
    assert status == 0 and {row["id"]: tuple(json.loads(row["luck"])) for row in table} == filled
    status, out, err = run(capsys, "luck", "plain", "--leaderboards", str(boards))
    assert status == 0 and "every stored match has its luck correction already" in out, err
    status, out, err = run(capsys, "publish", "plain", "--method", "luck", "--leaderboards", str(boards))
    assert status == 0, err
    assert "mean correction per agent" in (boards / "plain" / "leaderboard.md").read_text()


def test_arena_luck_on_two_workers_stores_what_one_stores(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    boards = tmp_path / "boards"
    assert run(capsys, "run", str(write(tmp_path, "plain", 4, '["elo"]')), "--workers", "1",
               "--leaderboards", str(boards))[0] == 0
    shutil.copytree(boards / "plain", boards / "copy")
    for name, workers in (("plain", "1"), ("copy", "2")):
        status, out, err = run(capsys, "luck", name, "--workers", workers, "--leaderboards", str(boards))
        assert status == 0 and "computed the luck correction of 12 matches" in out, err
    one, two = corrections(boards, "plain"), corrections(boards, "copy")
    assert None not in one.values() and one == two


def test_lorum_has_nothing_to_subtract_and_says_so(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    boards = tmp_path / "boards"
    config = tmp_path / "lorum.toml"
    config.write_text(CONFIG.format(name="lorum", blocks=1, ratings='["luck"]').replace('"lovat"', '"lorum"')
                      .replace("players = 3", "deals = 1").replace('"counting"', '"cautious"')
                      + '[[agents]]\nname = "bold"\n')
    status, _out, err = run(capsys, "run", str(config), "--workers", "1", "--leaderboards", str(boards))
    assert status == 0, err
    assert "luck: nothing subtracted" in (boards / "lorum" / "leaderboard.md").read_text()
    status, out, _err = run(capsys, "luck", "lorum", "--leaderboards", str(boards))
    assert status == 0 and "declares no chance after the deal to value: there is nothing to compute" in out


def test_the_reference_must_be_an_installed_agent_of_arenas_own_that_plays_the_game() -> None:
    registry = load_registry().registry
    for reference, problem in (("nobody", "nobody"), ("cautious", "must be an agent of arena's own that plays")):
        luck = LuckSpec(faces=(("die", ("a", "b")),), reference=reference, text="a die")

        class Named(LovatGame):
            info = dataclasses.replace(LovatGame.info, luck=luck)

        with pytest.raises(TournamentError, match=problem):
            reference_policy(registry, Named(), 3)


KILLED_PARENT = """
import sys, time
import arena.tournament.luck as luck

luck.record_luck = lambda registry, game, record: time.sleep(30)  # a match's valuing, stretched
with luck._valuer(None, None, 2) as value:
    print(" ".join(str(child.pid) for child in luck.multiprocessing.active_children()), flush=True)
    value([{}, {}])
"""


def test_workers_of_an_arena_luck_killed_outright_end_with_it_silently(tmp_path: Path) -> None:
    # A parent killed with SIGKILL ends no pool: its workers valued on, then each printed a traceback on finding
    # the parent's pipe broken.
    with (tmp_path / "err").open("w") as stderr:
        parent = subprocess.Popen([sys.executable, "-c", KILLED_PARENT], stdout=subprocess.PIPE, stderr=stderr,
                                  text=True)
    assert parent.stdout is not None
    workers = [int(pid) for pid in parent.stdout.readline().split()]
    assert len(workers) == 2
    time.sleep(0.5)  # each in its record's valuing
    parent.kill()
    parent.wait(timeout=30)
    assert outliving(workers) == []
    assert (tmp_path / "err").read_text() == ""
