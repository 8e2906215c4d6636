"""Maximum a posteriori fits and their normal-approximation covariances.

The Bradley–Terry and Plackett–Luce fits minimise a smooth, strictly convex negative log
posterior (a concave log-likelihood plus an isotropic Gaussian prior) by Newton's method
with the analytic gradient and Hessian, which converges in a handful of iterations.  The
covariance of the estimate comes from the curvature: the inverse Hessian at the optimum,
the cluster-robust sandwich ``H^-1 J H^-1`` (``J`` the sum over duplicate blocks of the
outer products of each block's score vector), or the inverse Hessian scaled by the design
effect ``tr(S) / tr(H^-1)`` measured with the sandwich (see ``INTERVAL_KINDS``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.linalg
import scipy.sparse

from arena.ratings import design
from arena.ratings.data import MatchArrays

INTERVAL_KINDS: tuple[str, ...] = ("auto", "adjusted", "hessian", "sandwich")
"""Ways to turn curvature into a covariance (``bootstrap=N`` is a separate option):

``auto`` (the default): the inverse Hessian times the design effect as measured (below 1
included) when every agent has played enough blocks, floored at 1 otherwise (see
``arena.ratings.design``), with no gap narrower than its own sandwich; ``hessian``: the
inverse Hessian, right when the model holds and matches are independent;
``sandwich``: the cluster-robust ``H^-1 J H^-1``, clustered by duplicate block, consistent
but too narrow until every agent has played a few dozen blocks; ``adjusted``: the inverse
Hessian times the design effect (see ``design_effect``), which corrects the curvature for
correlated comparisons with one number estimated from all blocks, floored at 1 (it never
narrows the curvature), so it stays stable and on the safe side with few blocks."""

MAX_ITERATIONS = 100
"""Newton iterations before giving up (a fit normally needs fewer than 10)."""

STEP_TOLERANCE = 1e-9
"""A fit has converged when a Newton step is below this in every coordinate (natural-log units)."""

ARMIJO = 1e-4
"""Sufficient-decrease constant of the backtracking line search."""

VALUE_RESOLUTION = 1e-12
"""Relative rounding error of the objective's value: decreases smaller than this are not tested."""

MIN_STEP_FRACTION = 1e-10
"""Give up when backtracking has shrunk a step below this fraction."""


@dataclass(frozen=True, slots=True)
class MapFit:
    """A converged MAP estimate."""

    theta: np.ndarray  # (N,) natural-log strengths at the optimum
    hessian: np.ndarray  # (N, N) Hessian of the negative log posterior at theta
    iterations: int  # Newton steps taken
    converged: bool  # whether the last Newton step was below STEP_TOLERANCE


def fit_map(
    objective: Callable[[np.ndarray], tuple[float, np.ndarray]],
    hessian: Callable[[np.ndarray], np.ndarray],
    n: int,
    *,
    x0: np.ndarray | None = None,
) -> MapFit:
    """Minimise a smooth, strictly convex ``objective`` by Newton's method with backtracking.

    Each iteration solves ``H step = g`` by Cholesky (the Gaussian prior makes ``H``
    positive definite) and halves the step until the Armijo condition holds.  Close to the
    optimum the objective's value (a sum of very many terms) can no longer resolve the
    predicted decrease ``g H^-1 g``; once that decrease is below the value's rounding error
    the full step is taken, which is where Newton's method is safe anyway.  The fit has
    converged when a step is below ``STEP_TOLERANCE`` in every coordinate; the Hessian
    returned is the one of that last step, at the optimum up to ``STEP_TOLERANCE``.

    (``scipy.optimize.minimize`` was the first choice: its ``trust-exact`` method spends
    about a second per iteration on the trust-region subproblem at 1000 agents and, like
    ``Newton-CG``, stalls on the value's rounding error before the gradient is small.)

    Parameters
    ----------
    objective : callable
        ``theta -> (value, gradient)`` of the negative log posterior.
    hessian : callable
        ``theta -> (N, N)`` Hessian.
    n : int
        Number of parameters.
    x0 : numpy.ndarray, optional
        Starting point (zeros by default).

    Returns
    -------
    MapFit
    """
    theta = np.zeros(n) if x0 is None else np.array(x0, dtype=float)
    if n == 0:
        return MapFit(theta=theta, hessian=np.zeros((0, 0)), iterations=0, converged=True)
    value, grad = objective(theta)
    matrix = hessian(theta)
    for iteration in range(1, MAX_ITERATIONS + 1):
        step = solve(matrix, grad)
        if float(np.max(np.abs(step))) < STEP_TOLERANCE:
            return MapFit(theta=theta - step, hessian=matrix, iterations=iteration - 1, converged=True)
        decrease = float(grad @ step)
        resolution = VALUE_RESOLUTION * (1.0 + abs(value))
        t = 1.0
        while True:
            candidate = theta - t * step
            new_value, new_grad = objective(candidate)
            if math.isfinite(new_value) and (new_value <= value - ARMIJO * t * decrease or t * decrease < resolution):
                break
            t *= 0.5
            if t < MIN_STEP_FRACTION:
                return MapFit(theta=theta, hessian=matrix, iterations=iteration, converged=False)
        theta, value, grad = candidate, new_value, new_grad
        matrix = hessian(theta)
    return MapFit(theta=theta, hessian=matrix, iterations=MAX_ITERATIONS, converged=False)


def solve(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """Solve ``matrix x = vector`` for a symmetric positive definite matrix (Cholesky; lstsq fallback)."""
    try:
        return scipy.linalg.cho_solve(scipy.linalg.cho_factor(matrix, lower=True, check_finite=False), vector)
    except np.linalg.LinAlgError:
        return np.linalg.lstsq(matrix, vector, rcond=None)[0]


def inverse(hessian: np.ndarray) -> np.ndarray:
    """Inverse of a symmetric positive definite matrix (Cholesky, falling back to pinv)."""
    if hessian.size == 0:
        return hessian.copy()
    try:
        factor = scipy.linalg.cho_factor(hessian, lower=True)
        return scipy.linalg.cho_solve(factor, np.eye(hessian.shape[0]))
    except np.linalg.LinAlgError:
        return np.linalg.pinv(hessian, hermitian=True)


BlockScores = tuple[np.ndarray, np.ndarray, np.ndarray]
"""``(block, agent, score)``: the per-block score contributions ``sandwich`` sums, as a method's
``block_scores`` returns them."""


def sandwich(hessian: np.ndarray, block: np.ndarray, agent: np.ndarray, score: np.ndarray, n_blocks: int) -> np.ndarray:
    """Cluster-robust covariance ``H^-1 J H^-1``, clustered by duplicate block.

    Parameters
    ----------
    hessian : numpy.ndarray
        (N, N) Hessian of the negative log posterior at the optimum.
    block, agent, score : numpy.ndarray
        Triplets: ``score`` is a contribution of one observation to the log-likelihood
        gradient of ``agent``, observed in ``block``.  Contributions are summed per
        (block, agent) to give each block's score vector ``g_b``; ``J = sum_b g_b g_b^T``.
    n_blocks : int
        Number of blocks ``B``.
    """
    n = hessian.shape[0]
    per_block = scipy.sparse.coo_matrix((score, (block, agent)), shape=(n_blocks, n)).tocsr()
    # The usual small-sample factor B / (B - 1): the block scores are centred by the fit itself.
    meat = (per_block.T @ per_block).toarray() * (n_blocks / max(n_blocks - 1, 1))
    bread = inverse(hessian)
    return bread @ meat @ bread


def design_effect(curvature: np.ndarray, robust: np.ndarray) -> float:
    """How much wider the robust covariance is than the curvature, over all strength contrasts.

    ``tr(C S C) / tr(C V C)`` with ``V`` the inverse Hessian, ``S`` the sandwich and ``C``
    the centring projection (the common level is not identified).  Below 1 when the
    sandwich is narrower: the rotations of a duplicate block cancel the deal's luck, which
    makes its matches negatively correlated.  One number from all blocks, so it is more
    stable than the sandwich itself when each agent has played only a few blocks (callers
    floor it at 1 then: see ``arena.ratings.design``).
    """
    n = curvature.shape[0]
    if n < 2:
        return 1.0
    spread = np.trace(curvature) - curvature.sum() / n
    robust_spread = np.trace(robust) - robust.sum() / n
    if not spread > 0:
        return 1.0
    return float(robust_spread / spread)


@dataclass(frozen=True, slots=True)
class Spread:
    """The spread of a MAP estimate of natural-log strengths.

    ``covariance`` gives every interval; ``floor``, when present, is a second covariance
    whose variance of each contrast (a gap between two agents, or an agent against the
    anchor) is a lower bound on the reported one (see ``design.choose``'s pair floor).
    """

    covariance: np.ndarray  # (N, N)
    floor: np.ndarray | None = None  # (N, N), or None for no floor
    details: dict[str, Any] = field(default_factory=dict)  # what the table's extras should say


def covariance(
    kind: str,
    hessian: np.ndarray,
    scores: Callable[[], BlockScores],
    n_blocks: int,
    arrays: MatchArrays | None = None,
) -> Spread:
    """The spread of a MAP estimate by ``kind`` (one of ``INTERVAL_KINDS``), and fit details.

    ``scores()`` returns the (block, agent, score) triplets for the sandwich; it is only
    called when needed.  ``arrays`` (the matches) is needed by ``auto``, which chooses by
    how many blocks each agent played.  Under ``auto`` the sandwich is also the floor of
    every contrast: the design effect is one number for the whole field, and in a
    lopsided one it is set by the contrasts with the strong agents, which duplicate
    blocks help most; a gap between two weak agents, whose finishing order among
    themselves the blocks do not steady, is then at least as wide as its own sandwich.
    """
    if kind not in INTERVAL_KINDS:
        raise ValueError(f"intervals={kind!r} is not one of {', '.join(INTERVAL_KINDS)}")
    curvature = inverse(hessian)
    if kind == "hessian":
        return Spread(curvature)
    robust = sandwich(hessian, *scores(), n_blocks=n_blocks)
    if kind == "sandwich":
        return Spread(robust)
    measured = design_effect(curvature, robust)
    if kind == "adjusted":
        factor = max(1.0, measured)
        return Spread(factor * curvature, details={"design_effect": factor, "measured_design_effect": measured})
    if arrays is None:
        raise ValueError("intervals='auto' needs the matches to count each agent's blocks")
    choice = design.choose(arrays, measured)
    return Spread(choice.factor * curvature, robust, choice.extras())
