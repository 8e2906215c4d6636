"""TrueSkill over many matches, compiled: ``arena.ratings.trueskill_match``'s update in a numba kernel.

TrueSkill is sequential: each match is rated against what the earlier matches of its
agents left.  Matches that share no agent could be batched, but in a real tournament
such waves are small (about 4 matches with 100 agents, 32 with 1,000, over 4-seat
matches), and a numpy batch pays about half a microsecond per array operation, about a
thousand operations a wave: no faster than the scalar update.  So the exact order is
kept and the per-match chain is compiled instead: the same expressions as
``trueskill_match.rate_one``, in the same order, in machine code (about 1 µs a
4-seat match instead of about 20).

The kernel is compiled on first use and cached on disk (numba's ``cache=True``, beside
this file or in the user's cache folder), so only the first large fit on a machine pays
the compilation (a few seconds); ``arena.ratings.trueskill.rate`` uses it only for fits
large enough to win that back, so small leaderboards never load numba.

The rare tails that ``trueskill_match`` computes with ``scipy.special.log_ndtr`` (a
standardised margin below ``LOG_SPACE_BELOW``, or a draw's mass below 1e-300) use
``_log_ndtr`` here: the same three regions and series as scipy's (cephes) ``log_ndtr``,
equal to it to a few ulps.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from arena.ratings.trueskill_match import _INV_SQRT2, _LOG_SQRT_2PI, LOG_SPACE_BELOW, W_CEILING

_EPSILON = float(np.finfo(float).eps)


@numba.njit(cache=True)
def _ndtr(a: float) -> float:
    """Standard normal CDF, as cephes computes it (erf near 0, erfc in the tails)."""
    x = a * _INV_SQRT2
    z = abs(x)
    if z < _INV_SQRT2:
        return 0.5 + 0.5 * math.erf(x)
    y = 0.5 * math.erfc(z)
    return 1.0 - y if x > 0 else y


@numba.njit(cache=True)
def _log_ndtr(a: float) -> float:
    """log of the standard normal CDF: cephes' regions (a > 6, a > -20, the asymptotic series below)."""
    if a > 6.0:
        return -_ndtr(-a)
    if a > -20.0:
        return math.log(_ndtr(a))
    log_lhs = -0.5 * a * a - math.log(-a) - _LOG_SQRT_2PI
    last_total = 0.0
    right_hand_side = 1.0
    numerator = 1.0
    denom_factor = 1.0
    denom_cons = 1.0 / (a * a)
    sign = 1.0
    i = 0
    while abs(last_total - right_hand_side) > _EPSILON:
        i += 1
        last_total = right_hand_side
        sign = -sign
        denom_factor *= denom_cons
        numerator *= 2 * i - 1
        right_hand_side += sign * numerator * denom_factor
    return log_lhs + math.log(right_hand_side)


@numba.njit(cache=True)
def _clip_w(w: float) -> float:
    return (w if w < W_CEILING else W_CEILING) if w > 0.0 else 0.0


@numba.njit(cache=True)
def _v_w(x: float, margin: float, draw: bool) -> tuple[float, float]:
    """``trueskill_match._scalar_v_w``: the truncation's mean and variance corrections."""
    if not draw:
        t = x - margin
        if t > LOG_SPACE_BELOW:
            v = math.exp(-0.5 * t * t - _LOG_SQRT_2PI) / (0.5 * math.erfc(-t * _INV_SQRT2))
        else:
            v = math.exp((-0.5 * t * t - _LOG_SQRT_2PI) - _log_ndtr(t))
        return v, _clip_w(v * (v + t))
    size = abs(x)
    a = margin - size
    b = -margin - size
    if b > LOG_SPACE_BELOW:
        mass = 0.5 * (math.erfc(-a * _INV_SQRT2) - math.erfc(-b * _INV_SQRT2))
        if mass > 1e-300:
            pdf_a = math.exp(-0.5 * a * a - _LOG_SQRT_2PI) / mass
            pdf_b = math.exp(-0.5 * b * b - _LOG_SQRT_2PI) / mass
            v = pdf_b - pdf_a
            return (-v if x < 0 else v), _clip_w(v * v + a * pdf_a - b * pdf_b)
    log_a = _log_ndtr(a)
    log_mass = log_a + math.log1p(-math.exp(_log_ndtr(b) - log_a))
    pdf_a = math.exp((-0.5 * a * a - _LOG_SQRT_2PI) - log_mass)
    pdf_b = math.exp((-0.5 * b * b - _LOG_SQRT_2PI) - log_mass)
    v = pdf_b - pdf_a
    return (-v if x < 0 else v), _clip_w(v * v + a * pdf_a - b * pdf_b)


@numba.njit(cache=True)
def rate_in_order(
    sequence: np.ndarray,
    agents: np.ndarray,
    seats: np.ndarray,
    draws: np.ndarray,
    mu: np.ndarray,
    sigma: np.ndarray,
    tau2: float,
    beta2: float,
    margin: float,
    min_delta: float,
    max_sweeps: int,
) -> None:
    """``trueskill_match.rate_in_order`` compiled: rate matches ``sequence`` in turn, updating ``mu``/``sigma``.

    ``agents`` (M, P) int64 and ``draws`` (M, P - 1) bool are sorted by rank; ``seats`` (M,) counts each
    match's real seats.
    """
    width = agents.shape[1]
    prior_pi, prior_tau = np.empty(width), np.empty(width)
    perf_pi, perf_tau = np.empty(width), np.empty(width)
    left_pi, left_tau = np.empty(width), np.empty(width)
    right_pi, right_tau = np.empty(width), np.empty(width)
    trunc_pi, trunc_tau = np.empty(width), np.empty(width)
    for m in sequence:
        n = seats[m]
        diffs = n - 1
        for i in range(n):
            a = agents[m, i]
            prior_pi[i] = 1.0 / (sigma[a] ** 2 + tau2)
            prior_tau[i] = prior_pi[i] * mu[a]
            perf_pi[i] = prior_pi[i] / (1.0 + beta2 * prior_pi[i])
            perf_tau[i] = prior_tau[i] / (1.0 + beta2 * prior_pi[i])
            left_pi[i] = left_tau[i] = right_pi[i] = right_tau[i] = 0.0
            trunc_pi[i] = trunc_tau[i] = 0.0
        steps = 1 if diffs == 1 else 2 * diffs - 2  # trueskill_match._sweep_schedule
        for _ in range(max_sweeps):
            settled = True
            for step in range(steps):
                if diffs == 1:
                    j, direction = 0, 0
                elif step < diffs - 1:
                    j, direction = step, 1
                else:
                    j, direction = 2 * diffs - 2 - step, -1
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
                sqrt_pi = math.sqrt(c_pi)
                x = c_tau / sqrt_pi
                v, w = _v_w(x, margin * sqrt_pi, draws[m, j])
                keep = 1.0 - w
                new_pi = c_pi / keep
                new_tau = (c_tau + sqrt_pi * v) / keep
                t_pi = new_pi - c_pi
                t_tau = new_tau - c_tau
                if settled and (abs(t_tau - trunc_tau[j]) > min_delta
                                or math.sqrt(abs(t_pi - trunc_pi[j])) > min_delta):
                    settled = False
                trunc_pi[j] = t_pi
                trunc_tau[j] = t_tau
                if direction > 0:
                    variance = inv_a + 1.0 / t_pi
                    mean = mean_a - t_tau / t_pi
                    left_pi[j + 1] = 1.0 / variance
                    left_tau[j + 1] = mean / variance
                elif direction < 0:
                    variance = 1.0 / t_pi + inv_b
                    mean = t_tau / t_pi + mean_b
                    right_pi[j] = 1.0 / variance
                    right_tau[j] = mean / variance
            if settled:
                break
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
        for i in range(n):
            message_pi = left_pi[i] + right_pi[i]
            up = 1.0 / (1.0 + beta2 * message_pi)
            post_pi = prior_pi[i] + up * message_pi
            post_tau = prior_tau[i] + up * (left_tau[i] + right_tau[i])
            a = agents[m, i]
            mu[a] = post_tau / post_pi
            sigma[a] = math.sqrt(1.0 / post_pi)
