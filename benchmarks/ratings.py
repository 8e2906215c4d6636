"""Ratings: fit time of every method for 100 and 1,000 agents over 10^5 and 10^6 games, and the references.

The data are synthetic 4-seat tournaments (``arena.ratings.simulate``: each
duplicate block draws 4 of the agents, whose strengths are drawn from N(0, 1),
and plays one deal in all 4 rotations; Plackett–Luce noise, no ties).  A fit
is timed from the list of ``MatchOutcome`` to the ``RatingTable``, as a
leaderboard calls it (``arena.ratings.fit(outcomes, method)``, default options),
so it includes packing the outcomes into arrays.  Wall time (numpy may use
several threads), median over ``repeats`` fits.

References, on the same data, as ratios (reference time / ours; above 1 means
ours is faster):

* ``choix`` -- ``ilsr_pairwise`` (every pair of seats of every match as a
  (winner, loser) comparison) against ``elo``, and ``ilsr_rankings`` (each
  match's finishing order) against ``plackett-luce``, both with
  ``alpha = 1 / (2 PRIOR_SD^2)``.  ILSR is choix's fastest estimator; its MAP
  optimiser ``opt_pairwise``, which fits exactly our model, took 103 s on the
  10^5-game set on this machine, so it is not run.  The time excludes building
  choix's input lists.
* ``trueskill`` -- ``TrueSkill().rate`` once per match in ``match_id`` order
  (what ``arena.ratings.trueskill`` reproduces).  It is sequential and linear
  in the matches (about 0.7 ms a match), so by default it rates the first
  ``reference_matches`` matches and the figure is scaled to the whole set (said
  so in the row); ``--full`` rates every match.

Sizes (``--quick`` is the smoke test's):

=========  ===============================  =============================================
size       our methods                      references
=========  ===============================  =============================================
quick      20 agents x 2,000 games          the same
default    {100, 1000} x {10^5, 10^6},      choix in full (once at 10^6); trueskill rates
           trueskill at 10^6 once           5,000 matches of each set, scaled
full       the same, 3 repeats everywhere   choix 3 times everywhere; trueskill rates every
                                            match, once (~12 min per 10^6 set)
=========  ===============================  =============================================

    .venv/bin/python benchmarks/ratings.py            # default sizes (~10 minutes)
    .venv/bin/python benchmarks/ratings.py --quick    # seconds
    .venv/bin/python benchmarks/ratings.py --full     # everything in full (about an hour)
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Callable, Sequence
from typing import Any

if __package__ in (None, ""):
    import common  # type: ignore[import-not-found]  # run as a script: benchmarks/ is on sys.path
else:
    from benchmarks import common

import numpy as np  # noqa: E402

from arena.ratings import elo, fit, method_names  # noqa: E402
from arena.ratings.data import MatchOutcome, as_arrays  # noqa: E402
from arena.ratings.simulate import simulate_outcomes  # noqa: E402

PLAYERS = 4
"""Seats per simulated match."""

CHOIX_ALPHA = 1.0 / (2.0 * elo.PRIOR_SD**2)
"""choix's L2 penalty equal to our N(0, PRIOR_SD^2) prior."""

TARGET_SECONDS = 5.0
"""The target for a 10^6-game fit: "a few seconds"."""

TARGET_CHOIX_RATIO = 10.0
"""The target: at least 10x faster than choix on 10^6 games."""


def size_table(size: str) -> dict[str, Any]:
    """The grid of one size: (agents, games) sets, repeats, and which fits run on which set."""
    if size == "quick":
        return {"sets": [(20, 2_000)], "repeats": 3, "big_repeats": 1, "slow_once": set(),
                "reference_matches": None, "choix_big_repeats": 1}
    if size == "full":
        return {"sets": [(100, 100_000), (1000, 100_000), (100, 1_000_000), (1000, 1_000_000)], "repeats": 3,
                "big_repeats": 3, "slow_once": set(), "reference_matches": None, "choix_big_repeats": 3}
    return {"sets": [(100, 100_000), (1000, 100_000), (100, 1_000_000), (1000, 1_000_000)], "repeats": 3,
            "big_repeats": 3, "slow_once": {"trueskill"}, "reference_matches": 5_000, "choix_big_repeats": 1}


def outcomes_for(agents: int, games: int) -> list[MatchOutcome]:
    """A synthetic tournament of ``games`` 4-seat matches between ``agents`` agents."""
    rng = np.random.default_rng(agents)
    strengths = {f"agent{index:04d}": float(value) for index, value in enumerate(rng.normal(0.0, 1.0, agents))}
    return simulate_outcomes(strengths, blocks=games // PLAYERS, players=PLAYERS, seed=games + agents)


def timed(run: Callable[[], object], repeats: int) -> float:
    """Median wall seconds of ``repeats`` calls (garbage collected before each)."""
    samples = []
    for _ in range(repeats):
        gc.collect()
        started = time.perf_counter()
        run()
        samples.append(time.perf_counter() - started)
    return common.median(samples)


def choix_inputs(outcomes: Sequence[MatchOutcome]) -> tuple[int, list[tuple[int, int]], list[list[int]]]:
    """choix's inputs for the outcomes: agent count, (winner, loser) pairs, and finishing orders."""
    arrays = as_arrays(outcomes)
    order = np.argsort(arrays.rank, axis=1, kind="stable")
    finishing = np.take_along_axis(arrays.seat_agent, order, axis=1).tolist()
    pairs = [(row[i], row[j]) for row in finishing for i in range(PLAYERS) for j in range(i + 1, PLAYERS)]
    return arrays.n_agents, pairs, finishing


def trueskill_reference(outcomes: Sequence[MatchOutcome], limit: int | None) -> tuple[float, int]:
    """Seconds for the ``trueskill`` package to rate the first ``limit`` matches (all if None), and how many."""
    import trueskill

    ordered = sorted(outcomes, key=lambda outcome: outcome.match_id)
    if limit is not None:
        ordered = ordered[:limit]
    env = trueskill.TrueSkill()
    ratings: dict[str, Any] = {}
    started = time.perf_counter()
    for outcome in ordered:
        groups = [(ratings.get(agent) or env.create_rating(),) for agent in outcome.agents]
        for agent, (rating,) in zip(outcome.agents, env.rate(groups, ranks=[rank - 1 for rank in outcome.ranks])):
            ratings[agent] = rating
    return time.perf_counter() - started, len(ordered)


def label(agents: int, games: int) -> str:
    """``"100 agents × 10^5 games"``."""
    exponent = round(np.log10(games))
    shown = f"10^{exponent}" if 10**exponent == games else f"{games:,}"
    return f"{agents:,} agents × {shown} games"


def measure(size: str = "default") -> list[common.Row]:
    """Every ratings row."""
    grid = size_table(size)
    rows: list[common.Row] = []
    try:
        import choix
    except ImportError:
        choix = None
    try:
        import trueskill  # noqa: F401

        has_trueskill = True
    except ImportError:
        has_trueskill = False
    for agents, games in grid["sets"]:
        outcomes = outcomes_for(agents, games)
        where = label(agents, games)
        big = games >= 1_000_000
        repeats = grid["big_repeats"] if big else grid["repeats"]
        ours: dict[str, float] = {}
        for method in method_names():
            runs = 1 if (big and method in grid["slow_once"]) else repeats
            ours[method] = timed(lambda method=method: fit(outcomes, method), runs)
            comparison = ""
            if big:
                comparison = common.target(ours[method] <= TARGET_SECONDS, f"≤ {TARGET_SECONDS:g} s for 10^6 games")
            rows.append(common.Row("ratings", f"{method}: {where}", common.secs(ours[method]), comparison,
                                   f"fit(outcomes, {method!r}), default options; "
                                   f"{'1 run' if runs == 1 else f'median of {runs}'}"))
        packing = timed(lambda: as_arrays(outcomes), repeats)
        rows.append(common.Row("ratings", f"of which packing (as_arrays): {where}", common.secs(packing), "",
                               "validating and packing the outcomes, shared by every method"))
        if choix is None:
            rows.append(common.Row("ratings", f"choix: {where}", "not installed", "", "pip install -e '.[test]'"))
        else:
            n_agents, pairs, finishing = choix_inputs(outcomes)
            choix_repeats = grid["choix_big_repeats"] if big else repeats
            reference = timed(lambda: choix.ilsr_pairwise(n_agents, pairs, alpha=CHOIX_ALPHA), choix_repeats)
            ratio = reference / ours["elo"]
            rows.append(common.Row(
                "ratings", f"choix ilsr_pairwise vs elo: {where}", common.secs(reference),
                f"{common.ratio(ratio)} elo's time" + (f"; {common.target(ratio >= TARGET_CHOIX_RATIO, '≥ 10×')}"
                                                       if big else ""),
                f"{len(pairs):,} comparisons; choix {version('choix')}",
            ))
            reference = timed(lambda: choix.ilsr_rankings(n_agents, finishing, alpha=CHOIX_ALPHA), choix_repeats)
            rows.append(common.Row(
                "ratings", f"choix ilsr_rankings vs plackett-luce: {where}", common.secs(reference),
                f"{common.ratio(reference / ours['plackett-luce'])} plackett-luce's time",
                f"{len(finishing):,} finishing orders",
            ))
            del pairs, finishing
        if not has_trueskill:
            rows.append(common.Row("ratings", f"trueskill package: {where}", "not installed", "",
                                   "pip install -e '.[test]'"))
        else:
            seconds, rated = trueskill_reference(outcomes, grid["reference_matches"])
            whole = seconds * len(outcomes) / rated
            note = ("every match, once" if rated == len(outcomes)
                    else f"rated the first {rated:,} of {len(outcomes):,} matches ({common.secs(seconds)}), scaled; "
                         "--full rates them all")
            rows.append(common.Row("ratings", f"trueskill package vs trueskill: {where}", common.secs(whole),
                                   f"{common.ratio(whole / ours['trueskill'])} trueskill's time",
                                   f"TrueSkill().rate per match, trueskill {version('trueskill')}; {note}"))
        del outcomes
        gc.collect()
    return rows


def version(distribution: str) -> str:
    """The installed version of ``distribution``."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed(distribution)
    except PackageNotFoundError:
        return "?"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--quick", action="store_const", const="quick", dest="size", help="tiny sizes (smoke test)")
    group.add_argument("--full", action="store_const", const="full", dest="size",
                       help="everything in full, references included (about an hour)")
    args = parser.parse_args(argv)
    common.print_table("Ratings", measure(args.size or "default"))


if __name__ == "__main__":
    main()
