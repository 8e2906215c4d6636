"""The ladder's planner and stopping rule against a simulated outcome model, for measuring them.

``simulate_ladder`` runs exactly what ``arena ladder run --until settled`` runs (fit, stopping rule,
``choose_tables``) but plays each chosen block with ``arena.ratings.simulate`` (agents of fixed,
known strength, one deal per block rotated through the seats) instead of the referee.
``simulate_round_robin`` plays the same field in complete round-robin rounds (every set of ``seats``
entries once per round, a seeded order) under the same stopping rule, checked as often: what the
ladder's scheduling saves.  ``benchmarks/ladder_settle.py`` repeats both to measure error rates and
the ratio of matches.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from arena.ladder.config import LadderSettings
from arena.ladder.planner import choose_tables, meeting_counts
from arena.ladder.standing import AHEAD, BEHIND, Standing, fit_standing, keep_verdicts
from arena.ratings import RatingTable
from arena.ratings.data import MatchOutcome
from arena.ratings.simulate import simulate_outcomes
from arena.records.seeding import derive_seed


@dataclass(frozen=True, slots=True)
class SimulatedRun:
    """How one simulated ladder (or round-robin) ended."""

    matches: int  # matches played
    settled: bool  # whether the stopping rule said settled (else the budget ran out)
    order: tuple[str, ...]  # the final order, best first
    correct: bool  # whether it is the true order (strongest first)
    ordered: tuple[tuple[str, str], ...] = ()  # pairs the last fit's tests put in an order (the one ahead first)


def true_order(strengths: Mapping[str, float]) -> tuple[str, ...]:
    """The entries, strongest first."""
    return tuple(sorted(strengths, key=lambda name: -strengths[name]))


def _play_block(strengths: Mapping[str, float], entries: Sequence[str], seats: int, number: int, seed: int,
                luck: float) -> list[MatchOutcome]:
    """One duplicate block of the chosen entries, its block id unique in the run."""
    played = simulate_outcomes({name: strengths[name] for name in entries}, blocks=1, players=seats,
                               seed=derive_seed("ladder-sim", seed, number), luck=luck)
    tag = f"s{number:06d}"
    return [dataclasses.replace(outcome, match_id=f"{tag}-r{rotation}", block=tag)
            for rotation, outcome in enumerate(played)]


StandingOf = Callable[[Sequence[MatchOutcome], Sequence[str], str], tuple[Standing, RatingTable]]
"""How a run reads the field from its matches: ``fit_standing``, or another rule to compare it with."""


def _run(strengths: Mapping[str, float], seats: int, settings: LadderSettings, seed: int, luck: float,
         budget: int, tables: Iterator[tuple[str, ...]] | None, standing_of: StandingOf, keep: bool) -> SimulatedRun:
    """Fit, stop or choose a batch (the planner, or the next ``tables``), play it; until settled or the budget.
    ``keep``: verdicts reached are kept (``keep_verdicts``), as the ladder keeps them."""
    active = tuple(strengths)
    outcomes: list[MatchOutcome] = []
    chosen: list[tuple[str, ...]] = []
    reached: dict[tuple[str, str], str] = {}
    batch = 0
    while True:
        standing, _ = standing_of(outcomes, active, settings.method)
        if keep:
            standing = keep_verdicts(dataclasses.replace(standing, reached=reached), settings.level,
                                     settings.min_blocks)
            reached = dict(standing.reached)
        settled = standing.settled(settings.level, settings.min_blocks)
        if settled or len(outcomes) + seats > budget:
            order = standing.order()
            ordered = tuple((a, b) if verdict == AHEAD else (b, a)
                            for a, b in itertools.combinations(order, 2)
                            for verdict in (standing.verdict(a, b, settings.level),) if verdict in (AHEAD, BEHIND))
            return SimulatedRun(len(outcomes), settled, order, order == true_order(strengths), ordered)
        count = min(settings.batch_blocks, (budget - len(outcomes)) // seats)
        batch += 1
        if tables is None:
            run_blocks: dict[str, int] = {}
            for table in chosen:
                for name in table:
                    run_blocks[name] = run_blocks.get(name, 0) + 1
            batch_tables = [choice.entries for choice in choose_tables(
                standing, seats, count, seed=seed, batch=batch, run_blocks=run_blocks, run_tables=len(chosen),
                meetings=meeting_counts(chosen), fair_share=settings.fair_share, min_blocks=settings.min_blocks,
                level=settings.level)]
        else:
            batch_tables = [next(tables) for _ in range(count)]
        for table in batch_tables:
            outcomes += _play_block(strengths, table, seats, len(chosen), seed, luck)
            chosen.append(table)


def simulate_ladder(strengths: Mapping[str, float], seats: int, settings: LadderSettings, *, seed: int,
                    luck: float = 1.0, budget: int | None = None,
                    standing_of: StandingOf = fit_standing, keep: bool = True) -> SimulatedRun:
    """A ladder of entries with these natural-log ``strengths`` played ``--until settled`` (within ``budget``,
    default the settings' budget), every block simulated; ``standing_of`` reads the field (the ladder's own
    ``fit_standing`` unless a benchmark compares another rule), ``keep`` keeps verdicts once reached (as the
    ladder does; off for a rule read afresh at every look)."""
    return _run(strengths, seats, settings, seed, luck, budget or settings.budget, None, standing_of, keep)


def round_robin_tables(entries: Sequence[str], seats: int, seed: int) -> Iterator[tuple[str, ...]]:
    """Complete round-robin rounds, forever: every set of ``seats`` entries once per round, in a seeded order."""
    rng = random.Random(derive_seed("ladder-sim-rr", seed))
    groups = list(itertools.combinations(entries, seats))
    while True:
        rng.shuffle(groups)
        yield from groups


def simulate_round_robin(strengths: Mapping[str, float], seats: int, settings: LadderSettings, *, seed: int,
                         luck: float = 1.0, budget: int | None = None,
                         standing_of: StandingOf = fit_standing, keep: bool = True) -> SimulatedRun:
    """The same field in round-robin rounds under the same stopping rule (``keep`` as for ``simulate_ladder``),
    checked after every ``batch_blocks`` blocks as the ladder is."""
    tables = round_robin_tables(tuple(strengths), seats, seed)
    return _run(strengths, seats, settings, seed, luck, budget or settings.budget, tables, standing_of, keep)
