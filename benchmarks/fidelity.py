"""Fidelity: do the default intervals of every rating method cover, and is P(stronger) calibrated?

Simulated 4-seat free-for-all fields of 8, 30 and 200 agents with strengths drawn from
N(0, 1) (``arena.ratings.fidelity``), in five designs each: duplicate blocks without luck,
duplicate blocks with deal luck (sd 2, in strength units), independent deals with the same
luck, duplicate blocks with ties (scores rounded: about a third of pairs tie), and duplicate blocks with deal
luck and a die rolled afresh per match (sd 1.5), whose luck the ``luck`` method subtracts; plus a
few-blocks design (8 agents, 16 blocks) where the conservative fallback applies.  Each
setting is replayed ``replications`` times with fresh seeds and rated by every default
method with its default options.  Reported per method and setting: the coverage of the 95%
intervals, the actual spread of a rating over the reported one, Kendall's tau with the
truth; per method: the calibration of P(stronger) in the 0.85–0.95 bin over all settings,
and the design gain (independent deals against duplicate blocks: actual and reported ratio
of the rating spreads).  Last, TrueSkill's ranking with 1,000 and 10,000 matches (30 agents)
with our defaults and with the package's (dynamics ``sigma / 100``, draws 0.10).  And the large-sample
study: two fields (four agents of fixed strengths +0.25, +0.15, -0.2, -0.2 with about a third of pairs
tied, as in Lorum, 1,280 matches; eight agents from N(0, 1) with fewer ties, 400 matches) whose intervals
are held against each method's own fit on 300,000 matches of the same field in a random order
(``arena.ratings.fidelity.measure_against_large``): a lean every small fit shares shows there, not in the
leave-one-out coverage.

The measured tables replace the block between the ``fidelity`` markers in docs/ratings.md at the
default and full sizes (this script, or ``python -m benchmarks --only fidelity``), never at ``--quick``.

Sizes: ``quick`` (smoke test: 8 agents, 4 replications), ``default`` (8, 30, 200 agents with
100, 40 and 10 replications: about 20 minutes), ``full`` (200, 200, 50).  ``--method NAME`` measures only the
methods named and prints their block instead of writing the docs.

    .venv/bin/python benchmarks/fidelity.py --quick
    .venv/bin/python benchmarks/fidelity.py --method luck
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

if __package__ in (None, ""):
    import common  # type: ignore[import-not-found]  # run as a script: benchmarks/ is on sys.path
else:
    from benchmarks import common

import numpy as np
from scipy.stats import kendalltau

from arena.ratings import fit, method_names, trueskill
from arena.ratings.fidelity import LARGE_MATCHES, Fidelity, Setting, measure_against_large
from arena.ratings.fidelity import measure as replicate

LUCK = 2.0
"""Deal luck of the lucky designs (standard deviation, strength units)."""

DIE = 1.5
"""A die rolled afresh per match and seat in the die design (standard deviation, strength units): the chance
duplicate blocks do not cancel, whose exact correction the outcomes carry for the luck method.  At 1.5 taking it out
narrows the luck method's intervals by about an eighth, what Lovat's die gains with 3 and 4 players."""

TIE_STEP = 1.5
"""Score rounding of the tied design (about a third of pairs tie)."""

BLOCKS_PER_AGENT = 10
"""Blocks per agent of each setting (so every agent plays about 40 of them)."""

SIZES: dict[str, dict[str, Any]] = {
    "quick": {"fields": {8: 4}, "ranking": (2000, 1), "large": (4, 8_000)},
    "default": {"fields": {8: 100, 30: 40, 200: 10}, "ranking": (10_000, 3), "large": (60, LARGE_MATCHES)},
    "full": {"fields": {8: 200, 30: 200, 200: 50}, "ranking": (10_000, 10), "large": (200, LARGE_MATCHES)},
}
"""Replications per field size, (largest match count, replications) of the ranking study, and (replications,
matches of the large fit) of the large-sample study."""

LARGE_SAMPLE_FIELDS: tuple[tuple[str, Setting], ...] = (
    ("4 agents (+0.25, +0.15, −0.2, −0.2), ties as in Lorum",
     Setting(agents=4, blocks=320, score_step=TIE_STEP, seed=4, fixed=(0.25, 0.15, -0.2, -0.2))),
    ("8 agents from N(0, 1), fewer ties", Setting(agents=8, blocks=100, score_step=1.0, seed=8)),
)
"""The large-sample study's fields: 1,280 and 400 matches in duplicate blocks, without deal luck."""

DOC = common.ROOT / "docs" / "ratings.md"
MARKERS = ("<!-- fidelity:start -->", "<!-- fidelity:end -->")


def settings(agents: int) -> list[tuple[str, Setting]]:
    """The designs of one field size, each with a short name."""
    base = Setting(agents, BLOCKS_PER_AGENT * agents, seed=agents)
    designs = [
        ("blocks", base),
        ("blocks, luck", replace(base, luck=LUCK)),
        ("independent, luck", replace(base, luck=LUCK, design="independent")),
        ("blocks, ties", replace(base, score_step=TIE_STEP)),
        ("blocks, luck, die", replace(base, luck=LUCK, die=DIE)),
    ]
    if agents == 8:
        designs.append(("16 blocks, luck 1", replace(base, blocks=16, luck=1.0)))
    return designs


def ranking_study(largest: int, replications: int) -> list[str]:
    """Kendall's tau of TrueSkill (ours, the package's defaults) and Elo at 1/10 and all of ``largest`` matches."""
    lines = ["| matches | TrueSkill (ours) | TrueSkill (package defaults) | Elo |", "|---:|---:|---:|---:|"]
    for matches in (largest // 10, largest):
        taus: dict[str, list[float]] = {"ours": [], "package": [], "elo": []}
        for r in range(replications):
            setting = Setting(30, matches // 4, seed=1000 + r)
            truth = setting.strengths()
            names = sorted(truth)
            outcomes = setting.outcomes(0)
            fits = {
                "ours": trueskill.fit(outcomes, intervals="posterior"),
                "package": trueskill.fit(outcomes, tau=trueskill.PACKAGE_TAU,
                                         draw_probability=trueskill.PACKAGE_DRAW_PROBABILITY, intervals="posterior"),
            }
            fits["elo"] = fit(outcomes, "elo")
            for key, table in fits.items():
                taus[key].append(kendalltau([table[a].rating for a in names], [truth[a] for a in names]).statistic)
        lines.append(f"| {matches:,} | {np.mean(taus['ours']):.3f} | {np.mean(taus['package']):.3f} | "
                     f"{np.mean(taus['elo']):.3f} |")
    return lines


def large_sample_study(replications: int, matches: int, progress=None,
                       methods: Sequence[str] = ()) -> tuple[list[common.Row], list[str]]:
    """Each method's (every method's by default) default interval against its own fit on ``matches`` matches of the
    same field."""
    methods = tuple(methods) or method_names()
    rows: list[common.Row] = []
    lines = ["| field | matches | tied pairs | reps | " + " | ".join(methods) + " |",
             "|---|---:|---:|---:|" + "---|" * len(methods)]
    for name, setting in LARGE_SAMPLE_FIELDS:
        cells, ties = [], 0.0
        for method in methods:
            found = measure_against_large(method, setting, replications, matches)
            ties = found.tie_share
            cells.append(f"{found.coverage:.1%} ({found.leave_one_out:.1%}; lean {found.bias:.2f})")
            rows.append(common.Row(
                "fidelity", f"{method}: {name}, against {matches:,} matches", f"coverage {found.coverage:.1%}",
                f"leave-one-out {found.leave_one_out:.1%}",
                f"{setting.label()}; {replications} replications; lean {found.bias:.2f} sd; "
                f"actual/reported sd {found.spread_ratio:.2f}",
            ))
            if progress:
                progress(f"{method}: {name} against {matches:,} matches: coverage {found.coverage:.1%}")
        lines.append(f"| {name} | {setting.blocks * setting.players:,} | {ties:.0%} | {replications} | "
                     + " | ".join(cells) + " |")
    return rows, lines


def measure_all(size: str, progress=None, methods: Sequence[str] = ()) -> tuple[list[common.Row], str]:
    """Every setting for each method (every method by default): the benchmark rows and the Markdown block for
    docs/ratings.md."""
    methods = tuple(methods) or method_names()
    grid = SIZES[size]
    results: dict[tuple[int, str, str], Fidelity] = {}
    rows: list[common.Row] = []
    started = time.perf_counter()
    for agents, replications in grid["fields"].items():
        for name, setting in settings(agents):
            for method in methods:
                result = replicate(method, setting, replications)
                results[agents, name, method] = result
                case = f"{method}: {agents} agents, {name}"
                rows.append(common.Row(
                    "fidelity", case, f"coverage {result.coverage:.1%}",
                    f"actual/reported sd {result.spread_ratio:.2f}",
                    f"{setting.label()}; {result.replications} replications; "
                    f"interval {', '.join(result.interval_kinds)};"
                    f" Kendall tau {result.kendall:.3f}; ties {result.tie_share:.0%} of pairs",
                ))
                if progress:
                    progress(f"{case}: coverage {result.coverage:.1%} ({time.perf_counter() - started:.0f} s)")
    block = ["Coverage of the default 95% intervals (share of intervals holding the rating's mean over the other "
             "replications, allowing for that mean's own sampling error), the actual over the reported spread of a "
             "rating in brackets (1 is right), and the interval kind:", "",
             "| agents | design | matches | reps | " + " | ".join(methods) + " |",
             "|---:|---|---:|---:|" + "---|" * len(methods)]
    for agents in grid["fields"]:
        for name, setting in settings(agents):
            cells = []
            for method in methods:
                r = results[agents, name, method]
                cells.append(f"{r.coverage:.1%} ({r.spread_ratio:.2f}) {'/'.join(r.interval_kinds)}")
            first = results[agents, name, methods[0]]
            block.append(f"| {agents} | {name} | {setting.blocks * setting.players:,} | {first.replications} | "
                         + " | ".join(cells) + " |")
    block += ["", "Kendall's tau of the ratings with the true strengths:", "",
              "| agents | design | " + " | ".join(methods) + " |", "|---:|---|" + "---:|" * len(methods)]
    for agents in grid["fields"]:
        for name, _ in settings(agents):
            block.append(f"| {agents} | {name} | "
                         + " | ".join(f"{results[agents, name, m].kendall:.3f}" for m in methods) + " |")
    block += ["", "Calibration of P(stronger): pairs given 0.85–0.95 for the favoured agent, over every setting "
              "(mean given, share right, pairs):", "", "| method | mean P given | share right | pairs |",
              "|---|---:|---:|---:|"]
    for method in methods:
        given, right, count = [], [], 0
        for (_agents, _name, m), r in results.items():
            if m != method:
                continue
            p, share, n = r.bin_near(0.9)
            if n:
                given.append(p * n)
                right.append(share * n)
                count += n
        if count:
            block.append(f"| {method} | {sum(given) / count:.3f} | {sum(right) / count:.3f} | {count:,} |")
            rows.append(common.Row("fidelity", f"{method}: P(stronger) 0.85-0.95", f"{sum(right) / count:.1%} right",
                                   f"given {sum(given) / count:.1%}", f"{count:,} pairs over every setting"))
    block += ["", "Design gain: spread of a rating under independent deals over duplicate blocks (luck "
              f"{LUCK:g}), actual and reported:", "", "| agents | method | actual ratio | reported ratio | "
              "reported / actual |", "|---:|---|---:|---:|---:|"]
    for agents in grid["fields"]:
        for method in methods:
            blocks, independent = results[agents, "blocks, luck", method], results[agents, "independent, luck", method]
            actual = independent.actual_sd / blocks.actual_sd
            reported = independent.reported_sd / blocks.reported_sd
            block.append(f"| {agents} | {method} | {actual:.2f} | {reported:.2f} | {reported / actual:.2f} |")
            rows.append(common.Row("fidelity", f"{method}: design gain, {agents} agents", f"reported {reported:.2f}",
                                   f"actual {actual:.2f} (off by {abs(reported / actual - 1):.0%})",
                                   "sd under independent deals / sd under duplicate blocks"))
    largest, replications = grid["ranking"]
    if "trueskill" in methods:  # the study of TrueSkill's ranking (with Elo beside it)
        block += ["", f"TrueSkill keeps improving with data (30 agents, Kendall's tau with the truth, mean of "
                  f"{replications} fields):", "", *ranking_study(largest, replications)]
    large_replications, large_matches = grid["large"]
    large_rows, large_lines = large_sample_study(large_replications, large_matches, progress, methods)
    rows += large_rows
    block += ["", f"Against the large sample: coverage of the default 95% intervals of the field's value as each "
              f"method fits it on {large_matches:,} matches in a random order; in brackets the leave-one-out "
              "coverage of the same fits (as above) and the lean: |mean rating − that value| over the actual "
              f"spread, averaged over agents (about {0.8 / np.sqrt(large_replications):.2f} without any lean, the "
              f"sampling error of a mean over {large_replications} replications):", "",
              *large_lines]
    seconds = time.perf_counter() - started
    block += ["", f"Measured with `python -m benchmarks --only fidelity` (size `{size}`) in "
              f"{seconds / 60:.0f} minutes; {common.machine_line()}."]
    return rows, "\n".join(block)


def write_docs(block: str) -> None:
    """Replace the block between the fidelity markers of docs/ratings.md."""
    text = DOC.read_text(encoding="utf-8")
    start, end = (text.index(marker) for marker in MARKERS)
    DOC.write_text(text[: start + len(MARKERS[0])] + "\n" + block + "\n" + text[end:], encoding="utf-8")


def measure(size: str, methods: Sequence[str] = ()) -> list[common.Row]:
    """The section's rows (``python -m benchmarks``); a default or full run of every method also writes
    docs/ratings.md, a run of some methods prints its Markdown block instead."""
    rows, block = measure_all(size, progress=lambda line: print(f"  {line}", file=sys.stderr, flush=True),
                              methods=methods)
    if methods:
        print(block)
    elif size != "quick":
        write_docs(block)
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    """Run this script at the size the command line asks for and print the table."""
    parser = common.size_parser(__doc__, full_help="200 replications of the small fields, 50 of the largest")
    parser.add_argument("--method", action="append", default=[], choices=method_names(),
                        help="measure only this method (repeat for several): its tables are printed, the docs kept")
    args = parser.parse_args(argv)
    common.print_table("Fidelity", measure(args.size or "default", args.method))


if __name__ == "__main__":
    main()
