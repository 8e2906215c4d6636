"""Faults: every bad agent's match finishes, the fault is recorded right, and the other seats cannot tell.

Each bad agent (tests/bad_agents) plays randomly for two decisions and then
misbehaves, so its fault lands on its third decision.  The check that the
other seats are unaffected replays the match with the bad seat played by its
recorded actions up to the fault and by a fresh substitute after it: the two
matches must agree action for action.
"""

from __future__ import annotations

from typing import Any

import pytest
from referee_helpers import BAD_AGENTS, SMALL, play, replaced_from_fault, seats_left

from arena.plugins import Registry
from arena.records import check_result, replay
from arena.referee import FAULT_KINDS, AgentHost, Limits
from arena.referee.faults import describe_exception

ROOMY = Limits(move_seconds=5.0, bank_seconds=0.0, startup_seconds=5.0, memory_mb=64)
"""For the faults that are not about time: a loaded machine must not turn them into timeouts."""

BAD_SEAT = 1
AFTER = 2  # good decisions before the misbehaviour

# (agent, options, expected kind, modes it can be tested in)
CASES: list[tuple[str, dict[str, Any], str, tuple[str, ...]]] = [
    ("bad-raises", {}, "exception", ("trusted", "isolated")),
    ("bad-garbage", {"value": "object"}, "illegal", ("trusted", "isolated")),
    ("bad-garbage", {"value": "dict"}, "illegal", ("trusted", "isolated")),
    ("bad-garbage", {"value": "none"}, "illegal", ("isolated",)),
    ("bad-garbage", {"value": "list"}, "illegal", ("trusted",)),
    ("bad-illegal", {}, "illegal", ("trusted", "isolated")),
    ("bad-sleeper", {"seconds": 0.6}, "timeout", ("trusted",)),  # trusted: measured after the fact
    ("bad-sleeper", {"seconds": 30}, "timeout", ("isolated",)),  # isolated: killed at the limit
    ("bad-looper", {}, "timeout", ("isolated",)),  # a trusted loop cannot be pre-empted
    ("bad-hog", {}, "memory", ("isolated",)),  # trusted: would exhaust the test process
    ("bad-exiter", {}, "crash", ("isolated",)),  # trusted: would end the test process
]

PARAMS = [
    pytest.param(agent, options, kind, mode, game, id=f"{agent}-{'-'.join(map(str, options.values()))}-{mode}-{game}")
    for agent, options, kind, modes in CASES
    for mode in modes
    for game in ("lovat", "lorum")
]


def names_for(game: str, bad: str) -> list[str]:
    return ["greedy", bad, "random", "greedy"]


def bad_move(record: dict, seat: int, decisions: int) -> int:
    """Index in the record's actions of ``seat``'s decision number ``decisions`` (0-based)."""
    moves = [index for index, entry in enumerate(record["actions"]) if entry["seat"] == seat]
    return moves[decisions]


@pytest.mark.parametrize(("agent", "options", "kind", "mode", "game"), PARAMS)
def test_fault_is_recorded_and_the_other_seats_cannot_tell(
    registry: Registry, host: AgentHost, agent: str, options: dict, kind: str, mode: str, game: str
) -> None:
    names = names_for(game, agent)
    isolation = ["trusted"] * len(names)
    isolation[BAD_SEAT] = mode
    limits = SMALL if kind == "timeout" else ROOMY
    match = play(registry, host, game, names, seed=11, isolation=isolation, limits=limits,
                 options={BAD_SEAT: dict(options, after=AFTER)})
    record = match.record
    assert "result" in record  # the match finished
    assert [fault["kind"] for fault in record["faults"]] == [kind]
    fault = record["faults"][0]
    assert fault["seat"] == BAD_SEAT
    assert fault["kind"] in FAULT_KINDS and fault["message"]
    assert fault["phase"] == "move"  # every one of these agents builds cleanly, then faults in a decision
    if agent != "bad-illegal":  # the illegal agent waits for a decision with a menu of actions
        assert fault["move"] == bad_move(record, BAD_SEAT, AFTER)
    assert record["seats"][BAD_SEAT]["faulted"] is True
    assert all("faulted" not in entry for seat, entry in enumerate(record["seats"]) if seat != BAD_SEAT)
    assert match.isolation[BAD_SEAT] == mode
    # The record replays through the engine: every action, the substitute's included, is legal.
    replayed = replay(record, registry.game(game))
    check_result(record, replayed.state.result())
    # The same match with the substitute from the fault point on is the same match.
    reference = replaced_from_fault(registry, game, names, 11, BAD_SEAT, record)
    assert reference.record["faults"] == []
    assert reference.record["actions"] == record["actions"]
    assert reference.record["result"] == record["result"]
    if mode == "isolated":
        assert seats_left(host) == []  # the agent's process was stopped and reaped


@pytest.mark.parametrize("agent", ["bad-raises", "bad-garbage", "bad-exiter"])
def test_a_fault_in_the_simultaneous_keep(registry: Registry, host: AgentHost, agent: str) -> None:
    # Lovat's keep: every seat decides at once; seat 1's keep stands at index 1 of the actions.
    names = ["greedy", agent, "random", "greedy"]
    match = play(registry, host, "lovat", names, seed=12, isolation=["trusted", "isolated", "trusted", "isolated"],
                 limits=ROOMY, options={1: {"after": 0}})
    [fault] = match.record["faults"]
    assert fault["seat"] == 1 and fault["move"] == 1
    assert match.record["actions"][1]["seat"] == 1
    reference = replaced_from_fault(registry, "lovat", names, 12, 1, match.record)
    assert reference.record["actions"] == match.record["actions"]


def test_illegal_action_is_never_fixed(registry: Registry, host: AgentHost) -> None:
    match = play(registry, host, "lorum", ["random", "bad-illegal", "random", "random"], isolation="isolated",
                 limits=ROOMY, options={1: {"after": 0}})
    [fault] = match.record["faults"]
    assert fault["kind"] == "illegal"
    assert "is not one of the legal actions" in fault["message"]
    # The action that stands at the fault is the substitute's legal choice, not a "corrected" version.
    played = match.record["actions"][fault["move"]]
    assert played["seat"] == 1


def test_isolated_timeout_kills_the_process_at_the_limit(registry: Registry, host: AgentHost) -> None:
    limits = Limits(move_seconds=0.2, bank_seconds=0.0, startup_seconds=2.0, memory_mb=64)
    match = play(registry, host, "lorum", ["random", "bad-looper", "random", "random"], isolation="isolated",
                 limits=limits, options={1: {"after": 0}})
    [fault] = match.record["faults"]
    assert fault["kind"] == "timeout"
    assert "killed" in fault["message"]
    assert match.think_seconds[1] < 1.0  # stopped at 0.2 s, not waited for
    assert seats_left(host) == []


def test_a_fault_in_every_seat_still_finishes(registry: Registry, host: AgentHost) -> None:
    names = ["bad-raises", "bad-exiter", "bad-garbage", "bad-illegal"]
    match = play(registry, host, "lorum", names, isolation="isolated", limits=ROOMY,
                 options={seat: {"after": seat} for seat in range(4)})
    assert "result" in match.record
    assert sorted(fault["seat"] for fault in match.record["faults"]) == [0, 1, 2, 3]
    assert all(entry["faulted"] for entry in match.record["seats"])


def test_bad_agents_folder_is_a_plugins_folder() -> None:
    assert sorted(path.stem for path in BAD_AGENTS.glob("*.py")) == [
        "exiter", "garbage", "hog", "illegal", "looper", "printer", "raises", "rememberer", "sleeper", "snoop",
        "unsteady",
    ]
    assert SMALL.move_seconds <= 0.2


def test_an_exception_whose_message_cannot_be_read_is_still_described() -> None:
    class Unreadable(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no message for you")

    try:
        raise Unreadable
    except Unreadable as error:
        described = describe_exception(error)
    assert described.startswith("Unreadable: (its message could not be read) (at test_referee_faults.py:")


class Sly(str):
    """An in-process agent's card id: counts every call of the code it defines, and would pass as any card."""

    calls = 0

    def __eq__(self, other: object) -> bool:
        Sly.calls += 1
        return True

    def __hash__(self) -> int:
        Sly.calls += 1
        return 0

    def __lt__(self, other: str) -> bool:
        Sly.calls += 1
        return True


class SlyTuple(tuple):
    """A keep whose iteration, called by anyone but the built-in tuple, yields other cards."""

    def __iter__(self) -> Any:
        Sly.calls += 1
        return iter(("L1-01",) * len(self))


def test_the_engine_gets_exact_strings_and_the_agents_code_never_runs() -> None:
    # A trusted (in-process) agent's str or tuple subclass runs none of its code in the checks, and only exact
    # copies go on to the engine, the state and the other seats' observations (L-5 keeps, plays alike).
    from arena.games.lovat import GAME
    from arena.referee.faults import Fault, check_action

    state = GAME.new_state(5, {"players": 4})
    observation = state.observation(0)
    Sly.calls = 0
    card = Sly(observation.dealt[0])
    with pytest.raises(Fault, match="illegal action"):
        check_action(GAME, observation, card)  # a single card is no keep, however it compares
    assert Sly.calls == 0
    from arena_agents.lovat import GreedyLovatAgent

    legal = GreedyLovatAgent(seat=0, game=GAME.info, players=4, seed=0, options={}).act(observation)
    for sly in (tuple(map(Sly, legal)), SlyTuple(map(Sly, legal)), list(map(Sly, legal))):
        exact = check_action(GAME, observation, sly)
        assert exact == legal and type(exact) is tuple and all(type(card) is str for card in exact)
    assert Sly.calls == 0
    with pytest.raises(Fault, match="not an action"):
        check_action(GAME, observation, (legal[0], 5))
