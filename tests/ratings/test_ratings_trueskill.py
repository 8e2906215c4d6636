"""TrueSkill against the ``trueskill`` package, free-for-all with 2–6 seats and draws."""

import math
import random

import numpy as np
import pytest
import trueskill

from arena.ratings import trueskill as ts
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


def reference_ratings(outcomes, backend=None, **constants):
    env = trueskill.TrueSkill(
        mu=constants.get("mu", ts.MU),
        sigma=constants.get("sigma", ts.SIGMA),
        beta=constants.get("beta", ts.BETA),
        tau=constants.get("tau", ts.TAU),
        draw_probability=constants.get("draw_probability", ts.DRAW_PROBABILITY),
        backend=backend,
    )
    ratings = {}
    for o in sorted(outcomes, key=lambda o: o.match_id):  # the same canonical order
        groups = [(ratings.get(a, env.create_rating()),) for a in o.agents]
        for a, (rating,) in zip(o.agents, env.rate(groups, ranks=[r - 1 for r in o.ranks])):
            ratings[a] = rating
    return ratings


def test_constants_are_trueskills_defaults():
    assert (ts.MU, ts.SIGMA, ts.BETA, ts.TAU, ts.DRAW_PROBABILITY) == (
        trueskill.MU,
        trueskill.SIGMA,
        trueskill.BETA,
        trueskill.TAU,
        trueskill.DRAW_PROBABILITY,
    )
    assert ts.MIN_DELTA == trueskill.DELTA


def test_matches_the_reference_with_exact_normal_functions():
    outcomes = mixed_tournament(seed=1)
    assert sum(len(set(o.ranks)) < len(o.ranks) for o in outcomes) > 50  # plenty of draws
    table = ts.fit(outcomes)
    reference = reference_ratings(outcomes, backend="scipy")
    for agent, rating in reference.items():
        assert table.extras["mu"][agent] == pytest.approx(rating.mu, abs=1e-9)
        assert table.extras["sigma"][agent] == pytest.approx(rating.sigma, abs=1e-9)


def test_matches_the_reference_with_its_default_backend():
    # trueskill's default backend approximates erfc (relative error ~1e-7), which moves its
    # draw margin by 2e-7 and mu by up to a few 1e-6: compare to 1e-6 relative.
    outcomes = mixed_tournament(seed=2, blocks_per_size=3)
    table = ts.fit(outcomes)
    reference = reference_ratings(outcomes)
    for agent, rating in reference.items():
        assert table.extras["mu"][agent] == pytest.approx(rating.mu, rel=1e-6)
        assert table.extras["sigma"][agent] == pytest.approx(rating.sigma, rel=1e-6)


def test_matches_the_reference_with_other_constants():
    constants = {"mu": 0.0, "sigma": 2.0, "beta": 1.5, "tau": 0.05, "draw_probability": 0.3}
    outcomes = mixed_tournament(seed=3, blocks_per_size=3)
    table = ts.fit(outcomes, **constants)
    reference = reference_ratings(outcomes, backend="scipy", **constants)
    for agent, rating in reference.items():
        assert table.extras["mu"][agent] == pytest.approx(rating.mu, abs=1e-9)
        assert table.extras["sigma"][agent] == pytest.approx(rating.sigma, abs=1e-9)


def test_batched_waves_equal_match_by_match(monkeypatch):
    arrays = as_arrays(mixed_tournament(seed=4, blocks_per_size=20))
    assert np.bincount(ts.waves(arrays)).max() >= 3  # some waves hold several matches
    monkeypatch.setattr(ts, "VECTOR_BATCH", 1)  # every wave as a numpy batch
    batched = ts.rate(arrays)
    monkeypatch.setattr(ts, "VECTOR_BATCH", 10**9)  # every match in scalar code
    scalar = ts.rate(arrays)
    assert np.allclose(batched[0], scalar[0], rtol=0, atol=1e-12)
    assert np.allclose(batched[1], scalar[1], rtol=0, atol=1e-12)


def test_waves_never_share_an_agent_and_respect_the_order():
    arrays = as_arrays(mixed_tournament(seed=5))
    wave = ts.waves(arrays)
    latest = {}
    for m, row in enumerate(arrays.seat_agent.tolist()):
        for a in (a for a in row if a >= 0):
            assert wave[m] > latest.get(a, 0)
            latest[a] = wave[m]


def test_report_conservative_rating_interval_and_superiority():
    table = ts.fit(mixed_tournament(seed=6))
    for row in table.ratings:
        mu, sigma = table.extras["mu"][row.agent], table.extras["sigma"][row.agent]
        assert row.rating == pytest.approx(mu - 3 * sigma)
        assert row.lower == pytest.approx(mu - 1.959964 * sigma, abs=1e-5)
        assert row.upper == pytest.approx(mu + 1.959964 * sigma, abs=1e-5)
    a, b = table.agents[0], table.agents[1]
    gap = table.extras["mu"][a] - table.extras["mu"][b]
    spread = math.hypot(table.extras["sigma"][a], table.extras["sigma"][b])
    assert table.probability_stronger(a, b) == pytest.approx(0.5 * math.erfc(-gap / spread / math.sqrt(2)))


def test_extreme_upsets_stay_finite():
    # A long-unbeaten agent finally loses to the weakest: trueskill's own code raises
    # FloatingPointError on such upsets with its default backend.
    outcomes = [MatchOutcome(f"m{i:03d}", f"b{i}", ("star", "dud"), (1.0, 0.0), (1, 2)) for i in range(300)]
    outcomes.append(MatchOutcome("m999", "b999", ("star", "dud"), (0.0, 1.0), (2, 1)))
    table = ts.fit(outcomes, tau=0.0)
    assert all(math.isfinite(x) for r in table.ratings for x in (r.rating, r.lower, r.upper))


def test_recovers_the_true_order():
    truth = strengths(8, spread=2.0)
    table = ts.fit(simulate_outcomes(truth, blocks=150, players=4, seed=7))
    mu = table.extras["mu"]
    assert sorted(mu, key=mu.get, reverse=True) == sorted(truth, key=truth.get, reverse=True)
