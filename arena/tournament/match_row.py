"""One finished match as the tournament store keeps it (``MatchRow``), and the check of a row read back.

``arena.tournament.store`` writes the rows and reads them with ``match_row``, which refuses (``ValueError`` or
``TypeError``) a row that cannot be what the runner stored.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.ratings.data import MatchOutcome


@dataclass(frozen=True, slots=True)
class MatchRow:
    """One finished match as stored."""

    idx: int  # position in schedule order
    id: str  # stable match id
    block_id: str  # duplicate block id
    table_idx: int  # table index
    block: int  # block number at the table
    rotation: int  # seat rotation within the block
    deal_seed: int  # the game's seed
    agents: tuple[str, ...]  # entry name per seat
    scores: tuple[float, ...]  # per seat
    ranks: tuple[int, ...]  # per seat
    faults: tuple[Mapping[str, Any], ...]  # recorded faults
    think_seconds: tuple[float, ...]  # per seat
    wall_seconds: float  # whole match
    luck: tuple[float, ...] | None = None  # per seat: the luck correction (arena.ratings.luck), None if not computed

    def outcome(self) -> MatchOutcome:
        """The row as the rating methods read it."""
        return MatchOutcome(
            match_id=self.id,
            block=self.block_id,
            agents=self.agents,
            scores=self.scores,
            ranks=self.ranks,
            faults=tuple((int(fault["seat"]), str(fault["kind"])) for fault in self.faults),
            luck=self.luck,
        )

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data (the export format)."""
        return {
            "idx": self.idx, "id": self.id, "block_id": self.block_id, "table": self.table_idx, "block": self.block,
            "rotation": self.rotation, "deal_seed": self.deal_seed, "agents": list(self.agents),
            "scores": list(self.scores), "ranks": list(self.ranks), "faults": [dict(f) for f in self.faults],
            "think_seconds": list(self.think_seconds), "wall_seconds": self.wall_seconds,
            "luck": None if self.luck is None else list(self.luck),
        }


def match_row(row: Sequence[Any]) -> MatchRow:
    """One ``matches`` row, checked: ``ValueError`` or ``TypeError`` when it cannot be what the runner stored."""
    columns = [json.loads(row[column]) for column in range(7, 12)]
    if not all(isinstance(column, list) for column in columns):
        raise ValueError("agents, scores, ranks, faults and seconds must each be a list")
    agents, scores, ranks, faults, think = map(tuple, columns)
    seats = len(agents)
    if not seats or not all(isinstance(agent, str) for agent in agents):
        raise ValueError("agents must be a non-empty list of names")
    if not _finite_numbers(scores, seats):
        raise ValueError(f"{seats} agents need {seats} finite numeric scores, got {list(scores)[:8]}")
    if len(ranks) != seats or not all(type(rank) is int and 1 <= rank <= seats for rank in ranks):
        raise ValueError(f"{seats} agents need {seats} ranks from 1 to {seats}, got {list(ranks)[:8]}")
    for fault in faults:
        if not isinstance(fault, dict) or type(fault.get("seat")) is not int or not 0 <= fault["seat"] < seats \
                or not isinstance(fault.get("kind"), str):
            raise ValueError(f"a fault must name a seat 0..{seats - 1} and a kind, got {str(fault)[:60]}")
    if not all(type(value) is int for value in (row[0], row[3], row[4], row[5])) \
            or not all(isinstance(value, str) for value in (row[1], row[2])):
        raise ValueError("its place in the schedule is not what the runner stores")
    luck = None if row[13] is None else json.loads(row[13])
    if luck is not None and not (isinstance(luck, list) and _finite_numbers(luck, seats)):
        raise ValueError(f"{seats} agents need {seats} finite luck corrections, got {str(luck)[:60]}")
    return MatchRow(idx=row[0], id=row[1], block_id=row[2], table_idx=row[3], block=row[4], rotation=row[5],
                    deal_seed=row[6], agents=agents, scores=scores, ranks=ranks, faults=faults, think_seconds=think,
                    wall_seconds=row[12], luck=None if luck is None else tuple(map(float, luck)))


def _finite_numbers(values: Sequence[Any], count: int) -> bool:
    """Whether ``values`` are ``count`` finite numbers (booleans are not numbers here)."""
    return len(values) == count and all(isinstance(value, (int, float)) and not isinstance(value, bool)
                                        and math.isfinite(value) for value in values)


def rows_for_export(rows: Sequence[MatchRow]) -> list[dict[str, Any]]:
    """Rows as plain JSON objects, in schedule order."""
    return [row.to_json() for row in rows]
