"""Hostile agents at the table: reading hidden state, signals, leftovers, file-system memory, CPU theft, exits.

Each test seats the attacker where ``auto`` puts a third-party agent (the strongest sandbox here; skipped,
naming ``arena doctor``, on a machine without one), asserts the attack found or changed nothing, and that
any fault is the attacker's own.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from hostile_helpers import HOSTILE, Victim, cpu_seconds, needs_sandbox, play, processes_named, report_of

from arena import sandbox
from arena.agent import AgentSpec
from arena.cli import main
from arena.plugins import Registry, load_registry
from arena.records.seeding import derive_seed
from arena.referee import AgentHost, Limits, SeatPlan, play_match
from arena.referee.sandboxed import ProcessSeat
from arena.referee.seats import close_all
from arena.sandbox import cgroups


@pytest.fixture(autouse=True)
def _sandbox() -> None:
    needs_sandbox()


@pytest.mark.parametrize("name", ["gc-snoop", "frame-snoop"])
def test_no_game_state_in_reach(registry: Registry, host: AgentHost, name: str) -> None:
    match = play(registry, host, ["greedy", "random", name, "random"])
    assert report_of(match, 2) == {"found": []}


def test_the_same_snoop_seated_trusted_does_find_the_state(registry: Registry, host: AgentHost) -> None:
    # The attack is real: only the sandbox stops it.
    match = play(registry, host, ["greedy", "random", "gc-snoop", "random"],
                 isolation=["auto", "auto", "trusted", "auto"])
    assert "state" in report_of(match, 2)["found"]


def test_other_processes_memory_and_environment_are_unreadable(registry: Registry, host: AgentHost) -> None:
    match = play(registry, host, ["proc-snoop", "random", "greedy", "random"])
    assert report_of(match, 0)["read"] == []


def test_store_leaderboards_and_home_are_unreadable(registry: Registry, host: AgentHost, tmp_path: Path) -> None:
    boards = tmp_path / "leaderboards" / "cup"
    boards.mkdir(parents=True)
    store = boards / "results.sqlite"
    with sqlite3.connect(store) as db:
        db.execute("create table secret (key text)")
    paths = [str(store), str(boards), str(tmp_path), str(Path.cwd())]
    match = play(registry, host, ["random", "file-snoop", "random", "random"], options={1: {"paths": paths}})
    found = report_of(match, 1)
    assert set(found["opened"]) <= {found["cwd"]}  # only its own temporary folder, its working directory


def test_the_network_is_unreachable(registry: Registry, host: AgentHost) -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        match = play(registry, host, ["random", "random", "random", "net-snoop"], options={3: {"port": port}})
    assert report_of(match, 3)["connected"] is False


def test_signals_reach_neither_the_referee_nor_zygotes_nor_seats(registry: Registry, host: AgentHost) -> None:
    play(registry, host, ["random", "greedy", "leaver", "random"], isolation=["isolated", "auto", "auto", "auto"])
    zygotes = host.pids
    received: list[int] = []
    previous = signal.signal(signal.SIGUSR1, lambda number, frame: received.append(number))
    try:
        match = play(registry, host, ["random", "signal-targets", "greedy", "random"],
                     isolation=["isolated", "auto", "auto", "auto"],
                     options={1: {"targets": [os.getpid(), *zygotes]}})
    finally:
        signal.signal(signal.SIGUSR1, previous)
    found = report_of(match, 1)
    assert received == []
    assert "sent" not in found["targets"].values() and found["stopped"] == []
    assert all(pid in host.pids for pid in zygotes)  # every zygote still running


def test_killing_its_own_parent_harms_no_one_else(registry: Registry, host: AgentHost) -> None:
    # Its parent is the init of its own PID namespace, which the kernel shields from signals sent inside it:
    # whatever happens, only its own seat could fault, and the match ends.
    zygotes = set(host.pids)
    match = play(registry, host, ["random", "greedy", "random", "kill-parent"])
    assert {fault["seat"] for fault in match.record["faults"]} <= {3}
    assert "result" in match.record
    assert zygotes <= set(host.pids)


def test_no_process_outlives_its_match_or_its_host(registry: Registry) -> None:
    # leftovers.py double-forks a setsid daemon at import (discovery and zygote), in __init__ and in act.
    assert processes_named("hostile-leftover") == []  # discovery killed what the import started
    with AgentHost() as own:
        play(registry, own, ["leaver", "random", "leaver", "random"])
        play(registry, own, ["leaver", "random", "leaver", "random"], seed=4)
        during = processes_named("hostile-leftover")
        assert len(during) <= 1  # at most the zygote's own import-time daemon, inside its sandbox
    assert processes_named("hostile-leftover") == []


def test_no_file_system_memory_across_the_matches_of_a_block(registry: Registry, host: AgentHost) -> None:
    key = f"{os.getpid()}-{time.monotonic_ns()}"
    first = play(registry, host, ["rememberer", "random", "random", "random"], seed=5,
                 options={0: {"phase": "write", "key": key}})
    assert first.record["faults"] == []
    second = play(registry, host, ["rememberer", "random", "random", "random"], seed=5,
                  options={0: {"phase": "read", "key": key}})
    assert report_of(second, 0) == {"found": []}


@pytest.mark.parametrize("groups", [True, False], ids=["cgroups", "no-cgroups"])
@pytest.mark.parametrize("spinner", ["thread-spinner", "child-spinner", "forging-spinner"])
def test_a_spinning_seat_is_frozen_while_others_think(registry: Registry, host: AgentHost, spinner: str,
                                                      groups: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if not groups:  # as where the referee may make no cgroup (no root): its init stops the seat's processes
        monkeypatch.setattr(cgroups, "find", lambda: cgroups.Hierarchy("none", {}))
    started = ProcessSeat.start

    def start(seat: ProcessSeat) -> None:
        started(seat)
        Victim.spinners.append(seat)

    monkeypatch.setattr(ProcessSeat, "start", start)
    monkeypatch.setattr(Victim, "spinners", [])
    monkeypatch.setattr(Victim, "stolen", [])
    game = registry.game("lorum")
    victim = AgentSpec(name="victim", games=("lorum",), factory=Victim, description="", version="1")
    names = ["victim", spinner, "random", "random"]
    seats = [SeatPlan(name=name, spec=victim if name == "victim" else registry.agent(name),
                      seed=derive_seed(2, "agent", index), isolation="trusted" if name == "victim" else "auto")
             for index, name in enumerate(names)]
    match = play_match(game, game.info.resolve_options(4, {}), 2, seats, substitute=registry.agent("random"),
                       host=host)
    assert match.record["faults"] == [], [fault["message"] for fault in match.record["faults"]]
    assert len(Victim.stolen) >= 5
    # Four spinning threads or children would take ~0.1 CPU-second per 0.05 s turn; frozen, they take none.
    assert max(Victim.stolen) < 0.02, Victim.stolen


def test_a_freeze_right_after_a_thaw_stops_a_seat_without_cgroups(registry: Registry, host: AgentHost,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # Without a cgroup freezer the referee does not wait for a thaw, and the seat's init takes a pending freeze
    # before a pending thaw: a freeze sent while the thaw still waited would be undone by it.
    monkeypatch.setattr(cgroups, "find", lambda: cgroups.Hierarchy("none", {}))
    game = registry.game("lorum")
    plan = SeatPlan(name="child-spinner", spec=registry.agent("child-spinner"), seed=1)
    seat = ProcessSeat(plan, game, 0, 4, Limits(), host, "sandboxed", "partial")
    try:
        seat.launch()
        seat.start()
        assert seat.box is not None and seat.pid is not None and seat.box.group is None
        for _ in range(50):
            sandbox.thaw(seat.box)
            sandbox.freeze(seat.box)
        before = cpu_seconds(seat.pid)
        time.sleep(0.3)  # four spinning children would take about 0.6 CPU-seconds of two cores
        assert cpu_seconds(seat.pid) - before < 0.02
    finally:
        close_all([seat])


@pytest.mark.parametrize(("name", "raised", "phase"), [("exit-act", "SystemExit", "move"),
                                                       ("interrupt-act", "KeyboardInterrupt", "move"),
                                                       ("generator-exit-act", "GeneratorExit", "move"),
                                                       ("exit-init", "SystemExit", "startup")])
def test_base_exceptions_from_an_agent_are_its_own_fault(registry: Registry, host: AgentHost, name: str,
                                                         raised: str, phase: str) -> None:
    match = play(registry, host, ["greedy", "random", "random", name])
    [fault] = match.record["faults"]
    assert (fault["seat"], fault["kind"], fault["phase"]) == (3, "exception", phase)
    assert fault["message"].startswith(f"raised {raised}")
    assert "result" in match.record


@pytest.mark.parametrize("name", ["exit-act", "generator-exit-act", "exit-init"])
def test_base_exceptions_from_an_agent_seated_trusted_do_not_stop_the_referee(registry: Registry, host: AgentHost,
                                                                               name: str) -> None:
    match = play(registry, host, ["greedy", name, "random", "random"], isolation="trusted")
    [fault] = match.record["faults"]
    assert (fault["seat"], fault["kind"]) == (1, "exception")


@pytest.mark.slow
def test_memory_spread_over_children_is_bounded_for_the_whole_tree(registry: Registry, host: AgentHost) -> None:
    # 6 x 48 MB in child processes, under a 128 MB limit: each process alone stays under it, the tree does not.
    from arena.sandbox import probe

    if not probe().memory_limit:
        pytest.skip("no tree-wide memory bound here (cgroup memory controller): run 'arena doctor'")
    limits = Limits(move_seconds=5.0, bank_seconds=5.0, startup_seconds=10.0, memory_mb=128)
    match = play(registry, host, ["greedy", "tree-hog", "random", "random"], limits=limits)
    # However the tree is stopped (a child killed at the limit, a fork refused), only the hog's seat faults,
    # and the whole tree's peak stayed within its limit.
    [fault] = match.record["faults"]
    assert fault["seat"] == 1 and fault["kind"] in ("memory", "exception", "crash")
    assert "result" in match.record
    assert match.peak_memory_mb[1] is not None and match.peak_memory_mb[1] <= 128


@pytest.mark.parametrize("isolation", ["auto", "isolated"])
def test_no_memory_across_the_matches_of_a_block_through_the_zygote(registry: Registry, host: AgentHost,
                                                                     isolation: str) -> None:
    # Rotation 0 writes its hand into a page mapped at import time; rotation 1 (same deal, next seat) reads it.
    first = play(registry, host, ["recaller", "random", "random", "random"], seed=5, isolation=isolation,
                 options={0: {"phase": "write"}})
    assert first.record["faults"] == []
    second = play(registry, host, ["random", "recaller", "random", "random"], seed=5, isolation=isolation,
                  options={1: {"phase": "read"}})
    assert report_of(second, 1) == {"found": False, "imported_here": True}


SNOOP_PLUGIN = '''
from arena import hookimpl
from arena.agent import Agent, AgentSpec


class StoreSnoop(Agent):
    def act(self, observation):
        opened = []
        for path in self.options["paths"]:
            try:
                with open(path, "rb") as handle:
                    handle.read(16)
                opened.append(path)
            except OSError:
                pass
        raise RuntimeError("REPORT " + __import__("json").dumps({"opened": opened}))


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="store-snoop", games=("lorum",), factory=StoreSnoop, description="", version="1"))
'''


def test_the_working_directory_stays_unreadable_though_a_read_path_holds_it(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # A folder plugin that holds the working directory (and so its leaderboards): the driver's read paths drop
    # it, and so must the zygote's, though the zygote itself runs in /.
    plugin = tmp_path / "plugins" / "nest"
    work = plugin / "work"
    boards = work / "leaderboards" / "cup"
    boards.mkdir(parents=True)
    (plugin / "__init__.py").write_text(SNOOP_PLUGIN)
    store = boards / "results.sqlite"
    store.write_bytes(b"SQLite format 3\0 secret key")
    registry = load_registry(plugins_dir=tmp_path / "plugins", entry_points=False).registry
    monkeypatch.chdir(work)
    with AgentHost() as own:
        match = play(registry, own, ["store-snoop", "random", "random", "random"],
                     options={0: {"paths": [str(store), str(work / "leaderboards")]}})
    faults = match.record["faults"]
    assert [fault["seat"] for fault in faults] == [0], faults
    # Its folder holds the cwd: not even importable.
    assert faults[0]["phase"] == "startup" and faults[0]["message"].startswith("its process could not load the agent: "
                                                                               "agent 'store-snoop' is not registered")


def test_the_users_environment_does_not_reach_an_agent(registry: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    # Whatever an agent reads it can publish in a fault message, on the leaderboard.
    monkeypatch.setenv("ARENA_TEST_TOKEN", "hostile-visible-secret")
    with AgentHost() as own:  # zygotes started now, with the variable set
        match = play(registry, own, ["env-snoop", "random", "random", "random"],
                     options={0: {"look_for": "hostile-visible-secret"}})
    found = report_of(match, 0)
    assert found["found"] == [] and found["count"] > 0


def test_a_fault_message_carries_no_terminal_escapes(registry: Registry, host: AgentHost) -> None:
    match = play(registry, host, ["random", "random", "escaper", "random"])
    faults = match.record["faults"]
    assert [fault["seat"] for fault in faults] == [2], faults
    assert faults[0]["message"].startswith("raised RuntimeError: \\x1b[2J\\x1b]0;arena: seat 2 crashed\\x07\\x9b31m")
    assert all(char.isprintable() for char in faults[0]["message"])


def test_a_seat_that_stalls_start_up_times_out_no_other_seat(registry: Registry, host: AgentHost,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # The referee waits for seat 0 to its deadline, then tears it down (slowly, here: a big tree takes time);
    # the seats after it were ready long before, and must not be charged for the referee's lateness.
    stop = ProcessSeat._stop

    def slow_stop(self: ProcessSeat, fault: Any) -> Any:
        if self.seat == 0:
            time.sleep(0.5)
        return stop(self, fault)

    monkeypatch.setattr(ProcessSeat, "_stop", slow_stop)
    limits = Limits(move_seconds=2.0, bank_seconds=2.0, startup_seconds=1.0, memory_mb=256)
    match = play(registry, host, ["staller", "random", "greedy", "random"], limits=limits,
                 isolation=["auto", "sandboxed", "sandboxed", "sandboxed"])
    faults = match.record["faults"]
    assert [fault["seat"] for fault in faults] == [0], faults
    assert faults[0]["kind"] == "timeout"


MODES = {"trusted": "trusted", "isolated": "isolated", "auto": "sandboxed"}
"""The mode a third-party agent gets for each isolation asked for (auto: the sandbox, the default)."""


@pytest.mark.parametrize("isolation", ["trusted", "isolated", "auto"])
def test_an_exception_in_on_event_is_the_seats_fault_and_the_substitute_plays_on(registry: Registry, host: AgentHost,
                                                                                 isolation: str) -> None:
    # auto seats a third-party agent sandboxed: the default a user gets.
    match = play(registry, host, ["greedy", "event-raises", "random", "random"], isolation=isolation)
    assert match.isolation[1] == MODES[isolation]
    [fault] = match.record["faults"]
    assert (fault["seat"], fault["kind"], fault["phase"]) == (1, "exception", "move")
    assert fault["message"].startswith("on_event raised ValueError: bad event handling")
    assert match.record["seats"][1]["faulted"] is True
    # Reported at the seat's next decision in every mode, so each mode's record is the same.
    reference = play(registry, host, ["greedy", "event-raises", "random", "random"], isolation="trusted")
    assert (match.record["actions"], fault["move"]) == (reference.record["actions"], reference.record["faults"][0]["move"])
    assert match.record["actions"][fault["move"]]["seat"] == 1  # the substitute's action stands at that move


@pytest.mark.parametrize("isolation", ["trusted", "auto"])
def test_system_exit_in_on_event_is_the_seats_fault(registry: Registry, host: AgentHost, isolation: str) -> None:
    match = play(registry, host, ["greedy", "random", "event-exits", "random"], isolation=isolation)
    [fault] = match.record["faults"]
    assert (fault["seat"], fault["kind"], fault["phase"]) == (2, "exception", "move")
    assert fault["message"].startswith("on_event raised SystemExit: 3")


@pytest.mark.parametrize("isolation", ["trusted", "isolated", "auto"])
def test_an_exception_in_on_result_is_the_seats_fault_at_the_end(registry: Registry, host: AgentHost,
                                                                 isolation: str) -> None:
    match = play(registry, host, ["result-raises", "random", "random", "greedy"], isolation=isolation)
    assert match.isolation[0] == MODES[isolation]
    [fault] = match.record["faults"]
    assert (fault["seat"], fault["kind"], fault["phase"]) == (0, "exception", "end")
    assert fault["move"] == len(match.record["actions"])  # after the last action: nothing was substituted
    assert fault["message"].startswith("on_result raised KeyError: 'scores'")
    assert match.record["seats"][0]["faulted"] is True


def test_notification_faults_are_in_the_json_the_record_and_its_replay(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    # The command an author debugging their agent runs, under the default isolation (auto: sandboxed).
    record = tmp_path / "game.json"
    assert main(["play", "lovat", "--plugins-dir", str(HOSTILE), "--agents", "event-raises,random,result-raises,random",
                 "--seed", "1", "--json", "--record", str(record)]) == 0
    faults = json.loads(capsys.readouterr().out)["faults"]
    assert [(fault["seat"], fault["phase"], fault["message"].split(" (at ")[0]) for fault in faults] == [
        (0, "move", "on_event raised ValueError: bad event handling"),
        (2, "end", "on_result raised KeyError: 'scores'")]
    assert main(["replay", str(record), "--log"]) == 0
    out = capsys.readouterr().out
    assert "Fault: seat 2 (result-raises) exception at the end: on_result raised KeyError: 'scores' (at" in out
