"""Bradley–Terry ("elo"): against choix, gradients, intervals, anchors and coverage."""

import math

import choix
import numpy as np
import pytest
from scipy.optimize import approx_fprime, check_grad

from arena.ratings import elo
from arena.ratings.data import MatchOutcome, as_arrays, pairwise
from arena.ratings.scale import ELO_PER_NATURAL_LOG
from arena.ratings.simulate import simulate_outcomes

CHOIX_ALPHA = 1.0 / (2.0 * elo.PRIOR_SD**2)  # choix adds alpha * sum(theta^2): a N(0, 1/(2 alpha)) prior


def strengths(n, spread=1.5):
    return {f"agent{i}": float(s) for i, s in enumerate(np.linspace(-spread, spread, n))}


def choix_pairs(arrays, repeat_decisive=1):
    """choix pairwise data: (winner, loser); a draw is one comparison each way, so decisive
    results are repeated ``repeat_decisive`` times to keep the same relative weights."""
    pairs = pairwise(arrays)
    data = []
    for first, second, result in zip(pairs.first, pairs.second, pairs.result):
        if result == 0.5:
            data += [(first, second), (second, first)]
        else:
            data += [(first, second) if result == 1.0 else (second, first)] * repeat_decisive
    return data


def test_matches_choix_without_draws():
    arrays = as_arrays(simulate_outcomes(strengths(8), blocks=25, players=4, seed=1))
    ours = elo.fit_strengths(elo.pair_counts(arrays)).theta
    reference = choix.opt_pairwise(arrays.n_agents, choix_pairs(arrays), alpha=CHOIX_ALPHA, tol=1e-12)
    assert np.max(np.abs(ours - reference)) < 1e-4
    assert abs(ours.mean()) < 1e-9  # centred, as choix's optimum is


def test_matches_choix_with_draws_as_half_wins():
    arrays = as_arrays(simulate_outcomes(strengths(6), blocks=30, players=3, seed=2, score_step=1.0))
    assert np.any(pairwise(arrays).result == 0.5)
    ours = elo.fit_strengths(elo.pair_counts(arrays)).theta
    # Every decisive comparison twice and every draw as one win each way: twice our
    # likelihood, so twice our alpha.
    reference = choix.opt_pairwise(arrays.n_agents, choix_pairs(arrays, 2), alpha=2 * CHOIX_ALPHA, tol=1e-12)
    assert np.max(np.abs(ours - reference)) < 1e-4


def test_gradient_and_hessian_are_the_derivatives_of_the_objective():
    arrays = as_arrays(simulate_outcomes(strengths(7), blocks=10, players=4, seed=3, score_step=1.0))
    counts = elo.pair_counts(arrays)
    rng = np.random.default_rng(0)
    for _ in range(3):
        theta = rng.normal(size=arrays.n_agents)
        error = check_grad(lambda t: elo.negative_log_posterior(t, counts), lambda t: elo.gradient(t, counts), theta)
        assert error < 1e-5 * max(1.0, np.linalg.norm(elo.gradient(theta, counts)))
        numeric = np.array([approx_fprime(theta, lambda t, i=i: elo.gradient(t, counts)[i], 1e-6) for i in range(7)])
        assert np.allclose(elo.hessian(theta, counts), numeric, atol=1e-4)


def test_an_unbeaten_agent_gets_a_finite_rating():
    outcomes = [
        MatchOutcome(f"m{i}", f"m{i}", ("champ", f"victim{i % 3}"), (1.0, 0.0), (1, 2)) for i in range(30)
    ]
    table = elo.fit(outcomes)
    assert table.ratings[0].agent == "champ"
    assert all(math.isfinite(x) for r in table.ratings for x in (r.rating, r.lower, r.upper))
    assert table.extras["converged"]


def test_scale_anchor_and_pinned_agent():
    outcomes = simulate_outcomes(strengths(5), blocks=20, players=3, seed=4)
    centred = elo.fit(outcomes, intervals="hessian")
    assert np.mean([r.rating for r in centred.ratings]) == pytest.approx(1500.0)
    theta = centred.extras["log_strength"]
    gap = centred["agent4"].rating - centred["agent0"].rating
    assert gap == pytest.approx(ELO_PER_NATURAL_LOG * (theta["agent4"] - theta["agent0"]))

    pinned = elo.fit(outcomes, intervals="hessian", anchor_agent="agent0", anchor_rating=1000.0)
    assert pinned["agent0"].rating == pytest.approx(1000.0)
    assert pinned["agent0"].lower == pytest.approx(1000.0) and pinned["agent0"].upper == pytest.approx(1000.0)
    assert pinned["agent4"].rating - 1000.0 == pytest.approx(gap)
    # The pinned agent's own uncertainty moves to the others: wider than with the mean anchor.
    assert pinned["agent4"].upper - pinned["agent4"].lower > centred["agent4"].upper - centred["agent4"].lower
    with pytest.raises(ValueError, match="anchor agent 'nobody'"):
        elo.fit(outcomes, anchor_agent="nobody")


def test_superiority_is_the_normal_approximation_and_antisymmetric():
    table = elo.fit(simulate_outcomes(strengths(5), blocks=20, players=3, seed=5))
    p = np.array(table.superiority)
    assert np.allclose(p + p.T, 1.0)
    assert np.allclose(np.diag(p), 0.5)
    assert table.probability_stronger(table.agents[0], table.agents[-1]) > 0.99


def test_bootstrap_is_deterministic_and_brackets_the_estimate():
    outcomes = simulate_outcomes(strengths(5), blocks=15, players=3, seed=6)
    first = elo.fit(outcomes, bootstrap=60, seed=7)
    again = elo.fit(list(reversed(outcomes)), bootstrap=60, seed=7)
    other = elo.fit(outcomes, bootstrap=60, seed=8)
    assert first == again
    assert first.ratings != other.ratings
    assert [r.rating for r in first.ratings] == [r.rating for r in elo.fit(outcomes).ratings]
    assert all(r.lower < r.rating < r.upper for r in first.ratings)


def test_recovers_the_true_order():
    truth = strengths(8, spread=2.0)
    table = elo.fit(simulate_outcomes(truth, blocks=150, players=4, seed=9))
    assert list(table.agents) == sorted(truth, key=truth.get, reverse=True)


def coverage(outcomes_for, truth, repetitions, **options):
    names = list(truth)
    values = np.array([truth[a] for a in names])
    target = 1500.0 + ELO_PER_NATURAL_LOG * (values - values.mean())
    hits = []
    for rep in range(repetitions):
        table = elo.fit(outcomes_for(rep), **options)
        hits += [table[a].lower <= t <= table[a].upper for a, t in zip(names, target)]
    return np.mean(hits)


def test_default_intervals_cover_the_truth_in_multiplayer_matches():
    truth = strengths(6, spread=1.0)
    share = coverage(lambda rep: simulate_outcomes(truth, blocks=30, players=4, seed=1000 + rep), truth, 200)
    assert 0.88 <= share <= 0.99


def test_default_intervals_cover_with_few_blocks_where_the_sandwich_does_not():
    truth = strengths(6, spread=1.0)
    outcomes = [simulate_outcomes(truth, blocks=5, players=6, seed=5000 + rep) for rep in range(200)]
    adjusted = coverage(outcomes.__getitem__, truth, 200)
    hessian = coverage(outcomes.__getitem__, truth, 200, intervals="hessian")
    sandwich = coverage(outcomes.__getitem__, truth, 200, intervals="sandwich")
    assert 0.88 <= adjusted <= 0.99
    # 6-seat comparisons are correlated; 5 blocks are few (even with the B / (B - 1) correction)
    assert hessian < 0.86 and sandwich < 0.90


def test_interval_kinds_share_the_estimate_and_the_design_effect_scales_the_curvature():
    outcomes = simulate_outcomes(strengths(5), blocks=20, players=5, seed=12)
    tables = {kind: elo.fit(outcomes, intervals=kind) for kind in ("adjusted", "hessian", "sandwich")}
    ratings = {kind: [r.rating for r in table.ratings] for kind, table in tables.items()}
    assert ratings["adjusted"] == ratings["hessian"] == ratings["sandwich"]
    factor = tables["adjusted"].extras["design_effect"]
    assert factor > 1.2  # five seats: ten correlated comparisons per match
    for adjusted, plain in zip(tables["adjusted"].ratings, tables["hessian"].ratings):
        assert adjusted.upper - adjusted.lower == pytest.approx(math.sqrt(factor) * (plain.upper - plain.lower))


def test_hessian_intervals_cover_the_truth_in_two_player_matches():
    truth = strengths(6, spread=1.0)
    share = coverage(
        lambda rep: simulate_outcomes(truth, blocks=60, players=2, seed=2000 + rep), truth, 200, intervals="hessian"
    )
    assert 0.88 <= share <= 0.99


def test_unknown_interval_kind_is_rejected():
    with pytest.raises(ValueError, match="intervals='exact' is not one of auto, adjusted, hessian, sandwich"):
        elo.fit(simulate_outcomes(strengths(3), blocks=2, players=2), intervals="exact")
