"""The Python API: arena.play_match, run_tournament, load_records and ratings.fit on records."""

from __future__ import annotations

import pytest

import arena
from arena.ratings import MatchOutcome, outcome_of
from arena.tournament.config import ConfigError

FOUR = ["greedy", "random", "random", "greedy"]


def test_play_match_names_repeats_seeds_agents_and_is_deterministic():
    first = arena.play_match("lorum", FOUR, seed=4, options={"deals": 1}, isolation="trusted")
    second = arena.play_match("lorum", FOUR, seed=4, options={"deals": 1}, isolation="trusted")
    assert first.record == second.record
    assert [seat["agent"] for seat in first.record["seats"]] == ["greedy", "random", "random-2", "greedy-2"]
    assert first.record["match"] == "lorum-4-greedy-random-random-2-greedy-2"
    assert first.record["options"] == {"players": 4, "deals": 1}
    other = arena.play_match("lorum", FOUR, seed=5, options={"deals": 1}, isolation="trusted")
    assert other.record["chance"] != first.record["chance"]


def test_play_match_errors_are_one_line_value_errors():
    with pytest.raises(ValueError, match="unknown agent 'gredy'"):
        arena.play_match("lorum", ["gredy", "random", "random", "random"])
    with pytest.raises(ValueError, match="unknown game 'lorun'"):
        arena.play_match("lorun", FOUR)
    with pytest.raises(ValueError, match="Slovak Lorum is played by 4 players, not 3"):
        arena.play_match("lorum", FOUR[:3])
    with pytest.raises(ValueError, match="agent_options has 1 entries for 4 seats"):
        arena.play_match("lorum", FOUR, agent_options=[{}])
    with pytest.raises(ValueError, match="option 'deals' must be an integer >= 1"):
        arena.play_match("lorum", FOUR, options={"deals": 0})


def test_ratings_fit_takes_records_and_outcomes_alike():
    records = [arena.play_match("lorum", FOUR, seed=seed, options={"deals": 1}, isolation="trusted").record
               for seed in range(3)]
    outcomes = [outcome_of(record) for record in records]
    assert outcomes[0] == MatchOutcome(
        match_id=records[0]["match"], block=f"deal-{records[0]['seed']}",
        agents=("greedy", "random", "random-2", "greedy-2"), scores=tuple(records[0]["result"]["scores"]),
        ranks=tuple(records[0]["result"]["ranks"]),
    )
    assert arena.ratings.fit(records, "score") == arena.ratings.fit(outcomes, "score")
    with pytest.raises(ValueError, match="finished match records with a match id"):
        arena.ratings.fit([{"seats": []}], "score")
    with pytest.raises(TypeError, match="rating method 'score' has no option 'bogus'"):
        arena.ratings.fit(records, "score", bogus=1)


def test_run_tournament_stores_what_load_records_reads(tmp_path):
    config = {
        "name": "api-test", "game": "lovat", "seed": 3, "blocks": 1, "game_options": {"players": 3},
        "agents": [{"name": "greedy"}, {"name": "random"}, {"name": "random-2", "plugin": "random"}],
        "isolation": "trusted",
    }
    summary = arena.run_tournament(config, leaderboards=tmp_path, workers=1, plugins_dir=None)
    assert summary.played == summary.total == 3  # one table, one block, three rotations
    records = arena.load_records("api-test", leaderboards=tmp_path)
    assert [record["match"] for record in records] == [
        record["match"] for record in arena.load_records(summary.store)
    ]
    assert len(records) == 3 and all(record["result"] for record in records)
    assert len({record["seed"] for record in records}) == 1  # one block: one deal in three rotations


def test_run_tournament_and_load_records_errors(tmp_path):
    with pytest.raises(ConfigError, match="agents"):
        arena.run_tournament({"name": "x", "game": "lorum", "agents": []}, leaderboards=tmp_path, workers=1)
    with pytest.raises(ValueError, match="no stored tournament at"):
        arena.load_records("never-run", leaderboards=tmp_path)


def test_unknown_attributes_of_arena_are_attribute_errors():
    with pytest.raises(AttributeError, match="module 'arena' has no attribute 'play_matches'"):
        arena.play_matches  # noqa: B018
