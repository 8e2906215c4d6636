"""Methods by name, and the properties every method shares (empty input; order independence but TrueSkill's)."""

import math
import random
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import ratings
from arena.ratings.data import MatchOutcome
from arena.ratings.registry import method_names
from arena.ratings.simulate import simulate_outcomes

FAST_OPTIONS = {"score": {"bootstrap": 100}}


def test_every_method_is_registered_by_name():
    assert ratings.method_names() == ("elo", "plackett-luce", "trueskill", "score", "luck")
    for name in ratings.method_names():
        assert ratings.get_method(name) is ratings.METHODS[name]


def test_unknown_method_and_option_are_explained():
    with pytest.raises(ValueError, match="unknown rating method 'glicko'; choose one of elo, plackett-luce"):
        ratings.fit([], "glicko")
    with pytest.raises(TypeError, match="'elo' has no option 'alpha'; its options are prior_sd"):
        ratings.fit([], "elo", alpha=1.0)


BATCH_METHODS = ("elo", "plackett-luce", "score")
"""The methods whose result does not depend on the order of the matches (TrueSkill's does)."""


@pytest.mark.parametrize("method", BATCH_METHODS)
def test_shuffling_the_input_changes_nothing(method):
    truth = {f"agent{i}": float(s) for i, s in enumerate(np.linspace(-1, 1, 7))}
    outcomes = simulate_outcomes(truth, blocks=25, players=4, seed=11, score_step=1.0)
    expected = ratings.fit(outcomes, method, **FAST_OPTIONS.get(method, {}))
    for seed in range(3):
        shuffled = outcomes[:]
        random.Random(seed).shuffle(shuffled)
        assert ratings.fit(shuffled, method, **FAST_OPTIONS.get(method, {})) == expected


@pytest.mark.parametrize("method", ["elo", "plackett-luce", "trueskill", "score"])
def test_no_matches_give_an_empty_table(method):
    table = ratings.fit([], method)
    assert table.ratings == () and table.method == method


@pytest.mark.parametrize("method", ["elo", "plackett-luce", "trueskill", "score"])
def test_tables_are_json_and_best_first(method):
    import json

    outcomes = simulate_outcomes({"a": 1.0, "b": 0.0, "c": -1.0}, blocks=10, players=3, seed=2)
    table = ratings.fit(outcomes, method, **FAST_OPTIONS.get(method, {}))
    data = json.loads(json.dumps(table.to_json(), allow_nan=False))
    assert [r["agent"] for r in data["ratings"]] == list(table.agents)
    assert [r.rating for r in table.ratings] == sorted((r.rating for r in table.ratings), reverse=True)
    assert len(data["superiority"]) == 3


@st.composite
def small_tournaments(draw):
    agents = [f"a{i}" for i in range(draw(st.integers(2, 5)))]
    outcomes = []
    for m in range(draw(st.integers(1, 8))):
        seated = draw(st.permutations(agents))[: draw(st.integers(2, len(agents)))]
        ranks = draw(st.lists(st.integers(1, len(seated)), min_size=len(seated), max_size=len(seated)))
        outcomes.append(
            MatchOutcome(f"m{m}", f"b{m // 2}", tuple(seated), tuple(float(-r) for r in ranks), tuple(ranks))
        )
    return outcomes


@settings(max_examples=25)  # every example fits all four methods
@given(small_tournaments(), st.randoms(use_true_random=False))
def test_any_small_tournament_rates_finitely_and_order_independently(outcomes, rng):
    shuffled = outcomes[:]
    rng.shuffle(shuffled)
    for method in ratings.method_names():
        options = FAST_OPTIONS.get(method, {})
        table = ratings.fit(outcomes, method, **options)
        if method in BATCH_METHODS:
            assert ratings.fit(shuffled, method, **options) == table
        assert len(table.ratings) == len({a for o in outcomes for a in o.agents})
        assert all(math.isfinite(r.rating) for r in table.ratings)
        if method in ("elo", "plackett-luce"):
            assert table.extras["converged"]


@pytest.mark.parametrize("method", method_names())
@pytest.mark.parametrize("blocks", [3, 40])
def test_every_methods_gap_interval_excludes_zero_exactly_when_p_is_beyond_its_bounds(method: str,
                                                                                    blocks: int) -> None:
    """The documented reading: P(stronger) above 0.975 (below 0.025) when the gap's 95% interval excludes zero."""
    # The mean-based methods compare only agents that met the same opposition: everyone at one table for them.
    outcomes = simulate_outcomes({"a": 0.3, "b": 0.1, "c": 0.0, "d": -0.4, "e": 0.05}, blocks=blocks,
                                 players=5 if method in ("score", "luck") else 4, seed=5)
    table = ratings.fit(outcomes, method)
    verdicts = []
    for a in table.agents:
        for b in table.agents:
            if a != b:
                _gap, low, high = table.gap(a, b)
                p = table.probability_stronger(a, b)
                assert (low > 0 or high < 0) == (p > 0.975 or p < 0.025), (a, b, p, low, high)
                verdicts.append(p > 0.975)
    assert blocks == 3 or any(verdicts)  # the data tell some pairs apart at 40 blocks


@pytest.mark.parametrize("method", method_names())
def test_agents_that_never_met_get_no_verdict(method: str) -> None:
    """Two tables that never mix: nothing in the data compares their agents, so P is 0.5 and the gap unbounded
    between them, while within each table the method's own verdicts stand."""
    strong = simulate_outcomes({"a1": 1.0, "a2": 0.0, "a3": -1.0, "a4": -2.0}, blocks=12, players=4, seed=1)
    weak = simulate_outcomes({"b1": -3.0, "b2": -3.5, "b3": -4.0, "b4": -4.5}, blocks=12, players=4, seed=2)
    weak = [replace(outcome, match_id="w" + outcome.match_id, block="w" + outcome.block) for outcome in weak]
    table = ratings.fit([*strong, *weak], method)
    alone = ratings.fit(strong, method)
    assert table.extras["groups"] == [["a1", "a2", "a3", "a4"], ["b1", "b2", "b3", "b4"]]
    assert "2 groups that never met" in table.extras["interval_reason"]
    for a in ("a1", "a4"):
        for b in ("b1", "b4"):
            assert table.probability_stronger(a, b) == table.probability_stronger(b, a) == 0.5
            _gap, low, high = table.gap(a, b)
            assert (low, high) == (-math.inf, math.inf)
    assert table.probability_stronger("a1", "a4") > 0.975
    assert "groups" not in alone.extras
    if method != "trueskill":  # TrueSkill's result depends on the order of play, which the second table changes
        assert table.probability_stronger("a1", "a2") == pytest.approx(alone.probability_stronger("a1", "a2"),
                                                                       abs=0.05)
