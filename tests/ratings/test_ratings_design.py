"""Which interval a fit reports: clustered by block with enough blocks, conservative below, and why."""

import pytest

from arena.ratings import design, elo, plackett_luce
from arena.ratings.data import MatchOutcome, as_arrays
from arena.ratings.simulate import simulate_outcomes

TRUTH = {f"a{i}": i / 4 for i in range(6)}


def test_fewest_blocks_counts_distinct_blocks_per_agent():
    outcomes = [
        MatchOutcome("m1", "b1", ("x", "y"), (1.0, 0.0), (1, 2)),
        MatchOutcome("m2", "b1", ("y", "x"), (1.0, 0.0), (1, 2)),
        MatchOutcome("m3", "b2", ("x", "z"), (1.0, 0.0), (1, 2)),
    ]
    arrays = as_arrays(outcomes)
    assert dict(zip(arrays.agents, design.blocks_per_agent(arrays).tolist())) == {"x": 2, "y": 1, "z": 1}
    assert design.fewest_blocks(arrays) == 1


def test_enough_blocks_keep_a_design_effect_below_one():
    arrays = as_arrays(simulate_outcomes(TRUTH, blocks=60, players=4, seed=1, luck=2.0))
    assert design.fewest_blocks(arrays) >= design.CLUSTER_MIN_BLOCKS
    choice = design.choose(arrays, 0.6)
    assert choice.kind == "clustered" and choice.factor == 0.6
    table = elo.fit(simulate_outcomes(TRUTH, blocks=60, players=4, seed=1, luck=2.0))
    assert table.extras["interval_kind"] == "clustered"
    assert table.extras["design_effect"] < 1  # the blocks cancel the luck, and the intervals show it
    assert "clustered by duplicate block" in table.extras["interval_reason"]


def test_few_blocks_fall_back_to_a_labelled_conservative_interval():
    outcomes = simulate_outcomes(TRUTH, blocks=6, players=4, seed=2, luck=2.0)
    arrays = as_arrays(outcomes)
    assert design.fewest_blocks(arrays) < design.CLUSTER_MIN_BLOCKS
    assert design.choose(arrays, 0.6).factor == 1.0 and design.choose(arrays, 1.4).factor == 1.4
    for method in (elo, plackett_luce):
        table = method.fit(outcomes)
        assert table.extras["interval_kind"] == "conservative" and table.extras["design_effect"] >= 1
        assert f"played only {design.fewest_blocks(arrays)} blocks" in table.extras["interval_reason"]


@pytest.mark.parametrize("kind", ["hessian", "sandwich", "adjusted"])
def test_named_interval_kinds_are_still_available(kind):
    table = plackett_luce.fit(simulate_outcomes(TRUTH, blocks=10, players=4, seed=3), intervals=kind)
    assert table.extras["intervals"] == kind and all(r.lower < r.rating < r.upper for r in table.ratings)
