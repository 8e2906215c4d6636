"""The numbers the site shows beside the ratings: results by seat, time per move, rating history, match rows.

Pure functions over stored ``MatchRow``s and match records, so that each is tested on its own.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.ratings.data import MatchOutcome
from arena.ratings.registry import DEFAULT_METHOD, fit, history_methods
from arena.referee.faults import fault_phase
from arena.tournament.store import MatchRow

CHECKPOINTS = 20
"""The rating history is fitted at this many points at most (the last one holds every match)."""


@dataclass(frozen=True, slots=True)
class SeatResults:
    """Each agent's results by seat position (seat 0 first), and every agent's together."""

    players: int  # seats per table
    agents: tuple[str, ...]  # agent names, sorted
    games: tuple[tuple[int, ...], ...]  # games[agent][seat]: matches the agent played in that seat
    mean_score: tuple[tuple[float | None, ...], ...]  # mean score there (None: never sat there)
    win_share: tuple[tuple[float | None, ...], ...]  # share of those matches finished first (k sharing: 1/k each)
    all_mean_score: tuple[float | None, ...]  # per seat, every agent together: the seat's own advantage

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {"players": self.players, "agents": list(self.agents), "games": [list(g) for g in self.games],
                "mean_score": [list(m) for m in self.mean_score], "win_share": [list(w) for w in self.win_share],
                "all_mean_score": list(self.all_mean_score)}


def seat_results(rows: Iterable[MatchRow]) -> SeatResults:
    """Mean score and win share of every agent in every seat position."""
    totals: dict[str, list[list[float]]] = {}  # agent -> per seat [games, score sum, wins]
    seat_sum: list[list[float]] = []  # per seat [games, score sum]
    for row in rows:
        firsts = max(sum(rank == 1 for rank in row.ranks), 1)
        while len(seat_sum) < len(row.agents):
            seat_sum.append([0, 0.0])
        for seat, agent in enumerate(row.agents):
            cells = totals.setdefault(agent, [])
            while len(cells) <= seat:
                cells.append([0, 0.0, 0])
            cells[seat][0] += 1
            cells[seat][1] += row.scores[seat]
            cells[seat][2] += (row.ranks[seat] == 1) / firsts
            seat_sum[seat][0] += 1
            seat_sum[seat][1] += row.scores[seat]
    players = len(seat_sum)
    agents = tuple(sorted(totals))
    padded = {agent: totals[agent] + [[0, 0.0, 0]] * (players - len(totals[agent])) for agent in agents}
    return SeatResults(
        players=players,
        agents=agents,
        games=tuple(tuple(int(cell[0]) for cell in padded[agent]) for agent in agents),
        mean_score=tuple(tuple(cell[1] / cell[0] if cell[0] else None for cell in padded[agent]) for agent in agents),
        win_share=tuple(tuple(cell[2] / cell[0] if cell[0] else None for cell in padded[agent]) for agent in agents),
        all_mean_score=tuple(total / games if games else None for games, total in seat_sum),
    )


@dataclass(slots=True)
class MoveTimes:
    """Each agent's decisions and their times, as the records' ``move_seconds`` give them."""

    decisions: dict[str, int] = field(default_factory=dict)  # agent -> decisions timed
    total: dict[str, float] = field(default_factory=dict)  # agent -> seconds over those decisions
    longest: dict[str, float] = field(default_factory=dict)  # agent -> the longest decision, seconds

    def add(self, record: Mapping[str, Any]) -> None:
        """Count one match record's decision times (records without ``move_seconds`` add nothing)."""
        per_seat = record.get("move_seconds") or []
        for seat, times in enumerate(per_seat):
            if not times or seat >= len(record.get("seats", [])):
                continue
            agent = str(record["seats"][seat].get("agent"))
            self.decisions[agent] = self.decisions.get(agent, 0) + len(times)
            self.total[agent] = self.total.get(agent, 0.0) + float(sum(times))
            self.longest[agent] = max(self.longest.get(agent, 0.0), float(max(times)))

    def merge(self, other: MoveTimes) -> None:
        """Add another tally into this one."""
        for agent, count in other.decisions.items():
            self.decisions[agent] = self.decisions.get(agent, 0) + count
            self.total[agent] = self.total.get(agent, 0.0) + other.total[agent]
            self.longest[agent] = max(self.longest.get(agent, 0.0), other.longest[agent])

    def mean(self, agent: str) -> float | None:
        """Mean seconds per decision (None: no timed decision)."""
        count = self.decisions.get(agent, 0)
        return self.total[agent] / count if count else None

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data (the site's build cache keeps it per chunk)."""
        return {"decisions": self.decisions, "total": self.total, "longest": self.longest}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MoveTimes:
        """Read ``to_json`` output back."""
        return cls(dict(data["decisions"]), dict(data["total"]), dict(data["longest"]))


def history_method(methods: Sequence[str]) -> str:
    """The method the rating history is fitted with: the first configured cheap one (``MethodSpec.history``),
    else the default method."""
    cheap = history_methods()
    return next((method for method in methods if method in cheap), DEFAULT_METHOD)


def checkpoints(matches: int, count: int = CHECKPOINTS) -> list[int]:
    """Match counts to fit the history at: ``count`` evenly spaced prefixes at most, the last being all."""
    if matches <= 0:
        return []
    points = min(count, matches)
    return sorted({math.ceil(matches * (i + 1) / points) for i in range(points)})


def rating_history(outcomes: Sequence[MatchOutcome], method: str, options: Mapping[str, Any] | None = None,
                   count: int = CHECKPOINTS) -> dict[str, Any]:
    """Each agent's rating and interval after the first n matches (schedule order), at each checkpoint n.

    Returns ``{"method", "matches": [n...], "agents": {name: [[rating, lower, upper] or None per checkpoint]}}``;
    None where the agent had not played yet or the method gave no finite rating.
    """
    points = checkpoints(len(outcomes), count)
    agents = sorted({agent for outcome in outcomes for agent in outcome.agents})
    series: dict[str, list[list[float] | None]] = {agent: [] for agent in agents}
    for n in points:
        table = fit(list(outcomes[:n]), method, **dict(options or {}))
        lines = {line.agent: line for line in table.ratings}
        for agent in agents:
            line = lines.get(agent)
            values = None if line is None else [line.rating, line.lower, line.upper]
            series[agent].append(values if values and all(math.isfinite(v) for v in values) else None)
    return {"method": method, "matches": points, "agents": series}


def fault_summary(faults: Iterable[Mapping[str, Any]]) -> list[list[Any]]:
    """A match's faults as ``[seat, kind, move, phase]`` (the list page's compact form; ``arena.referee.PHASES``)."""
    return [[int(fault["seat"]), str(fault["kind"]), int(fault["move"]), fault_phase(fault)] for fault in faults]


def list_row(row: MatchRow, agent_index: Mapping[str, int]) -> list[Any]:
    """One match-list row: ``[idx, id, table, block, rotation, agent indices, scores, ranks, faults]``."""
    return [row.idx, row.id, row.table_idx, row.block, row.rotation, [agent_index[a] for a in row.agents],
            list(row.scores), list(row.ranks), fault_summary(row.faults)]
