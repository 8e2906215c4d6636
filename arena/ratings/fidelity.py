"""How far a rating method's intervals and probabilities can be trusted: simulated replications.

A ``Setting`` fixes a field of agents with known strengths (drawn once from N(0, 1)) and a
tournament design; ``measure`` plays it ``replications`` times with fresh seeds
(``arena.ratings.simulate``), rates every replication with one method and compares:

* coverage: how often each agent's interval holds its *target*, the mean of the other
  replications' ratings of that agent (leave-one-out, so the target is independent of the
  interval; the interval is widened by ``sqrt(1 + 1 / (R - 1))`` for the target's own
  sampling error over ``R`` replications).  The target is what the method estimates on this design, on its own scale, so
  coverage measures whether an interval's width matches the spread of its rating (a bias
  common to all replications is not counted: the truth is on another scale for most methods);
* spread ratio: the actual standard deviation of a rating over the replications divided by
  the standard deviation the method reported (1 is right, above 1 the intervals are too
  narrow);
* calibration: over every pair of agents in every replication, P(stronger) for the
  favoured side against whether it is truly stronger, by bins of the probability;
* Kendall's tau between the ratings and the true strengths.

The tests run small settings in seconds; ``python -m benchmarks --only fidelity`` runs the
study of docs/ratings.md.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import numpy as np
from scipy.stats import kendalltau

from arena.ratings.registry import fit
from arena.ratings.simulate import simulate_outcomes
from arena.ratings.table import z_value

CALIBRATION_BINS: tuple[float, ...] = (0.5, 0.6, 0.7, 0.8, 0.85, 0.95, 0.99, 1.0001)
"""Edges of the bins of P(stronger) for the favoured side (0.85–0.95 is the "0.9" bin)."""


class Source(Protocol):
    """What ``measure`` replays: a field's true strengths and the matches of each replication (a ``Setting``, or
    real matches: benchmarks/luck_fidelity.py)."""

    def strengths(self) -> dict[str, float]:
        """Each agent's true strength (only their order counts: ties for identical agents)."""

    def outcomes(self, replication: int) -> list[Any]:
        """The matches of one replication, in the order played."""


@dataclass(frozen=True, slots=True)
class Setting:
    """A simulated field and tournament design."""

    agents: int  # number of agents
    blocks: int  # groups of ``players`` matches (duplicate blocks, or as many independent deals)
    players: int = 4  # seats per match
    design: str = "blocks"  # "blocks" or "independent" (see arena.ratings.simulate)
    luck: float = 0.0  # standard deviation of a deal's seat luck, in strength units
    score_step: float | None = None  # score rounding (creates ties)
    seed: int = 0  # seed of the strengths and of the replications
    fixed: tuple[float, ...] = ()  # the strengths, one per agent, in place of draws from N(0, 1)
    die: float = 0.0  # standard deviation of each seat's die roll per match, whose luck the outcomes carry

    def strengths(self) -> dict[str, float]:
        """The field's true natural-log strengths: ``fixed``, or N(0, 1) drawn with ``seed``."""
        values = self.fixed or np.random.default_rng([self.seed, 7919]).normal(size=self.agents)
        return {f"a{i:03d}": float(v) for i, v in enumerate(values)}

    def outcomes(self, replication: int) -> list[Any]:
        """The matches of one replication, in the order played."""
        return simulate_outcomes(
            self.strengths(), blocks=self.blocks, players=self.players, seed=self.seed * 100_003 + replication + 1,
            luck=self.luck, score_step=self.score_step, design=self.design, die=self.die,
        )

    def label(self) -> str:
        """A short description for tables."""
        ties = "" if self.score_step is None else f", ties (step {self.score_step:g})"
        die = f", die {self.die:g}" if self.die else ""
        return (f"{self.agents} agents, {self.blocks * self.players} matches, {self.design}, luck {self.luck:g}"
                f"{die}{ties}")


@dataclass(frozen=True, slots=True)
class Fidelity:
    """What ``measure`` found for one method on one setting."""

    method: str
    setting: Source
    replications: int
    coverage: float  # share of (agent, replication) intervals holding the leave-one-out target
    spread_ratio: float  # actual sd / reported sd of a rating, root-mean-square over agents
    actual_sd: float  # actual sd of a rating, root-mean-square over agents
    reported_sd: float  # reported sd, root-mean-square over agents and replications
    kendall: float  # mean Kendall tau between ratings and true strengths
    tie_share: float  # share of pairs of seats that tied
    # (low, high, mean P, share right, n) per bin
    calibration: tuple[tuple[float, float, float, float, int], ...] = field(default=())
    interval_kinds: tuple[str, ...] = ()  # the interval kinds the fits reported

    def bin_near(self, p: float) -> tuple[float, float, int]:
        """(mean predicted, share right, pairs) of the calibration bin holding ``p``."""
        for low, high, predicted, right, count in self.calibration:
            if low <= p < high:
                return predicted, right, count
        raise ValueError(f"no calibration bin holds {p}")


def _tie_share(outcomes: Sequence[Any]) -> float:
    tied = total = 0
    for o in outcomes:
        n = len(o.ranks)
        total += n * (n - 1) // 2
        tied += sum(o.ranks[i] == o.ranks[j] for i in range(n) for j in range(i + 1, n))
    return tied / total if total else 0.0


def measure(method: str, setting: Source, replications: int, **options: Any) -> Fidelity:
    """Rate ``replications`` tournaments of ``setting`` (simulated, or real) with ``method`` and summarise."""
    truth = setting.strengths()
    names = sorted(truth)
    true = np.array([truth[a] for a in names])
    ratings = np.full((replications, len(names)), np.nan)
    lower, upper = np.full_like(ratings, np.nan), np.full_like(ratings, np.nan)
    predicted, correct, taus, ties, kinds = [], [], [], [], set()
    first, second = np.triu_indices(len(names), k=1)
    stronger = true[first] > true[second]
    for r in range(replications):
        outcomes = setting.outcomes(r)
        if r < 3:
            ties.append(_tie_share(outcomes))
        table = fit(outcomes, method, **options)
        kinds.add(str(table.extras.get("interval_kind", table.extras.get("intervals", "bootstrap"))))
        position = {row.agent: i for i, row in enumerate(table.ratings)}
        if any(a not in position for a in names):
            continue  # an agent that never played (tiny settings only)
        where = [position[a] for a in names]
        ratings[r] = [table.ratings[w].rating for w in where]
        lower[r] = [table.ratings[w].lower for w in where]
        upper[r] = [table.ratings[w].upper for w in where]
        p = np.array(table.superiority)[np.ix_(where, where)][first, second]
        favoured = np.where(p >= 0.5, p, 1.0 - p)
        predicted.append(favoured)
        correct.append(np.where(p == 0.5, 0.5, np.where(p > 0.5, stronger, ~stronger)))
        taus.append(kendalltau(ratings[r], true).statistic)
    done = ~np.isnan(ratings).any(axis=1)
    ratings, lower, upper = ratings[done], lower[done], upper[done]
    count = len(ratings)
    target = (ratings.sum(axis=0) - ratings) / max(count - 1, 1)  # leave-one-out mean
    # The target is itself a mean of count - 1 ratings: its own variance, sd^2 / (count - 1),
    # adds to the rating's, so the interval is widened by sqrt(1 + 1 / (count - 1)) to ask
    # whether it holds the exact mean (without it a perfect interval covers 93% at 8 replications).
    stretch = np.sqrt(1.0 + 1.0 / max(count - 1, 1))
    covered = (ratings - stretch * (ratings - lower) <= target) & (target <= ratings + stretch * (upper - ratings))
    reported = (upper - lower) / (2.0 * z_value(0.95))
    actual_sd = float(np.sqrt(np.mean(ratings.var(axis=0, ddof=1)))) if count > 1 else float("nan")
    reported_sd = float(np.sqrt(np.mean(reported**2)))
    all_p = np.concatenate(predicted) if predicted else np.zeros(0)
    all_right = np.concatenate(correct).astype(float) if correct else np.zeros(0)
    bins = []
    for low, high in itertools.pairwise(CALIBRATION_BINS):
        inside = (all_p >= low) & (all_p < high)
        n = int(inside.sum())
        bins.append((low, high, float(all_p[inside].mean()) if n else float("nan"),
                     float(all_right[inside].mean()) if n else float("nan"), n))
    return Fidelity(
        method=method, setting=setting, replications=count, coverage=float(covered.mean()),
        spread_ratio=actual_sd / reported_sd, actual_sd=actual_sd, reported_sd=reported_sd,
        kendall=float(np.mean(taus)) if taus else float("nan"), tie_share=float(np.mean(ties)) if ties else 0.0,
        calibration=tuple(bins), interval_kinds=tuple(sorted(kinds)),
    )


LARGE_MATCHES = 300_000
"""Matches of the fit that stands for what a method converges to on a field (``measure_against_large``)."""


@dataclass(frozen=True, slots=True)
class LargeSample:
    """What ``measure_against_large`` found for one method on one setting."""

    method: str
    setting: Setting
    replications: int
    large_matches: int  # matches of the fit whose ratings are the target
    coverage: float  # share of (agent, replication) intervals holding the large fit's rating
    leave_one_out: float  # the coverage ``measure`` reports on the same fits (the replications' own mean)
    bias: float  # mean over agents of |mean rating - target| / actual sd (the lean of the small fits)
    spread_ratio: float  # actual sd / reported sd of a rating, root-mean-square over agents
    tie_share: float  # share of pairs of seats that tied


def large_fit(method: str, setting: Setting, matches: int = LARGE_MATCHES, **options: Any) -> dict[str, float]:
    """Each agent's rating by ``method`` on ``matches`` matches of ``setting``'s field, in a random order.

    As the matches grow this is what the method converges to on the field: the value a small tournament's
    rating estimates.  The order is random (shuffled matches, not blocks in turn) for TrueSkill, whose online
    fit depends on it; the blocks are kept, so a method's interval may still use them.
    """
    big = replace(setting, blocks=matches // setting.players)
    outcomes = simulate_outcomes(big.strengths(), blocks=big.blocks, players=big.players, seed=setting.seed + 424_243,
                                 luck=big.luck, score_step=big.score_step, design=big.design, die=big.die)
    order = np.random.default_rng([setting.seed, 1]).permutation(len(outcomes))
    table = fit([outcomes[i] for i in order], method, **options)
    return {row.agent: row.rating for row in table.ratings}


def measure_against_large(method: str, setting: Setting, replications: int, large_matches: int = LARGE_MATCHES,
                          **options: Any) -> LargeSample:
    """How often the default interval of ``replications`` small fits holds the method's large-sample value.

    The target is ``large_fit`` (re-centred as each method centres its ratings), not the replications' own mean
    as in ``measure``: a lean that every small fit shares (and ``measure`` cannot see) lowers this coverage.
    """
    target = large_fit(method, setting, large_matches, **options)
    names = sorted(target)
    goal = np.array([target[a] for a in names])
    ratings, lower, upper = (np.full((replications, len(names)), np.nan) for _ in range(3))
    for r in range(replications):
        table = fit(setting.outcomes(r), method, **options)
        position = {row.agent: row for row in table.ratings}
        ratings[r] = [position[a].rating for a in names]
        lower[r] = [position[a].lower for a in names]
        upper[r] = [position[a].upper for a in names]
    covered = (lower <= goal) & (goal <= upper)
    actual = ratings.std(axis=0, ddof=1)
    reported = (upper - lower) / (2.0 * z_value(0.95))
    loo = (ratings.sum(axis=0) - ratings) / max(replications - 1, 1)
    stretch = np.sqrt(1.0 + 1.0 / max(replications - 1, 1))
    own = (ratings - stretch * (ratings - lower) <= loo) & (loo <= ratings + stretch * (upper - ratings))
    return LargeSample(
        method=method, setting=setting, replications=replications, large_matches=large_matches,
        coverage=float(covered.mean()), leave_one_out=float(own.mean()),
        bias=float(np.mean(np.abs(ratings.mean(axis=0) - goal) / actual)),
        spread_ratio=float(np.sqrt(np.mean(actual**2)) / np.sqrt(np.mean(reported**2))),
        tie_share=_tie_share(setting.outcomes(0)),
    )
