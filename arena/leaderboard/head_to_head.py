"""Pairwise records: how each agent fared against each other agent in the deals they shared."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena.inputs.suggest import closest
from arena.ratings.data import MatchArrays, MatchOutcome, as_arrays, pairwise
from arena.ratings.registry import DEFAULT_METHOD
from arena.ratings.registry import fit as fit_method
from arena.ratings.table import AgentRating


@dataclass(frozen=True, slots=True)
class HeadToHead:
    """For each ordered pair of agents: the deals (duplicate blocks) they shared and who did better.

    A deal is the unit: the rotations of one duplicate block replay the same cards, so
    they are one result, not several.  In a shared deal the row agent *won* when it finished
    ahead of the column agent in more of their shared matches than the other way round,
    and drew when both did so equally often.  The matches themselves (the rotations) are
    kept as detail.
    """

    agents: tuple[str, ...]  # agent names; row and column order of the matrices
    games: tuple[tuple[int, ...], ...]  # [i][j]: deals (blocks) in which both i and j played (0 on the diagonal)
    share: tuple[tuple[float | None, ...], ...]  # [i][j]: share of those deals i won (draws half); None: never met
    matches: tuple[tuple[int, ...], ...] = ()  # [i][j]: matches (rotations) in which both played
    match_share: tuple[tuple[float | None, ...], ...] = ()  # [i][j]: share of those matches i was ahead (ties half)

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

        def pick(matrix):
            return tuple(tuple(matrix[i][j] for j in order) for i in order) if matrix else matrix

        return HeadToHead(
            agents=tuple(agents), games=pick(self.games), share=pick(self.share),
            matches=pick(self.matches), match_share=pick(self.match_share),
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
            "unit": "deal (duplicate block); matches are its rotations",
            "games": [list(row) for row in self.games],
            "share": [list(row) for row in self.share],
            "matches": [list(row) for row in self.matches],
            "match_share": [list(row) for row in self.match_share],
        }


@dataclass(frozen=True, slots=True)
class _DealResults:
    """Every (deal, pair of agents) that met: the pair, and the first agent's results in that deal."""

    first: np.ndarray  # (D,) agent index (the lower one of the pair)
    second: np.ndarray  # (D,) agent index (the higher one)
    ahead: np.ndarray  # (D,) matches of the deal in which first finished ahead of second (ties half)
    matches: np.ndarray  # (D,) matches of the deal both played


def _deal_results(arrays: MatchArrays) -> _DealResults:
    """Pairwise results summed per duplicate block and unordered pair of agents."""
    n = arrays.n_agents
    pairs = pairwise(arrays)
    low, high = np.minimum(pairs.first, pairs.second), np.maximum(pairs.first, pairs.second)
    result = np.where(pairs.first < pairs.second, pairs.result, 1.0 - pairs.result)
    key = arrays.block[pairs.match] * (n * n) + low * n + high
    keys, inverse = np.unique(key, return_inverse=True)
    ahead = np.bincount(inverse, weights=result, minlength=keys.size)
    matches = np.bincount(inverse, minlength=keys.size)
    pair = keys % (n * n)
    return _DealResults(first=pair // n, second=pair % n, ahead=ahead, matches=matches)


def _square(n: int, first: np.ndarray, second: np.ndarray, value: np.ndarray, mirror: np.ndarray) -> np.ndarray:
    """(N, N) sums of ``value`` at [first, second] and of ``mirror`` at [second, first]."""
    return (np.bincount(first * n + second, weights=value, minlength=n * n)
            + np.bincount(second * n + first, weights=mirror, minlength=n * n)).reshape(n, n)


def _shares(games: np.ndarray, score: np.ndarray) -> tuple[tuple[float | None, ...], ...]:
    with np.errstate(invalid="ignore", divide="ignore"):
        share = score / games
    return tuple(
        tuple(None if g == 0 else float(x) for g, x in zip(game_row, share_row))
        for game_row, share_row in zip(games.tolist(), share.tolist())
    )


def head_to_head(outcomes: Sequence[MatchOutcome] | MatchArrays) -> HeadToHead:
    """Shared deals, and who did better in them, for every ordered pair of agents.

    Parameters
    ----------
    outcomes : sequence of MatchOutcome (or MatchArrays)
        Any order.

    Returns
    -------
    HeadToHead
        Agents in sorted order; ``share[i][j]`` is the share of their shared deals that
        ``i`` won (a drawn deal counts half), None if they never met; ``matches`` and
        ``match_share`` count the rotations one by one.
    """
    arrays = as_arrays(outcomes)
    n = arrays.n_agents
    deals = _deal_results(arrays)
    won = (2.0 * deals.ahead > deals.matches) + 0.5 * (2.0 * deals.ahead == deals.matches)
    ones = np.ones(deals.first.size)
    games = _square(n, deals.first, deals.second, ones, ones).astype(np.int64)
    deal_score = _square(n, deals.first, deals.second, won, 1.0 - won)
    matches = _square(n, deals.first, deals.second, deals.matches, deals.matches).astype(np.int64)
    match_score = _square(n, deals.first, deals.second, deals.ahead, deals.matches - deals.ahead)
    return HeadToHead(
        agents=arrays.agents,
        games=tuple(tuple(row) for row in games.tolist()),
        share=_shares(games, deal_score),
        matches=tuple(tuple(row) for row in matches.tolist()),
        match_share=_shares(matches, match_score),
    )


@dataclass(frozen=True, slots=True)
class Comparison:
    """Agent ``a`` against agent ``b``: the gap between them, who is likely stronger, and their record.

    The record counts deals (duplicate blocks: the rotations of one deal are one result);
    the matches (rotations) are kept as detail.
    """

    a: str  # first agent
    b: str  # second agent
    method: str  # rating method used for the ratings and the probability
    scale: str  # the method's scale description
    games: int  # deals (blocks) in which both played
    wins: int  # shared deals a won (finished ahead of b in more of the deal's shared matches)
    draws: int  # shared deals neither won
    losses: int  # shared deals b won
    rating_a: AgentRating  # a's line in the method's table
    rating_b: AgentRating  # b's line in the method's table
    probability_a_stronger: float  # P(a is stronger than b) from the method's superiority matrix
    level: float  # coverage of the intervals
    gap: float = math.nan  # a's rating minus b's
    gap_lower: float = math.nan  # lower bound of the gap's interval (coverage ``level``)
    gap_upper: float = math.nan  # upper bound
    matches: int = 0  # matches (rotations) in which both played
    match_wins: int = 0  # of those, matches a finished ahead of b
    match_draws: int = 0  # matches they shared a rank
    match_losses: int = 0  # matches b finished ahead of a
    subtracted: str = ""  # what the method subtracted from the results, in one line ("" for nothing: arena.ratings)

    @property
    def score(self) -> float | None:
        """a's share of the shared deals, drawn deals counting half (None without shared deals)."""
        return None if self.games == 0 else (self.wins + 0.5 * self.draws) / self.games

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {
            "a": self.a,
            "b": self.b,
            "method": self.method,
            "scale": self.scale,
            "subtracted": self.subtracted,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score": self.score,
            "rating_a": _rating_json(self.rating_a),
            "rating_b": _rating_json(self.rating_b),
            "probability_a_stronger": self.probability_a_stronger,
            "level": self.level,
            "gap": _finite(self.gap),
            "gap_lower": _finite(self.gap_lower),
            "gap_upper": _finite(self.gap_upper),
            "matches": self.matches,
            "match_wins": self.match_wins,
            "match_draws": self.match_draws,
            "match_losses": self.match_losses,
        }


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def _rating_json(row: AgentRating) -> dict[str, Any]:
    return {"agent": row.agent, "rating": row.rating, "lower": row.lower, "upper": row.upper, "games": row.games}


def compare(
    outcomes: Sequence[MatchOutcome] | MatchArrays, a: str, b: str, method: str = DEFAULT_METHOD, **options: Any
) -> Comparison:
    """The gap from ``b`` to ``a`` with its interval, P(``a`` is stronger than ``b``), and their record.

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
            close = closest(agent, arrays.agents)
            hint = f"; did you mean {close!r}?" if close else ""
            raise ValueError(f"agent {agent!r} played no match in these outcomes{hint} (known: "
                             f"{', '.join(arrays.agents)})")
    i, j = arrays.agents.index(a), arrays.agents.index(b)
    pairs = pairwise(arrays)
    mask_ab = (pairs.first == i) & (pairs.second == j)
    mask_ba = (pairs.first == j) & (pairs.second == i)
    results_for_a = np.concatenate([pairs.result[mask_ab], 1.0 - pairs.result[mask_ba]])
    deals = _deal_results(arrays)
    pair = (deals.first == min(i, j)) & (deals.second == max(i, j))
    ahead = deals.ahead[pair] if i < j else deals.matches[pair] - deals.ahead[pair]
    margin = 2.0 * ahead - deals.matches[pair]  # > 0: a won the deal
    source = outcomes if callable(options.get("divisor")) else arrays
    table = fit_method(source, method, **options)
    gap, gap_lower, gap_upper = table.gap(a, b) if table.contrast_sd else (math.nan,) * 3
    return Comparison(
        a=a,
        b=b,
        method=table.method,
        scale=table.scale,
        games=int(margin.size),
        wins=int(np.sum(margin > 0)),
        draws=int(np.sum(margin == 0)),
        losses=int(np.sum(margin < 0)),
        rating_a=table[a],
        rating_b=table[b],
        probability_a_stronger=table.probability_stronger(a, b),
        level=table.level,
        gap=gap,
        gap_lower=gap_lower,
        gap_upper=gap_upper,
        matches=int(results_for_a.size),
        match_wins=int(np.sum(results_for_a == 1.0)),
        match_draws=int(np.sum(results_for_a == 0.5)),
        match_losses=int(np.sum(results_for_a == 0.0)),
        subtracted=str(table.extras.get("subtracted", "")),
    )
