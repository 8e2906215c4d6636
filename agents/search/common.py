"""Game-independent pieces of determinized search agents: budgets, per-move RNGs, the determinization loop.

A determinizing agent cannot see the other seats' cards, so it samples complete
hidden states ("worlds") consistent with its observation, plays every candidate
action out in each world, and picks the action with the best mean value.  This
module holds what does not depend on the game:

* ``Budget``: how much search one move may use, read from the agent's options
  (``iterations``: playouts per move, deterministic; ``ms``: wall-clock time);
* ``move_rng``: the RNG of one decision, derived from the agent's seed and the
  decision's public position only, so the same seed and the same observation
  give the same action whatever the agent did before;
* ``determinized_search``: the flat determinization loop (perfect-information
  Monte Carlo) with common random numbers: each sampled world is shared by all
  candidates, so their comparison is not blurred by the luck of the deal;
* ``halving_search``: the same loop with sequential halving, which spends the
  playouts on the close contenders.

The game-specific parts (how to sample a world, how to play a candidate out and
score it) are passed in as functions.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

World = TypeVar("World")
"""A sampled hidden state; ``playout`` must not modify it (it is shared by all candidates)."""

Candidate = TypeVar("Candidate", bound=Hashable)
"""A candidate action (any hashable JSON value)."""

BUDGET_OPTIONS = ("iterations", "ms")
"""The option names ``Budget.from_options`` reads."""


@dataclass(frozen=True, slots=True)
class Budget:
    """How much search one move may use.

    With ``ms`` unset the search is deterministic for a seed: it stops after
    ``iterations`` playouts.  With ``ms`` set it stops when the time is spent
    (or, if ``iterations`` is also set, at whichever limit comes first), so its
    choice then depends on the machine's speed.  Either way at least one world
    is searched.
    """

    iterations: int | None  # playouts per move (one candidate played out in one world); None: no cap
    ms: float | None  # wall-clock milliseconds per move; None: no time limit (deterministic)

    @classmethod
    def from_options(cls, options: Mapping[str, Any], default_iterations: int) -> Budget:
        """Read ``iterations`` and ``ms`` from an agent's options; raise ``ValueError`` naming a bad one.

        With neither given the budget is ``default_iterations`` playouts; with only
        ``ms`` given there is no iteration cap.
        """
        iterations = options.get("iterations")
        ms = options.get("ms")
        if iterations is not None and (
            isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1
        ):
            raise ValueError(
                f"agent option 'iterations' must be an integer >= 1 (playouts per move), not {iterations!r}"
            )
        if ms is not None and (isinstance(ms, bool) or not isinstance(ms, (int, float)) or not ms > 0):
            raise ValueError(f"agent option 'ms' must be a number of milliseconds > 0, not {ms!r}")
        if iterations is None and ms is None:
            iterations = default_iterations
        return cls(iterations=iterations, ms=None if ms is None else float(ms))


def check_options(options: Mapping[str, Any], known: Sequence[str], agent: str) -> None:
    """Raise ``ValueError`` for an option ``agent`` does not know (a misspelt budget must not pass silently)."""
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise ValueError(
            f"unknown option(s) {', '.join(map(repr, unknown))} for agent {agent!r} (known: {', '.join(known)})"
        )


def move_rng(seed: int, *key: int) -> random.Random:
    """The RNG of one decision: a function of the agent's seed and the decision's public position ``key``.

    Deriving it afresh for every decision (rather than drawing from one RNG kept
    across moves) makes an action depend only on the seed and the observation,
    which is what the determinism tests and replays need.
    """
    mixed = random.Random(seed).getrandbits(64)
    for part in key:
        mixed = (mixed * 0x100000001B3 ^ (part & 0xFFFFFFFFFFFFFFFF)) & 0xFFFFFFFFFFFFFFFF
    return random.Random(mixed)


@dataclass(slots=True)
class SearchStats(Generic[Candidate]):
    """What one search did: budget used and each candidate's mean value."""

    iterations: int = 0  # playouts run (one candidate played out in one sampled world each)
    worlds: int = 0  # sampled worlds (determinizations); every candidate is played out in each
    ms: float = 0.0  # wall-clock time spent, for reports (never used to decide under an iteration budget)
    totals: dict[Candidate, float] = field(default_factory=dict)  # sum of playout values per candidate
    visits: dict[Candidate, int] = field(default_factory=dict)  # playouts per candidate

    def mean(self, candidate: Candidate) -> float:
        """Mean playout value of ``candidate`` over the worlds it was played out in (0.0 if none).

        A halving search drops candidates early, so each mean is over the candidate's own playouts.
        """
        visits = self.visits.get(candidate, 0)
        return self.totals[candidate] / visits if visits else 0.0

    def best(self) -> Candidate:
        """The candidate with the best mean; ties go to the earliest candidate (deterministic)."""
        return max(self.visits, key=self.mean)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON for logs and tests."""
        return {
            "iterations": self.iterations,
            "worlds": self.worlds,
            "ms": round(self.ms, 3),
            "values": {str(c): round(self.mean(c), 4) for c in self.visits},
            "visits": {str(c): n for c, n in self.visits.items()},
        }


def determinized_search(
    candidates: Sequence[Candidate],
    sample: Callable[[random.Random], World],
    playout: Callable[[World, Candidate, random.Random], float],
    budget: Budget,
    rng: random.Random,
    max_worlds: int | None = None,
) -> SearchStats[Candidate]:
    """Flat determinized Monte Carlo: sample worlds, play every candidate out in each, keep the means.

    ``sample(rng)`` draws a world consistent with what the agent saw;
    ``playout(world, candidate, rng)`` plays ``candidate`` and then the rest of the
    game (or of the part being scored) in ``world`` without modifying it, and
    returns the value for the deciding seat.  A world costs ``len(candidates)``
    iterations; worlds are sampled while a whole one still fits in
    ``budget.iterations``, ``budget.ms`` is not spent and fewer than
    ``max_worlds`` (if given) were searched, and always at least once.  Every world counts the same, as
    the sampler's draw intends (a sampler that knows an opponent model draws in proportion to it).
    """
    if not candidates:
        raise ValueError("determinized_search needs at least one candidate")
    stats: SearchStats[Candidate] = SearchStats(
        totals={c: 0.0 for c in candidates}, visits={c: 0 for c in candidates}
    )
    width = len(candidates)
    start = time.perf_counter()
    deadline = None if budget.ms is None else start + budget.ms / 1000.0
    while True:
        world = sample(rng)
        for candidate in candidates:
            stats.totals[candidate] += playout(world, candidate, rng)
            stats.visits[candidate] += 1
        stats.iterations += width
        stats.worlds += 1
        if budget.iterations is not None and stats.iterations + width > budget.iterations:
            break
        if deadline is not None and time.perf_counter() >= deadline:
            break
        if max_worlds is not None and stats.worlds >= max_worlds:
            break
    stats.ms = (time.perf_counter() - start) * 1000.0
    return stats


def halving_search(
    candidates: Sequence[Candidate],
    sample: Callable[[random.Random], World],
    playout: Callable[[World, Candidate, random.Random], float],
    budget: Budget,
    rng: random.Random,
) -> tuple[Candidate, SearchStats[Candidate]]:
    """Determinized Monte Carlo with sequential halving: sample worlds, play the surviving candidates out in each.

    The budget is split evenly over ``ceil(log2(len(candidates)))`` rounds.  In a round every
    surviving candidate is played out in the same newly sampled worlds (common random
    numbers), then the better half (by mean over every world seen) survives.  So the
    close contenders get most of the playouts, where flat sampling would spend them evenly
    on moves that are clearly worse.  With an iteration budget a round plays
    ``remaining // (rounds left * survivors)`` worlds (the first at least one); with a
    time budget it plays worlds until its share of the time is spent (at least one world in
    the first round).  ``playout(world, candidate, rng)`` must not modify ``world``.

    Returns the survivor with the best mean (ties go to the earlier candidate) and the
    search's figures.
    """
    if not candidates:
        raise ValueError("halving_search needs at least one candidate")
    stats: SearchStats[Candidate] = SearchStats(
        totals={c: 0.0 for c in candidates}, visits={c: 0 for c in candidates}
    )
    alive = list(candidates)
    rounds = max(1, math.ceil(math.log2(len(alive))))
    start = time.perf_counter()
    for round_index in range(rounds):
        width = len(alive)
        if budget.iterations is not None:
            remaining = budget.iterations - stats.iterations
            worlds = remaining // ((rounds - round_index) * width)
        else:
            worlds = None  # unbounded: the clock ends the round
        if round_index == 0:
            worlds = None if worlds is None else max(1, worlds)
        deadline = None if budget.ms is None else start + budget.ms / 1000.0 * (round_index + 1) / rounds
        played = 0
        while worlds is None or played < worlds:
            if played and deadline is not None and time.perf_counter() >= deadline:
                break
            if not played and round_index and deadline is not None and time.perf_counter() >= deadline:
                break
            world = sample(rng)
            for candidate in alive:
                stats.totals[candidate] += playout(world, candidate, rng)
                stats.visits[candidate] += 1
            stats.iterations += width
            stats.worlds += 1
            played += 1
        if round_index < rounds - 1:
            ranked = sorted(alive, key=lambda c: -stats.mean(c))  # stable: ties keep the candidates' order
            keep = set(ranked[: max(2, math.ceil(width / 2))])
            alive = [c for c in alive if c in keep]
    stats.ms = (time.perf_counter() - start) * 1000.0
    best = alive[0]
    for candidate in alive[1:]:
        if stats.mean(candidate) > stats.mean(best):
            best = candidate
    return best, stats


__all__ = [
    "BUDGET_OPTIONS",
    "Budget",
    "SearchStats",
    "check_options",
    "determinized_search",
    "halving_search",
    "move_rng",
]
