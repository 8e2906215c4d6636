"""The synthetic tournament generator used by the rating tests."""

import numpy as np
import pytest

from arena.ratings.simulate import simulate_outcomes


def test_duplicate_blocks_rotate_the_same_agents_through_every_seat():
    outcomes = simulate_outcomes({"a": 0.0, "b": 1.0, "c": 2.0, "d": 3.0}, blocks=5, players=3, seed=1)
    assert len(outcomes) == 15
    for b in range(5):
        block = [o for o in outcomes if o.block == f"b{b:06d}"]
        assert len(block) == 3
        assert len({frozenset(o.agents) for o in block}) == 1
        for seat in range(3):
            assert len({o.agents[seat] for o in block}) == 3


def test_ranks_are_competition_ranks_of_the_scores():
    outcomes = simulate_outcomes({"a": 0.0, "b": 0.0, "c": 0.0}, blocks=30, players=3, seed=2, score_step=2.0)
    assert any(len(set(o.ranks)) < 3 for o in outcomes)
    for o in outcomes:
        for score, rank in zip(o.scores, o.ranks):
            assert rank == 1 + sum(other > score for other in o.scores)


def test_same_seed_same_outcomes_and_luck_cancels_in_a_block():
    truth = {"a": 0.0, "b": 0.5, "c": 1.0}
    same = simulate_outcomes(truth, blocks=3, players=3, seed=4)
    assert same == simulate_outcomes(truth, blocks=3, players=3, seed=4)
    assert same != simulate_outcomes(truth, blocks=3, players=3, seed=5)
    lucky = simulate_outcomes(truth, blocks=1, players=3, seed=6, luck=100.0)
    seat_means = np.mean([o.scores for o in lucky], axis=0)
    assert np.ptp(seat_means) > 10  # the deal favours a seat...
    agent_means = [np.mean([s for o in lucky for a, s in zip(o.agents, o.scores) if a == x]) for x in truth]
    assert np.ptp(agent_means) < 10  # ...but every agent sat there once


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="players=4"):
        simulate_outcomes({"a": 0.0, "b": 0.0}, blocks=1, players=4)
    with pytest.raises(ValueError, match="model='bradley'"):
        simulate_outcomes({"a": 0.0, "b": 0.0}, blocks=1, players=2, model="bradley")


def test_independent_deals_give_every_match_its_own_block_and_luck():
    truth = {"a": 0.0, "b": 0.5, "c": 1.0}
    blocks = simulate_outcomes(truth, blocks=2, players=3, seed=8, luck=5.0)
    independent = simulate_outcomes(truth, blocks=2, players=3, seed=8, luck=5.0, design="independent")
    assert [o.agents for o in blocks] == [o.agents for o in independent]  # same seatings
    assert len({o.block for o in independent}) == 6 and all(o.block == o.match_id for o in independent)
    assert len({o.block for o in blocks}) == 2
    with pytest.raises(ValueError, match="design='shared'"):
        simulate_outcomes(truth, blocks=1, players=2, design="shared")
