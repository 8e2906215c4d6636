"""The result shape every rating method returns: a ``RatingTable``."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.special import ndtri

INTERVAL_LEVEL = 0.95
"""Coverage of every reported interval ``[lower, upper]``."""


@dataclass(frozen=True, slots=True)
class AgentRating:
    """One agent's line in a rating table."""

    agent: str  # agent name
    rating: float  # point estimate on the table's scale (higher is better)
    lower: float  # lower bound of the interval (coverage RatingTable.level)
    upper: float  # upper bound of the interval
    games: int  # matches the agent played in the data


@dataclass(frozen=True, slots=True)
class RatingTable:
    """Ratings of every agent in the data, best first, with the method that made them."""

    method: str  # registry name of the method, e.g. "elo"
    scale: str  # what a rating number means, e.g. "Elo: 400/ln 10 points per natural-log unit; field mean 1500"
    ratings: tuple[AgentRating, ...]  # one per agent, sorted by rating (descending), then name
    level: float = INTERVAL_LEVEL  # coverage of [lower, upper]
    superiority: tuple[tuple[float, ...], ...] = ()  # [i][j]: P(agent i is stronger than agent j), indices of ratings
    contrast_sd: tuple[tuple[float, ...], ...] = ()  # [i][j]: standard deviation of rating i - rating j
    extras: Mapping[str, Any] = field(default_factory=dict)  # method-specific JSON values (options, fit details)
    # [i][j]: the gap interval's half-width in contrast_sd units, from the distribution P(stronger) is read
    # from (Student's t where the method uses it); empty: the normal quantile of ``level``
    gap_quantile: tuple[tuple[float, ...], ...] = ()

    @property
    def agents(self) -> tuple[str, ...]:
        """Agent names in table order (best first)."""
        return tuple(r.agent for r in self.ratings)

    def index(self, agent: str) -> int:
        """Position of ``agent`` in ``ratings``; ``KeyError`` naming the known agents if absent."""
        for i, row in enumerate(self.ratings):
            if row.agent == agent:
                return i
        known = ", ".join(sorted(self.agents)) or "(none)"
        raise KeyError(f"agent {agent!r} is not in the {self.method} table; known agents: {known}")

    def __getitem__(self, agent: str) -> AgentRating:
        return self.ratings[self.index(agent)]

    def probability_stronger(self, a: str, b: str) -> float:
        """P(agent ``a`` is stronger than agent ``b``), from the superiority matrix."""
        if not self.superiority:
            raise ValueError(f"the {self.method} table has no superiority matrix")
        return self.superiority[self.index(a)][self.index(b)]

    def gap(self, a: str, b: str) -> tuple[float, float, float]:
        """Rating of ``a`` minus rating of ``b``, with its interval (coverage ``level``).

        The interval of a gap comes from the spread of the difference, not from the two
        agents' own intervals: those also carry the uncertainty of the field's level, and
        two overlapping intervals can hide a gap that is clearly above zero.  Its quantile is
        that of the distribution P(stronger) comes from (``gap_quantile``), so that the
        interval excludes zero exactly when P(stronger) is beyond (1 - level) / 2 either way.
        """
        if not self.contrast_sd:
            raise ValueError(f"the {self.method} table has no spread of rating differences")
        i, j = self.index(a), self.index(b)
        gap = self.ratings[i].rating - self.ratings[j].rating
        quantile = self.gap_quantile[i][j] if self.gap_quantile else z_value(self.level)
        half = quantile * self.contrast_sd[i][j]
        return gap, gap - half, gap + half

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data (non-finite numbers become ``None``)."""
        return {
            "method": self.method,
            "scale": self.scale,
            "level": self.level,
            "ratings": [
                {
                    "agent": r.agent,
                    "rating": _json_number(r.rating),
                    "lower": _json_number(r.lower),
                    "upper": _json_number(r.upper),
                    "games": r.games,
                }
                for r in self.ratings
            ],
            "superiority": [[_json_number(p) for p in row] for row in self.superiority],
            "contrast_sd": [[_json_number(p) for p in row] for row in self.contrast_sd],
            "extras": _json_value(self.extras),
        }


def z_value(level: float) -> float:
    """Two-sided normal quantile for a central interval of coverage ``level`` (1.96 for 0.95)."""
    return float(ndtri(0.5 + level / 2.0))


def _json_number(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def _json_value(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_value(v) for v in value]
    if isinstance(value, np.ndarray):
        return _json_value(value.tolist())
    if isinstance(value, (float, np.floating)):
        return _json_number(float(value))
    if isinstance(value, np.integer):
        return int(value)
    return value


def make_table(
    *,
    method: str,
    scale: str,
    agents: Sequence[str],
    rating: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    games: np.ndarray,
    superiority: np.ndarray | None,
    extras: Mapping[str, Any],
    level: float = INTERVAL_LEVEL,
    contrast_sd: np.ndarray | None = None,
    gap_quantile: np.ndarray | None = None,
) -> RatingTable:
    """Assemble a ``RatingTable`` from per-agent arrays (in ``agents`` order), sorting best first.

    ``superiority``, ``contrast_sd`` and ``gap_quantile`` are (N, N) arrays in ``agents`` order, or None;
    they are reordered with the rows.
    """
    order = sorted(range(len(agents)), key=lambda i: (-rating[i], agents[i]))
    rows = tuple(
        AgentRating(
            agent=agents[i],
            rating=float(rating[i]),
            lower=float(lower[i]),
            upper=float(upper[i]),
            games=int(games[i]),
        )
        for i in order
    )

    def reordered(matrix: np.ndarray | None) -> tuple[tuple[float, ...], ...]:
        if matrix is None or not len(order):
            return ()
        return tuple(tuple(row) for row in np.asarray(matrix)[np.ix_(order, order)].tolist())

    return RatingTable(
        method=method, scale=scale, ratings=rows, level=level, superiority=reordered(superiority),
        contrast_sd=reordered(contrast_sd), extras=dict(extras), gap_quantile=reordered(gap_quantile),
    )


def empty_table(method: str, scale: str, level: float = INTERVAL_LEVEL) -> RatingTable:
    """The table of no matches: no agents (what every method returns for empty input)."""
    return RatingTable(method=method, scale=scale, ratings=(), level=level, superiority=(), extras={})
