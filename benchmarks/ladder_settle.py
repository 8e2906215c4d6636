"""How often ``arena ladder run --until settled`` settles a wrong order, and the matches it takes, before and after.

For each table size from 3 to 6 seats, a field of ``seats + 2`` simulated entries of known strength
(natural-log strengths ``0, -gap, -2 gap, ...``; per-seat deal luck shared by a duplicate block, as
``arena.ratings.simulate`` models it) is played ``reps`` times by the ladder's own planner and
stopping rule (``arena.ladder.simulate.simulate_ladder``), and as often in complete round-robin rounds
under the same rule, checked as often (``simulate_round_robin``).  "Before" is the rule the ladder had
until its pair tests (``MarginStanding`` below: P(ahead by more than 20 Elo) >= level against each
neighbour, intervals floored at the curvature, the planner weighting pairs by that rule), run on the
same seeds in the same process.  Printed per table size: how many runs settled within the budget, how
many of those settled a wrong order (any two entries inverted; 95% Wilson interval), the mean matches
(budget-ended runs count their budget) with a 95% interval, and the ratios.

``--calibration`` measures instead the spread the ladder states for each neighbour gap against the gap's actual
spread over many runs (fixed matches, no stopping), in round-robin rounds and in the ladder's own design.

``--twins`` plays a field whose two middle entries are copies of one strength instead, and counts the
runs whose last fit puts the copies in an order (any verdict but level; before: P >= level), with a
Wilson interval.  ``docs/ladder.md`` quotes the tables.

    python benchmarks/ladder_settle.py                      # 200 runs per table size, 87 Elo apart
    python benchmarks/ladder_settle.py --gap 0.25 --reps 100 --before-reps 30
    python benchmarks/ladder_settle.py --twins --budget 2000
    python benchmarks/ladder_settle.py --quick              # 20 runs per table size
    python benchmarks/ladder_settle.py --calibration --seats 3 6 --reps 300 --matches 240
"""

from __future__ import annotations

import argparse
import itertools
import math
import statistics
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from arena.ladder.config import LadderSettings  # noqa: E402 -- after the path set-up above
from arena.ladder.simulate import SimulatedRun, simulate_ladder, simulate_round_robin  # noqa: E402
from arena.ladder.standing import (  # noqa: E402
    AHEAD,
    BEHIND,
    INTERVALS,
    Standing,
    block_counts,
    fit_standing,
    standing_from_table,
)
from arena.ratings import RatingTable, fit  # noqa: E402
from arena.ratings.data import MatchOutcome  # noqa: E402

MARGIN = 20.0
"""The rule before the pair tests: a neighbour ahead by more than this many Elo with probability ``level``."""


class MarginStanding(Standing):
    """The stopping rule and planner weights the ladder had before its pair tests, for the "before" columns.

    A pair is ordered once P(ahead by more than ``MARGIN``) reaches ``level`` (never level: equal entries play
    to the budget), and the planner weighs a pair by 1 - the largest of P(ahead), P(behind) and P(within)."""

    __slots__ = ()

    def p_ahead(self, a: str, b: str) -> float:
        """P(``a``'s rating exceeds ``b``'s by more than ``MARGIN``) from the gap and its spread (normal)."""
        if a not in self.ratings or b not in self.ratings:
            return 0.5
        gap, spread = self.ratings[a] - self.ratings[b], self.gap_sd.get((a, b), math.inf)
        if not math.isfinite(spread):
            return 0.5
        if spread <= 0:
            return 1.0 if gap > MARGIN else 0.0
        return 0.5 * math.erfc(-(gap - MARGIN) / (spread * math.sqrt(2)))

    def verdict(self, a: str, b: str, level: float) -> str | None:
        """``AHEAD`` or ``BEHIND`` once P(ahead by more than the margin) reaches ``level``; else None."""
        return AHEAD if self.p_ahead(a, b) >= level else BEHIND if self.p_ahead(b, a) >= level else None

    def unsettledness(self, a: str, b: str, level: float) -> float:
        """1 - the largest of P(``a`` ahead by more than the margin), P(``b`` ahead by more) and P(within)."""
        ahead, behind = self.p_ahead(a, b), self.p_ahead(b, a)
        return 1 - max(ahead, behind, 1.0 - ahead - behind)


def margin_standing(outcomes: Sequence[MatchOutcome], active: Sequence[str],
                    method: str) -> tuple[Standing, RatingTable]:
    """The field as the rule before the pair tests read it: ``method`` with intervals floored at the curvature."""
    table = fit(outcomes, method, intervals="adjusted")
    read = standing_from_table(table, active, block_counts(outcomes))
    return MarginStanding(active=read.active, ratings=read.ratings, bounds=read.bounds, games=read.games,
                          gap_sd=read.gap_sd, blocks=read.blocks), table


class Unsettled(Standing):
    """A standing that never stops a run: the ladder's own planner plays on to the budget (``calibration``)."""

    __slots__ = ()

    def settled(self, level: float, min_blocks: int) -> bool:
        """Never: a calibration run plays a fixed number of matches."""
        return False


def calibration(strengths: dict[str, float], seats: int, matches: int, reps: int, luck: float,
                designs: Sequence[str] = ("round-robin", "ladder")) -> dict[str, tuple[list[float], ...]]:
    """For round-robin rounds and the ladder's own design (``designs``), each played to ``matches`` matches
    ``reps`` times (seeds 0 to ``reps`` - 1):
    per neighbour gap in the true order, (its mean over the runs, its actual spread over them, the spread the
    last fit stated, root-mean-square over the runs), in Elo."""
    order = list(strengths)
    settings = LadderSettings()
    found: dict[str, tuple[list[float], ...]] = {}
    simulators = {"round-robin": simulate_round_robin, "ladder": simulate_ladder}
    for design in designs:
        simulate = simulators[design]
        gaps, stated = [], []
        for seed in range(reps):
            last: list[Standing] = []

            def read(outcomes: Sequence[MatchOutcome], active: Sequence[str], method: str,
                     last: list[Standing] = last) -> tuple[Standing, RatingTable]:
                standing, table = fit_standing(outcomes, active, method)
                last[:] = [Unsettled(active=standing.active, ratings=standing.ratings, bounds=standing.bounds,
                                     games=standing.games, gap_sd=standing.gap_sd, blocks=standing.blocks)]
                return last[0], table

            simulate(strengths, seats, settings, seed=seed, luck=luck, budget=matches, standing_of=read)
            final = last[0]
            pairs = list(itertools.pairwise(order))
            gaps.append([final.ratings[a] - final.ratings[b] for a, b in pairs])
            stated.append([final.gap_sd[a, b] for a, b in pairs])
        columns = list(zip(*gaps, strict=True))
        found[design] = ([statistics.fmean(column) for column in columns],
                         [statistics.stdev(column) for column in columns],
                         [math.sqrt(statistics.fmean(s * s for s in column)) for column in zip(*stated, strict=True)])
    return found


def wilson(errors: int, runs: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if runs == 0:
        return 0.0, 1.0
    p = errors / runs
    centre = (p + z * z / (2 * runs)) / (1 + z * z / runs)
    half = z * math.sqrt(p * (1 - p) / runs + z * z / (4 * runs * runs)) / (1 + z * z / runs)
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(runs: list[SimulatedRun]) -> str:
    """Mean matches with a 95% normal interval."""
    values = [run.matches for run in runs]
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else math.inf
    return f"{mean:.0f} ± {half:.0f}"


def twins_ordered(runs: list[SimulatedRun], twins: tuple[str, str]) -> str:
    """How many runs ended with the two copies in an order, with a 95% Wilson interval."""
    ordered = sum(any({a, b} == set(twins) for a, b in run.ordered) for run in runs)
    low, high = wilson(ordered, len(runs))
    return f"{ordered}/{len(runs)} [{100 * low:.1f}, {100 * high:.1f}]"


def describe(runs: list[SimulatedRun]) -> tuple[str, str, float]:
    """(settled share, wrong-order rate among the settled with its interval, mean matches)."""
    settled = [run for run in runs if run.settled]
    wrong = sum(not run.correct for run in settled)
    low, high = wilson(wrong, len(settled))
    rate = wrong / len(settled) if settled else float("nan")
    return (f"{len(settled)}/{len(runs)}", f"{100 * rate:.1f}% [{100 * low:.1f}, {100 * high:.1f}]",
            statistics.fmean(run.matches for run in runs))


def design_bound(seats: int, gap: float) -> tuple[float, float]:
    """(round-robin, best fixed mix of tables): the largest variance of a neighbour gap per block, for
    ``seats + 2`` entries ``gap`` apart with their strengths known (Bradley-Terry information, every pair
    of a table compared once per match).  Their ratio bounds what choosing tables can save at one look."""
    import numpy as np  # only this study needs numpy and scipy here
    from scipy.optimize import minimize

    n = seats + 2
    strength = -gap * np.arange(n)
    tables = list(itertools.combinations(range(n), seats))
    info = []
    for table in tables:
        matrix = np.zeros((n, n))
        for i, j in itertools.combinations(table, 2):
            p = 1 / (1 + math.exp(strength[j] - strength[i]))
            w = p * (1 - p)
            matrix[i, i] += w
            matrix[j, j] += w
            matrix[i, j] -= w
            matrix[j, i] -= w
        info.append(matrix)

    def worst(mix: np.ndarray) -> float:
        cov = np.linalg.pinv(sum(x * m for x, m in zip(mix, info, strict=True)))
        return max(cov[i, i] + cov[i + 1, i + 1] - 2 * cov[i, i + 1] for i in range(n - 1))

    def softmax(z: np.ndarray) -> np.ndarray:
        return np.exp(z - z.max()) / np.exp(z - z.max()).sum()

    uniform = worst(np.full(len(tables), 1 / len(tables)))
    best = min((minimize(lambda z: worst(softmax(z)), np.random.default_rng(start).normal(size=len(tables)) / 2,
                         method="Nelder-Mead", options={"maxiter": 20000}) for start in range(3)),
               key=lambda result: result.fun)
    best = minimize(lambda z: worst(softmax(z)), best.x, method="Powell")
    return uniform, float(best.fun)


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="20 runs per table size")
    parser.add_argument("--reps", type=int, default=200, help="runs per table size (default 200)")
    parser.add_argument("--before-reps", type=int,
                        help="runs per table size of the rule before (default --reps; 0: not run)")
    parser.add_argument("--gap", type=float, default=0.5, help="strength gap between neighbours (natural log)")
    parser.add_argument("--luck", type=float, default=1.0, help="spread of a seat's deal luck")
    parser.add_argument("--budget", type=int, help="most matches per run (default the ladder's, 5,000)")
    parser.add_argument("--twins", action="store_true", help="two middle entries of equal strength")
    parser.add_argument("--seats", type=int, nargs="+", default=[3, 4, 5, 6], help="table sizes (default 3 4 5 6)")
    parser.add_argument("--calibration", action="store_true",
                        help="print each neighbour gap's stated spread against its actual spread over the runs")
    parser.add_argument("--matches", type=int, default=240, help="matches per run of --calibration (default 240)")
    parser.add_argument("--design-bound", action="store_true",
                        help="print the best fixed mix of tables' neighbour-gap variance against a round-robin's")
    args = parser.parse_args()
    if args.design_bound:
        for seats in args.seats:
            uniform, best = design_bound(seats, args.gap)
            print(f"{seats} seats, {seats + 2} entries, {args.gap * 400 / math.log(10):.0f} Elo apart: largest "
                  f"neighbour-gap variance per block {uniform:.3f} (round-robin), {best:.3f} (best mix): "
                  f"ratio {best / uniform:.2f}", flush=True)
        return
    reps = 20 if args.quick else args.reps
    if args.calibration:
        for seats in args.seats:
            strengths = {f"e{i}": -args.gap * i for i in range(seats + 2)}
            for design, (means, actual, stated) in calibration(strengths, seats, args.matches, reps,
                                                               args.luck).items():
                print(f"{seats} seats, {seats + 2} entries, {args.matches} matches, {design}, {reps} runs: "
                      f"neighbour gaps (best first) {' '.join(f'{m:.1f}' for m in means)}; actual spread "
                      f"{' '.join(f'{a:.1f}' for a in actual)}; stated {' '.join(f'{s:.1f}' for s in stated)}; "
                      f"stated / actual {' '.join(f'{s / a:.2f}' for s, a in zip(stated, actual, strict=True))}",
                      flush=True)
        return
    before_reps = reps if args.before_reps is None else min(reps, args.before_reps)
    settings = LadderSettings()
    budget = args.budget or settings.budget
    print(f"ladder settings: {settings.to_json()}, intervals {INTERVALS!r} (before: 'adjusted'); strength gap "
          f"{args.gap} (natural log, {args.gap * 400 / math.log(10):.0f} Elo) between neighbours; seat luck "
          f"{args.luck}; budget {budget}; {reps} runs each (before: {before_reps})")
    if args.twins:
        print("| seats | entries | before: ladder settled | before: twins ordered | before: mean matches "
              "| ladder: settled | ladder: twins ordered | ladder: mean matches "
              "| round-robin: twins ordered | round-robin: mean matches |")
        print("|---|---|---|---|---|---|---|---|---|---|")
    else:
        print("| seats | entries | before: ladder settled, mean matches | before: round-robin settled, mean matches "
              "| ladder: settled | ladder: wrong order | ladder: mean matches | round-robin: settled "
              "| round-robin: mean matches | ladder / before round-robin | ladder / round-robin |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
    for seats in args.seats:
        entries = seats + 2
        strengths = {f"e{i}": -args.gap * i for i in range(entries)}
        twins = ("e1", "twin")
        if args.twins:
            strengths = {f"e{i}": -args.gap * i for i in range(entries - 1)} | {"twin": -args.gap}

        def play(simulate: Callable[..., SimulatedRun], count: int, strengths: dict[str, float] = strengths,
                 seats: int = seats, **rule: Any) -> list[SimulatedRun]:
            return [simulate(strengths, seats, settings, seed=seed, luck=args.luck, budget=budget, **rule)
                    for seed in range(count)]

        before_ladder = play(simulate_ladder, before_reps, standing_of=margin_standing, keep=False)
        ladder = play(simulate_ladder, reps)
        robin = play(simulate_round_robin, reps)
        if args.twins:
            was = ["not run"] * 3
            if before_reps:
                was = [f"{sum(run.settled for run in before_ladder)}/{len(before_ladder)}",
                       twins_ordered(before_ladder, twins), mean_interval(before_ladder)]
            settled = f"{sum(run.settled for run in ladder)}/{len(ladder)}"
            print(f"| {seats} | {entries} | {was[0]} | {was[1]} "
                  f"| {was[2]} | {settled} | {twins_ordered(ladder, twins)} "
                  f"| {mean_interval(ladder)} | {twins_ordered(robin, twins)} | {mean_interval(robin)} |", flush=True)
            continue
        before_robin = play(simulate_round_robin, before_reps, standing_of=margin_standing, keep=False)
        l_settled, l_wrong, l_matches = describe(ladder)
        r_settled, _, r_matches = describe(robin)
        before = ["not run", "not run", "-"]
        if before_reps:
            bl_settled, _, _ = describe(before_ladder)
            br_settled, _, br_matches = describe(before_robin)
            before = [f"{bl_settled}, {mean_interval(before_ladder)}", f"{br_settled}, {mean_interval(before_robin)}",
                      f"{l_matches / br_matches:.2f}"]
        print(f"| {seats} | {entries} | {before[0]} | {before[1]} | {l_settled} | {l_wrong} | {mean_interval(ladder)} "
              f"| {r_settled} | {mean_interval(robin)} | {before[2]} | {l_matches / r_matches:.2f} |", flush=True)


if __name__ == "__main__":
    main()
