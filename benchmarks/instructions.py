"""Instructions per decision of the engine benchmark's loop, counted by valgrind: a figure the load cannot move.

The machine's cores are shared, so CPU times swing between identical runs; the
number of instructions a run executes does not.  For each case of
``benchmarks/engine.py`` this runs a child Python under ``valgrind
--tool=cachegrind`` twice: once playing ``WARM`` games, once playing ``WARM +
games`` games, the same games in the same order (``engine.play``: deal
included, ``observation(seat)`` -> ``agent.act`` -> ``apply``, the ``random``
agents).  The difference of the two counts, divided by the difference of the
decisions, is the cost of one decision with start-up, imports and warm-up
cancelled.  ``PYTHONHASHSEED=0`` makes every run of a given tree identical.

Two loops per case:

* ``agents``: the ``random`` agents decide (``engine.per_decision``'s loop);
* ``replayed``: ``act`` returns the random agents' recorded actions
  (``engine.per_decision_replayed``'s loop), the engine's share.  Both runs
  record the same ``WARM + games`` games first, so recording cancels too.

The µs column converts a count with the rate of the idle-machine measurement
in ``BASELINE`` (its µs per decision over its instruction count, per case);
a count from another tree then reads as the time it would take on that
machine.  Needs ``valgrind`` on the path.

    .venv/bin/python benchmarks/instructions.py                  # every case, both loops
    .venv/bin/python benchmarks/instructions.py --cases lorum "lovat 3p" --games 100
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))  # engine.py's own imports (run as a script: benchmarks/ on sys.path)

import engine  # type: ignore[import-not-found]  # noqa: E402  # after the path set-up above

WARM = 10
"""Games every child plays first (imports, caches, first-call costs); cancelled by the difference."""

GAMES = 150
"""Games counted per case by default (the difference between the two runs)."""

BASELINE: dict[str, tuple[float, float]] = {
    "lovat 3p": (52_256, 4.50),
    "lovat 4p": (47_414, 4.01),
    "lovat 5p": (46_093, 3.94),
    "lovat 6p": (42_936, 3.60),
    "lorum": (38_541, 3.20),
}
"""Per case: instructions per decision (agent interface, ``GAMES`` games) of the tree that ``engine.py``
measured on the idle machine on 1 December 2026 (before the second pass, docs/performance.md), and the µs
per decision it measured there; their ratio converts counts to µs."""

_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def child(label: str, games: int, loop: str, record: int) -> None:
    """Play ``games`` games of case ``label`` by ``loop`` and print the number of decisions."""
    _, name, options = next(case for case in engine.CASES if case[0] == label)
    registry, spec = engine.registry_games_and_random()
    game = registry[name]
    agents = engine.make_agents(spec, game, options["players"], seed=0)
    if loop == "replayed":
        recorded: list[Any] = []
        seen = [engine._Recorder(agent, recorded) for agent in agents]
        for index in range(record):  # the same recording in both runs, whatever ``games`` is
            engine.play(game, options, index, seen)
        agents = [engine.Replayer(iter(recorded).__next__)] * options["players"]
    print(sum(engine.play(game, options, index, agents) for index in range(games)))


def count(label: str, games: int, loop: str, record: int) -> tuple[int, int]:
    """(instructions, decisions) of one child run under cachegrind."""
    command = [
        "valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
        sys.executable, str(Path(__file__).resolve()), "--child", label, str(games), loop, str(record),
    ]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    match = _REFS.search(done.stderr)
    if done.returncode or not match:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")
    return int(match.group(1).replace(",", "")), int(done.stdout.split()[-1])


def per_decision(label: str, games: int, loop: str) -> tuple[float, int]:
    """Instructions per decision over ``games`` games after ``WARM`` (two runs, difference); and the decisions."""
    record = WARM + games
    few, few_decisions = count(label, WARM, loop, record)
    many, many_decisions = count(label, WARM + games, loop, record)
    decisions = many_decisions - few_decisions
    return (many - few) / decisions, decisions


def main(argv: Sequence[str] | None = None) -> None:
    """Count every asked case and loop, and print a markdown table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", nargs="+", default=[case[0] for case in engine.CASES],
                        choices=[case[0] for case in engine.CASES], metavar="CASE")
    parser.add_argument("--games", type=int, default=GAMES, help=f"games counted per case (default {GAMES})")
    parser.add_argument("--loops", nargs="+", default=["agents", "replayed"], choices=["agents", "replayed"])
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        label, games, loop, record = args.child
        child(label, int(games), loop, int(record))
        return
    print("| case | loop | instructions per decision | µs at the idle rate | decisions counted |")
    print("| --- | --- | --- | --- | --- |")
    for label in args.cases:
        for loop in args.loops:
            instructions, decisions = per_decision(label, args.games, loop)
            baseline_count, baseline_us = BASELINE[label]
            micros = instructions * baseline_us / baseline_count
            print(f"| {label} | {loop} | {instructions:,.0f} | {micros:.2f} | {decisions} |", flush=True)


if __name__ == "__main__":
    main()
