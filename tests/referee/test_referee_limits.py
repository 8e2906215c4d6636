"""Time limits: the per-move limit, the time bank, the start-up limit; trusted agents timed after the fact."""

from __future__ import annotations

import re

import pytest
from referee_helpers import play

from arena.plugins import Registry
from arena.referee import AgentHost, Limits
from arena.referee.limits import Clock

SLOW_SEAT = 1
NAMES = ["random", "bad-sleeper", "random", "random"]


def decision_moves(record: dict, seat: int) -> list[int]:
    return [index for index, entry in enumerate(record["actions"]) if entry["seat"] == seat]


def test_clock_draws_on_the_bank_only_beyond_the_move_limit() -> None:
    clock = Clock(Limits(move_seconds=1.0, bank_seconds=2.0))
    assert clock.allowance() == 3.0
    assert clock.charge(0.5) and clock.bank == 2.0
    assert clock.charge(2.5) and clock.bank == 0.5
    assert clock.allowance() == 1.5
    assert not clock.charge(1.6)


@pytest.mark.parametrize("mode", ["trusted", "isolated"])
def test_the_bank_absorbs_slow_moves_until_it_runs_out(registry: Registry, host: AgentHost, mode: str) -> None:
    # 0.6 s per decision against 0.1 s per move and a 1.2 s bank: two decisions draw 1.0 s of the bank
    # (leaving room for 100 ms of scheduling jitter each on a loaded machine), the third would overdraw it.
    limits = Limits(move_seconds=0.1, bank_seconds=1.2, startup_seconds=2.0, memory_mb=64)
    match = play(registry, host, "lorum", NAMES, seed=3, isolation=["trusted", mode, "trusted", "trusted"],
                 limits=limits, options={SLOW_SEAT: {"after": 0, "seconds": 0.6}})
    [fault] = match.record["faults"]
    assert fault["kind"] == "timeout"
    assert fault["move"] == decision_moves(match.record, SLOW_SEAT)[2]
    # The message says what that decision had: the move time plus what two slow decisions left of the bank.
    assert re.search(r"all this decision had: \d\.\d\d s \(0\.1 s per move plus 0\.[0-2]\d s left of the 1\.2 s bank\)",
                     fault["message"]), fault["message"]


def test_isolated_start_up_limit_is_separate_and_enforced(registry: Registry, host: AgentHost) -> None:
    limits = Limits(move_seconds=0.2, bank_seconds=0.0, startup_seconds=0.5, memory_mb=64)
    match = play(registry, host, "lorum", NAMES, seed=3, isolation=["trusted", "isolated", "trusted", "trusted"],
                 limits=limits, options={SLOW_SEAT: {"startup": 30}})
    [fault] = match.record["faults"]
    assert (fault["kind"], fault["phase"], fault["seat"]) == ("timeout", "startup", SLOW_SEAT)
    assert fault["message"].startswith("not ready after 0.5 s")
    # Recorded where the substitute took the seat's first decision.
    assert fault["move"] == decision_moves(match.record, SLOW_SEAT)[0]
    assert match.decisions[SLOW_SEAT] == 0


def test_a_slow_start_within_the_start_up_limit_costs_no_move_time(registry: Registry, host: AgentHost) -> None:
    limits = Limits(move_seconds=0.1, bank_seconds=0.0, startup_seconds=2.0, memory_mb=64)
    match = play(registry, host, "lorum", NAMES, seed=3, isolation="isolated", limits=limits,
                 options={SLOW_SEAT: {"startup": 0.3, "after": 1000}})
    assert match.record["faults"] == []


def test_trusted_start_up_over_the_limit_is_a_timeout_after_the_fact(registry: Registry, host: AgentHost) -> None:
    limits = Limits(move_seconds=0.2, bank_seconds=0.0, startup_seconds=0.1, memory_mb=64)
    match = play(registry, host, "lorum", NAMES, seed=3, isolation="trusted", limits=limits,
                 options={SLOW_SEAT: {"startup": 0.3}})
    [fault] = match.record["faults"]
    assert (fault["kind"], fault["phase"]) == ("timeout", "startup")
    assert re.fullmatch(r"took 0\.\d\d s to start, over the 0\.1 s start-up limit", fault["message"]), fault["message"]


def test_start_up_exception_is_a_fault(registry: Registry, host: AgentHost) -> None:
    match = play(registry, host, "lorum", NAMES, seed=3, isolation="isolated",
                 options={SLOW_SEAT: {"startup": "not a number"}})
    [fault] = match.record["faults"]
    assert (fault["kind"], fault["phase"]) == ("exception", "startup")
    assert fault["message"].startswith("raised TypeError")
