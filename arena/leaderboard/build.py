"""The leaderboard: ratings from a method beside each agent's results and faults."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena.ratings.data import FAULT_KINDS, MatchArrays, MatchOutcome, as_arrays
from arena.ratings.registry import DEFAULT_METHOD
from arena.ratings.registry import fit as fit_method
from arena.ratings.table import RatingTable

FAULT_COLUMNS: tuple[tuple[str, str], ...] = (
    ("timeouts", "timeout"),
    ("illegal", "illegal"),
    ("exceptions", "exception"),
    ("crashes", "crash"),
    ("memory", "memory"),
)
"""(LeaderboardRow field, fault kind) pairs, in column order."""


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    """One agent's line: rating and interval, results, and faults by kind."""

    rank: int | None  # 1 = best; equal ratings share a rank; None for a retired ladder entry (it holds none)
    agent: str  # agent name
    rating: float  # the method's rating
    lower: float  # lower bound of the interval (Leaderboard.level)
    upper: float  # upper bound of the interval
    games: int  # matches played
    mean_score: float  # mean score, in ``Leaderboard.score_unit`` (per match unless the game divides it)
    win_share: float  # fraction of matches finished first; k seats sharing first place win 1/k each
    timeouts: int  # moves that ran out of time
    illegal: int  # illegal actions
    exceptions: int  # exceptions raised by the agent
    crashes: int  # agent process crashes
    memory: int  # memory-limit faults
    version: str = ""  # the entry's agent version, as the store keeps it ("" if unknown)
    flagged: bool = False  # faults in more than the tournament's fault_share of its matches

    @property
    def faults(self) -> int:
        """All faults of every kind."""
        return self.timeouts + self.illegal + self.exceptions + self.crashes + self.memory

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data (non-finite numbers become None)."""
        return {
            "rank": self.rank,
            "agent": self.agent,
            "rating": _finite(self.rating),
            "lower": _finite(self.lower),
            "upper": _finite(self.upper),
            "games": self.games,
            "mean_score": _finite(self.mean_score),
            "win_share": _finite(self.win_share),
            "timeouts": self.timeouts,
            "illegal": self.illegal,
            "exceptions": self.exceptions,
            "crashes": self.crashes,
            "memory": self.memory,
            "version": self.version,
            "flagged": self.flagged,
        }


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


@dataclass(frozen=True, slots=True)
class Leaderboard:
    """Every agent's row, best first, and the rating table they come from."""

    method: str  # rating method name
    scale: str  # what the rating numbers mean
    level: float  # coverage of the intervals
    matches: int  # matches in the data
    blocks: int  # duplicate blocks in the data
    rows: tuple[LeaderboardRow, ...]  # best first
    table: RatingTable  # the method's full result (superiority matrix, extras)
    trusted: frozenset[str] = frozenset()  # entries the config ran in-process ("trusted"): marked beside them
    scheduled: int | None = None  # matches the tournament scheduled, where known (more than ``matches``: unfinished)
    score_unit: str = "score per match"  # what the rows' mean_score counts: "chips per deal" (``per_score``)
    retired: tuple[LeaderboardRow, ...] = ()  # a ladder's retired entries, best first, rank None (``set_apart``)

    @property
    def data_line(self) -> str:
        """What was rated: the matches and blocks, and for an unfinished tournament how many were scheduled."""
        if self.scheduled is not None and self.matches < self.scheduled:
            return (f"{self.matches} of {self.scheduled} scheduled matches in {self.blocks} duplicate blocks "
                    "(unfinished: arena run --resume plays the rest)")
        return f"{self.matches} matches in {self.blocks} duplicate blocks"

    @property
    def agents(self) -> tuple[str, ...]:
        """Agent names, best first."""
        return tuple(row.agent for row in self.rows)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data: the rows and the method's table."""
        return {
            "method": self.method,
            "scale": self.scale,
            "level": self.level,
            "matches": self.matches,
            "scheduled": self.scheduled,
            "blocks": self.blocks,
            "rows": [row.to_json() for row in self.rows],
            "retired": [row.to_json() for row in self.retired],
            "ratings": self.table.to_json(),
            "trusted": sorted(self.trusted),
            "score_unit": self.score_unit,
        }

    def per_score(self, unit: str, divisor: float | None) -> Leaderboard:
        """The same leaderboard with each row's mean score divided by ``divisor`` and counted in ``unit``: the
        game's own currency, so that its score method's column and every table's mean score are one figure."""
        if divisor is None:
            return dataclasses.replace(self, score_unit=unit)
        rows, retired = (tuple(dataclasses.replace(row, mean_score=row.mean_score / divisor) for row in part)
                         for part in (self.rows, self.retired))
        return dataclasses.replace(self, rows=rows, retired=retired, score_unit=unit)


def set_apart(board: Leaderboard, retired: Collection[str]) -> Leaderboard:
    """``board`` with the ``retired`` entries (a ladder's: they play no more) moved from its ranked ``rows`` to
    ``retired``, rank None, and the playing entries ranked 1..N among themselves (equal ratings still share a rank).

    Their ratings stay as fitted: their matches still count in everyone's rating, so the fit still places them."""
    if not retired:
        return board
    playing = [row for row in board.rows if row.agent not in retired]
    ranked: list[LeaderboardRow] = []
    for position, row in enumerate(playing, start=1):
        tied = ranked[-1].rating == row.rating if ranked else False
        ranked.append(dataclasses.replace(row, rank=ranked[-1].rank if tied else position))
    apart = tuple(dataclasses.replace(row, rank=None) for row in board.rows if row.agent in retired)
    return dataclasses.replace(board, rows=tuple(ranked), retired=apart)


def agent_results(arrays: MatchArrays) -> tuple[np.ndarray, np.ndarray]:
    """(N,) mean score per match and (N,) share of matches finished first, per agent.

    A first place shared by k seats is 1/k of a win for each, so that the shares of a table add up to one
    (counted whole, in a Lorum field where a third of the pairs of seats tie, they added up to 177%).
    """
    valid = arrays.valid
    agent = arrays.seat_agent[valid]
    n = arrays.n_agents
    games = np.maximum(arrays.games, 1)
    mean_score = np.bincount(agent, weights=arrays.score[valid], minlength=n) / games
    first = arrays.rank == 1
    shared = first / np.maximum(first.sum(axis=1, keepdims=True), 1)
    wins = np.bincount(agent, weights=shared[valid], minlength=n)
    return mean_score, wins / games


def build_leaderboard(
    outcomes: Sequence[MatchOutcome] | MatchArrays, method: str = DEFAULT_METHOD, **options: Any
) -> Leaderboard:
    """Rate the outcomes with ``method`` and put each agent's results and faults beside the rating.

    Parameters
    ----------
    outcomes : sequence of MatchOutcome (or MatchArrays)
        Any order.
    method : str, optional
        Rating method name ("elo", "plackett-luce", "trueskill", "score").
    **options
        Passed to the rating method (e.g. ``bootstrap=200``, ``anchor_agent="random"``).

    Returns
    -------
    Leaderboard
        Rows sorted by rating, best first; equal ratings share a rank.
    """
    arrays = as_arrays(outcomes)
    source = outcomes if callable(options.get("divisor")) else arrays
    table = fit_method(source, method, **options)
    mean_score, win_share = agent_results(arrays)
    index = {name: i for i, name in enumerate(arrays.agents)}
    kind = {k: c for c, k in enumerate(FAULT_KINDS)}
    rows = []
    previous_rating, rank = None, 0
    for position, line in enumerate(table.ratings, start=1):
        if line.rating != previous_rating:
            rank, previous_rating = position, line.rating
        i = index[line.agent]
        faults: dict[str, Any] = {field: int(arrays.fault_counts[i, kind[k]]) for field, k in FAULT_COLUMNS}
        rows.append(
            LeaderboardRow(
                rank=rank,
                agent=line.agent,
                rating=line.rating,
                lower=line.lower,
                upper=line.upper,
                games=line.games,
                mean_score=float(mean_score[i]),
                win_share=float(win_share[i]),
                **faults,
            )
        )
    return Leaderboard(
        method=table.method,
        scale=table.scale,
        level=table.level,
        matches=arrays.n_matches,
        blocks=len(arrays.blocks),
        rows=tuple(rows),
        table=table,
    )
