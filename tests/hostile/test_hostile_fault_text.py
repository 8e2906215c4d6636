"""An agent names its exception classes to read like the referee's words for another fault (``forged_fault.py``).

The referee records each fault's phase by the call that failed, so a decision's fault named ``start-up``
stays a decision's fault: it never counts toward stopping a tournament or a ladder run, and its log line
(one line, the referee's words first) cannot pass for another seat's or another kind's.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from hostile_helpers import HOSTILE, play

from arena.cli import main
from arena.plugins import Registry, load_registry
from arena.records.log import fault_line
from arena.referee import AgentHost
from arena.tournament.config import TournamentConfig, config_from_dict
from arena.tournament.runner import run_tournament
from arena.tournament.store import MatchRow, Store, store_path

MIMICS = 4
"""How many class names ``forged_fault.MIMICS`` holds: the old start-up prefix, the start-up timeouts of a
trusted and of a process seat, and a name with line breaks that writes a crash line of another seat."""

MODES = ("trusted", "auto")
"""The agent in the referee's process, and where a tournament puts a third-party agent (its own process)."""


def forged_plugins(folder: Path) -> Path:
    """A plugins folder holding only the forger (no other hostile plugin to discover)."""
    folder.mkdir()
    shutil.copy(HOSTILE / "forged_fault.py", folder)
    return folder


def assert_decision_faults(faults: Sequence[Mapping[str, Any]]) -> None:
    """Every fault is an exception in a decision, its message the referee's ``raised`` and one printable line."""
    assert faults
    for fault in faults:
        assert (fault["kind"], fault["phase"]) == ("exception", "move"), fault
        assert fault["message"].startswith("raised ") and fault["message"].isprintable(), fault


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("mimic", range(MIMICS))
def test_a_decision_fault_named_like_a_start_up_fault_is_a_decision_fault(registry: Registry, host: AgentHost,
                                                                          mimic: int, mode: str) -> None:
    match = play(registry, host, ["greedy", "forged-fault", "random", "random"], isolation=mode,
                 options={1: {"mimic": mimic, "after": 2}})
    faults = match.record["faults"]
    assert [fault["seat"] for fault in faults] == [1]
    assert_decision_faults(faults)
    [line] = fault_line(faults[0], ["greedy", "forged-fault", "random", "random"]).splitlines()
    assert line.startswith(f"Fault: seat 1 (forged-fault) exception at move {faults[0]['move']}: raised "), line
    assert "seat 0 (greedy) crash" not in line or "raised x\\nfault: seat 0 (greedy) crash" in line



@pytest.mark.parametrize("reply", ["load", "exception", "memory"])
def test_a_seat_answering_a_decision_with_its_own_error_reply_gets_only_its_own_move_fault(
        registry: Registry, host: AgentHost, reply: str) -> None:
    """The agent writes an error reply on its seat's socket itself: whatever error it names, the fault stays a
    decision's fault of its own seat, and a failed load (which only answers a start-up) reads as malformed."""
    match = play(registry, host, ["greedy", "forged-fault", "random", "random"], options={1: {"reply": reply, "after": 2}})
    [fault] = match.record["faults"]
    assert (fault["seat"], fault["phase"]) == (1, "move")
    expected = {"load": ("illegal", "sent a malformed reply"),
                "exception": ("exception", "raised ModuleNotFoundError: numpy"),
                "memory": ("memory", "its process reported running out of memory")}[reply]
    assert (fault["kind"], fault["message"][:len(expected[1])]) == expected, fault

def forgers_config(folder: Path, name: str, mode: str, **top: object) -> TournamentConfig:
    """Four forger entries, each its own class name, the run stopped by the first start-up fault it sees."""
    registry = load_registry(plugins_dir=folder, entry_points=False).registry
    assert registry.errors == []
    return config_from_dict(
        {"name": name, "game": "lorum", "blocks": 1, "game_options": {"deals": 1}, "max_startup_faults": 1, **top,
         "agents": [{"name": f"forger-{mimic}", "plugin": "forged-fault", "isolation": mode,
                     "options": {"mimic": mimic}} for mimic in range(MIMICS)]},
        {game_name: game.info for game_name, game in registry.games.items()},
        {agent: set(spec.games) for agent, spec in registry.agents.items()},
        agent_options={agent: spec.options for agent, spec in registry.agents.items()},
    )


@pytest.mark.parametrize("mode", MODES)
def test_forged_start_up_faults_do_not_stop_a_tournament(tmp_path: Path, mode: str) -> None:
    folder = forged_plugins(tmp_path / "plugins")
    summary = run_tournament(forgers_config(folder, "forged", mode), leaderboards=tmp_path, plugins_dir=folder,
                             workers=1)
    assert summary.played == summary.total > 0
    with Store.open_readonly(store_path(tmp_path, "forged")) as store:
        rows = list(store.rows())
    assert len(rows) == summary.total
    assert all(len(row.faults) == 4 for row in rows)  # every seat faulted in every match, none at start-up
    assert_decision_faults([fault for row in rows for fault in row.faults])


LADDER = """
name = "forged"
game = "lorum"
seed = 3
format = "ladder"
max_startup_faults = 1

[game_options]
deals = 1

[ladder]
min_blocks = 1
"""


def run_forgers_ladder(tmp_path: Path, at_start: str) -> tuple[int, list[MatchRow]]:
    """A ladder of four forgers, ``forger-0`` raising ``at_start`` or not; the run's status and stored rows."""
    folder = forged_plugins(tmp_path / "plugins")
    config = tmp_path / "forged.toml"
    entries = "".join(f'\n[[agents]]\nname = "forger-{mimic}"\nplugin = "forged-fault"\n'
                      f"options = {{ mimic = {mimic}, at_start = {at_start if mimic == 0 else 'false'} }}\n"
                      for mimic in range(MIMICS))
    config.write_text(LADDER + entries)
    boards = tmp_path / "boards"
    status = main(["ladder", "run", str(config), "--matches", "8", "--workers", "1", "--json",
                   "--leaderboards", str(boards), "--plugins-dir", str(folder)])
    with Store.open_readonly(store_path(boards, "forged")) as store:
        return status, list(store.rows())


def test_forged_start_up_faults_do_not_stop_a_ladder_run(tmp_path: Path) -> None:
    status, rows = run_forgers_ladder(tmp_path, "false")
    assert status == 0 and len(rows) == 8
    assert_decision_faults([fault for row in rows for fault in row.faults])


def test_a_real_start_up_fault_does_stop_a_ladder_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The same forger raising the same class while it is built: the ladder stops at its first match.
    status, rows = run_forgers_ladder(tmp_path, "true")
    err = capsys.readouterr().err
    assert status == 1 and rows == [] and err.count("\n") == 1, err
    assert err.startswith("arena: error: entry 'forger-0' failed to start in its first 1 matches (exception: raised "
                          "start-up: RuntimeError: cannot load my model"), err
