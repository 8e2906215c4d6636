"""Where the active field stands after a fit, and the stopping rule: when is every rank settled?

A ``Standing`` is what the planner and the stopping rule read of one rating fit: each active
entry's rating, the spread of every pair's gap, and the duplicate blocks each entry has played.  An
entry with no matches yet has no rating: it is ahead of anyone, or behind, with probability 1/2.

The rule (``docs/ladder.md``): order the active entries by rating; an entry's rank is *settled*
when it has played at least ``min_blocks`` duplicate blocks and, against each neighbour in that
order, P(ahead by more than ``MARGIN``) (in whichever direction the order says) is at least
``level``.  The ladder is settled when every active entry is.  Checked after every batch, so its
error rate is that of a sequential test: ``benchmarks/ladder_settle.py`` measures it.  The margin
is what keeps that error bounded for entries of equal strength: with P(stronger) alone, re-checked
after every batch, two copies of one agent were put in an order in about 55% of simulated runs;
their gap shrinks towards zero as they play, so it clears a fixed margin only by early luck.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from arena.ratings import RatingTable, fit
from arena.ratings.data import MatchOutcome

NEW = "new"
UNSETTLED = "unsettled"
SETTLED = "settled"
RETIRED = "retired"
"""An entry's status: fewer than ``min_blocks`` blocks; playing; settled; no longer scheduled.
``SETTLED`` also names ``--until settled`` and a run that ended so."""

ELO_PER_NATURAL = 400 / math.log(10)
"""Elo points per natural-log unit of strength (the rating tables' scale)."""

MARGIN = 20.0
"""Elo points by which a neighbour must be ahead, with probability ``level``, for an order to be settled."""


@dataclass(frozen=True, slots=True)
class Standing:
    """The active field after a fit."""

    active: tuple[str, ...]  # active entries, in order of joining
    ratings: Mapping[str, float]  # rating (Elo scale) of each active entry that has played
    bounds: Mapping[str, tuple[float, float]]  # its interval
    games: Mapping[str, int]  # matches each entry played (every entry that ever played)
    gap_sd: Mapping[tuple[str, str], float]  # spread of rating a - rating b, Elo points
    blocks: Mapping[str, int]  # duplicate blocks each entry played
    _order: tuple[str, ...] = field(init=False, repr=False, compare=False)  # order(), sorted once

    def __post_init__(self) -> None:
        rated = sorted((name for name in self.active if name in self.ratings),
                       key=lambda name: (-self.ratings[name], self.active.index(name)))
        object.__setattr__(self, "_order", (*rated, *(name for name in self.active if name not in self.ratings)))

    def p_ahead(self, a: str, b: str) -> float:
        """P(``a``'s rating exceeds ``b``'s by more than ``MARGIN``), from the gap and its spread (normal);
        1/2 when either has not played or the gap has no finite spread."""
        if a not in self.ratings or b not in self.ratings:
            return 0.5
        gap, spread = self.ratings[a] - self.ratings[b], self.gap_sd.get((a, b), math.inf)
        if not math.isfinite(spread):
            return 0.5
        if spread <= 0:
            return 1.0 if gap > MARGIN else 0.0
        return 0.5 * math.erfc(-(gap - MARGIN) / (spread * math.sqrt(2)))

    def p_within(self, a: str, b: str) -> float:
        """P(the ratings of ``a`` and ``b`` are within ``MARGIN`` of each other): what neither is ahead by more
        (0 where ``p_ahead`` has nothing to say: its halves add up to one)."""
        return max(0.0, 1.0 - self.p_ahead(a, b) - self.p_ahead(b, a))

    def unsettledness(self, a: str, b: str) -> float:
        """How much a block of ``a`` and ``b`` could still tell the stopping rule: 1 - the largest of P(``a`` ahead
        by more than ``MARGIN``), P(``b`` ahead by more) and P(within it).  Two entries surely within the margin
        can never be settled, so the planner spends its blocks elsewhere."""
        ahead, behind = self.p_ahead(a, b), self.p_ahead(b, a)
        return 1 - max(ahead, behind, 1.0 - ahead - behind)

    def win_chance(self, a: str, b: str) -> float:
        """The chance ``a`` finishes ahead of ``b`` at a table, averaged over the gap's uncertainty
        (the probit approximation of a logistic over a normal gap); 1/2 when either has not played."""
        if a not in self.ratings or b not in self.ratings:
            return 0.5
        gap = (self.ratings[a] - self.ratings[b]) / ELO_PER_NATURAL
        spread = self.gap_sd.get((a, b), 0.0) / ELO_PER_NATURAL
        return 1 / (1 + math.exp(-gap / math.sqrt(1 + math.pi * spread**2 / 8)))

    def order(self) -> tuple[str, ...]:
        """The active entries, best first; those without a rating last, in order of joining."""
        return self._order

    def neighbours(self) -> dict[str, tuple[str, ...]]:
        """Each active entry's neighbours in ``order`` (one at either end)."""
        order = self.order()
        return {name: tuple(order[j] for j in (i - 1, i + 1) if 0 <= j < len(order)) for i, name in enumerate(order)}

    def confidence(self, name: str) -> float:
        """The least P(ahead by more than ``MARGIN``) between ``name`` and a neighbour, each in the direction of
        the order."""
        order = self.order()
        i = order.index(name)
        values = [self.p_ahead(order[j], order[j + 1]) for j in (i - 1, i) if 0 <= j < len(order) - 1]
        return min(values, default=1.0)

    def status(self, name: str, level: float, min_blocks: int) -> str:
        """``new``, ``unsettled`` or ``settled`` (for an active entry)."""
        if self.blocks.get(name, 0) < min_blocks:
            return NEW
        return SETTLED if self.confidence(name) >= level else UNSETTLED

    def settled(self, level: float, min_blocks: int) -> bool:
        """Whether every active entry's rank is settled."""
        return all(self.status(name, level, min_blocks) == SETTLED for name in self.active)


def block_counts(outcomes: Sequence[MatchOutcome]) -> dict[str, int]:
    """Duplicate blocks each entry played in."""
    seen: dict[str, set[str]] = {}
    for outcome in outcomes:
        for agent in outcome.agents:
            seen.setdefault(agent, set()).add(outcome.block)
    return {agent: len(blocks) for agent, blocks in seen.items()}


def standing_from_table(table: RatingTable, active: Sequence[str], blocks: Mapping[str, int]) -> Standing:
    """A ``Standing`` of the ``active`` entries read from a rating table of (at least) their matches."""
    rated = [name for name in active if name in table.agents]
    ratings = {name: table[name].rating for name in rated}
    bounds = {name: (table[name].lower, table[name].upper) for name in rated}
    games = {row.agent: row.games for row in table.ratings}
    gap_sd: dict[tuple[str, str], float] = {}
    for a in rated:
        i = table.index(a)
        for b in rated:
            if a != b:
                j = table.index(b)
                gap_sd[a, b] = table.contrast_sd[i][j]
    return Standing(active=tuple(active), ratings=ratings, bounds=bounds, games=games, gap_sd=gap_sd,
                    blocks=dict(blocks))


INTERVALS = "adjusted"
"""The ladder's covariance: the curvature times the design effect floored at 1 (``arena.ratings.inference``).

Never narrower than the curvature.  The leaderboard's ``auto`` lets a measured design effect below 1
narrow the intervals; in a lopsided field it can collapse (0.04 was measured in a real 3-player Lovat
ladder with ``random`` far below search and greedy, which made every P(stronger) 1.000 after 72
matches), and a stopping rule must not settle on that."""


def fit_standing(outcomes: Sequence[MatchOutcome], active: Sequence[str], method: str) -> tuple[Standing, RatingTable]:
    """Rate every stored match with ``method`` (``INTERVALS``) and read the active field's standing from it."""
    table = fit(outcomes, method, intervals=INTERVALS)
    return standing_from_table(table, active, block_counts(outcomes)), table
