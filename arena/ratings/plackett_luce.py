"""Plackett–Luce maximum a posteriori ratings over full finishing orders (``"plackett-luce"``).

Model
-----
A match's finishing order is built best first: each remaining agent takes the next place
with probability proportional to ``exp(theta)``,

    P(order a_1, ..., a_n) = prod_k exp(theta_{a_k}) / sum_{j >= k} exp(theta_{a_j}).

With two seats this is Bradley–Terry, so the ratings share the ``elo`` method's scale
(natural-log strengths reported as Elo, 400 points = 10:1 odds) and anchor.

Ties
----
Equal ranks mean the finishing order among the tied agents is unknown.  We average the
log-likelihood over every order of each tie group, each order equally likely (the expected
log-likelihood under uniformly random tie-breaking; equivalently each tied match counts as
all its ``prod_g d_g!`` tie-broken orders, each with weight ``1 / prod_g d_g!``).  This is
concave like the untied likelihood, reduces to the untied likelihood when there are no
ties, and for a two-seat match gives ``(log P(i>j) + log P(j>i)) / 2``: a draw is half a
win each, exactly as in the ``elo`` method.  (The Breslow and Efron approximations instead
make a draw for last place informative, and treat a two-way tie as two wins.)

It is computed without enumerating orders: for a tie group ``G`` of size ``d`` followed by
the set ``A`` of agents ranked below it, the ``d`` choice stages contribute
``sum_{i in G} theta_i`` in the numerators (every member is chosen once) and, in the
denominators, for each stage with ``m`` members left, the average of
``log(sum_A e^theta + sum_U e^theta)`` over the ``C(d, m)`` equally likely subsets ``U`` of
``G`` still unplaced: ``2^d - 1`` terms per tie group.  Tie groups are limited to
``MAX_TIE_GROUP`` agents.

Each ``theta_i`` has the Gaussian prior ``N(0, PRIOR_SD**2)`` of the ``elo`` method
(``choix.opt_rankings(alpha=1 / (2 PRIOR_SD**2))`` fits the same posterior on untied
data).  Intervals come from the inverse Hessian (the likelihood is the full likelihood of
the data, so the curvature is honest when the model holds), optionally scaled by the
design effect or replaced by the sandwich clustered by duplicate block (see
``arena.ratings.inference``), or from a block bootstrap.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from arena.ratings import inference
from arena.ratings.bootstrap import BOOTSTRAP_SEED
from arena.ratings.data import MatchArrays, MatchOutcome
from arena.ratings.elo import PRIOR_SD
from arena.ratings.scale import FIELD_MEAN_RATING
from arena.ratings.strength_fit import StrengthModel, fit_table
from arena.ratings.table import INTERVAL_LEVEL, RatingTable

METHOD = "plackett-luce"

MAX_TIE_GROUP = 12
"""Largest number of agents sharing one rank (a tie group costs 2^size likelihood terms)."""


@dataclass(frozen=True, slots=True)
class Rankings:
    """Finishing orders as padded, place-major arrays, with the tie groups expanded into subset terms.

    ``M`` matches, ``P`` places (the widest match), ``K`` tie terms.  Arrays are
    place-major, (P, M), so that the per-place work is a handful of contiguous vector
    operations.  Places are positions in the finishing order (best first); padding places
    hold agent ``N``.
    """

    n_agents: int  # number of agents N
    agent: np.ndarray  # (P, M) int64: agent at each place, best first; N for padding
    valid: np.ndarray  # (P, M) float64: 1 where the place exists
    stage: np.ndarray  # (P, M) float64: 1 where the place is not tied (a plain choice stage)
    weight: np.ndarray  # (M,) float64: weight of each match (1, or a bootstrap multiplicity)
    block: np.ndarray  # (M,) int64: duplicate block of each match
    tie_row: np.ndarray  # (K,) int64: match of each tie term
    tie_after: np.ndarray  # (K,) int64: first place after the tie group (P if it is last)
    tie_mask: np.ndarray  # (P, K) float64: 1 at the places of the subset U of the tie group
    tie_weight: np.ndarray  # (K,) float64: 1 / C(d, |U|)
    member_place: np.ndarray  # (Q,) int64: place of each (place, term) pair with tie_mask 1
    member_term: np.ndarray  # (Q,) int64: term of each such pair
    pair_term: np.ndarray  # (S,) int64: tie term of each place pair (j, k) that touches its subset U
    pair_first: np.ndarray  # (S,) int64: place j of the pair (both places in the term's set)
    pair_second: np.ndarray  # (S,) int64: place k of the pair


def _subset_template(size: int) -> tuple[np.ndarray, np.ndarray]:
    """Every non-empty subset of ``range(size)`` as a (2^size - 1, size) 0/1 mask, and its weight."""
    masks = np.array(list(itertools.product((0.0, 1.0), repeat=size))[1:])
    counts = masks.sum(axis=1).astype(int)
    weights = np.array([1.0 / math.comb(size, c) for c in counts])
    return masks, weights


def rankings(arrays: MatchArrays) -> Rankings:
    """Sort each match into its finishing order and expand its tie groups."""
    n = arrays.n_agents
    n_matches, width = arrays.seat_agent.shape
    order = np.argsort(arrays.rank, axis=1, kind="stable")  # padding has the largest rank: last
    agent = np.take_along_axis(arrays.seat_agent, order, axis=1)
    rank = np.take_along_axis(arrays.rank, order, axis=1)
    present = agent >= 0
    agent = np.where(present, agent, n)
    position = np.broadcast_to(np.arange(width), (n_matches, width))
    same_as_previous = np.zeros((n_matches, width), dtype=bool)
    same_as_previous[:, 1:] = (rank[:, 1:] == rank[:, :-1]) & present[:, 1:]
    start = np.maximum.accumulate(np.where(same_as_previous, 0, position), axis=1)
    same_as_next = np.zeros((n_matches, width), dtype=bool)
    same_as_next[:, :-1] = same_as_previous[:, 1:]
    tied = same_as_previous | same_as_next
    stage = present & ~tied

    group_start = present & tied & ~same_as_previous
    rows, starts = np.nonzero(group_start)
    members = np.bincount((np.arange(n_matches)[:, None] * width + start)[present & tied], minlength=n_matches * width)
    sizes = members[rows * width + starts]
    if sizes.size and sizes.max() > MAX_TIE_GROUP:
        m = int(rows[np.argmax(sizes)])
        raise ValueError(
            f"match {arrays.match_ids[m]!r} has {sizes.max()} agents sharing one rank; the plackett-luce "
            f"method handles tie groups of at most {MAX_TIE_GROUP} (use the elo method for such data)"
        )
    tie_rows, tie_after, tie_masks, tie_weights = [], [], [], []
    for size in np.unique(sizes):
        masks, weights = _subset_template(int(size))
        chosen = np.flatnonzero(sizes == size)
        n_terms = len(weights)
        g_rows = np.repeat(rows[chosen], n_terms)
        g_starts = np.repeat(starts[chosen], n_terms)
        full = np.zeros((len(chosen) * n_terms, width))
        local = np.tile(masks, (len(chosen), 1))
        columns = g_starts[:, None] + np.arange(size)[None, :]
        np.put_along_axis(full, columns, local, axis=1)
        tie_rows.append(g_rows)
        tie_after.append(g_starts + size)
        tie_masks.append(full)
        tie_weights.append(np.tile(weights, len(chosen)))
    tie_mask = np.concatenate(tie_masks).T.copy() if tie_masks else np.zeros((width, 0))
    member_place, member_term = np.nonzero(tie_mask)
    tie_after_all = np.concatenate(tie_after) if tie_after else np.zeros(0, dtype=np.int64)
    tie_row_all = np.concatenate(tie_rows) if tie_rows else np.zeros(0, dtype=np.int64)
    # Hessian pairs of a tie term that the suffix running sums miss: those touching U.
    in_subset = tie_mask > 0
    in_set = in_subset | ((np.arange(width)[:, None] >= tie_after_all[None, :]) & present.T[:, tie_row_all])
    touching = (in_subset[:, None, :] | in_subset[None, :, :]) & in_set[:, None, :] & in_set[None, :, :]
    pair_first, pair_second, pair_term = np.nonzero(touching)
    return Rankings(
        n_agents=n,
        agent=np.ascontiguousarray(agent.T),
        valid=np.ascontiguousarray(present.T, dtype=float),
        stage=np.ascontiguousarray(stage.T, dtype=float),
        weight=np.ones(n_matches),
        block=np.asarray(arrays.block),
        tie_row=tie_row_all,
        tie_after=tie_after_all,
        tie_mask=tie_mask,
        tie_weight=np.concatenate(tie_weights) if tie_weights else np.zeros(0),
        member_place=member_place,
        member_term=member_term,
        pair_term=pair_term,
        pair_first=pair_first,
        pair_second=pair_second,
    )


def with_weights(data: Rankings, match_weight: np.ndarray) -> Rankings:
    """The same rankings with new match weights (e.g. bootstrap block multiplicities)."""
    return dataclasses.replace(data, weight=np.asarray(match_weight, dtype=float))


SAFE_SPREAD = 300.0
"""Strength spread (natural-log units) up to which one global shift keeps exp(theta) and 1/D^2 finite.

Beyond it each match is shifted by its own maximum instead, which works while a single match
spans less than this.  (At a MAP estimate spreads stay far below: a Gaussian prior of any
width keeps an unbeaten agent within a few dozen units of its opponents.)"""


@dataclass(frozen=True, slots=True)
class _Prepared:
    """Weighted constants of one fit, computed once and shared by every evaluation."""

    data: Rankings  # the finishing orders
    stage_weight: np.ndarray  # (P, M): match weight at plain choice stages, 0 elsewhere
    stage_weight_sum: np.ndarray  # (M,): stage weight per match
    unstaged: np.ndarray | None  # (P, M) bool: places that are not stages (None if there are none)
    appearances: np.ndarray  # (N,): weighted number of places each agent occupies
    tie_weight: np.ndarray  # (K,): match weight times the tie term's weight
    member_row: np.ndarray  # (Q,): match of each (place, tie term) membership pair
    shift_weight: float  # total weight of all log-denominator terms


def _prepare(data: Rankings) -> _Prepared:
    w = data.weight
    stage_weight = w * data.stage
    unstaged = data.stage <= 0
    tie_weight = w[data.tie_row] * data.tie_weight
    appearances = np.bincount(
        data.agent.ravel(), weights=(w * data.valid).ravel(), minlength=data.n_agents + 1
    )[: data.n_agents]
    return _Prepared(
        data=data,
        stage_weight=stage_weight,
        stage_weight_sum=stage_weight.sum(axis=0),
        unstaged=unstaged if unstaged.any() else None,
        appearances=appearances,
        tie_weight=tie_weight,
        member_row=data.tie_row[data.member_term],
        shift_weight=float(stage_weight.sum() + tie_weight.sum()),
    )


@dataclass(frozen=True, slots=True)
class _Pieces:
    """Intermediate quantities shared by the value, the gradient and the Hessian (place-major)."""

    value: float  # negative log-likelihood (no prior)
    exp_theta: np.ndarray  # (P, M): exp(theta - shift) at each place, 0 for padding
    staged: np.ndarray  # (P, M): the denominator where the place is a stage, else 1
    tie_denominator: np.ndarray  # (K,): denominator of each tie term
    expected: np.ndarray  # (P, M): sum over terms of w * P(place in the choice) = Hessian diagonal


def _running_sum(array: np.ndarray) -> np.ndarray:
    """Cumulative sum down the (short) first axis; a loop of row additions beats np.cumsum here."""
    out = array.copy()
    for k in range(1, out.shape[0]):
        out[k] += out[k - 1]
    return out


def _pieces(theta: np.ndarray, prep: _Prepared) -> _Pieces:
    data = prep.data
    width, n_matches = data.agent.shape
    if theta.size == 0 or np.ptp(theta) <= SAFE_SPREAD:
        top = float(theta.max()) if theta.size else 0.0
        exp_theta = np.append(np.exp(theta - top), 0.0)[data.agent]  # padding agent N -> 0
        shift_value = top * prep.shift_weight
        match_shift = None
    else:
        th = np.append(theta, -np.inf)[data.agent]
        match_shift = th.max(axis=0)
        exp_theta = np.exp(th - match_shift)
        shift_value = float(prep.stage_weight_sum @ match_shift + prep.tie_weight @ match_shift[data.tie_row])
    suffix = np.empty((width + 1, n_matches))
    suffix[width] = 0.0
    for k in range(width - 1, -1, -1):
        np.add(suffix[k + 1], exp_theta[k], out=suffix[k])
    staged = suffix[:width] if prep.unstaged is None else np.where(prep.unstaged, 1.0, suffix[:width])
    value = float(np.sum(prep.stage_weight * np.log(staged))) + shift_value - float(theta @ prep.appearances)
    coefficient = np.zeros((width + 1, n_matches))
    np.divide(prep.stage_weight, staged, out=coefficient[:width])
    if data.tie_row.size:
        rows = data.tie_row
        inside = np.bincount(
            data.member_term, weights=exp_theta[data.member_place, prep.member_row], minlength=rows.size
        )
        denominator = suffix[data.tie_after, rows] + inside
        value += float(prep.tie_weight @ np.log(denominator))
        share = prep.tie_weight / denominator
        coefficient += np.bincount(
            data.tie_after * n_matches + rows, weights=share, minlength=(width + 1) * n_matches
        ).reshape(width + 1, n_matches)
        running = _running_sum(coefficient[:width])
        running += np.bincount(
            data.member_place * n_matches + prep.member_row,
            weights=share[data.member_term],
            minlength=width * n_matches,
        ).reshape(width, n_matches)
    else:
        denominator = np.zeros(0)
        running = _running_sum(coefficient[:width])
    running *= exp_theta
    return _Pieces(value, exp_theta, staged, denominator, running)


class _Evaluator:
    """Value, gradient and Hessian of one fit's objective, sharing the work done at the same theta."""

    def __init__(self, prep: _Prepared, prior_sd: float) -> None:
        self.prep = prep
        self.prior_sd = prior_sd
        self._theta: np.ndarray | None = None
        self._pieces: _Pieces | None = None

    def pieces(self, theta: np.ndarray) -> _Pieces:
        if self._theta is None or not np.array_equal(theta, self._theta):
            self._pieces = _pieces(theta, self.prep)
            self._theta = np.array(theta, dtype=float)
        assert self._pieces is not None  # set with _theta
        return self._pieces

    def value_and_gradient(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        pieces = self.pieces(theta)
        n = self.prep.data.n_agents
        expected = np.bincount(self.prep.data.agent.ravel(), weights=pieces.expected.ravel(), minlength=n + 1)[:n]
        value = pieces.value + theta @ theta / (2.0 * self.prior_sd**2)
        return value, expected - self.prep.appearances + theta / self.prior_sd**2

    def hessian(self, theta: np.ndarray) -> np.ndarray:
        return _hessian(theta, self.prep, self.pieces(theta), self.prior_sd)


def negative_log_posterior(theta: np.ndarray, data: Rankings, prior_sd: float = PRIOR_SD) -> float:
    """``-log p(theta | data)`` up to a constant (tie-averaged Plackett–Luce plus the Gaussian prior)."""
    return _Evaluator(_prepare(data), prior_sd).value_and_gradient(np.asarray(theta, dtype=float))[0]


def gradient(theta: np.ndarray, data: Rankings, prior_sd: float = PRIOR_SD) -> np.ndarray:
    """Gradient of ``negative_log_posterior``."""
    return _Evaluator(_prepare(data), prior_sd).value_and_gradient(np.asarray(theta, dtype=float))[1]


def hessian(theta: np.ndarray, data: Rankings, prior_sd: float = PRIOR_SD) -> np.ndarray:
    """Hessian of ``negative_log_posterior``.

    Every likelihood term ``w log sum_{j in S} e^theta_j`` contributes ``w (diag(p) - p p^T)``
    with ``p = e^theta 1_S / sum_S e^theta``.  The diagonal parts add up to ``expected``.  The
    sets of a match's stage terms are suffixes of its finishing order, so the outer-product
    weight of two places ``j <= k`` is a running sum of ``w / D^2`` up to ``j``; a tie term's
    set is a suffix plus a subset of its group, whose extra pairs are added term by term.
    """
    return _Evaluator(_prepare(data), prior_sd).hessian(np.asarray(theta, dtype=float))


def _hessian(theta: np.ndarray, prep: _Prepared, pieces: _Pieces, prior_sd: float) -> np.ndarray:
    data = prep.data
    n = data.n_agents
    width, n_matches = data.agent.shape
    exp_theta = pieces.exp_theta
    squared = np.zeros((width + 1, n_matches))
    squared[:width] = prep.stage_weight / pieces.staged**2
    if data.tie_row.size:
        rows = data.tie_row
        tw2 = prep.tie_weight / pieces.tie_denominator**2
        squared += np.bincount(
            data.tie_after * n_matches + rows, weights=tw2, minlength=(width + 1) * n_matches
        ).reshape(width + 1, n_matches)
    running = _running_sum(squared[:width])
    size = n + 1
    flat = np.zeros(size * size)
    for j in range(width):
        weighted = exp_theta[j] * running[j]
        for k in range(j, width):
            value = weighted * exp_theta[k]  # both places are in every suffix set starting at or before j
            if k > j:
                value *= 2.0  # the pair (k, j) too; split evenly by the symmetrisation below
            flat += np.bincount(data.agent[j] * size + data.agent[k], weights=value, minlength=size * size)
    if data.tie_row.size:
        # Pairs touching a tie term's subset U, which the running sums (suffix sets) miss.
        rows = data.tie_row[data.pair_term]
        first, second = data.pair_first, data.pair_second
        extra = tw2[data.pair_term] * exp_theta[first, rows] * exp_theta[second, rows]
        flat += np.bincount(
            data.agent[first, rows] * size + data.agent[second, rows], weights=extra, minlength=size * size
        )
    outer = flat.reshape(size, size)
    outer = 0.5 * (outer + outer.T)
    diagonal = np.bincount(data.agent.ravel(), weights=pieces.expected.ravel(), minlength=size)
    matrix = np.diag(diagonal) - outer
    return matrix[:n, :n] + np.eye(n) / prior_sd**2


def fit_strengths(data: Rankings, prior_sd: float = PRIOR_SD, x0: np.ndarray | None = None) -> inference.MapFit:
    """MAP natural-log strengths (centred at zero) for finishing orders.

    Parameters
    ----------
    data : Rankings
        Finishing orders (see ``rankings``).
    prior_sd : float, optional
        Prior standard deviation of each strength.
    x0 : numpy.ndarray, optional
        Warm start.
    """
    if prior_sd <= 0:
        raise ValueError(f"prior_sd must be positive, got {prior_sd}")
    evaluator = _Evaluator(_prepare(data), prior_sd)
    return inference.fit_map(
        evaluator.value_and_gradient,
        evaluator.hessian,
        data.n_agents,
        x0=x0,
    )


def block_scores(theta: np.ndarray, data: Rankings) -> inference.BlockScores:
    """(block, agent, score) triplets of log-likelihood gradient contributions, for the sandwich."""
    pieces = _pieces(np.asarray(theta, dtype=float), _prepare(data))
    keep = data.valid > 0
    block = np.broadcast_to(data.block, data.agent.shape)[keep]
    seat_gradient = pieces.expected - data.weight * data.valid
    return block, data.agent[keep], seat_gradient[keep]


def fit(
    outcomes: Sequence[MatchOutcome],
    *,
    prior_sd: float = PRIOR_SD,
    anchor_agent: str | None = None,
    anchor_rating: float = FIELD_MEAN_RATING,
    intervals: str = "auto",
    bootstrap: int = 0,
    seed: int = BOOTSTRAP_SEED,
    level: float = INTERVAL_LEVEL,
) -> RatingTable:
    """Fit Plackett–Luce strengths to each match's finishing order; report Elo-scale ratings.

    Parameters
    ----------
    outcomes : sequence of MatchOutcome
        Any order; the result does not depend on it.
    prior_sd : float, optional
        Prior standard deviation of each natural-log strength (``PRIOR_SD``).
    anchor_agent : str, optional
        Pin this agent to ``anchor_rating``; by default the field mean is pinned.
    anchor_rating : float, optional
        The anchored value (1500).
    intervals : {"hessian", "adjusted", "sandwich"}, optional
        The inverse Hessian (the default: the likelihood is the full likelihood of the
        orders), scaled by the design effect, or the sandwich clustered by duplicate block.
    bootstrap : int, optional
        If positive, intervals and superiority come from this many bootstrap replicates
        that resample whole duplicate blocks (the point estimate is still the full fit).
    seed : int, optional
        Seed of the bootstrap.
    level : float, optional
        Coverage of the intervals (0.95).

    Returns
    -------
    RatingTable
    """
    return fit_table(
        MODEL, outcomes, prior_sd=prior_sd, anchor_agent=anchor_agent, anchor_rating=anchor_rating,
        intervals=intervals, bootstrap=bootstrap, seed=seed, level=level,
    )


MODEL = StrengthModel(
    method=METHOD,
    model="Plackett-Luce",
    description="Plackett-Luce over each match's finishing order; ties averaged over their orders",
    prepare=rankings,
    reweight=lambda data, arrays, weights: with_weights(data, weights[data.block]),
    fit_strengths=fit_strengths,
    block_scores=lambda theta, data, arrays: block_scores(theta, data),
    details=lambda data: {},
)
"""Plackett-Luce as the shared strength-fitting procedure sees it."""
