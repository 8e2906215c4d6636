"""``benchmarks/search_ab.py``: a paired comparison of two search agents; identical agents tie exactly."""

from __future__ import annotations

import pytest

from benchmarks.search_ab import main


def test_the_same_agent_against_itself_ties_exactly_on_every_seed(capsys: pytest.CaptureFixture[str]) -> None:
    cheap = '{"iterations": 8}'
    main(["lorum", "--deals", "1", "--seeds", "2", "--candidate-options", cheap, "--current-options", cheap])
    out = capsys.readouterr().out
    assert "seeds 1000..1001, each in 4 seats against greedy (8 games per agent)" in out
    assert "paired, candidate - current: +0.000 ranks (95% CI +0.000 .. +0.000)" in out
    assert out.count("CPU per decision mean") == 2


def test_another_opponent_takes_greedys_seats_and_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    """Greedy as the current agent gains exactly nothing over greedy, and something over random ones."""
    base = ["lorum", "--deals", "1", "--seeds", "2", "--candidate-options", '{"iterations": 8}', "--current", "greedy"]
    greedy = "current arena_agents.lorum:GreedyLorumAgent {}: rank gain over"
    level = "+0.000 ranks (95% CI +0.000 .. +0.000)"
    main(base)
    assert f"{greedy} greedy {level}" in capsys.readouterr().out
    opponent = "arena_agents.lorum:RandomLorumAgent"
    main([*base, "--opponent", opponent])
    out = capsys.readouterr().out
    assert f"seeds 1000..1001, each in 4 seats against {opponent} (8 games per agent)" in out
    assert f"{greedy} {opponent} " in out
    assert f"{greedy} {opponent} {level}" not in out
    main([*base, "--opponent", "cautious"])  # a reference heuristic by name
    out = capsys.readouterr().out
    assert "each in 4 seats against cautious (8 games per agent)" in out and f"{greedy} cautious " in out


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["lovat", "--players", "7"], "--players: Lovat is played by 3 to 6 players, not 7"),
        (["lorum", "--candidate", "nowhere"],
         "--candidate: an agent is module:Class or a first-party agent's name (greedy, search, counting, "),
        (["lorum", "--opponent", "sniper"], "--opponent: agent 'sniper' plays lovat, not lorum"),
        (["lorum", "--candidate", "arena_agents.lorum:Missing"], "cannot load agent 'arena_agents.lorum:Missing'"),
        (["lorum", "--current-options", "[1]"], "--current-options: agent options must be a JSON object, not '[1]'"),
        (["lorum", "--opponent", "arena_agents.lorum:Missing"], "--opponent: cannot load agent 'arena_agents.lorum:Missing'"),
        (["lorum", "--opponent", ":X"], "--opponent: cannot load agent ':X'"),
        (["lorum", "--opponent", "json:dumps"], "--opponent: 'json:dumps' is not an agent class"),
    ],
)
def test_bad_arguments_are_named_in_one_line(
    arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(arguments)
    assert stop.value.code == 2
    assert message in capsys.readouterr().err


def test_an_agent_for_the_other_game_fails_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """A class written for Lovat seated in Lorum: the first game it fails names it, the seat and seed, no traceback."""
    with pytest.raises(SystemExit) as stop:
        main(["lorum", "--opponent", "arena_agents.lovat:GreedyLovatAgent", "--seeds", "2", "--deals", "1"])
    assert stop.value.code == 1
    err = capsys.readouterr().err
    assert ": error: arena_agents.lovat:GreedyLovatAgent failed in seat 0 of seed 1000: " in err.splitlines()[-1]
    assert "Traceback" not in err
