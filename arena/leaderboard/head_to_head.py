"""Pairwise records: how each agent fared against each other agent in the matches they shared."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena.ratings.data import MatchArrays, MatchOutcome, as_arrays, pairwise
from arena.ratings.registry import DEFAULT_METHOD
from arena.ratings.registry import fit as fit_method
from arena.ratings.table import AgentRating


@dataclass(frozen=True, slots=True)
class HeadToHead:
    """For each ordered pair of agents: shared matches, and how often the first finished ahead."""

    agents: tuple[str, ...]  # agent names; row and column order of the matrices
    games: tuple[tuple[int, ...], ...]  # [i][j]: matches in which both i and j played (0 on the diagonal)
    share: tuple[tuple[float | None, ...], ...]  # [i][j]: share of those i finished ahead (ties half); None: never met

    def index(self, agent: str) -> int:
        """Row of ``agent``; ``KeyError`` naming the known agents if absent."""
        try:
            return self.agents.index(agent)
        except ValueError:
            known = ", ".join(self.agents)
            raise KeyError(f"agent {agent!r} is not in the head-to-head table; known: {known}") from None

    def reordered(self, agents: Sequence[str]) -> HeadToHead:
        """The same table with rows and columns in the order of ``agents`` (a permutation)."""
        order = [self.index(a) for a in agents]
        return HeadToHead(
            agents=tuple(agents),
            games=tuple(tuple(self.games[i][j] for j in order) for i in order),
            share=tuple(tuple(self.share[i][j] for j in order) for i in order),
        )

    def share_matrix(self) -> np.ndarray:
        """``share`` as a float array, NaN where two agents never met."""
        return np.array([[math.nan if x is None else x for x in row] for row in self.share], dtype=float).reshape(
            len(self.agents), len(self.agents)
        )

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {
            "agents": list(self.agents),
            "games": [list(row) for row in self.games],
            "share": [list(row) for row in self.share],
        }


def _pair_matrices(arrays: MatchArrays) -> tuple[np.ndarray, np.ndarray]:
    """(N, N) shared-match counts and (N, N) finishes-ahead counts (ties half)."""
    n = arrays.n_agents
    pairs = pairwise(arrays)
    games = np.bincount(pairs.first * n + pairs.second, minlength=n * n) + np.bincount(
        pairs.second * n + pairs.first, minlength=n * n
    )
    ahead = np.bincount(pairs.first * n + pairs.second, weights=pairs.result, minlength=n * n) + np.bincount(
        pairs.second * n + pairs.first, weights=1.0 - pairs.result, minlength=n * n
    )
    return games.reshape(n, n), ahead.reshape(n, n)


def head_to_head(outcomes: Sequence[MatchOutcome] | MatchArrays) -> HeadToHead:
    """Shared matches and finishing-order share for every ordered pair of agents.

    Parameters
    ----------
    outcomes : sequence of MatchOutcome (or MatchArrays)
        Any order.

    Returns
    -------
    HeadToHead
        Agents in sorted order; ``share[i][j]`` is the fraction of their shared matches in
        which ``i`` finished ahead of ``j`` (a tie counts half), None if they never met.
    """
    arrays = as_arrays(outcomes)
    games, ahead = _pair_matrices(arrays)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = ahead / games
    share_rows = tuple(
        tuple(None if g == 0 else float(x) for g, x in zip(game_row, share_row))
        for game_row, share_row in zip(games.tolist(), share.tolist())
    )
    return HeadToHead(agents=arrays.agents, games=tuple(tuple(row) for row in games.tolist()), share=share_rows)


@dataclass(frozen=True, slots=True)
class Comparison:
    """Agent ``a`` against agent ``b``: their record in shared matches and who is likely stronger."""

    a: str  # first agent
    b: str  # second agent
    method: str  # rating method used for the ratings and the probability
    scale: str  # the method's scale description
    games: int  # matches in which both played
    wins: int  # shared matches in which a finished ahead of b
    draws: int  # shared matches in which they shared a rank
    losses: int  # shared matches in which b finished ahead of a
    rating_a: AgentRating  # a's line in the method's table
    rating_b: AgentRating  # b's line in the method's table
    probability_a_stronger: float  # P(a is stronger than b) from the method's superiority matrix
    level: float  # coverage of the ratings' intervals

    @property
    def score(self) -> float | None:
        """a's share of the shared matches, draws counting half (None without shared matches)."""
        return None if self.games == 0 else (self.wins + 0.5 * self.draws) / self.games

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {
            "a": self.a,
            "b": self.b,
            "method": self.method,
            "scale": self.scale,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score": self.score,
            "rating_a": _rating_json(self.rating_a),
            "rating_b": _rating_json(self.rating_b),
            "probability_a_stronger": self.probability_a_stronger,
            "level": self.level,
        }


def _rating_json(row: AgentRating) -> dict[str, Any]:
    return {"agent": row.agent, "rating": row.rating, "lower": row.lower, "upper": row.upper, "games": row.games}


def compare(
    outcomes: Sequence[MatchOutcome] | MatchArrays, a: str, b: str, method: str = DEFAULT_METHOD, **options: Any
) -> Comparison:
    """Record of ``a`` against ``b`` in their shared matches, and P(``a`` is stronger than ``b``).

    Parameters
    ----------
    outcomes : sequence of MatchOutcome (or MatchArrays)
        Any order.
    a, b : str
        The two agents (different, both present in the outcomes).
    method : str, optional
        Rating method name (see ``arena.ratings.METHODS``); its superiority matrix gives
        the probability.
    **options
        Passed to the rating method.

    Returns
    -------
    Comparison
    """
    if a == b:
        raise ValueError(f"compare needs two different agents, got {a!r} twice")
    arrays = as_arrays(outcomes)
    for agent in (a, b):
        if agent not in arrays.agents:
            raise ValueError(f"agent {agent!r} played no match in these outcomes; known: {', '.join(arrays.agents)}")
    i, j = arrays.agents.index(a), arrays.agents.index(b)
    pairs = pairwise(arrays)
    mask_ab = (pairs.first == i) & (pairs.second == j)
    mask_ba = (pairs.first == j) & (pairs.second == i)
    results_for_a = np.concatenate([pairs.result[mask_ab], 1.0 - pairs.result[mask_ba]])
    source = outcomes if callable(options.get("divisor")) else arrays
    table = fit_method(source, method, **options)
    return Comparison(
        a=a,
        b=b,
        method=table.method,
        scale=table.scale,
        games=int(results_for_a.size),
        wins=int(np.sum(results_for_a == 1.0)),
        draws=int(np.sum(results_for_a == 0.5)),
        losses=int(np.sum(results_for_a == 0.0)),
        rating_a=table[a],
        rating_b=table[b],
        probability_a_stronger=table.probability_stronger(a, b),
        level=table.level,
    )
