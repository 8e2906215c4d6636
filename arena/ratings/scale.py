"""The Elo scale shared by the Bradley–Terry (``elo``) and Plackett–Luce fits.

Both models estimate natural-log strengths ``theta`` (agent ``i`` beats ``j`` with
probability ``1 / (1 + exp(theta_j - theta_i))``).  Ratings are reported on the Elo scale,
``ELO_PER_NATURAL_LOG`` points per natural-log unit, so that a 400-point gap means 10:1
odds, and anchored either at the field mean (``FIELD_MEAN_RATING`` by default) or by
pinning one named agent to a chosen rating.  The anchor is a linear map ``A`` of
``theta``, so a covariance ``S`` of ``theta`` becomes ``scale**2 * A S A^T`` for the
ratings: the field-mean anchor removes the (unidentified) common level, and a pinned
agent has a zero-width interval while the others measure their distance to it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr
from scipy.stats import t as student_t

from arena.ratings.bootstrap import percentile_intervals, superiority_from_samples
from arena.ratings.table import RatingTable, make_table, z_value

ELO_PER_NATURAL_LOG = 400.0 / math.log(10.0)
"""Elo points per natural-log unit of strength (about 173.72)."""

FIELD_MEAN_RATING = 1500.0
"""Default anchor: the mean rating of the field."""


@dataclass(frozen=True, slots=True)
class Anchor:
    """How ratings are pinned down: the field mean, or one named agent, at ``rating``."""

    agent: str | None = None  # agent pinned to ``rating``; None pins the field mean instead
    rating: float = FIELD_MEAN_RATING  # the anchored value, in Elo points

    def describe(self) -> str:
        """One phrase for the scale description."""
        if self.agent is None:
            return f"field mean {self.rating:g}"
        return f"{self.agent} pinned at {self.rating:g}"


def anchor_index(anchor: Anchor, agents: Sequence[str]) -> int | None:
    """Index of the pinned agent, None for the field-mean anchor; ``ValueError`` if unknown."""
    if anchor.agent is None:
        return None
    try:
        return list(agents).index(anchor.agent)
    except ValueError:
        known = ", ".join(agents) or "(none)"
        raise ValueError(
            f"anchor agent {anchor.agent!r} played no match in these outcomes; pin one of: {known}"
        ) from None


def to_elo(theta: np.ndarray, anchor: Anchor, agents: Sequence[str]) -> np.ndarray:
    """Anchored Elo ratings of natural-log strengths.

    ``theta`` may be one vector (N,) or a stack of replicates (R, N).
    """
    pinned = anchor_index(anchor, agents)
    theta = np.asarray(theta, dtype=float)
    centre = theta.mean(axis=-1, keepdims=True) if pinned is None else theta[..., pinned : pinned + 1]
    return anchor.rating + ELO_PER_NATURAL_LOG * (theta - centre)


def anchored_covariance(covariance: np.ndarray, anchor: Anchor, agents: Sequence[str]) -> np.ndarray:
    """Covariance of the Elo ratings given the covariance of ``theta``: ``s^2 A S A^T``."""
    pinned = anchor_index(anchor, agents)
    s = np.asarray(covariance, dtype=float)
    if pinned is None:
        row_mean = s.mean(axis=1, keepdims=True)
        projected = s - row_mean - row_mean.T + s.mean()
    else:
        column = s[:, pinned : pinned + 1]
        projected = s - column - column.T + s[pinned, pinned]
    return ELO_PER_NATURAL_LOG**2 * projected


def normal_intervals(rating: np.ndarray, covariance: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Central normal intervals ``rating -+ z sd`` from the diagonal of ``covariance``."""
    sd = np.sqrt(np.clip(np.diag(covariance), 0.0, None))
    z = z_value(level)
    return rating - z * sd, rating + z * sd


NUMERICAL_NOISE = 1e-9
"""Gaps and spreads below this share of the estimates' size are rounding noise, not information."""


def contrast_variance(covariance: np.ndarray) -> np.ndarray:
    """(N, N) variance of each difference ``x_i - x_j``: ``var_i + var_j - 2 cov_ij``, 0 on the diagonal.

    Invariant to the anchor.  An infinite variance (no interval) stays infinite.
    """
    s = np.asarray(covariance, dtype=float)
    var = np.diag(s)
    with np.errstate(invalid="ignore"):  # an infinite variance (no interval) gives inf - inf on the diagonal
        spread = np.clip(var[:, None] + var[None, :] - 2.0 * s, 0.0, None)
    np.fill_diagonal(spread, 0.0)
    return spread


def superiority_from_covariance(estimate: np.ndarray, covariance: np.ndarray, df: float | None = None) -> np.ndarray:
    """Likelihood of superiority under the normal approximation (Student's t with ``df`` degrees of freedom).

    ``P[i, j] = Phi((x_i - x_j) / sqrt(var_i + var_j - 2 cov_ij))``, the probability that
    agent ``i`` is stronger than agent ``j``; 0.5 on the diagonal.  Invariant to the anchor.
    """
    return superiority_from_contrasts(estimate, contrast_variance(covariance), df)


def superiority_from_contrasts(estimate: np.ndarray, variance: np.ndarray, df: float | None = None) -> np.ndarray:
    """``P[i, j] = Phi((x_i - x_j) / sqrt(variance[i, j]))`` (Student's t with ``df``), 0.5 on the diagonal.

    A gap and a spread that are both rounding noise (every match drawn) give 0.5, not certainty.
    """
    x = np.asarray(estimate, dtype=float)
    spread = np.asarray(variance, dtype=float)
    gap = x[:, None] - x[None, :]
    noise = NUMERICAL_NOISE * max(1.0, float(np.max(np.abs(x), initial=0.0)))
    gap = np.where(np.abs(gap) <= noise, 0.0, gap)
    spread = np.where(np.sqrt(spread) <= noise, 0.0, spread)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = gap / np.sqrt(spread)
    p = ndtr(z) if df is None else student_t.cdf(z, df)
    # Zero spread: certain unless the gap is zero too.
    p = np.where(spread > 0, p, np.where(gap > 0, 1.0, np.where(gap < 0, 0.0, 0.5)))
    np.fill_diagonal(p, 0.5)
    return p


def contrast_sd_from_covariance(covariance: np.ndarray, unit: float = 1.0) -> np.ndarray:
    """(N, N) standard deviation of each difference ``x_i - x_j``: ``unit * sqrt(var_i + var_j - 2 cov_ij)``.

    The gap between two agents is what a comparison needs; its spread is not the spread of
    either rating (which also carries the uncertainty of the field's level).  Invariant to
    the anchor.  0 on the diagonal.
    """
    return unit * np.sqrt(contrast_variance(covariance))


def contrast_sd_from_samples(samples: np.ndarray) -> np.ndarray:
    """(N, N) standard deviation of ``x_i - x_j`` over replicates (R, N); NaN entries count as the column mean."""
    x = np.asarray(samples, dtype=float)
    if np.isnan(x).any():
        with np.errstate(all="ignore"):
            x = np.where(np.isnan(x), np.nanmean(x, axis=0), x)
        x = np.nan_to_num(x)
    if x.shape[0] < 2:
        return np.zeros((x.shape[1], x.shape[1]))
    return contrast_sd_from_covariance(np.atleast_2d(np.cov(x, rowvar=False)))


def scale_description(model: str, anchor: Anchor) -> str:
    """The ``RatingTable.scale`` text for a strength model reported on the Elo scale."""
    return (
        f"Elo scale ({model}): 400 points = 10:1 odds, {ELO_PER_NATURAL_LOG:.2f} points per natural-log unit "
        f"of strength; {anchor.describe()}"
    )


def _with_floor_count(extras: dict, pairs: int) -> dict:
    """``extras`` with ``pairs_at_floor`` and, when some gap was widened, a clause saying so in the reason."""
    found = {**extras, "pairs_at_floor": pairs}
    if pairs and "interval_reason" in found:
        gaps = "gap" if pairs == 1 else "gaps"
        # "sandwich" alone read as jargon on a leaderboard: name the estimate and where it is explained.
        found["interval_reason"] += (f"; {pairs} {gaps} widened to {'its' if pairs == 1 else 'their'} own "
                                     "cluster-robust (sandwich) width, docs/ratings.md")
    return found


def strength_table(
    *,
    method: str,
    model: str,
    agents: Sequence[str],
    games: np.ndarray,
    theta: np.ndarray,
    anchor: Anchor,
    level: float,
    covariance: np.ndarray | None = None,
    floor: np.ndarray | None = None,
    samples: np.ndarray | None = None,
    extras: dict | None = None,
) -> RatingTable:
    """Report natural-log strengths as an anchored Elo ``RatingTable``.

    Intervals and the superiority matrix come from ``samples`` (bootstrap replicates of
    ``theta``, shape (R, N): percentile intervals, share of replicates) when given, and
    otherwise from ``covariance`` (normal approximation).  With a ``floor`` (a covariance
    of ``theta`` too), every agent's anchored variance and every gap's variance is at least
    the floor's.
    """
    rating = to_elo(theta, anchor, agents)
    if samples is not None:
        lower, upper = percentile_intervals(to_elo(samples, anchor, agents), level)
        superiority = superiority_from_samples(samples)
        contrast_sd = ELO_PER_NATURAL_LOG * contrast_sd_from_samples(samples)
    elif covariance is not None:
        anchored = anchored_covariance(covariance, anchor, agents)
        variance = contrast_variance(covariance)
        if floor is not None:
            anchored_floor = np.diag(anchored_covariance(floor, anchor, agents))
            floor_variance = contrast_variance(floor)
            raised = floor_variance > variance
            extras = _with_floor_count(extras or {}, int(np.triu(raised, 1).sum()))
            np.fill_diagonal(anchored, np.maximum(np.diag(anchored), anchored_floor))
            variance = np.where(raised, floor_variance, variance)
        lower, upper = normal_intervals(rating, anchored, level)
        superiority = superiority_from_contrasts(theta, variance)
        contrast_sd = ELO_PER_NATURAL_LOG * np.sqrt(variance)
    else:
        raise ValueError("strength_table needs a covariance or bootstrap samples")
    info = {
        "log_strength": dict(zip(agents, np.asarray(theta, dtype=float).tolist())),
        "anchor": {"agent": anchor.agent, "rating": anchor.rating},
    }
    info.update(extras or {})
    return make_table(
        method=method,
        scale=scale_description(model, anchor),
        agents=agents,
        rating=rating,
        lower=lower,
        upper=upper,
        games=games,
        superiority=superiority,
        contrast_sd=contrast_sd,
        extras=info,
        level=level,
    )
