"""Plackett–Luce: against choix (with ties expanded into their orders), gradients, coverage."""

import itertools
import math

import choix
import numpy as np
import pytest
from scipy.optimize import approx_fprime, check_grad

from arena.ratings import elo, plackett_luce
from arena.ratings.data import MatchOutcome, as_arrays
from arena.ratings.scale import ELO_PER_NATURAL_LOG
from arena.ratings.simulate import simulate_outcomes

CHOIX_ALPHA = 1.0 / (2.0 * plackett_luce.PRIOR_SD**2)


def strengths(n, spread=1.5):
    return {f"agent{i}": float(s) for i, s in enumerate(np.linspace(-spread, spread, n))}


def choix_rankings(arrays):
    """Each match as choix rankings: a tied match becomes all its tie-broken orders, and every
    match is repeated so that each contributes the same total weight (the lcm of the counts).
    Returns the rankings and that weight."""
    per_match = []
    for m in range(arrays.n_matches):
        seats = arrays.seats[m]
        agents, ranks = arrays.seat_agent[m, :seats], arrays.rank[m, :seats]
        groups = [list(agents[ranks == r]) for r in sorted(set(ranks))]
        orders = [list(itertools.chain(*pick)) for pick in itertools.product(*map(itertools.permutations, groups))]
        per_match.append(orders)
    weight = math.lcm(*(len(orders) for orders in per_match))
    data = [order for orders in per_match for order in orders for _ in range(weight // len(orders))]
    return data, weight


@pytest.mark.slow
def test_matches_choix_on_untied_orders():
    arrays = as_arrays(simulate_outcomes(strengths(8), blocks=25, players=4, seed=1))
    ours = plackett_luce.fit_strengths(plackett_luce.rankings(arrays)).theta
    data, weight = choix_rankings(arrays)
    assert weight == 1
    reference = choix.opt_rankings(arrays.n_agents, data, alpha=CHOIX_ALPHA, tol=1e-12)
    assert np.max(np.abs(ours - reference)) < 1e-4


def test_ties_are_the_average_over_their_orders():
    arrays = as_arrays(simulate_outcomes(strengths(6), blocks=15, players=3, seed=2, score_step=1.5))
    data = plackett_luce.rankings(arrays)
    same_rank = (arrays.rank[:, :, None] == arrays.rank[:, None, :]).sum(axis=(1, 2)) - arrays.seats
    assert same_rank.max() == 6  # some matches tie all three agents (3 * 2 ordered pairs)
    ours = plackett_luce.fit_strengths(data).theta
    expanded, weight = choix_rankings(arrays)
    reference = choix.opt_rankings(arrays.n_agents, expanded, alpha=weight * CHOIX_ALPHA, tol=1e-12)
    assert np.max(np.abs(ours - reference)) < 1e-4


def test_two_seat_matches_with_draws_give_the_elo_fit():
    outcomes = simulate_outcomes(strengths(6), blocks=40, players=2, seed=3, score_step=1.0)
    arrays = as_arrays(outcomes)
    assert (arrays.rank[:, 0] == arrays.rank[:, 1]).any()
    pl = plackett_luce.fit_strengths(plackett_luce.rankings(arrays)).theta
    bt = elo.fit_strengths(elo.pair_counts(arrays)).theta
    assert np.max(np.abs(pl - bt)) < 1e-8


def test_gradient_and_hessian_are_the_derivatives_of_the_objective():
    # Uneven seat counts (padding) and ties of every size up to a full match.
    outcomes = simulate_outcomes(strengths(7), blocks=6, players=5, seed=4, score_step=1.5)
    outcomes += simulate_outcomes(strengths(7), blocks=6, players=3, seed=5, score_step=1.5)
    outcomes = [
        MatchOutcome(f"{i:03d}", f"{o.block}-{len(o.agents)}", o.agents, o.scores, o.ranks)
        for i, o in enumerate(outcomes)
    ]
    outcomes.append(MatchOutcome("zzz", "z", ("agent0", "agent1", "agent2"), (0.0, 0.0, 0.0), (1, 1, 1)))
    data = plackett_luce.rankings(as_arrays(outcomes))
    rng = np.random.default_rng(0)
    for _ in range(3):
        theta = rng.normal(size=data.n_agents)
        gradient = plackett_luce.gradient(theta, data)
        error = check_grad(
            lambda t: plackett_luce.negative_log_posterior(t, data),
            lambda t: plackett_luce.gradient(t, data),
            theta,
        )
        assert error < 1e-5 * max(1.0, np.linalg.norm(gradient))
        numeric = np.array(
            [approx_fprime(theta, lambda t, i=i: plackett_luce.gradient(t, data)[i], 1e-6) for i in range(7)]
        )
        assert np.allclose(plackett_luce.hessian(theta, data), numeric, atol=1e-4)


def test_per_match_shifts_agree_with_the_global_shift(monkeypatch):
    outcomes = simulate_outcomes(strengths(5), blocks=5, players=3, seed=6, score_step=1.0)
    data = plackett_luce.rankings(as_arrays(outcomes))
    theta = np.random.default_rng(1).normal(size=5)
    value = plackett_luce.negative_log_posterior(theta, data)
    gradient = plackett_luce.gradient(theta, data)
    hessian = plackett_luce.hessian(theta, data)
    monkeypatch.setattr(plackett_luce, "SAFE_SPREAD", -1.0)  # force the per-match path
    assert plackett_luce.negative_log_posterior(theta, data) == pytest.approx(value, rel=1e-12)
    assert np.allclose(plackett_luce.gradient(theta, data), gradient, rtol=1e-10, atol=1e-12)
    assert np.allclose(plackett_luce.hessian(theta, data), hessian, rtol=1e-10, atol=1e-12)


def test_a_field_wider_than_the_float_range_is_evaluated_match_by_match():
    # Only neighbours meet, so each match is narrow while the field spans 800 natural-log
    # units: one global shift would underflow exp(theta) for the weakest agents.
    agents = [f"a{i}" for i in range(5)]
    outcomes = [
        MatchOutcome(f"m{i}-{k}", f"m{i}-{k}", (agents[i], agents[i + 1]), (0.0, 0.0), (1, 2) if k else (2, 1))
        for i in range(4)
        for k in range(3)
    ]
    data = plackett_luce.rankings(as_arrays(outcomes))
    theta = np.array([-400.0, -200.0, 0.0, 200.0, 400.0])
    direct = sum(
        np.logaddexp(0.0, theta[i + 1] - theta[i]) if k else np.logaddexp(0.0, theta[i] - theta[i + 1])
        for i in range(4)
        for k in range(3)
    ) + theta @ theta / (2 * plackett_luce.PRIOR_SD**2)
    assert plackett_luce.negative_log_posterior(theta, data) == pytest.approx(direct, rel=1e-12)
    assert np.all(np.isfinite(plackett_luce.gradient(theta, data)))


def test_recovers_the_true_order():
    truth = strengths(8, spread=2.0)
    table = plackett_luce.fit(simulate_outcomes(truth, blocks=150, players=4, seed=7))
    assert list(table.agents) == sorted(truth, key=truth.get, reverse=True)


def test_hessian_intervals_cover_the_truth():
    truth = strengths(6, spread=1.0)
    names = list(truth)
    values = np.array([truth[a] for a in names])
    target = 1500.0 + ELO_PER_NATURAL_LOG * (values - values.mean())
    hits = []
    for rep in range(200):
        table = plackett_luce.fit(simulate_outcomes(truth, blocks=30, players=4, seed=3000 + rep))
        hits += [table[a].lower <= t <= table[a].upper for a, t in zip(names, target)]
    assert 0.88 <= np.mean(hits) <= 0.99


def test_sandwich_and_bootstrap_options():
    outcomes = simulate_outcomes(strengths(5), blocks=20, players=3, seed=8)
    hessian = plackett_luce.fit(outcomes)
    sandwich = plackett_luce.fit(outcomes, intervals="sandwich")
    boot = plackett_luce.fit(outcomes, bootstrap=40, seed=1)
    assert [r.rating for r in sandwich.ratings] == [r.rating for r in hessian.ratings]
    assert [r.rating for r in boot.ratings] == [r.rating for r in hessian.ratings]
    assert sandwich.ratings != hessian.ratings and boot.ratings != hessian.ratings
    assert boot == plackett_luce.fit(list(reversed(outcomes)), bootstrap=40, seed=1)


def test_a_tie_group_too_large_is_refused():
    agents = tuple(f"a{i}" for i in range(plackett_luce.MAX_TIE_GROUP + 1))
    outcome = MatchOutcome("big", "b", agents, (0.0,) * len(agents), (1,) * len(agents))
    with pytest.raises(ValueError, match="sharing one rank"):
        plackett_luce.fit([outcome])
