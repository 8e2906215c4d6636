"""The example agent's own tests: arena's conformance kit does the heavy lifting."""

from __future__ import annotations

import pytest

from arena.conformance import assert_agent_conforms


@pytest.mark.parametrize("game", ["lovat", "lorum"])
def test_example_agent_conforms(game: str) -> None:
    # Every player count, against random opponents, isolated as in a tournament: legal, in time, deterministic.
    report = assert_agent_conforms("example", game, matches=2)
    assert report.move_seconds_max is not None and report.move_seconds_max < 1.0


def test_example_beats_random_at_lorum_more_often_than_not() -> None:
    from arena.plugins import load_registry
    from arena.referee import SeatPlan, play_match
    from arena.seeding import derive_seed

    registry = load_registry(plugins_dir=None).registry
    game = registry.game("lorum")
    options = game.info.resolve_options(4, {})
    total = 0
    for seed in range(10):
        names = ["example", "random", "random", "random"]
        seats = [SeatPlan(name=name, spec=registry.agent(name), seed=derive_seed(seed, "agent", seat),
                          isolation="trusted") for seat, name in enumerate(names)]
        match = play_match(game, options, seed, seats, substitute=registry.agent("random"))
        total += match.record["result"]["scores"][0]
    assert total > 0
