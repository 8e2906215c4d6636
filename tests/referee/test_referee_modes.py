"""Isolation modes: trusted and isolated seats play the same game; who runs where; the zygote is reused."""

from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path
from typing import Any

import pytest
from referee_helpers import SMALL, plans, play, seats_left

from arena.agent import Agent, AgentSpec
from arena.plugins import Registry, load_registry
from arena.records import check_result, replay
from arena.referee import AgentHost, Limits, RefereeError, SeatPlan, play_match
from arena.referee.seats import resolve_mode

GAMES = ("lovat", "lorum")
SEATS = {"lovat": ["greedy", "random", "greedy", "random", "random"], "lorum": ["greedy", "random", "greedy", "random"]}


@pytest.mark.parametrize("game", GAMES)
def test_isolated_seats_play_exactly_as_trusted_ones(registry: Registry, host: AgentHost, game: str) -> None:
    # Observations and actions cross the process boundary as JSON and come back identical.
    trusted = play(registry, host, game, SEATS[game], seed=5, isolation="trusted")
    isolated = play(registry, host, game, SEATS[game], seed=5, isolation="isolated")
    assert trusted.record["faults"] == [] and isolated.record["faults"] == []
    # The same match, told apart only by where each seat ran.
    assert [seat.pop("isolation") for seat in trusted.record["seats"]] == ["trusted"] * len(SEATS[game])
    assert [seat.pop("isolation") for seat in isolated.record["seats"]] == ["isolated"] * len(SEATS[game])
    assert isolated.record == trusted.record
    assert trusted.isolation == ["trusted"] * len(SEATS[game])
    assert isolated.isolation == ["isolated"] * len(SEATS[game])
    assert all(memory is None for memory in trusted.peak_memory_mb)
    assert all(memory is not None and memory > 0 for memory in isolated.peak_memory_mb)
    assert [len(times) for times in isolated.move_seconds] == isolated.decisions
    check_result(isolated.record, replay(isolated.record, registry.game(game)).state.result())


@pytest.mark.parametrize("game", GAMES)
def test_mixed_seats_and_the_same_seed_twice(registry: Registry, host: AgentHost, game: str) -> None:
    modes = ["isolated", "trusted"] * 3
    first = play(registry, host, game, SEATS[game], seed=9, isolation=modes[: len(SEATS[game])])
    second = play(registry, host, game, SEATS[game], seed=9, isolation=modes[: len(SEATS[game])])
    assert first.record == second.record
    assert first.isolation == modes[: len(SEATS[game])]


def test_the_zygotes_are_started_once_and_reused(registry: Registry, host: AgentHost) -> None:
    play(registry, host, "lorum", SEATS["lorum"], seed=0, isolation="isolated")
    zygotes = host.pids
    for seed in range(1, 3):
        play(registry, host, "lorum", SEATS["lorum"], seed=seed, isolation="isolated")
        assert host.pids == zygotes
        assert seats_left(host) == []  # every agent process of the match is gone


def test_one_zygote_per_plugin(registry: Registry) -> None:
    # First-party agents and each third-party plugin get their own zygote: none is shared by two plugins.
    with AgentHost() as own:
        play(registry, own, "lorum", ["random", "bad-printer", "bad-snoop", "greedy"], isolation="isolated")
        assert len(own.pids) == 3


def test_a_host_restarts_its_zygote_if_it_died(registry: Registry) -> None:
    with AgentHost() as own:
        play(registry, own, "lorum", SEATS["lorum"], isolation="isolated")
        [first] = own.pids
        import os
        import signal

        os.kill(first, signal.SIGKILL)
        match = play(registry, own, "lorum", SEATS["lorum"], isolation="isolated")
        assert match.record["faults"] == []
        assert own.pids not in ([], [first])
    assert own.pids == []


def test_auto_trusts_first_party_agents_and_sandboxes_the_rest(registry: Registry, host: AgentHost) -> None:
    from arena.referee.confinement import sandbox_level

    level = sandbox_level()
    third = "isolated" if level == "none" else "sandboxed"
    match = play(registry, host, "lorum", ["greedy", "bad-printer", "random", "bad-snoop"], isolation="auto")
    assert match.isolation == ["trusted", third, "trusted", third]
    assert match.sandbox == ["none", level, "none", level]
    # Every record names each seat's mode and sandbox level.
    assert [(seat["isolation"], seat["sandbox"]) for seat in match.record["seats"]] == \
        list(zip(match.isolation, match.sandbox, strict=True))
    # The match-level mode applies where the seat says "auto"; a seat's own mode wins.
    seats = plans(registry, ["greedy", "bad-printer", "random", "random"], 3,
                  ["isolated", "trusted", "auto", "auto"])
    game = registry.game("lorum")
    mixed = play_match(game, game.info.resolve_options(4, {}), 3, seats, substitute=registry.agent("random"),
                       limits=SMALL, isolation="isolated", host=host)
    assert mixed.isolation == ["isolated", "trusted", "isolated", "isolated"]


def test_resolve_mode_trusts_origin_not_what_a_spec_says(registry: Registry) -> None:
    from arena.cli.human import HumanAgent
    from arena.referee.confinement import sandbox_level

    def forged(**_: Any) -> None: ...

    forged.__module__ = "arena.cli.play"  # a module name proves nothing: the code's file does
    strongest = ("isolated", "none") if sandbox_level() == "none" else ("sandboxed", sandbox_level())
    assert resolve_mode("auto", registry.agent("greedy")) == ("trusted", "none")
    assert resolve_mode("auto", AgentSpec("me", ("lorum",), HumanAgent, "", "1")) == ("trusted", "none")
    assert resolve_mode("auto", AgentSpec("forged", ("lorum",), forged, "", "1", trusted=True)) == strongest  # type: ignore[arg-type]
    assert resolve_mode("auto", registry.agent("bad-printer")) == strongest
    assert resolve_mode("trusted", registry.agent("bad-printer")) == ("trusted", "none")
    assert resolve_mode("isolated", registry.agent("greedy")) == ("isolated", "none")
    with pytest.raises(RefereeError, match="isolation 'sandbox' must be one of auto, trusted, isolated, sandboxed"):
        resolve_mode("sandbox", registry.agent("greedy"))


def test_seat_plan_rejects_an_unknown_isolation(registry: Registry) -> None:
    with pytest.raises(ValueError, match="isolation must be one of auto, trusted, isolated, sandboxed, not 'fast'"):
        SeatPlan(name="greedy", spec=registry.agent("greedy"), isolation="fast")


class LocalAgent(Agent):
    def act(self, observation: Any) -> Any:
        return observation.legal[0]


def test_an_agent_no_plugin_registers_cannot_run_isolated(registry: Registry, host: AgentHost) -> None:
    local = AgentSpec(name="local", games=("lorum",), factory=LocalAgent, description="", version="1")
    game = registry.game("lorum")
    seats = plans(registry, ["random"] * 4, 1, "trusted")
    seats[2] = SeatPlan(name="local", spec=local)
    with pytest.raises(RefereeError, match=r"agent 'local' cannot run (isolated|sandboxed).*isolation='trusted'"):
        play_match(game, game.info.resolve_options(4, {}), 1, seats, substitute=registry.agent("random"),
                   limits=SMALL, host=host)
    assert seats_left(host) == []
    seats[2] = SeatPlan(name="local", spec=local, isolation="trusted")
    match = play_match(game, game.info.resolve_options(4, {}), 1, seats, substitute=registry.agent("random"),
                       limits=SMALL, host=host)
    assert match.record["faults"] == []


def test_a_drop_in_plugin_from_another_folder_runs_isolated(tmp_path: Path, host: AgentHost) -> None:
    # The host loads tests/bad_agents; this agent lives elsewhere.  The referee tells the zygote its folder.
    # It also checks that an isolated agent is told every public event and the result.
    (tmp_path / "listener.py").write_text(textwrap.dedent('''
        import json
        from arena import hookimpl
        from arena.agent import Agent, AgentSpec

        class Listener(Agent):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                self.events = []

            def act(self, observation):
                return observation.legal[-1]

            def on_event(self, event):
                self.events.append(event)

            def on_result(self, result):
                with open(self.options["report"], "w") as out:
                    json.dump({"events": self.events, "result": result}, out)

        @hookimpl
        def arena_register_agents(register):
            register(AgentSpec(name="listener", games=("lorum",), factory=Listener, description="", version="2"))
    '''))
    loaded = load_registry(plugins_dir=tmp_path, entry_points=False).registry
    report = tmp_path / "report.json"
    seats = plans(loaded, ["random", "listener", "random", "random"], 4, "isolated", options={1: {"report": str(report)}})
    game = loaded.game("lorum")
    match = play_match(game, game.info.resolve_options(4, {}), 4, seats, substitute=loaded.agent("random"),
                       limits=SMALL, host=host)
    assert match.isolation[1] == "isolated"
    assert match.record["faults"] == []
    heard = json.loads(report.read_text())
    assert heard["result"] == match.record["result"]
    assert heard["events"] == json.loads(json.dumps(match.state.events()))


def test_prefix_and_script_still_work(registry: Registry, host: AgentHost) -> None:
    # `arena replay` plays on from a recorded prefix with the recorded chance outcomes.
    whole = play(registry, host, "lorum", SEATS["lorum"], seed=21, isolation="isolated")
    game = registry.game("lorum")
    prefix = [(entry["seat"], entry["action"]) for entry in whole.record["actions"][:10]]
    again = play_match(game, game.info.resolve_options(4, {}), 21, plans(registry, SEATS["lorum"], 21, "isolated"),
                       substitute=registry.agent("random"), script=whole.record["chance"], prefix=prefix,
                       limits=SMALL, host=host)
    assert again.record["actions"][:10] == whole.record["actions"][:10]
    assert again.record["faults"] == []


def test_limits_validate_and_read_config_tables() -> None:
    assert Limits.from_mapping({"move_seconds": 0.5, "memory_mb": 512}) == Limits(move_seconds=0.5, memory_mb=512)
    with pytest.raises(ValueError, match="unknown limit 'move_secs'"):
        Limits.from_mapping({"move_secs": 1})
    with pytest.raises(ValueError, match="move_seconds must be > 0"):
        Limits(move_seconds=0)
    with pytest.raises(ValueError, match="bank_seconds must be a number of seconds from 0 to 86400, not -1"):
        Limits(bank_seconds=-1)
    # The config's bounds hold for Limits itself: inf would overflow a socket timeout in the protocol.
    for value in (math.inf, math.nan, 86_400.5):
        with pytest.raises(ValueError, match="move_seconds must be a number of seconds from 0 to 86400"):
            Limits(move_seconds=value)
    assert Limits(move_seconds=86_400).move_seconds == 86_400
    with pytest.raises(ValueError, match="memory_mb must be a whole number"):
        Limits(memory_mb=0)
    with pytest.raises(ValueError, match="memory_mb must be a whole number of megabytes from 1 to 1,048,576"):
        Limits(memory_mb=(1 << 20) + 1)
    assert Limits(memory_mb=None).to_json()["memory_mb"] is None


def test_play_match_keeps_its_original_call(registry: Registry) -> None:
    # The signature `arena play` and `arena replay` use, with no limits, isolation or host given.
    game = registry.game("lovat")
    options = game.info.resolve_options(4, {})
    seats = [SeatPlan(name=name, spec=registry.agent(name), seed=seat) for seat, name in
             enumerate(["greedy", "random", "greedy", "random"])]
    match = play_match(game, options, 3, seats, registry.agent("random"), (), "m1", None, ())
    assert match.record["match"] == "m1"
    assert match.isolation == ["trusted"] * 4


@pytest.mark.parametrize("game", GAMES)
def test_events_from_an_offset_are_the_tail_of_the_log(registry: Registry, game: str) -> None:
    # The referee asks for the events since its last ask after every decision (GameState.events(start)).
    import random

    engine = registry.game(game)
    state = engine.new_state(3, {"players": len(SEATS[game])})
    rng = random.Random(3)
    heard: list[dict[str, Any]] = []
    while not state.is_over():
        for seat in state.to_move():
            legal = state.legal_actions(seat) or (registry.agent("random").factory(
                seat=seat, game=engine.info, players=state.players, seed=1, options={}).act(state.observation(seat)),)
            state.apply(seat, rng.choice(legal))
        whole = state.events()
        for start in (0, len(heard), len(whole), len(whole) + 2):
            assert state.events(start) == whole[start:]
        heard += state.events(len(heard))
    assert heard == state.events()


def test_a_game_whose_events_take_no_start_still_plays(registry: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    # A game plugin written before GameState.events(start): the referee slices the whole log itself.
    from arena.games.lovat.state import LovatState

    engine = registry.game("lovat")
    seats = [SeatPlan(name="random", spec=registry.agent("random"), seed=seat) for seat in range(4)]
    new = play_match(engine, {"players": 4}, 5, seats, substitute=registry.agent("random"))
    monkeypatch.setattr(LovatState, "events", lambda self: list(self.log))
    old = play_match(engine, {"players": 4}, 5, seats, substitute=registry.agent("random"))
    assert old.record == new.record


def test_sandboxed_refuses_in_one_line_without_the_full_sandbox(registry: Registry, host: AgentHost,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import arena.referee.seats

    monkeypatch.setattr(arena.referee.seats, "sandbox_level", lambda: "partial")
    with pytest.raises(RefereeError) as refused:
        play(registry, host, "lorum", ["random", "bad-printer", "random", "random"], isolation="sandboxed")
    message = str(refused.value)
    assert "\n" not in message and "only a partial one" in message and "run 'arena doctor'" in message
    assert seats_left(host) == []
    # auto takes what there is: the partial sandbox.
    assert resolve_mode("auto", registry.agent("bad-printer")) == ("sandboxed", "partial")
