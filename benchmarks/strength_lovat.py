"""Duplicate-deal strength test for Lovat agents (plain Python, seeded, serial by default).

For every seed the same deal is played ``players + 1`` times:

* the baseline table: ``players`` ``--baseline`` agents;
* ``players`` rotations: one ``--agent`` in seat r, ``--baseline`` agents elsewhere.

The same seed gives the same dealer and the same deal (L-18: the dealer and the deal
are drawn before any decision), so in rotation r the agent holds exactly the cards the
baseline agent held in seat r of the baseline table.  (The die rolls of the last round
are drawn in turn order, so they too are the same unless a void turn, which rolls no
die, shifts them.)  Per seed, averaged over the rotations:

* ``margin``: the agent's points minus the mean points of the baseline agents at its
  own table, and the baseline agents' mean rank minus the agent's rank (L-16 ranks,
  1 = best; positive means the agent finishes ahead);
* ``gain``: the agent's points (and rank) against the baseline agent's in the same seat
  of the baseline table.

Seeds are independent, so each 95% interval is mean +- 1.96 standard errors over
seeds.  Also reported: the agent's time per move (CPU time of ``act``, decisions with a
choice only: keeps, and other decisions with more than one legal action).

    .venv/bin/python benchmarks/strength_lovat.py --agent search --baseline greedy --seeds 200
    .venv/bin/python benchmarks/strength_lovat.py --agent greedy --baseline random --seeds 200

``--jobs N`` spreads seeds over N processes; results do not depend on it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.agent import Agent
from arena.games.lovat import GAME
from arena_agents.lovat import GreedyLovatAgent, RandomLovatAgent
from arena_agents.search.lovat import SearchLovatAgent
from benchmarks.common import mean_interval

AGENTS: dict[str, type[Agent]] = {"random": RandomLovatAgent, "greedy": GreedyLovatAgent, "search": SearchLovatAgent}
"""Agent names this script knows."""


def play(
    seed: int, kinds: list[str], options: dict[str, Any]
) -> tuple[tuple[int, ...], tuple[int, ...], list[float]]:
    """One game; returns points and ranks per seat and the search seats' CPU ms per decision with a choice."""
    players = len(kinds)
    state = GAME.new_state(seed, {"players": players})
    agents = [
        AGENTS[kind](
            seat=seat,
            game=GAME.info,
            players=players,
            seed=seed * 10 + seat,
            options=options if kind == "search" else {},
        )
        for seat, kind in enumerate(kinds)
    ]
    times: list[float] = []
    while not state.is_over():
        # L-5: every keep is decided on an observation taken before any keep is applied
        observations = {seat: state.observation(seat) for seat in state.to_move()}
        for seat, observation in observations.items():
            start = time.process_time()
            action = agents[seat].act(observation)
            elapsed = (time.process_time() - start) * 1000.0
            if kinds[seat] == "search" and (observation.phase == "keep" or len(observation.legal) > 1):
                times.append(elapsed)
            state.apply(seat, action)
    result = state.result()
    return result.scores, result.ranks, times


def one_seed(args: tuple[int, int, str, str, dict[str, Any]]) -> tuple[list[float], list[float]]:
    """Per-seed measures (points margin, rank margin, points gain, rank gain) and the agent's move times."""
    seed, players, agent, baseline, options = args
    base_points, base_ranks, _ = play(seed, [baseline] * players, options)
    measures: list[list[float]] = [[], [], [], []]
    times: list[float] = []
    for seat in range(players):
        kinds = [baseline] * players
        kinds[seat] = agent
        points, ranks, moves = play(seed, kinds, options)
        others = [other for other in range(players) if other != seat]
        measures[0].append(points[seat] - statistics.mean(points[other] for other in others))
        measures[1].append(statistics.mean(ranks[other] for other in others) - ranks[seat])
        measures[2].append(points[seat] - base_points[seat])
        measures[3].append(base_ranks[seat] - ranks[seat])
        times.extend(moves)
    return [statistics.mean(values) for values in measures], times


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default="search", choices=sorted(AGENTS))
    parser.add_argument("--baseline", default="greedy", choices=sorted(AGENTS))
    parser.add_argument("--players", type=int, default=4, choices=(3, 4, 5, 6))
    parser.add_argument("--seeds", type=int, default=100, help="number of seeds (duplicate deals)")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--iterations", type=int, default=None, help="search agent's playouts per move")
    parser.add_argument("--ms", type=float, default=None, help="search agent's milliseconds per move")
    parser.add_argument("--value", default=None, help="search agent's playout value (rank or points)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (1: serial)")
    args = parser.parse_args(argv)
    options: dict[str, Any] = {}
    for key in ("iterations", "ms", "value"):
        if getattr(args, key) is not None:
            options[key] = getattr(args, key)
    work = [
        (seed, args.players, args.agent, args.baseline, options)
        for seed in range(args.first_seed, args.first_seed + args.seeds)
    ]
    start = time.perf_counter()
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            results = list(pool.map(one_seed, work, chunksize=1))
    else:
        results = [one_seed(item) for item in work]
    columns = list(zip(*(measures for measures, _times in results)))
    times = sorted(t for _measures, ts in results for t in ts)
    print(
        f"{args.agent} vs {args.baseline}, {args.players} players: {args.seeds} deals (seeds {args.first_seed}.."
        f"{args.first_seed + args.seeds - 1}) x {args.players} rotations, options {options}"
    )
    print(f"  margin over its table, points:  {mean_interval(list(columns[0]), 'points/game')}")
    print(f"  margin over its table, rank:    {mean_interval(list(columns[1]), 'ranks/game')}")
    print(f"  gain over {args.baseline} in its seat, points: {mean_interval(list(columns[2]), 'points/game')}")
    print(f"  gain over {args.baseline} in its seat, rank:   {mean_interval(list(columns[3]), 'ranks/game')}")
    if args.agent == "search" and times:
        print(
            f"  search CPU time per move: median {statistics.median(times):.1f} ms, "
            f"p90 {times[int(0.9 * (len(times) - 1))]:.1f} ms, max {times[-1]:.1f} ms over {len(times)} moves"
        )
    print(f"  wall time {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
