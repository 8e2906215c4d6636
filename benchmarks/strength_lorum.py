"""Duplicate-deal strength test for Slovak Lorum agents (plain Python, seeded, serial by default).

For every seed the same cards are played twice over:

* the baseline table: four ``--baseline`` agents;
* four rotations: one ``--agent`` in seat r (r = 0..3), ``--baseline`` agents elsewhere.

The same seed gives the same first dealer and the same deals (S-19: the game's
chance does not depend on the actions), so in rotation r the agent holds exactly
the cards the baseline agent held in seat r of the baseline table.  The measure is
the agent's chips minus the baseline agent's chips in that seat, averaged over
the four rotations: one number per seed ("gain").  Seeds are independent, so
the 95% interval is mean +- 1.96 standard errors over seeds.  Also reported:
the agent's chips minus the mean of its three opponents at its own table
("margin"), and the agent's CPU time per move (decisions with more than one legal action; CPU
time rather than wall time, so that other work on the machine does not inflate it).

    .venv/bin/python benchmarks/strength_lorum.py --agent search --baseline greedy --seeds 200
    .venv/bin/python benchmarks/strength_lorum.py --agent greedy --baseline random --seeds 200

``--jobs N`` spreads seeds over N processes; results do not depend on it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.agent import Agent
from arena.games.lorum import GAME
from arena_agents.lorum import GreedyLorumAgent, RandomLorumAgent
from arena_agents.search.lorum import SearchLorumAgent
from benchmarks.common import mean_interval

AGENTS: dict[str, type[Agent]] = {"random": RandomLorumAgent, "greedy": GreedyLorumAgent, "search": SearchLorumAgent}
"""Agent names this script knows."""


Times = list[tuple[float, float]]
"""Per move: (CPU ms, wall-clock ms)."""


def play(seed: int, kinds: list[str], deals: int, options: dict[str, Any]) -> tuple[tuple[int, ...], Times]:
    """One game; returns the chips per seat and the search seats' move times."""
    state = GAME.new_state(seed, {"deals": deals})
    agents = [
        AGENTS[kind](
            seat=seat, game=GAME.info, players=4, seed=seed * 10 + seat, options=options if kind == "search" else {}
        )
        for seat, kind in enumerate(kinds)
    ]
    times: Times = []
    while not state.is_over():
        (seat,) = state.to_move()
        observation = state.observation(seat)
        cpu, wall = time.thread_time(), time.perf_counter()  # CPU time: "ms on one core", whatever else runs
        action = agents[seat].act(observation)
        if kinds[seat] == "search" and len(observation.legal) > 1:
            times.append(((time.thread_time() - cpu) * 1000.0, (time.perf_counter() - wall) * 1000.0))
        state.apply(seat, action)
    return state.result().scores, times


def one_seed(args: tuple[int, str, str, int, dict[str, Any]]) -> tuple[float, float, Times]:
    """Gain and margin of ``agent`` over ``baseline`` on one seed (four rotations), and the agent's move times."""
    seed, agent, baseline, deals, options = args
    base, _ = play(seed, [baseline] * 4, deals, options)
    gains: list[float] = []
    margins: list[float] = []
    times: Times = []
    for seat in range(4):
        kinds = [baseline] * 4
        kinds[seat] = agent
        scores, moves = play(seed, kinds, deals, options)
        gains.append(scores[seat] - base[seat])
        margins.append(scores[seat] - (sum(scores) - scores[seat]) / 3)
        if agent == "search":
            times.extend(moves)
    return statistics.mean(gains), statistics.mean(margins), times


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default="search", choices=sorted(AGENTS))
    parser.add_argument("--baseline", default="greedy", choices=sorted(AGENTS))
    parser.add_argument("--seeds", type=int, default=100, help="number of seeds (duplicate deal sets)")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--deals", type=int, default=4, help="deals per game (S-16; 4: everyone deals once)")
    parser.add_argument("--iterations", type=int, default=None, help="search agent's playouts per move")
    parser.add_argument("--ms", type=float, default=None, help="search agent's milliseconds per move")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (1: serial)")
    parser.add_argument("--out", default=None, help="write the per-seed gains and margins to this JSON file")
    args = parser.parse_args(argv)
    options: dict[str, Any] = {}
    if args.iterations is not None:
        options["iterations"] = args.iterations
    if args.ms is not None:
        options["ms"] = args.ms
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    work = [(seed, args.agent, args.baseline, args.deals, options) for seed in seeds]
    start = time.perf_counter()
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            results = list(pool.map(one_seed, work, chunksize=1))
    else:
        results = [one_seed(item) for item in work]
    gains = [gain for gain, _margin, _times in results]
    margins = [margin for _gain, margin, _times in results]
    moves = [t for _gain, _margin, ts in results for t in ts]
    print(
        f"{args.agent} vs {args.baseline}: {args.seeds} seeds x 4 rotations x {args.deals} deals "
        f"({4 * args.seeds} games against the baseline, {4 * args.seeds * args.deals} deals), options {options}"
    )
    print(f"  gain over the {args.baseline} in the same seat:  {mean_interval(gains, 'chips/game', digits=2)}")
    print(f"  margin over its own table (mean of 3):     {mean_interval(margins, 'chips/game', digits=2)}")
    for label, index in (("CPU", 0), ("wall-clock", 1)):
        if moves:
            times = sorted(move[index] for move in moves)
            print(
                f"  search {label} time per move: median {statistics.median(times):.1f} ms, "
                f"p90 {times[int(0.9 * (len(times) - 1))]:.1f} ms, max {times[-1]:.1f} ms over {len(times)} moves"
            )
    print(f"  wall time {time.perf_counter() - start:.0f} s")
    if args.out:
        Path(args.out).write_text(json.dumps({"seeds": list(seeds), "gains": gains, "margins": margins}))


if __name__ == "__main__":
    main()
