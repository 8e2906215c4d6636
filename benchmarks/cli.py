"""Start-up cost of the ``arena`` command: wall and CPU time of commands that do little else.

Each command runs as a new user runs it (``python -m arena ...`` from the
repository root, with the tree's plugins), ``repeats`` times, interleaved; the
figure is the median wall time, with the median CPU time of the process (and
of the processes it waited for: plugin discovery runs in a sandboxed child).
Targets: ``arena --help`` under 0.3 s and ``arena agents`` under 1 s on an
idle machine.  The bare interpreter (``python -c pass``) is measured beside
them, the floor no command can go under.

    .venv/bin/python benchmarks/cli.py            # default sizes
    .venv/bin/python benchmarks/cli.py --quick    # a few runs (smoke test)
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from collections.abc import Sequence

if __package__ in (None, ""):
    import common  # type: ignore[import-not-found]  # run as a script: benchmarks/ is on sys.path
else:
    from benchmarks import common

REPEATS = {"quick": 3, "default": 15, "full": 50}
"""Runs of each command."""

COMMANDS: tuple[tuple[str, tuple[str, ...], float | None], ...] = (
    ("python -c pass (the interpreter alone)", ("-c", "pass"), None),
    ("arena --help", ("-m", "arena", "--help"), 0.3),
    ("arena agents", ("-m", "arena", "agents"), 1.0),
    ("arena games", ("-m", "arena", "games"), 1.0),
    ("arena doctor", ("-m", "arena", "doctor"), None),
)
"""(case, interpreter arguments, target in seconds or None)."""


def run_once(arguments: Sequence[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run (CPU: the process and every child it waited for)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, *arguments], cwd=common.ROOT, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(size: str) -> list[common.Row]:
    """Every row of this section at ``size`` ("quick", "default" or "full")."""
    repeats = REPEATS[size]
    walls: dict[str, list[float]] = {case: [] for case, _arguments, _target in COMMANDS}
    cpus: dict[str, list[float]] = {case: [] for case, _arguments, _target in COMMANDS}
    for _case, arguments, _target in COMMANDS:  # once each first: the file-system cache, the bytecode caches
        run_once(arguments)
    for _ in range(repeats):
        for case, arguments, _target in COMMANDS:
            wall, cpu = run_once(arguments)
            walls[case].append(wall)
            cpus[case].append(cpu)
    rows = []
    for case, _arguments, target in COMMANDS:
        wall, cpu = common.median(walls[case]), common.median(cpus[case])
        rows.append(common.Row("cli", case, common.secs(wall),
                               f"CPU {common.secs(cpu)}"
                               + (f"; {common.target(wall < target, f'< {target:g} s')}" if target else ""),
                               f"median of {repeats} runs, wall time; a fresh interpreter each"))
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    """Run this script's measurements at the size the command line asks for and print the table."""
    size = common.size_from_args(__doc__, argv)
    common.print_table("Command start-up", measure(size))


if __name__ == "__main__":
    main()
