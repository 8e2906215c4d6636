"""How often ``arena ladder run --until settled`` settles a wrong order, and what it saves over a round-robin.

For each table size from 3 to 6 seats, a field of ``seats + 2`` simulated entries of known strength
(natural-log strengths ``0, -gap, -2 gap, ...``; per-seat deal luck shared by a duplicate block, as
``arena.ratings.simulate`` models it) is played ``reps`` times by the ladder's own planner and
stopping rule (``arena.ladder.simulate.simulate_ladder``), and the same number of times in complete
round-robin rounds under the same stopping rule, checked as often (``simulate_round_robin``).
Printed per table size: how many runs settled within the budget, how many of those settled a wrong
order (any two entries inverted; with a 95% Wilson interval), the mean matches, and the ratio of the
ladder's mean matches to the round-robin's.  ``docs/ladder.md`` quotes the table.

    python benchmarks/ladder_settle.py               # 200 runs per table size (several minutes)
    python benchmarks/ladder_settle.py --quick       # 20 runs per table size
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from arena.ladder.config import LadderSettings  # noqa: E402 -- after the path set-up above
from arena.ladder.simulate import SimulatedRun, simulate_ladder, simulate_round_robin  # noqa: E402
from arena.ladder.standing import INTERVALS  # noqa: E402


def wilson(errors: int, runs: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if runs == 0:
        return 0.0, 1.0
    p = errors / runs
    centre = (p + z * z / (2 * runs)) / (1 + z * z / runs)
    half = z * math.sqrt(p * (1 - p) / runs + z * z / (4 * runs * runs)) / (1 + z * z / runs)
    return max(0.0, centre - half), min(1.0, centre + half)


def describe(runs: list[SimulatedRun]) -> tuple[str, str, float]:
    """(settled share, wrong-order rate among the settled with its interval, mean matches)."""
    settled = [run for run in runs if run.settled]
    wrong = sum(not run.correct for run in settled)
    low, high = wilson(wrong, len(settled))
    rate = wrong / len(settled) if settled else float("nan")
    return (f"{len(settled)}/{len(runs)}", f"{100 * rate:.1f}% [{100 * low:.1f}, {100 * high:.1f}]",
            statistics.fmean(run.matches for run in runs))


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="20 runs per table size")
    parser.add_argument("--reps", type=int, default=200, help="runs per table size (default 200)")
    parser.add_argument("--gap", type=float, default=0.5, help="strength gap between neighbours (natural log)")
    parser.add_argument("--luck", type=float, default=1.0, help="spread of a seat's deal luck")
    args = parser.parse_args()
    reps = 20 if args.quick else args.reps
    settings = LadderSettings()
    print(f"ladder settings: {settings.to_json()}, intervals {INTERVALS!r}; strength gap {args.gap} (natural log, "
          f"{args.gap * 400 / math.log(10):.0f} Elo) between neighbours; seat luck {args.luck}; {reps} runs each")
    print("| seats | entries | ladder: settled | ladder: wrong order | ladder: mean matches "
          "| round-robin: settled | round-robin: wrong order | round-robin: mean matches | ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    for seats in (3, 4, 5, 6):
        entries = seats + 2
        strengths = {f"e{i}": -args.gap * i for i in range(entries)}
        ladder = [simulate_ladder(strengths, seats, settings, seed=seed, luck=args.luck) for seed in range(reps)]
        robin = [simulate_round_robin(strengths, seats, settings, seed=seed, luck=args.luck) for seed in range(reps)]
        l_settled, l_wrong, l_matches = describe(ladder)
        r_settled, r_wrong, r_matches = describe(robin)
        print(f"| {seats} | {entries} | {l_settled} | {l_wrong} | {l_matches:.0f} | {r_settled} | {r_wrong} "
              f"| {r_matches:.0f} | {l_matches / r_matches:.2f} |", flush=True)


if __name__ == "__main__":
    main()
