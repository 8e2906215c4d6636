"""Shared pieces of the benchmark scripts: timing, the machine line and the markdown table.

Every figure a script reports is the median over ``repeats`` runs of the same
measurement; a comparison ("ratio") is always of two figures measured in the
same process, one after the other, so that a busy neighbour on the shared
cores slows both sides rather than one.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
"""The repository root (so that ``python benchmarks/x.py`` imports arena and arena_agents from the tree)."""

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

COLUMNS: tuple[str, ...] = ("benchmark", "case", "median", "comparison", "note")
"""The columns of every table the scripts print."""


@dataclass(frozen=True, slots=True)
class Row:
    """One line of a results table."""

    benchmark: str  # the section, e.g. "engine", "peers", "tournament", "ratings"
    case: str  # what was measured, e.g. "lovat 4p: per decision (agent interface)"
    median: str  # the median figure with its unit, e.g. "2.7 µs"
    comparison: str = ""  # a ratio measured in the same run, or the target and whether it holds
    note: str = ""  # how it was measured (sizes, repeats), or why it is missing


def cpu_model() -> str:
    """The CPU model from /proc/cpuinfo (or the platform's processor string)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def cores() -> int:
    """The cores this process may run on (what ``nproc`` prints)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def machine_line() -> str:
    """One line naming the machine: cores, CPU model, Python and OS."""
    return (
        f"machine: {cores()} cores (nproc), {cpu_model()}, "
        f"Python {platform.python_version()} ({platform.python_implementation()}), "
        f"{platform.system()} {platform.release()}"
    )


cpu_clock = time.process_time
"""The clock of single-process figures: this process's CPU time.

The cores are shared with other work, so a single-threaded measurement is timed
by the CPU time it used (``clock_gettime(CLOCK_PROCESS_CPUTIME_ID)``, nanosecond
resolution) rather than by the wall clock, which also counts the time the
process waited for a core.  On an idle machine the two agree.  Anything that
runs several processes (the tournament) or threads (numpy in the ratings) is
timed by the wall clock, ``time.perf_counter``.
"""


def size_parser(doc: str, full_help: str = "larger sizes") -> argparse.ArgumentParser:
    """A script's command line: ``--quick`` or ``--full``, or neither (``size``: None), for a script to add to.

    ``doc`` is the script's docstring; its first paragraph is the ``--help`` description.
    """
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--quick", action="store_const", const="quick", dest="size", help="tiny sizes (smoke test)")
    group.add_argument("--full", action="store_const", const="full", dest="size", help=full_help)
    return parser


def size_from_args(doc: str, argv: Sequence[str] | None, full_help: str = "larger sizes") -> str:
    """Parse a script's command line (``--quick`` or ``--full``, or neither) into its size name."""
    return size_parser(doc, full_help).parse_args(argv).size or "default"


def version(distribution: str) -> str:
    """The installed version of ``distribution`` ("?" if it is not installed)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed(distribution)
    except PackageNotFoundError:
        return "?"


def median_time(run: Callable[[], object], repeats: int, clock: Callable[[], float] = time.perf_counter) -> float:
    """Median seconds of ``repeats`` calls of ``run`` on ``clock`` (wall time by default)."""
    times = []
    for _ in range(repeats):
        started = clock()
        run()
        times.append(clock() - started)
    return statistics.median(times)


def median(values: Sequence[float]) -> float:
    """The median of ``values``."""
    return statistics.median(values)


def mean_interval(values: Sequence[float], unit: str, digits: int = 3) -> str:
    """``+1.234 unit (95% CI +0.987 .. +1.481)``: the mean and its normal-approximation 95% interval over
    independent runs (the half width is nan for a single run)."""
    mean = statistics.mean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else float("nan")
    return f"{mean:+.{digits}f} {unit} (95% CI {mean - half:+.{digits}f} .. {mean + half:+.{digits}f})"


def us(seconds: float) -> str:
    """Seconds as microseconds with sensible precision, e.g. ``"2.71 µs"``."""
    value = seconds * 1e6
    if value < 10:
        return f"{value:.2f} µs"
    if value < 100:
        return f"{value:.1f} µs"
    return f"{value:,.0f} µs"


def ms(seconds: float) -> str:
    """Seconds as milliseconds, e.g. ``"1.42 ms"``."""
    value = seconds * 1e3
    return f"{value:.2f} ms" if value < 100 else f"{value:,.0f} ms"


def secs(seconds: float) -> str:
    """Seconds, e.g. ``"3.21 s"`` (milliseconds below 0.1 s)."""
    return ms(seconds) if seconds < 0.1 else f"{seconds:.2f} s"


def ratio(value: float) -> str:
    """A ratio such as ``"12.3×"``."""
    if value >= 100:
        return f"{value:,.0f}×"
    return f"{value:.2f}×" if value < 10 else f"{value:.1f}×"


def target(holds: bool, text: str) -> str:
    """``"target ≤ 3 µs: holds"`` / ``"... : missed"``."""
    return f"target {text}: {'holds' if holds else 'MISSED'}"


def markdown(rows: Sequence[Row]) -> str:
    """The rows as a GitHub markdown table (pipes in cells escaped)."""

    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "|".join(["---"] * len(COLUMNS)) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(cell(getattr(row, name)) for name in COLUMNS) + " |")
    return "\n".join(lines)


def print_table(title: str, rows: Sequence[Row], *, machine: bool = True) -> None:
    """Print the machine line (unless told not to), a title and the table, then flush."""
    if machine:
        print(machine_line())
        print()
    print(f"## {title}")
    print()
    print(markdown(rows))
    print(flush=True)
