"""One TrueSkill match at a time, in plain Python: the per-match update of ``arena.ratings.trueskill``.

A match's seats are sorted by rank; the performance differences of adjacent seats form a
chain that expectation propagation sweeps forward and back (the schedule of the
``trueskill`` package) until no difference marginal moves by more than ``min_delta``.
Gaussians are kept in natural parameters: precision ``pi`` and precision-mean ``tau``.

This is the path for small fits (a leaderboard of a few thousand matches takes
milliseconds, without loading a compiler); ``arena.ratings.trueskill_compiled`` is the
same arithmetic, expression for expression, compiled for large fits, and the tests hold
the two equal.  The Gaussian tail functions use ``scipy.special.log_ndtr`` in log space
where the plain formula would divide zero by zero (huge upsets).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np
from scipy.special import log_ndtr

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_INV_SQRT2 = 1.0 / math.sqrt(2.0)
W_CEILING = 1.0 - 1e-12
"""w is in (0, 1) in exact arithmetic; capped here so that 1 - w stays positive on huge upsets."""

LOG_SPACE_BELOW = -30.0
"""Below this standardised margin the tail is computed in log space (``erfc`` would underflow)."""


def _log_pdf(x: np.ndarray) -> np.ndarray:
    return -0.5 * x * x - _LOG_SQRT_2PI


def _v_w_win(x: np.ndarray, margin: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance corrections of a Gaussian truncated to ``diff > margin``."""
    t = x - margin
    v = np.exp(_log_pdf(t) - log_ndtr(t))
    w = np.clip(v * (v + t), 0.0, W_CEILING)
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
    w = np.clip(v * v + a * pdf_a - b * pdf_b, 0.0, W_CEILING)
    return np.where(x < 0, -v, v), w


def _scalar_v_w(x: float, margin: float, draw: bool) -> tuple[float, float]:
    """``_v_w_win`` / ``_v_w_draw`` for one difference, with ``math`` (falls back to log space)."""
    if not draw:
        t = x - margin
        if t > LOG_SPACE_BELOW:
            v = math.exp(-0.5 * t * t - _LOG_SQRT_2PI) / (0.5 * math.erfc(-t * _INV_SQRT2))
            w = v * (v + t)
            return v, (w if w < W_CEILING else W_CEILING) if w > 0.0 else 0.0
        v_arr, w_arr = _v_w_win(np.array([x]), np.array([margin]))
        return float(v_arr[0]), float(w_arr[0])
    size = abs(x)
    a = margin - size
    b = -margin - size
    if b > LOG_SPACE_BELOW:
        mass = 0.5 * (math.erfc(-a * _INV_SQRT2) - math.erfc(-b * _INV_SQRT2))
        if mass > 1e-300:
            pdf_a = math.exp(-0.5 * a * a - _LOG_SQRT_2PI) / mass
            pdf_b = math.exp(-0.5 * b * b - _LOG_SQRT_2PI) / mass
            v = pdf_b - pdf_a
            w = v * v + a * pdf_a - b * pdf_b
            return (-v if x < 0 else v), (w if w < W_CEILING else W_CEILING) if w > 0.0 else 0.0
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


def rate_one(
    prior_pi: list[float],
    prior_tau: list[float],
    draw: Sequence[bool],
    beta2: float,
    margin: float,
    min_delta: float,
    max_sweeps: int,
) -> tuple[list[float], list[float]]:
    """One match, seats sorted by rank: the posterior ``(pi, tau)`` of each seat's skill from its prior.

    The message passing is written out inline (no helper calls per step), since one match
    takes about twenty truncations and a Python call costs as much as the arithmetic of a
    step.  ``arena.ratings.trueskill_compiled`` keeps every expression in the same order.
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
    log_sqrt_2pi, inv_sqrt2, w_ceiling, log_space_below = _LOG_SQRT_2PI, _INV_SQRT2, W_CEILING, LOG_SPACE_BELOW
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
            if not draw[j] and t > log_space_below:  # _scalar_v_w's common case, inline
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



def rate_in_order(
    sequence: Sequence[int],
    agents: Sequence[Sequence[int]],
    seats: Sequence[int],
    draws: Sequence[Sequence[bool]],
    mu: list[float],
    sigma: list[float],
    tau2: float,
    beta2: float,
    margin: float,
    min_delta: float,
    max_sweeps: int,
) -> None:
    """Rate matches ``sequence`` one after the other, updating ``mu`` and ``sigma`` (per agent) in place.

    ``agents[m]`` are match ``m``'s agents sorted by rank (``seats[m]`` of them count),
    ``draws[m][j]`` whether its sorted seats ``j`` and ``j + 1`` tie.
    """
    for m in sequence:
        n = seats[m]
        agent = agents[m][:n]
        prior_pi = [1.0 / (sigma[a] ** 2 + tau2) for a in agent]
        prior_tau = [p * mu[a] for p, a in zip(prior_pi, agent)]
        post_pi, post_tau = rate_one(prior_pi, prior_tau, draws[m][: n - 1], beta2, margin, min_delta, max_sweeps)
        for a, p, t in zip(agent, post_pi, post_tau):
            mu[a] = t / p
            sigma[a] = math.sqrt(1.0 / p)
