"""TrueSkill against the ``trueskill`` package, free-for-all with 2–6 seats and draws."""

import math
import random

import numpy as np
import pytest
import trueskill
from scipy.stats import t as student_t

from arena.ratings import trueskill as ts
from arena.ratings import trueskill_compiled, trueskill_match
from arena.ratings.data import MatchOutcome, as_arrays
from arena.ratings.simulate import simulate_outcomes


def strengths(n, spread=1.5):
    return {f"agent{i}": float(s) for i, s in enumerate(np.linspace(-spread, spread, n))}


def mixed_tournament(seed, blocks_per_size=6):
    """Free-for-all matches of 2 to 6 seats with frequent draws, shuffled."""
    truth = strengths(9)
    outcomes = []
    for players in (2, 3, 4, 5, 6):
        played = simulate_outcomes(truth, blocks=blocks_per_size, players=players, seed=seed + players, score_step=1.0)
        for o in played:
            tag = f"p{players}-"
            outcomes.append(MatchOutcome(tag + o.match_id, tag + o.block, o.agents, o.scores, o.ranks))
    random.Random(seed).shuffle(outcomes)
    return outcomes


PACKAGE = {"tau": ts.PACKAGE_TAU, "draw_probability": ts.PACKAGE_DRAW_PROBABILITY}
"""The package's own defaults where ours differ (dynamics, draw probability)."""


def reference_ratings(outcomes, backend=None, **constants):
    """The trueskill package, match by match in the order given (the order played)."""
    env = trueskill.TrueSkill(
        mu=constants.get("mu", ts.MU),
        sigma=constants.get("sigma", ts.SIGMA),
        beta=constants.get("beta", ts.BETA),
        tau=constants.get("tau", ts.PACKAGE_TAU),
        draw_probability=constants.get("draw_probability", ts.PACKAGE_DRAW_PROBABILITY),
        backend=backend,
    )
    ratings = {}
    for o in outcomes:
        groups = [(ratings.get(a, env.create_rating()),) for a in o.agents]
        for a, (rating,) in zip(o.agents, env.rate(groups, ranks=[r - 1 for r in o.ranks])):
            ratings[a] = rating
    return ratings


def assert_same(table, reference, **tolerance):
    for agent, rating in reference.items():
        assert table.extras["mu"][agent] == pytest.approx(rating.mu, **tolerance)
        assert table.extras["sigma"][agent] == pytest.approx(rating.sigma, **tolerance)


def test_constants_are_trueskills_defaults_but_dynamics_and_draws():
    assert (ts.MU, ts.SIGMA, ts.BETA, ts.PACKAGE_TAU, ts.PACKAGE_DRAW_PROBABILITY) == (
        trueskill.MU,
        trueskill.SIGMA,
        trueskill.BETA,
        trueskill.TAU,
        trueskill.DRAW_PROBABILITY,
    )
    assert ts.MIN_DELTA == trueskill.DELTA
    assert ts.TAU == 0.0 and ts.DRAW_PROBABILITY == "observed"  # a batch: no dynamics, draws as observed


def test_matches_the_reference_with_exact_normal_functions():
    outcomes = mixed_tournament(seed=1)
    assert sum(len(set(o.ranks)) < len(o.ranks) for o in outcomes) > 50  # plenty of draws
    table = ts.fit(outcomes, **PACKAGE, intervals="posterior")
    assert_same(table, reference_ratings(outcomes, backend="scipy"), abs=1e-9)


def test_our_defaults_match_the_reference_configured_like_them():
    outcomes = mixed_tournament(seed=8)
    table = ts.fit(outcomes)  # tau = 0, the observed draw share, the jackknife interval
    observed = table.extras["environment"]["draw_probability"]
    assert 0.15 < observed < 0.5 and table.extras["environment"]["tau"] == 0.0
    assert_same(table, reference_ratings(outcomes, backend="scipy", tau=0.0, draw_probability=observed), abs=1e-9)


def test_the_order_played_is_the_order_rated():
    outcomes = mixed_tournament(seed=9, blocks_per_size=3)
    backwards = outcomes[::-1]
    forwards_table, backwards_table = ts.fit(outcomes), ts.fit(backwards)
    assert forwards_table.extras["mu"] != backwards_table.extras["mu"]  # TrueSkill depends on the order...
    observed = forwards_table.extras["environment"]["draw_probability"]
    reference = reference_ratings(backwards, backend="scipy", tau=0.0, draw_probability=observed)
    assert_same(backwards_table, reference, abs=1e-9)  # ...and follows the input's


def test_observed_draw_probability_is_the_share_of_tied_pairs():
    outcomes = [
        MatchOutcome("m1", "b1", ("a", "b", "c", "d"), (3.0, 3.0, 1.0, 0.0), (1, 1, 3, 4)),  # 1 tied pair of 6
        MatchOutcome("m2", "b2", ("a", "b", "c"), (1.0, 1.0, 1.0), (1, 1, 1)),  # 3 of 3
    ]
    assert ts.observed_draw_probability(as_arrays(outcomes)) == pytest.approx(4 / 9)
    assert ts.fit(outcomes).extras["environment"]["draw_probability"] == pytest.approx(4 / 9)


def test_sigma_keeps_shrinking_with_data_by_default():
    truth = strengths(8)
    short, long = (simulate_outcomes(truth, blocks=b, players=4, seed=10) for b in (100, 1600))
    ours = [np.mean(list(ts.fit(o, intervals="posterior").extras["sigma"].values())) for o in (short, long)]
    package = [
        np.mean(list(ts.fit(o, **PACKAGE, intervals="posterior").extras["sigma"].values())) for o in (short, long)
    ]
    assert ours[1] < 0.3 * ours[0]  # 16 times the data: about a quarter of the sigma
    assert package[1] > 0.6 * package[0]  # the package's dynamics keep sigma from shrinking


def test_matches_the_reference_with_its_default_backend():
    # trueskill's default backend approximates erfc (relative error ~1e-7), which moves its
    # draw margin by 2e-7 and mu by up to a few 1e-6: compare to 1e-6 relative.
    outcomes = mixed_tournament(seed=2, blocks_per_size=3)
    table = ts.fit(outcomes, **PACKAGE, intervals="posterior")
    assert_same(table, reference_ratings(outcomes), rel=1e-6)


def test_matches_the_reference_with_other_constants():
    constants = {"mu": 0.0, "sigma": 2.0, "beta": 1.5, "tau": 0.05, "draw_probability": 0.3}
    outcomes = mixed_tournament(seed=3, blocks_per_size=3)
    table = ts.fit(outcomes, **constants, intervals="posterior")
    assert_same(table, reference_ratings(outcomes, backend="scipy", **constants), abs=1e-9)


def random_matches(seed, matches=600, agents=12):
    """Random free-for-all matches of 2 to 6 seats in random order, with frequent ties."""
    rng = np.random.default_rng(seed)
    outcomes = []
    for index in range(matches):
        seats = int(rng.integers(2, 7))
        chosen = rng.choice(agents, size=seats, replace=False)
        scores = rng.integers(0, 3, size=seats).astype(float)
        ranks = [1 + int(np.sum(scores > s)) for s in scores]
        outcomes.append(MatchOutcome(f"m{index}", f"b{index}", tuple(f"agent{a}" for a in chosen), tuple(scores),
                                     tuple(ranks)))
    return outcomes


@pytest.mark.parametrize(("seed", "constants"), [
    (7, {}),
    (8, {"tau": ts.PACKAGE_TAU, "draw_probability": 0.3}),
    (9, {"mu": 0.0, "sigma": 2.0, "beta": 1.5, "draw_probability": 0.6}),
])
def test_compiled_kernel_equals_the_plain_python_update(monkeypatch, seed, constants):
    arrays = as_arrays(random_matches(seed))
    env = ts.Environment(**constants)
    monkeypatch.setattr(ts, "COMPILED_FROM", 10**9)
    plain = ts.rate(arrays, env)
    monkeypatch.setattr(ts, "COMPILED_FROM", 1)
    compiled = ts.rate(arrays, env)
    assert np.all(np.isfinite(compiled[0])) and np.all(compiled[1] > 0)
    assert np.allclose(compiled[0], plain[0], rtol=1e-12, atol=1e-9)
    assert np.allclose(compiled[1], plain[1], rtol=1e-12, atol=1e-12)


def test_compiled_tails_equal_scipys_including_huge_upsets():
    """The truncation corrections over standardised differences far into the log-space tails.

    ``v`` agrees to 1e-12; ``w = v (v + t)`` loses digits to cancellation in the far tail (``v + t`` is
    about ``1 / |t|``), so it agrees to 1e-8 there (it lies in [0, 1)).
    """
    for draw in (False, True):
        for margin in (0.0, 0.05, 0.7, 3.0):
            if draw and margin == 0.0:
                continue  # a draw needs a margin
            for x in np.concatenate([np.linspace(-80.0, 80.0, 161), [-35.5, -30.0, -29.9, -20.0, 6.0, 6.1]]):
                expected = trueskill_match._scalar_v_w(float(x), margin, draw)
                got = trueskill_compiled._v_w(float(x), margin, draw)
                assert got[0] == pytest.approx(expected[0], rel=1e-12, abs=1e-300), (x, margin, draw)
                assert got[1] == pytest.approx(expected[1], rel=1e-12, abs=1e-8), (x, margin, draw)


def test_compiled_kernel_keeps_the_order_played(monkeypatch):
    outcomes = random_matches(10, matches=300)
    arrays = as_arrays(outcomes)
    monkeypatch.setattr(ts, "COMPILED_FROM", 1)
    in_order = ts.rate(arrays)
    reference = reference_ratings(outcomes, backend="scipy", tau=0.0)  # once: the package takes seconds a fit
    assert np.allclose(in_order[0], [reference[a].mu for a in arrays.agents], rtol=0, atol=1e-9)
    reordered = ts.rate(as_arrays(outcomes[::-1]))
    assert not np.allclose(in_order[0], reordered[0][[as_arrays(outcomes[::-1]).agents.index(a)
                                                      for a in arrays.agents]], atol=1e-6)


def test_report_centred_mu_jackknife_interval_and_conservative_extra():
    outcomes = mixed_tournament(seed=6)
    table = ts.fit(outcomes)
    mu = table.extras["mu"]
    level = np.mean(list(mu.values()))
    assert table.extras["interval_kind"] == "jackknife" and table.extras["jackknife_groups"] == ts.JACKKNIFE_GROUPS
    for row in table.ratings:
        assert row.rating == pytest.approx(mu[row.agent] - level + ts.MU)  # ranked by mu, re-centred
        assert row.lower < row.rating < row.upper
        assert row.upper - row.rating == pytest.approx(row.rating - row.lower)
        conservative = mu[row.agent] - 3 * table.extras["sigma"][row.agent]
        assert table.extras["conservative"][row.agent] == pytest.approx(conservative)
    assert [r.rating for r in table.ratings] == sorted((r.rating for r in table.ratings), reverse=True)
    a, b = table.agents[0], table.agents[1]
    gap, low, high = table.gap(a, b)
    assert low < gap < high and gap == pytest.approx(mu[a] - mu[b])
    spread = table.contrast_sd[0][1]
    df = ts.JACKKNIFE_GROUPS - 1  # P and the gap's interval from the t the agents' intervals use
    assert table.probability_stronger(a, b) == pytest.approx(student_t.cdf(gap / spread, df))
    assert high - gap == pytest.approx(student_t.ppf(0.975, df) * spread)


def test_every_match_drawn_says_nothing_about_who_is_stronger():
    """All draws: the ratings are level up to rounding noise, which must not read as certainty."""
    outcomes = [MatchOutcome(match_id=f"m{i}", block=f"b{i // 4}", agents=("a", "b", "c", "d"),
                             scores=(0.0,) * 4, ranks=(1, 1, 1, 1), faults=()) for i in range(40)]
    table = ts.fit(outcomes)
    assert {round(row.rating, 6) for row in table.ratings} == {ts.MU}
    assert all(p == 0.5 for row in table.superiority for p in row)


def test_extreme_upsets_stay_finite():
    # A long-unbeaten agent finally loses to the weakest: trueskill's own code raises
    # FloatingPointError on such upsets with its default backend.
    outcomes = [MatchOutcome(f"m{i:03d}", f"b{i}", ("star", "dud"), (1.0, 0.0), (1, 2)) for i in range(300)]
    outcomes.append(MatchOutcome("m999", "b999", ("star", "dud"), (0.0, 1.0), (2, 1)))
    table = ts.fit(outcomes, intervals="posterior")
    assert all(math.isfinite(x) for r in table.ratings for x in (r.rating, r.lower, r.upper))


def test_recovers_the_true_order():
    truth = strengths(8, spread=2.0)
    table = ts.fit(simulate_outcomes(truth, blocks=150, players=4, seed=7))
    mu = table.extras["mu"]
    assert sorted(mu, key=mu.get, reverse=True) == sorted(truth, key=truth.get, reverse=True)


def test_large_tournaments_fall_back_to_the_posterior_and_say_so(monkeypatch):
    outcomes = mixed_tournament(seed=11, blocks_per_size=3)
    monkeypatch.setattr(ts, "JACKKNIFE_MAX_MATCHES", len(outcomes) - 1)
    table = ts.fit(outcomes)
    assert table.extras["interval_kind"] == "posterior"
    assert f"no jackknife above {len(outcomes) - 1} matches" in table.extras["interval_reason"]
    for row in table.ratings:
        half = 1.959964 * table.extras["sigma"][row.agent]
        assert (row.lower, row.upper) == pytest.approx((row.rating - half, row.rating + half), abs=1e-5)


def test_agents_behind_few_blocks_get_at_least_the_posterior_spread():
    """With two blocks each the jackknife's spread was too small (P >= 0.99 right 84% of the time in simulated
    fields); below CLUSTER_MIN_BLOCKS an agent's spread is at least TrueSkill's own posterior sigma."""
    strengths = {f"a{i}": 0.3 * i for i in range(8)}
    few = ts.fit(simulate_outcomes(strengths, blocks=2, players=4, seed=3))
    assert "agents behind fewer than 8 blocks" in few.extras["interval_reason"]
    df = few.extras["jackknife_groups"] - 1
    for row in few.ratings:
        half = (row.upper - row.lower) / 2
        assert half >= student_t.ppf(0.975, df) * few.extras["sigma"][row.agent] - 1e-9
    many = ts.fit(simulate_outcomes(strengths, blocks=40, players=4, seed=3))  # at least 8 blocks each
    assert "posterior sigma" not in many.extras["interval_reason"]
