"""Launching a match's process seats: every fork first, then every placement; nothing forked is left behind."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.plugins import Registry
from arena.referee import AgentHost, Limits, SeatPlan, play_match
from arena.referee.confinement import sandbox_level
from arena.referee.sandboxed import ProcessSeat

MODES = ["isolated", "sandboxed"]


def level_for(mode: str) -> str:
    if mode == "isolated":
        return "none"
    level = sandbox_level()
    if level == "none":
        pytest.skip("this machine offers no sandbox: run 'arena doctor'")
    return level


@pytest.mark.parametrize("mode", MODES)
def test_every_seat_is_forked_before_any_is_placed(registry: Registry, host: AgentHost, mode: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    level_for(mode)
    steps: list[tuple[str, int]] = []
    fork, place = ProcessSeat.fork, ProcessSeat.place

    def forking(seat: ProcessSeat) -> None:
        steps.append(("fork", seat.seat))
        fork(seat)

    def placing(seat: ProcessSeat) -> None:
        steps.append(("place", seat.seat))
        place(seat)

    monkeypatch.setattr(ProcessSeat, "fork", forking)
    monkeypatch.setattr(ProcessSeat, "place", placing)
    game = registry.game("lorum")
    seats = [SeatPlan(name=f"random-{seat}", spec=registry.agent("random"), seed=seat, isolation=mode)
             for seat in range(4)]
    match = play_match(game, game.info.resolve_options(4, {}), 5, seats, host=host)
    assert match.record["faults"] == []
    assert match.isolation == [mode] * 4
    # Moves into cgroups made close together share one RCU grace period (arena.referee.sandboxed.launch_all).
    assert steps == [("fork", seat) for seat in range(4)] + [("place", seat) for seat in range(4)]


@pytest.mark.parametrize("mode", MODES)
def test_a_seat_forked_and_never_placed_is_reaped_by_close(registry: Registry, host: AgentHost, mode: str) -> None:
    level = level_for(mode)
    game = registry.game("lorum")
    plan = SeatPlan(name="random", spec=registry.agent("random"), seed=1, isolation=mode)
    seat = ProcessSeat(plan, game, 0, 4, Limits(), host, mode, level)
    seat.fork()
    assert seat.forked is not None and seat.failed is None, seat.forked
    pid = seat.forked["pid"]
    assert Path(f"/proc/{pid}").exists()
    seat.close()  # e.g. a later seat of the match could not be seated: this one never starts
    assert seat.forked is None
    assert not Path(f"/proc/{pid}").exists(), f"seat process {pid} outlived its seat"
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
