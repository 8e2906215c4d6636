"""Where the active field stands after a fit, and the stopping rule: when is every rank settled?

A ``Standing`` is what the planner and the stopping rule read of one rating fit: each active
entry's rating, the spread of every pair's gap, and the duplicate blocks each entry has played.  An
entry with no matches yet has no rating: it is ahead of anyone, or behind, with probability 1/2.

The rule (``docs/ladder.md``) is a sequential test per pair of entries, read from the fit's gap ``g``
and its spread ``s`` (a normal likelihood, as fishtest reads its Elo for two players): the
log-likelihood ratio of a gap of ``+d`` against none is ``(g d - d^2 / 2) / s^2``.  A pair is
*ordered* (``AHEAD`` or ``BEHIND``) when the weighted sum of these ratios over the ``MIXTURE``'s gaps
(mostly ``DELTA``) reaches ``1 / alpha`` in one direction, ``alpha = (1 - level) / 2``: a mixture of
likelihood ratios is a martingale under no gap, so by Ville's inequality this bound holds however often
the test is looked at.  A pair is ``LEVEL`` when both ratios for ``DELTA`` fall to Wald's ``log(beta /
(1 - alpha))``, ``beta = 1 - level``: neither is likely ahead by ``DELTA``.  Two entries of equal
strength are so put in an order with probability at most ``1 - level``, and end ``LEVEL`` otherwise.

A verdict is *kept* once reached (``Standing.reached``, filled by ``keep_verdicts`` after every fit once both
entries have ``min_blocks`` blocks): the test stops at its first crossing, which is exactly the event Ville's and
Wald's bounds are about, so keeping it costs no error rate, and a pair that has decided draws no more blocks and
cannot fall back to open when later matches of other pairs move its spread.  A kept order counts only while
the rating order agrees with it (else the pair is tested afresh); a kept level always counts.

An entry's rank is *settled* when it has played at least ``min_blocks`` duplicate blocks and the pair
it forms with each neighbour in the rating order has a verdict; the ladder is settled when every
active entry is.  ``benchmarks/ladder_settle.py`` measures the error rates and the matches.
"""

from __future__ import annotations

import dataclasses
import itertools
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

AHEAD = "ahead"
BEHIND = "behind"
LEVEL = "level"
"""A pair's verdict: the first is ahead by ``DELTA`` rather than level, behind, or neither is ahead by it."""

ELO_PER_NATURAL = 400 / math.log(10)
"""Elo points per natural-log unit of strength (the rating tables' scale)."""

DELTA = 40.0
"""The gap (Elo) the level verdict is built for: two entries are *level* when neither is likely ahead by this
much.  Half the 87 Elo of well-separated neighbours, about the 43 of close ones."""

MIXTURE: tuple[tuple[float, float], ...] = ((DELTA, 0.9), (80.0, 0.04), (160.0, 0.03), (320.0, 0.02), (640.0, 0.01))
"""The gaps (Elo) an order verdict weighs, with their weights: mostly ``DELTA``, and a little of gaps up to 16
times larger, so that entries far apart (a random agent among search agents) are ordered in a few blocks rather
than after as many as a gap of 40 Elo needs.  The weights add up to 1, which is what keeps the error bound."""


def wald_bounds(level: float) -> tuple[float, float]:
    """The test's (upper, lower) bounds at ``level``: ``log(1 / alpha)`` for the order (Ville's bound on the
    mixture's likelihood ratio) and Wald's ``log(beta / (1 - alpha))`` for level, with ``alpha = (1 - level) / 2``
    (each direction) and ``beta = 1 - level``."""
    alpha, beta = (1.0 - level) / 2.0, 1.0 - level
    return math.log(1.0 / alpha), math.log(beta / (1.0 - alpha))


def _mixture(gap: float, variance: float) -> float:
    """log of the weighted likelihood ratio of the ``MIXTURE``'s gaps against none, for a measured ``gap``."""
    terms = [math.log(weight) + (gap * delta - delta * delta / 2) / variance for delta, weight in MIXTURE]
    top = max(terms)
    return top + math.log(sum(math.exp(term - top) for term in terms))


def _log_ratios(gap: float, spread: float) -> tuple[float, float, float, float] | None:
    """A gap's log-likelihood ratios against none (see ``Standing.log_ratios``), for a measured ``gap`` with this
    ``spread`` (Elo); None without a finite spread."""
    if not math.isfinite(spread) or spread <= 0:
        return None
    variance = spread * spread
    return (_mixture(gap, variance), _mixture(-gap, variance),
            (gap * DELTA - DELTA**2 / 2) / variance, (-gap * DELTA - DELTA**2 / 2) / variance)


def _verdict_of(ratios: tuple[float, float, float, float], level: float) -> str | None:
    """The test's verdict from a pair's ``log_ratios``: ``AHEAD``, ``BEHIND``, ``LEVEL`` or None while open."""
    upper, lower = wald_bounds(level)
    ahead, behind, up, down = ratios
    if ahead >= upper:
        return AHEAD
    if behind >= upper:
        return BEHIND
    return LEVEL if max(up, down) <= lower else None


def gap_verdict(gap: float, spread: float, level: float) -> str | None:
    """The pair test's verdict for a gap of ``gap`` Elo measured with this ``spread``: what ``Standing.test`` reads
    from a fit, here for a spread the fit does not have yet (the planner's forecast of a batch)."""
    ratios = _log_ratios(gap, spread)
    return None if ratios is None else _verdict_of(ratios, level)


@dataclass(frozen=True, slots=True)
class Standing:
    """The active field after a fit."""

    active: tuple[str, ...]  # active entries, in order of joining
    ratings: Mapping[str, float]  # rating (Elo scale) of each active entry that has played
    bounds: Mapping[str, tuple[float, float]]  # its interval
    games: Mapping[str, int]  # matches each entry played (every entry that ever played)
    gap_sd: Mapping[tuple[str, str], float]  # spread of rating a - rating b, Elo points
    blocks: Mapping[str, int]  # duplicate blocks each entry played
    reached: Mapping[tuple[str, str], str] = field(default_factory=dict)  # kept verdicts, (a, b) sorted: a's verdict
    _order: tuple[str, ...] = field(init=False, repr=False, compare=False)  # order(), sorted once

    def __post_init__(self) -> None:
        rated = sorted((name for name in self.active if name in self.ratings),
                       key=lambda name: (-self.ratings[name], self.active.index(name)))
        object.__setattr__(self, "_order", (*rated, *(name for name in self.active if name not in self.ratings)))

    def log_ratios(self, a: str, b: str) -> tuple[float, float, float, float] | None:
        """The pair's log-likelihood ratios against a gap of none: of ``a`` ahead of ``b`` and behind it by the
        ``MIXTURE`` (for an order), then ahead and behind by ``DELTA`` (for level); None when either has not
        played or the gap has no finite spread (nothing to test yet)."""
        if a not in self.ratings or b not in self.ratings:
            return None
        return _log_ratios(self.ratings[a] - self.ratings[b], self.gap_sd.get((a, b), math.inf))

    def kept(self, a: str, b: str) -> str | None:
        """The pair's verdict reached at an earlier look (``a``'s: ``AHEAD`` when ``a`` is ahead), if it still
        counts: a level always, an order while the rating order agrees with it."""
        key = (a, b) if a < b else (b, a)
        kept = self.reached.get(key)
        if kept is None or kept == LEVEL:
            return kept
        if key != (a, b):
            kept = BEHIND if kept == AHEAD else AHEAD
        order = self._order
        if a not in order or b not in order:
            return None
        above = order.index(a) < order.index(b)
        return kept if above == (kept == AHEAD) else None

    def verdict(self, a: str, b: str, level: float) -> str | None:
        """``AHEAD`` (``a`` ahead of ``b``), ``BEHIND``, ``LEVEL`` or None while the pair's test is open: a verdict
        ``kept`` from an earlier look, else the ``test`` of this fit."""
        kept = self.kept(a, b)
        return kept if kept is not None else self.test(a, b, level)

    def test(self, a: str, b: str, level: float) -> str | None:
        """The pair's test read from this fit alone: ``AHEAD``, ``BEHIND``, ``LEVEL`` or None while open."""
        ratios = self.log_ratios(a, b)
        return None if ratios is None else _verdict_of(ratios, level)

    def progress(self, a: str, b: str, level: float) -> float:
        """How near the pair's test is to a verdict: 1 at one, 0 half-way between its bounds (or before
        either entry has played)."""
        if self.kept(a, b) is not None:
            return 1.0
        ratios = self.log_ratios(a, b)
        if ratios is None:
            return 0.0
        upper, lower = wald_bounds(level)
        ordered, levelled = max(ratios[:2]), max(ratios[2:])
        if ordered >= upper or levelled <= lower:
            return 1.0
        return max(0.0, 1.0 - 2.0 * min(upper - ordered, levelled - lower) / (upper - lower))

    def unsettledness(self, a: str, b: str, level: float) -> float:
        """What a block of ``a`` and ``b`` can still do for the stopping rule: 0 once the pair has a verdict,
        else 1 - its ``progress`` (the planner seats the pairs furthest from a verdict first)."""
        return 0.0 if self.verdict(a, b, level) is not None else 1.0 - self.progress(a, b, level)

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

    def confidence(self, name: str, level: float) -> float:
        """The least ``progress`` of the tests between ``name`` and its neighbours: 1 when every one has a verdict."""
        return min((self.progress(name, other, level) for other in self.neighbours()[name]), default=1.0)

    def status(self, name: str, level: float, min_blocks: int) -> str:
        """``new``, ``unsettled`` or ``settled`` (for an active entry)."""
        if self.blocks.get(name, 0) < min_blocks:
            return NEW
        decided = all(self.verdict(name, other, level) is not None for other in self.neighbours()[name])
        return SETTLED if decided else UNSETTLED

    def settled(self, level: float, min_blocks: int) -> bool:
        """Whether every active entry's rank is settled."""
        return all(self.status(name, level, min_blocks) == SETTLED for name in self.active)


def keep_verdicts(standing: Standing, level: float, min_blocks: int) -> Standing:
    """``standing`` with the verdicts its fit reaches added to those it keeps: every pair of active entries that
    have both played ``min_blocks`` blocks (before that the intervals are only conservative) whose ``test`` has a
    verdict now and had none kept.  A pair whose kept order the ratings now contradict keeps that order in
    ``reached`` (it is not replaced), and is tested afresh until the order agrees again."""
    ready = [name for name in standing.active if standing.blocks.get(name, 0) >= min_blocks]
    reached = dict(standing.reached)
    for a, b in itertools.combinations(sorted(ready), 2):
        if (a, b) not in reached:
            verdict = standing.test(a, b, level)
            if verdict is not None:
                reached[a, b] = verdict
    if len(reached) == len(standing.reached):
        return standing
    return dataclasses.replace(standing, reached=reached)


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


INTERVALS = "auto"
"""The ladder's covariance: the leaderboard's default (``arena.ratings.design``), clustered by duplicate block.

With every entry behind ``CLUSTER_MIN_BLOCKS`` blocks it is the curvature times the design effect as measured,
below 1 included (what the blocks earn), floored at 0.25 and, for every gap, at the gap's own sandwich; with
fewer blocks, the curvature never narrowed.  The per-gap floor is what keeps a lopsided field honest: there the
field's design effect is set by the strong entries' contrasts and, alone, narrowed the gaps among the weak ones
(a real 3-player Lovat ladder of random, greedy and two search entries measured 0.04).  The pair test's error
rates with it are measured in ``benchmarks/ladder_settle.py``."""


def fit_standing(outcomes: Sequence[MatchOutcome], active: Sequence[str], method: str,
                 reached: Mapping[tuple[str, str], str] | None = None) -> tuple[Standing, RatingTable]:
    """Rate every stored match with ``method`` (``INTERVALS``) and read the active field's standing from it,
    keeping the verdicts ``reached`` at earlier looks."""
    table = fit(outcomes, method, intervals=INTERVALS)
    standing = standing_from_table(table, active, block_counts(outcomes))
    if reached:
        standing = dataclasses.replace(standing, reached=dict(reached))
    return standing, table
