"""Run every benchmark and print one markdown table (the one in docs/performance.md).

    .venv/bin/python -m benchmarks                 # default sizes (the site section alone: 10 minutes of CPU or more)
    .venv/bin/python -m benchmarks --quick         # tiny sizes, under a minute (the smoke test's)
    .venv/bin/python -m benchmarks --full          # larger sizes, every reference in full (over an hour)
    .venv/bin/python -m benchmarks --only engine peers

Sections: ``engine`` (engine speed), ``peers`` (RLCard Bridge, OpenSpiel
Hearts; needs ``pip install -e '.[bench]'``), ``env`` (steps per second of
``arena.env``'s PettingZoo environment beside RLCard's and OpenSpiel's Python
environments), ``tournament`` (serial against
Ray, harness overhead), ``ratings`` (fit times, choix and trueskill),
``sandbox`` (a sandboxed seat's start-up and teardown beside an isolated one, its cost per decision, per
notification and per match beside the same agent in-process, and a sandboxed match's breakdown),
``protocol`` (a program seat's decision beside a sandboxed Python seat's and a trusted one's),
``fidelity`` (coverage and calibration of every rating method on simulated
fields; writes its tables into docs/ratings.md), ``site`` (build time and size
of a tournament's site for 10^5 matches), ``cli`` (start-up of ``arena --help``, ``agents``, ``games``,
``doctor``), ``serve`` (a served competition:
pages a second, upload to first rated match, matches per hour beside
``arena ladder run``; needs ``pip install -e '.[serve]'``; run only when named:
``--only serve``).  Each
script also runs alone (``python benchmarks/engine.py --quick``).  Every
figure is a median over repeated runs; a ratio compares two figures measured
in the same process.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence

if __package__ in (None, ""):
    import common  # type: ignore[import-not-found]  # run as a script: benchmarks/ is on sys.path
else:
    from benchmarks import common

SECTIONS: tuple[str, ...] = ("engine", "peers", "env", "tournament", "ratings", "sandbox", "protocol", "fidelity",
                             "site", "cli", "serve")
"""Every section, in the order they print (and run, but for ``RUN_FIRST``)."""

RUN_FIRST: frozenset[str] = frozenset({"sandbox"})
"""Sections run before the others: the sandbox section forks its zygotes from this process, and a fork's
cost grows with the parent's memory, which the ratings section leaves at gigabytes (a real referee's
zygote is a fresh interpreter). Run after it, a seat measured 10-30x its true cost."""


ON_REQUEST: frozenset[str] = frozenset({"serve"})
"""Sections run only when named with ``--only``: the served competition starts a server and plays a ladder
for minutes (1.5 minutes at ``--quick``), which would break the one-minute budget of ``--quick``."""


def section(name: str) -> Callable[[str], list[common.Row]]:
    """The ``measure(size)`` function of a section (imported only when it runs)."""
    if __package__ in (None, ""):
        module = __import__(name)
    else:
        module = __import__(f"benchmarks.{name}", fromlist=["measure"])

    def run(size: str) -> list[common.Row]:
        if name == "engine":
            return module.measure(size)[0]
        return module.measure(size)

    return run


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--quick", action="store_const", const="quick", dest="size", help="tiny sizes (smoke test)")
    group.add_argument("--full", action="store_const", const="full", dest="size",
                       help="larger sizes; every reference run in full")
    parser.add_argument("--only", nargs="+", choices=SECTIONS, metavar="SECTION",
                        help=f"run only these sections ({', '.join(SECTIONS)})")
    args = parser.parse_args(argv)
    size = args.size or "default"
    chosen = [name for name in SECTIONS if (name in args.only if args.only else name not in ON_REQUEST)]
    print(common.machine_line())
    print(f"sizes: {size}; sections: {', '.join(chosen)}; load average before: {load_average()}")
    print(flush=True)
    rows: dict[str, list[common.Row]] = {}
    started = time.perf_counter()
    for name in sorted(chosen, key=lambda name: name not in RUN_FIRST):
        section_started = time.perf_counter()
        print(f"[{name}: running]", file=sys.stderr, flush=True)  # progress: sections take seconds to minutes
        rows[name] = section(name)(size)
        print(f"[{name}: {time.perf_counter() - section_started:.0f} s]", file=sys.stderr, flush=True)
    print(common.markdown([row for name in chosen for row in rows[name]]))
    print()
    print(f"total {time.perf_counter() - started:.0f} s; load average after: {load_average()}", flush=True)


def load_average() -> str:
    """The 1-, 5- and 15-minute load averages (the cores are shared with other work)."""
    try:
        return " ".join(f"{value:.1f}" for value in os.getloadavg())
    except OSError:
        return "unknown"


if __name__ == "__main__":
    main()
