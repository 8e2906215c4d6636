"""TrueSkill for free-for-all matches (method ``"trueskill"``).

Every seat is a team of one.  A match is the TrueSkill factor graph of Herbrich, Minka and
Graepel (2007): each agent's skill (its current rating, widened by the dynamics ``TAU``)
produces a performance with noise ``BETA``; the seats are sorted by rank and each adjacent
pair's performance difference is constrained by a truncation factor: greater than the
draw margin for a win, within it for a draw (equal ranks).  The chain of differences is
solved by expectation propagation: the difference messages are swept forward and back,
each truncation replaced by the moment-matched Gaussian of the truncated one, until the
largest change of a difference marginal in a sweep is at most ``MIN_DELTA`` (at most
``MAX_SWEEPS`` sweeps).  This is exactly the schedule of the reference implementation
(the ``trueskill`` package, which the tests compare against to 1e-6).

TrueSkill is an online method, and this is its batch use: a finished tournament is rated
once, so the defaults differ from the package's (which are for ratings that follow players
over time):

* ``tau = 0`` (``TAU``): no dynamics.  The package's ``sigma / 100`` is added to every
  sigma before every match, which keeps sigma from shrinking below about 0.7 however many
  matches are played, so the ranking stops improving after a few hundred matches per
  agent.  Agents' strengths are fixed within a tournament, so every match should count.
* ``draw_probability = "observed"``: the share of tied pairs of seats in the data (see
  ``observed_draw_probability``).  A fixed 0.10 where a third of pairs tie (as in Lorum)
  makes every tie look like strong evidence of equality and shrinks the scale.
* Matches are processed in the order they were played: the order of the input sequence
  (``MatchArrays.played``; the store yields its rows in schedule order).  The result
  depends on that order, unlike every other method: with ``tau = 0`` the dependence is
  small (each match is weighed against the evidence before it, not after), but it is not
  zero, so the same matches in another order can move mu by a fraction of sigma and swap
  close neighbours.  ``trueskill.TrueSkill().rate`` called match by match in the same
  order gives the same numbers (the tests compare to 1e-9).

Speed: a 4-seat match takes about twenty truncation steps (four per sweep, about five
sweeps), and the waves are sequential.  In scalar code a match costs about 20 µs; a numpy
batch costs about 0.5 µs per array operation, about a thousand operations per wave, so it
pays only for waves of some fifty matches.  Waves are small in practice (about 4 matches
with 100 agents, 32 with 1,000, over 4-seat matches), so 10^6 matches take about 20 s: a
fit within a few seconds would need compiled code for the per-match chain.

The Gaussian tail functions use ``scipy.special.ndtr``/``log_ndtr`` (the kernels behind
``scipy.stats.norm``), in log space so that large upsets do not divide zero by zero.

The reported rating is ``mu``, re-centred on the field (``centre``), and agents are ranked
by it; the interval comes from a grouped jackknife over duplicate blocks (``jackknife``):
TrueSkill's own sigma treats every match as independent, so it cannot see what duplicate
blocks gain, nor the spread an online fit adds (see ``fit``).  The
conservative ``mu - 3 sigma`` (the package's leaderboard number) is kept in the extras as
``conservative``: a lower bound that ranks uncertain agents low, not an estimate.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import log_ndtr
from scipy.stats import norm
from scipy.stats import t as student_t

from arena.ratings.data import MatchArrays, MatchOutcome, as_arrays, seat_pairs
from arena.ratings.scale import contrast_sd_from_covariance, superiority_from_covariance, z_value
from arena.ratings.table import INTERVAL_LEVEL, RatingTable, empty_table, make_table

METHOD = "trueskill"

MU = 25.0
"""Prior mean of a skill."""

SIGMA = MU / 3.0
"""Prior standard deviation of a skill."""

BETA = SIGMA / 2.0
"""Performance noise: a skill gap of BETA gives about a 76% chance of finishing ahead."""

TAU = 0.0
"""Dynamics: added (in quadrature) to every skill's sigma before each match (the package's is SIGMA / 100)."""

PACKAGE_TAU = SIGMA / 100.0
"""The ``trueskill`` package's default dynamics (for ratings that follow players over time)."""

DRAW_PROBABILITY = "observed"
"""Default draw probability: estimated from the data (``observed_draw_probability``)."""

PACKAGE_DRAW_PROBABILITY = 0.10
"""The ``trueskill`` package's default draw probability."""

MIN_DELTA = 1e-4
"""Stop sweeping a match once no difference marginal changed by more than this (trueskill's DELTA)."""

MAX_SWEEPS = 10
"""Sweeps of the difference chain per match at most (as in the trueskill package)."""

CONSERVATIVE_SIGMAS = 3.0
"""The conservative rating (extras ``conservative``) is mu minus this many sigmas."""

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_W_CEILING = 1.0 - 1e-12  # w is in (0, 1) in exact arithmetic; keep 1 - w positive on huge upsets

TRUESKILL_INTERVALS: tuple[str, ...] = ("jackknife", "posterior")
"""Interval kinds of the TrueSkill method (see ``fit``)."""

MAX_OBSERVED_DRAW_PROBABILITY = 0.9
"""An observed tie share above this is capped (a draw probability near 1 makes the margin infinite)."""

VECTOR_BATCH = 48
"""Waves with at least this many matches of one size are computed as numpy batches; smaller
ones match by match in scalar code (numpy's per-call overhead dominates tiny batches)."""


@dataclass(frozen=True, slots=True)
class Environment:
    """TrueSkill constants (the same meaning as ``trueskill.TrueSkill``'s arguments)."""

    mu: float = MU  # prior mean
    sigma: float = SIGMA  # prior standard deviation
    beta: float = BETA  # performance noise
    tau: float = TAU  # dynamics per match
    draw_probability: float = PACKAGE_DRAW_PROBABILITY  # draw probability of two equal agents
    min_delta: float = MIN_DELTA  # convergence threshold of the sweeps
    max_sweeps: int = MAX_SWEEPS  # sweeps per match at most

    def draw_margin(self) -> float:
        """Draw margin between two teams of one: ``Phi^-1((p + 1) / 2) sqrt(2) beta``."""
        return float(norm.ppf((self.draw_probability + 1.0) / 2.0) * math.sqrt(2.0) * self.beta)


def _log_pdf(x: np.ndarray) -> np.ndarray:
    return -0.5 * x * x - _LOG_SQRT_2PI


def _v_w_win(x: np.ndarray, margin: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance corrections of a Gaussian truncated to ``diff > margin``."""
    t = x - margin
    v = np.exp(_log_pdf(t) - log_ndtr(t))
    w = np.clip(v * (v + t), 0.0, _W_CEILING)
    return v, w


def _v_w_draw(x: np.ndarray, margin: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance corrections of a Gaussian truncated to ``|diff| <= margin``."""
    size = np.abs(x)
    a = margin - size
    b = -margin - size
    log_a, log_b = log_ndtr(a), log_ndtr(b)
    log_mass = log_a + np.log1p(-np.exp(log_b - log_a))  # log(Phi(a) - Phi(b)), a > b
    pdf_a = np.exp(_log_pdf(a) - log_mass)  # pdf(a) / mass
    pdf_b = np.exp(_log_pdf(b) - log_mass)
    v = pdf_b - pdf_a
    w = np.clip(v * v + a * pdf_a - b * pdf_b, 0.0, _W_CEILING)
    return np.where(x < 0, -v, v), w


class _Chain:
    """The messages of a batch of ``K`` matches with ``n`` seats each, sorted by rank.

    Gaussians are kept in natural parameters: precision ``pi`` and precision-mean ``tau``.
    ``perf`` is each seat's performance message; ``left[:, i]`` / ``right[:, i]`` the
    messages into seat ``i``'s performance from the difference factor on its left / right;
    ``down[:, j]`` / ``trunc[:, j]`` the messages into difference ``j`` from its sum factor
    and from its truncation factor.
    """

    def __init__(self, perf_pi: np.ndarray, perf_tau: np.ndarray, draw: np.ndarray, margin: float) -> None:
        k, n = perf_pi.shape
        self.perf_pi, self.perf_tau = perf_pi, perf_tau
        self.left_pi, self.left_tau = np.zeros((k, n)), np.zeros((k, n))
        self.right_pi, self.right_tau = np.zeros((k, n)), np.zeros((k, n))
        self.down_pi, self.down_tau = np.zeros((k, n - 1)), np.zeros((k, n - 1))
        self.trunc_pi, self.trunc_tau = np.zeros((k, n - 1)), np.zeros((k, n - 1))
        self.draw = draw  # (K, n - 1) bool: seats j and j + 1 share a rank
        self.margin = margin

    def send_down(self, j: int) -> None:
        """Difference ``j`` = perf ``j`` - perf ``j + 1``, from their messages other than this factor's."""
        a_pi = self.perf_pi[:, j] + self.left_pi[:, j]
        a_tau = self.perf_tau[:, j] + self.left_tau[:, j]
        b_pi = self.perf_pi[:, j + 1] + self.right_pi[:, j + 1]
        b_tau = self.perf_tau[:, j + 1] + self.right_tau[:, j + 1]
        variance = 1.0 / a_pi + 1.0 / b_pi
        mean = a_tau / a_pi - b_tau / b_pi
        self.down_pi[:, j] = 1.0 / variance
        self.down_tau[:, j] = mean / variance

    def truncate(self, j: int) -> np.ndarray:
        """Moment-match the truncation of difference ``j``; return how much its marginal moved."""
        c_pi, c_tau = self.down_pi[:, j], self.down_tau[:, j]
        sqrt_pi = np.sqrt(c_pi)
        x = c_tau / sqrt_pi
        margin = self.margin * sqrt_pi
        draw = self.draw[:, j]
        if draw.any():
            v_win, w_win = _v_w_win(x, margin)
            v_draw, w_draw = _v_w_draw(x, margin)
            v, w = np.where(draw, v_draw, v_win), np.where(draw, w_draw, w_win)
        else:
            v, w = _v_w_win(x, margin)
        new_pi = c_pi / (1.0 - w)
        new_tau = (c_tau + sqrt_pi * v) / (1.0 - w)
        old_pi = c_pi + self.trunc_pi[:, j]
        old_tau = c_tau + self.trunc_tau[:, j]
        self.trunc_pi[:, j] = new_pi - c_pi
        self.trunc_tau[:, j] = new_tau - c_tau
        return np.maximum(np.abs(new_tau - old_tau), np.sqrt(np.abs(new_pi - old_pi)))

    def send_right(self, j: int) -> None:
        """Into perf ``j + 1`` = perf ``j`` - difference ``j``."""
        a_pi = self.perf_pi[:, j] + self.left_pi[:, j]
        a_tau = self.perf_tau[:, j] + self.left_tau[:, j]
        t_pi, t_tau = self.trunc_pi[:, j], self.trunc_tau[:, j]
        variance = 1.0 / a_pi + 1.0 / t_pi
        mean = a_tau / a_pi - t_tau / t_pi
        self.left_pi[:, j + 1] = 1.0 / variance
        self.left_tau[:, j + 1] = mean / variance

    def send_left(self, j: int) -> None:
        """Into perf ``j`` = difference ``j`` + perf ``j + 1``."""
        b_pi = self.perf_pi[:, j + 1] + self.right_pi[:, j + 1]
        b_tau = self.perf_tau[:, j + 1] + self.right_tau[:, j + 1]
        t_pi, t_tau = self.trunc_pi[:, j], self.trunc_tau[:, j]
        variance = 1.0 / t_pi + 1.0 / b_pi
        mean = t_tau / t_pi + b_tau / b_pi
        self.right_pi[:, j] = 1.0 / variance
        self.right_tau[:, j] = mean / variance

    _FIELDS = ("left_pi", "left_tau", "right_pi", "right_tau", "down_pi", "down_tau", "trunc_pi", "trunc_tau")

    def sweep(self) -> np.ndarray:
        """One forward-and-back pass over the chain (trueskill's schedule); the largest move per match."""
        diffs = self.down_pi.shape[1]
        delta = np.zeros(self.down_pi.shape[0])
        if diffs == 1:
            self.send_down(0)
            return np.maximum(delta, self.truncate(0))
        for j in range(diffs - 1):
            self.send_down(j)
            delta = np.maximum(delta, self.truncate(j))
            self.send_right(j)
        for j in range(diffs - 1, 0, -1):
            self.send_down(j)
            delta = np.maximum(delta, self.truncate(j))
            self.send_left(j)
        return delta

    def run(self, min_delta: float, max_sweeps: int) -> None:
        """Sweep each match until its largest move is at most ``min_delta`` (or ``max_sweeps``)."""
        active = np.ones(self.down_pi.shape[0], dtype=bool)
        for _ in range(max_sweeps):
            if active.all():
                active = self.sweep() > min_delta
                continue
            rows = np.flatnonzero(active)
            if rows.size == 0:
                break
            saved = {name: getattr(self, name) for name in self._FIELDS}
            saved_perf = (self.perf_pi, self.perf_tau, self.draw)
            for name in self._FIELDS:
                setattr(self, name, saved[name][rows])
            self.perf_pi, self.perf_tau, self.draw = (array[rows] for array in saved_perf)
            moved = self.sweep()
            for name in self._FIELDS:
                saved[name][rows] = getattr(self, name)
                setattr(self, name, saved[name])
            self.perf_pi, self.perf_tau, self.draw = saved_perf
            active[rows] = moved > min_delta
        diffs = self.down_pi.shape[1]
        self.send_left(0)
        self.send_right(diffs - 1)


def _scalar_v_w(x: float, margin: float, draw: bool) -> tuple[float, float]:
    """``_v_w_win`` / ``_v_w_draw`` for one difference, with ``math`` (falls back to log space)."""
    if not draw:
        t = x - margin
        if t > -30.0:
            v = math.exp(-0.5 * t * t - _LOG_SQRT_2PI) / (0.5 * math.erfc(-t * _INV_SQRT2))
            w = v * (v + t)
            return v, (w if w < _W_CEILING else _W_CEILING) if w > 0.0 else 0.0
        v_arr, w_arr = _v_w_win(np.array([x]), np.array([margin]))
        return float(v_arr[0]), float(w_arr[0])
    size = abs(x)
    a = margin - size
    b = -margin - size
    if b > -30.0:
        mass = 0.5 * (math.erfc(-a * _INV_SQRT2) - math.erfc(-b * _INV_SQRT2))
        if mass > 1e-300:
            pdf_a = math.exp(-0.5 * a * a - _LOG_SQRT_2PI) / mass
            pdf_b = math.exp(-0.5 * b * b - _LOG_SQRT_2PI) / mass
            v = pdf_b - pdf_a
            w = v * v + a * pdf_a - b * pdf_b
            return (-v if x < 0 else v), (w if w < _W_CEILING else _W_CEILING) if w > 0.0 else 0.0
    v_arr, w_arr = _v_w_draw(np.array([x]), np.array([margin]))
    return float(v_arr[0]), float(w_arr[0])


@functools.cache
def _sweep_schedule(diffs: int) -> tuple[tuple[int, int], ...]:
    """The steps of one sweep as ``(difference, direction)``: +1 sends right, -1 sends left, 0 neither.

    trueskill's schedule: forward over differences ``0 .. diffs - 2`` (each then sends to its
    right seat), back over ``diffs - 1 .. 1`` (each then sends to its left seat); a lone
    difference only truncates.
    """
    if diffs == 1:
        return ((0, 0),)
    return tuple((j, 1) for j in range(diffs - 1)) + tuple((j, -1) for j in range(diffs - 1, 0, -1))


def _rate_one(
    prior_pi: list[float],
    prior_tau: list[float],
    draw: list[bool],
    beta2: float,
    margin: float,
    min_delta: float,
    max_sweeps: int,
) -> tuple[list[float], list[float]]:
    """One match, seats sorted by rank: the same messages and schedule as ``_Chain``, in scalars.

    Small waves (a few matches) are faster this way than as numpy batches.  The message
    passing is written out inline (no helper calls per step), since one match takes about
    twenty truncations and a Python call costs as much as the arithmetic of a step; every
    expression keeps the operation order of the step functions of ``_Chain``.
    """
    n = len(prior_pi)
    diffs = n - 1
    perf_pi = [p / (1.0 + beta2 * p) for p in prior_pi]
    perf_tau = [t / (1.0 + beta2 * p) for p, t in zip(prior_pi, prior_tau)]
    left_pi, left_tau = [0.0] * n, [0.0] * n
    right_pi, right_tau = [0.0] * n, [0.0] * n
    trunc_pi, trunc_tau = [0.0] * diffs, [0.0] * diffs
    schedule = _sweep_schedule(diffs)
    # Locals: the loop below is the hot spot of a TrueSkill fit, and a local costs less than a global.
    sqrt, exp, erfc = math.sqrt, math.exp, math.erfc
    log_sqrt_2pi, inv_sqrt2, w_ceiling = _LOG_SQRT_2PI, _INV_SQRT2, _W_CEILING
    for _ in range(max_sweeps):
        # Whether every marginal has moved by at most min_delta so far in this sweep (trueskill
        # stops when the largest move is at most min_delta); once one moved further, the
        # others need not be measured.
        settled = True
        for j, direction in schedule:
            # The difference j = perf j - perf j + 1, from the messages other than its own.
            a_pi = perf_pi[j] + left_pi[j]
            a_tau = perf_tau[j] + left_tau[j]
            b_pi = perf_pi[j + 1] + right_pi[j + 1]
            b_tau = perf_tau[j + 1] + right_tau[j + 1]
            inv_a, inv_b = 1.0 / a_pi, 1.0 / b_pi
            mean_a, mean_b = a_tau / a_pi, b_tau / b_pi
            variance = inv_a + inv_b
            mean = mean_a - mean_b
            c_pi = 1.0 / variance
            c_tau = mean / variance
            # Moment-match its truncation.
            sqrt_pi = sqrt(c_pi)
            x = c_tau / sqrt_pi
            t = x - margin * sqrt_pi
            if not draw[j] and t > -30.0:  # _scalar_v_w's common case, inline
                v = exp(-0.5 * t * t - log_sqrt_2pi) / (0.5 * erfc(-t * inv_sqrt2))
                w = v * (v + t)
                w = (w if w < w_ceiling else w_ceiling) if w > 0.0 else 0.0
            else:
                v, w = _scalar_v_w(x, margin * sqrt_pi, draw[j])
            keep = 1.0 - w
            new_pi = c_pi / keep
            new_tau = (c_tau + sqrt_pi * v) / keep
            t_pi = new_pi - c_pi
            t_tau = new_tau - c_tau
            if settled and (abs(t_tau - trunc_tau[j]) > min_delta or sqrt(abs(t_pi - trunc_pi[j])) > min_delta):
                settled = False
            trunc_pi[j] = t_pi
            trunc_tau[j] = t_tau
            if direction > 0:  # into perf j + 1 = perf j - difference j
                variance = inv_a + 1.0 / t_pi
                mean = mean_a - t_tau / t_pi
                left_pi[j + 1] = 1.0 / variance
                left_tau[j + 1] = mean / variance
            elif direction < 0:  # into perf j = difference j + perf j + 1
                variance = 1.0 / t_pi + inv_b
                mean = t_tau / t_pi + mean_b
                right_pi[j] = 1.0 / variance
                right_tau[j] = mean / variance
        if settled:
            break
    # The last messages into the two end seats' neighbours (trueskill's closing send_left(0)/send_right).
    b_pi = perf_pi[1] + right_pi[1]
    variance = 1.0 / trunc_pi[0] + 1.0 / b_pi
    mean = trunc_tau[0] / trunc_pi[0] + (perf_tau[1] + right_tau[1]) / b_pi
    right_pi[0] = 1.0 / variance
    right_tau[0] = mean / variance
    j = diffs - 1
    a_pi = perf_pi[j] + left_pi[j]
    variance = 1.0 / a_pi + 1.0 / trunc_pi[j]
    mean = (perf_tau[j] + left_tau[j]) / a_pi - trunc_tau[j] / trunc_pi[j]
    left_pi[j + 1] = 1.0 / variance
    left_tau[j + 1] = mean / variance
    post_pi, post_tau = [], []
    for i in range(n):
        message_pi = left_pi[i] + right_pi[i]
        up = 1.0 / (1.0 + beta2 * message_pi)
        post_pi.append(prior_pi[i] + up * message_pi)
        post_tau.append(prior_tau[i] + up * (left_tau[i] + right_tau[i]))
    return post_pi, post_tau


def waves(arrays: MatchArrays) -> np.ndarray:
    """(M,) wave of each match: 1 + the latest wave of its agents' earlier matches (in the order played)."""
    # Padding seats (agent -1) read and write the extra last slot, which is reset to 0 after
    # every match: cheaper than filtering each row.
    latest = [0] * (arrays.n_agents + 1)
    level_of = latest.__getitem__
    sequence = np.argsort(arrays.played, kind="stable")
    wave = np.zeros(arrays.n_matches, dtype=np.int64)
    rows = arrays.seat_agent[sequence].tolist()
    levels = []
    for row in rows:
        level = max(map(level_of, row)) + 1
        for a in row:
            latest[a] = level
        latest[-1] = 0
        levels.append(level)
    wave[sequence] = levels
    return wave


def rate(arrays: MatchArrays, env: Environment = Environment()) -> tuple[np.ndarray, np.ndarray]:
    """Run every match through TrueSkill in the order played; return ``(mu, sigma)`` per agent.

    Parameters
    ----------
    arrays : MatchArrays
        The matches (``played`` gives their order).
    env : Environment, optional
        The constants.

    Returns
    -------
    mu, sigma : numpy.ndarray
        (N,) posterior mean and standard deviation of each agent's skill.
    """
    mu = np.full(arrays.n_agents, env.mu, dtype=float)
    sigma = np.full(arrays.n_agents, env.sigma, dtype=float)
    if arrays.n_matches == 0:
        return mu, sigma
    margin = env.draw_margin()
    beta2 = env.beta**2
    order = np.argsort(arrays.rank, axis=1, kind="stable")  # trueskill sorts seats stably by rank
    ranked_agent = np.take_along_axis(arrays.seat_agent, order, axis=1)
    ranked_rank = np.take_along_axis(arrays.rank, order, axis=1)
    wave = waves(arrays)
    batches = np.lexsort((arrays.seats, wave))
    key = wave[batches] * (arrays.seat_agent.shape[1] + 1) + arrays.seats[batches]
    bounds = np.flatnonzero(np.diff(key)) + 1
    draw_all = (ranked_rank[:, 1:] == ranked_rank[:, :-1]).tolist()
    agents_all = ranked_agent.tolist()
    seats = arrays.seats.tolist()
    tau2 = env.tau**2
    # Python floats: the scalar path is an order of magnitude slower on numpy scalars.
    mu_of, sigma_of = mu.tolist(), sigma.tolist()
    order = batches.tolist()
    edges = [0, *bounds.tolist(), len(order)]
    for start, end in itertools.pairwise(edges):
        n = seats[order[start]]
        if end - start < VECTOR_BATCH:
            for m in order[start:end]:
                agent = agents_all[m][:n]
                one_pi = [1.0 / (sigma_of[a] ** 2 + tau2) for a in agent]
                one_tau = [p * mu_of[a] for p, a in zip(one_pi, agent)]
                new_pi, new_tau = _rate_one(
                    one_pi, one_tau, draw_all[m][: n - 1], beta2, margin, env.min_delta, env.max_sweeps
                )
                for a, p, t in zip(agent, new_pi, new_tau):
                    mu_of[a] = t / p
                    sigma_of[a] = math.sqrt(1.0 / p)
            continue
        batch = batches[start:end]
        agent = ranked_agent[batch, :n]
        flat = agent.ravel().tolist()
        prior_pi = 1.0 / (np.array([sigma_of[a] for a in flat]).reshape(agent.shape) ** 2 + tau2)
        prior_tau = prior_pi * np.array([mu_of[a] for a in flat]).reshape(agent.shape)
        shrink = 1.0 / (1.0 + beta2 * prior_pi)  # the performance likelihood factor
        draw = np.array([draw_all[m][: n - 1] for m in batch.tolist()], dtype=bool)
        chain = _Chain(shrink * prior_pi, shrink * prior_tau, draw, margin)
        chain.run(env.min_delta, env.max_sweeps)
        message_pi = chain.left_pi + chain.right_pi
        message_tau = chain.left_tau + chain.right_tau
        up = 1.0 / (1.0 + beta2 * message_pi)
        post_pi = prior_pi + up * message_pi
        post_tau = prior_tau + up * message_tau
        new_mu = (post_tau / post_pi).ravel().tolist()
        new_sigma = np.sqrt(1.0 / post_pi).ravel().tolist()
        for a, a_mu, a_sigma in zip(flat, new_mu, new_sigma):
            mu_of[a] = a_mu
            sigma_of[a] = a_sigma
    mu = np.array(mu_of)
    sigma = np.array(sigma_of)
    return mu, sigma


def centre(mu: np.ndarray, level: float) -> np.ndarray:
    """``mu`` shifted so that the field's mean is ``level`` (per row of a stack of replicates).

    Only differences of skill are identified by results; TrueSkill's common level is pinned
    by the prior and then wanders with the online updates of multi-seat matches (by about a
    sigma of the prior's scale, however many matches are played).  The reported rating
    removes that wander: ranks, gaps and P(stronger) do not change.
    """
    return mu - mu.mean(axis=-1, keepdims=True) + level


JACKKNIFE_GROUPS = 20
"""Groups of duplicate blocks the jackknife leaves out one at a time (fewer when there are fewer blocks)."""


JACKKNIFE_MAX_MATCHES = 50_000
"""Above this many matches the jackknife (``JACKKNIFE_GROUPS`` more fits) is skipped for the posterior."""


def jackknife(arrays: MatchArrays, env: Environment, full: np.ndarray) -> tuple[np.ndarray, int]:
    """Grouped jackknife covariance of ``mu`` over duplicate blocks, and the number of groups.

    Blocks are dealt to ``G = min(JACKKNIFE_GROUPS, blocks)`` groups in turn (block ``b``
    to group ``b mod G``); each group is left out once and the rest re-rated in the same
    order (all ``G`` replicates in one pass: ``_left_out``).  The covariance is
    ``(G - 1) / G * sum_g (mu_g - mean)(mu_g - mean)^T``: it sees everything that moves
    ``mu`` from one tournament to the next (the deals, the correlation within a block, and
    the path of an online fit), which TrueSkill's own sigma does not.  An agent absent from a
    replicate (all its blocks left out) takes the full fit's ``mu`` there.  Costs about ``G``
    fits' arithmetic, mostly in numpy batches.
    """
    n_blocks = len(arrays.blocks)
    groups = min(JACKKNIFE_GROUPS, n_blocks)
    if groups < 2:
        return np.diag(np.full(arrays.n_agents, np.inf)), max(groups, 1)
    group = arrays.block % groups
    replicates = rate(_left_out(arrays, group, groups), env)[0].reshape(groups, arrays.n_agents)
    played = np.stack([np.bincount(arrays.seat_agent[group != g].ravel() + 1, minlength=arrays.n_agents + 1)[1:]
                       for g in range(groups)])
    replicates = centre(np.where(played > 0, replicates, full), env.mu)
    centred = replicates - replicates.mean(axis=0)
    return (groups - 1) / groups * centred.T @ centred, groups


def _left_out(arrays: MatchArrays, group: np.ndarray, groups: int) -> MatchArrays:
    """Every leave-one-group-out replicate as one set of matches between ``groups * N`` agents.

    Replicate ``g`` keeps the matches outside group ``g``, between its own copies of the
    agents (agent ``a`` becomes ``g * N + a``), in the same order.  The copies share no
    agent, so a match's copies fall into the same TrueSkill wave and are rated as one
    numpy batch: the replicates cost about as much as one fit of many more matches in
    parallel, and give what rating each replicate alone would.
    """
    n = arrays.n_agents
    kept = [np.flatnonzero(group != g) for g in range(groups)]
    rows = np.concatenate(kept)
    replicate = np.repeat(np.arange(groups), [k.size for k in kept])
    seat_agent = arrays.seat_agent[rows]
    seat_agent = np.where(seat_agent >= 0, seat_agent + (replicate * n)[:, None], -1)
    order = np.lexsort((replicate, arrays.played[rows]))  # the order played, replicates side by side
    played = np.empty(rows.size, dtype=np.int64)
    played[order] = np.arange(rows.size)
    games = np.bincount(seat_agent[seat_agent >= 0], minlength=groups * n).astype(np.int64)
    return dataclasses.replace(
        arrays,
        agents=tuple(range(groups * n)),  # type: ignore[arg-type]  # replicates: agents and matches by index
        match_ids=tuple(range(rows.size)),  # type: ignore[arg-type]
        seat_agent=seat_agent,
        score=arrays.score[rows],
        rank=arrays.rank[rows],
        seats=arrays.seats[rows],
        block=arrays.block[rows],
        games=games,
        fault_counts=np.zeros((groups * n, arrays.fault_counts.shape[1]), dtype=np.int64),
        played=played,
    )


def observed_draw_probability(arrays: MatchArrays) -> float:
    """The share of pairs of seats that tied (equal ranks), over every pair of seats of every match.

    TrueSkill's ``draw_probability`` is the chance that two equal agents draw; the share
    of all pairs that tie is a slight underestimate of it (unequal agents tie less often),
    which errs towards reading a tie as less evidence of equality.
    """
    tied = total = 0
    for _, _, present, _, _, result in seat_pairs(arrays):
        draws = result == 0.5
        tied += int(np.count_nonzero(draws if present is None else draws & present))
        total += arrays.n_matches if present is None else int(np.count_nonzero(present))
    return tied / total if total else 0.0


def fit(
    outcomes: Sequence[MatchOutcome],
    *,
    mu: float = MU,
    sigma: float = SIGMA,
    beta: float = BETA,
    tau: float = TAU,
    draw_probability: float | str = DRAW_PROBABILITY,
    min_delta: float = MIN_DELTA,
    max_sweeps: int = MAX_SWEEPS,
    intervals: str = "jackknife",
    level: float = INTERVAL_LEVEL,
) -> RatingTable:
    """TrueSkill ratings of every agent after all matches, processed in the order played.

    Parameters
    ----------
    outcomes : sequence of MatchOutcome
        In the order the matches were played (the store's schedule order); the result
        depends on it (see the module's notes).
    mu, sigma, beta, tau : float, optional
        TrueSkill constants (``MU``, ``SIGMA``, ``BETA``, ``TAU`` = 0).
    draw_probability : float or "observed", optional
        Probability of a draw between two equal agents; "observed" (the default) takes the
        share of tied pairs of seats in the data (``observed_draw_probability``).
    min_delta : float, optional
        Convergence threshold of each match's sweeps (``MIN_DELTA``).
    max_sweeps : int, optional
        Sweeps per match at most (``MAX_SWEEPS``).
    intervals : {"jackknife", "posterior"}, optional
        "jackknife" (the default): ``mu -+ t sd`` with ``sd`` the grouped jackknife over
        duplicate blocks (``jackknife``) and ``t`` Student's quantile for its degrees of
        freedom; "posterior": ``mu -+ z sigma``, TrueSkill's own posterior, which treats
        every match as independent: it reports the same spread for duplicate blocks as
        for independent deals, too wide for the first (see docs/ratings.md).
    level : float, optional
        Coverage of the interval (0.95: z = 1.96).

    Returns
    -------
    RatingTable
        ``rating`` is ``mu`` re-centred so that the field's mean is the prior mean
        (``centre``; agents are ranked by it); ``lower``/``upper`` the interval;
        ``superiority[i][j] = Phi((mu_i - mu_j) / sqrt(s_i^2 + s_j^2))`` with ``s`` the
        interval's standard deviations; extras hold ``mu``, ``sigma``, the conservative
        ``mu - 3 sigma`` per agent, the constants and the interval kind.
    """
    if intervals not in TRUESKILL_INTERVALS:
        raise ValueError(f"intervals={intervals!r} is not one of {', '.join(TRUESKILL_INTERVALS)}")
    if isinstance(draw_probability, str):
        if draw_probability != "observed":
            raise ValueError(f"draw_probability must be a number in [0, 1) or 'observed', got {draw_probability!r}")
    elif not 0.0 <= draw_probability < 1.0:
        raise ValueError(f"draw_probability must be in [0, 1), got {draw_probability}")
    scale = f"TrueSkill skill mu (prior mu {mu:g}, sigma {sigma:g}, beta {beta:g})"
    arrays = as_arrays(outcomes)
    if arrays.n_matches == 0:
        return empty_table(METHOD, scale, level)
    if draw_probability == "observed":
        draw_probability = min(observed_draw_probability(arrays), MAX_OBSERVED_DRAW_PROBABILITY)
    elif draw_probability == 0.0:
        ranks = np.sort(arrays.rank, axis=1)
        if np.any((ranks[:, 1:] == ranks[:, :-1]) & (ranks[:, 1:] != arrays.PAD_RANK)):
            raise ValueError("these matches have draws (equal ranks), which need draw_probability > 0")
    env = Environment(mu, sigma, beta, tau, float(draw_probability), min_delta, max_sweeps)
    post_mu, post_sigma = rate(arrays, env)
    agents = arrays.agents
    rating = centre(post_mu, mu)
    if intervals == "posterior" or arrays.n_matches > JACKKNIFE_MAX_MATCHES:
        covariance, z = np.diag(post_sigma**2), z_value(level)
        skipped = "" if intervals == "posterior" else f"; no jackknife above {JACKKNIFE_MAX_MATCHES} matches"
        found: dict[str, Any] = {
            "intervals": "posterior",
            "interval_kind": "posterior",
            "interval_reason": (
                f"TrueSkill's posterior sigma, blind to the duplicate blocks (see docs/ratings.md){skipped}"
            ),
        }
    else:
        covariance, groups = jackknife(arrays, env, post_mu)
        z = float(student_t.ppf(0.5 + level / 2.0, max(groups - 1, 1)))
        found = {
            "intervals": "jackknife",
            "interval_kind": "jackknife",
            "jackknife_groups": groups,
            "interval_reason": (
                f"grouped jackknife over duplicate blocks ({groups} groups, Student's t with {groups - 1} "
                "degrees of freedom)"
            ),
        }
    spread = np.sqrt(np.clip(np.diag(covariance), 0.0, None))
    extras = {
        "mu": dict(zip(agents, post_mu.tolist())),
        "sigma": dict(zip(agents, post_sigma.tolist())),
        "conservative": dict(zip(agents, (post_mu - CONSERVATIVE_SIGMAS * post_sigma).tolist())),
        "environment": {
            "mu": mu,
            "sigma": sigma,
            "beta": beta,
            "tau": tau,
            "draw_probability": draw_probability,
            "draw_margin": env.draw_margin(),
            "min_delta": min_delta,
            "max_sweeps": max_sweeps,
        },
        "order": "matches rated in the order played (the input order)",
        **found,
    }
    return make_table(
        method=METHOD,
        scale=scale,
        agents=agents,
        rating=rating,
        lower=rating - z * spread,
        upper=rating + z * spread,
        games=arrays.games,
        superiority=superiority_from_covariance(rating, covariance),
        contrast_sd=contrast_sd_from_covariance(covariance),
        extras=extras,
        level=level,
    )
