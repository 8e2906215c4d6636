"""A candidate search agent against the current one on duplicate deals, each alone among greedy agents (paired).

The other seats are greedy agents unless ``--opponent`` names another agent.  For every seed
the same deal (Lovat: one game; Lorum: ``--deals`` deals) is played ``1 + 2 * players`` times:
once by ``players`` opponents (the baseline table), then for every seat r once with the
candidate in seat r and once with the current agent in seat r, opponents in the other
seats.  The same seed gives the same cards (and, for the same
decisions, the same die rolls), so per seed the two agents are compared on exactly the
same hands against exactly the same opponents.  Per seed, averaged over the seats:

* ``rank gain``: the agent's rank points (``players - rank``, L-16 / S-17 competition ranks)
  minus the opponent's in the same seat of the baseline table, for each agent;
* ``paired``: the candidate's rank points minus the current agent's (the figure that decides);
* the same for the score (Lovat points, Lorum chips).

Seeds are independent, so each 95% interval is mean +- 1.96 standard errors over seeds.
Also reported: each agent's CPU time per decision with a choice (mean and max).

An agent is ``module:Class`` (importable, e.g. from a drop-in file on ``PYTHONPATH``), or
``search`` / ``greedy`` for the first-party search / greedy agent of the game; ``--candidate-options``
and ``--current-options`` are JSON objects passed as the agents' options.

    .venv/bin/python benchmarks/search_ab.py lorum --candidate-options '{"iterations": 480}' --seeds 40
    PYTHONPATH=plugins .venv/bin/python benchmarks/search_ab.py lovat --candidate my_search:MySearch --players 5

``--opponent`` seats another agent in place of greedy, in the baseline table and around both agents: a
reference heuristic by name (``--opponent sniper``: ``agents/heuristics/``) or any ``module:Class``, e.g. the
example plugin's heuristic once installed (``pip install -e plugins/example-agent``):

    .venv/bin/python benchmarks/search_ab.py lorum --opponent arena_example_agent.agents:ExampleLorumAgent
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.agent import Agent
from arena.games.base import Game
from arena_agents.plugin import FIRST_PARTY, HEURISTICS
from benchmarks.common import mean_interval

NAMED = {
    name: {"lovat": f"arena_agents.{lovat_module}:{lovat_class}", "lorum": f"arena_agents.{lorum_module}:{lorum_class}"}
    for name, lovat_module, lovat_class, lorum_module, lorum_class in FIRST_PARTY
} | {name: {game: f"arena_agents.{module}:{class_name}"} for name, game, module, class_name, _ in HEURISTICS}
"""The first-party agents by name (``greedy``, ``search``, the reference heuristics), each game's class as
``module:Class``."""

GREEDY = NAMED["greedy"]
"""The greedy agent of each game: every other seat unless ``--opponent`` names another."""

Spec = tuple[str, dict[str, Any]]
"""An agent: ``module:Class`` and its options."""


def load_class(path: str) -> type[Agent]:
    """The class ``module:Class`` names."""
    module, _, name = path.partition(":")
    agent_class: type[Agent] = getattr(importlib.import_module(module), name)
    return agent_class


def load_game(name: str) -> Game:
    """The game called ``name``."""
    if name == "lovat":
        from arena.games.lovat import GAME as LOVAT

        return LOVAT
    from arena.games.lorum import GAME as LORUM

    return LORUM


def play(
    game: Game, seed: int, options: dict[str, Any], seats: list[Spec], timed: int
) -> tuple[list[int], list[float], list[float]]:
    """One game; returns the rank points and scores per seat and seat ``timed``'s CPU ms per decision with a choice."""
    players = len(seats)
    state = game.new_state(seed, options)
    agents = [
        load_class(path)(seat=seat, game=game.info, players=players, seed=seed * 10 + seat, options=agent_options)
        for seat, (path, agent_options) in enumerate(seats)
    ]
    times: list[float] = []
    while not state.is_over():
        for seat in list(state.to_move()):
            observation = state.observation(seat)
            start = time.thread_time()
            try:
                action = agents[seat].act(observation)
                if seat == timed and len(observation.legal) != 1:
                    times.append((time.thread_time() - start) * 1000.0)
                state.apply(seat, action)
            except Exception as error:  # an agent that does not play this game: one line, not a traceback
                raise AgentFailed(f"{seats[seat][0]} failed in seat {seat} of seed {seed}: {error!r}") from None
    result = state.result()
    return [players - rank for rank in result.ranks], list(result.scores), times


class AgentFailed(Exception):
    """An agent raised, or made an illegal move, in one of the games (say, a class written for the other game)."""


def one_seed(args: tuple[int, str, dict[str, Any], Spec, Spec, Spec]) -> dict[str, Any]:
    """The per-seed figures: rank and score gains of both agents over the opponent, and their move times."""
    seed, game_name, options, candidate, current, opponent = args
    game = load_game(game_name)
    players = int(options.get("players", 4))
    base_ranks, base_scores, _ = play(game, seed, options, [opponent] * players, -1)
    out: dict[str, Any] = {}
    for label, spec in (("candidate", candidate), ("current", current)):
        ranks, scores, times = [], [], []
        for seat in range(players):
            seats = [opponent] * players
            seats[seat] = spec
            rank_points, score, moves = play(game, seed, options, seats, seat)
            ranks.append(rank_points[seat] - base_ranks[seat])
            scores.append(score[seat] - base_scores[seat])
            times.extend(moves)
        out[label] = {"rank": statistics.mean(ranks), "score": statistics.mean(scores), "times": times}
    return out


def parse_spec(flag: str, game: str, path: str, options: str, parser: argparse.ArgumentParser) -> Spec:
    """The agent given by ``flag``, or a one-line error naming the flag and what is wrong with it."""
    if path in NAMED:
        if game not in NAMED[path]:
            parser.error(f"{flag}: agent {path!r} plays {', '.join(NAMED[path])}, not {game}")
        path = NAMED[path][game]
    if ":" not in path:
        parser.error(f"{flag}: an agent is module:Class or a first-party agent's name ({', '.join(NAMED)}), "
                     f"not {path!r}")
    try:
        agent_class = load_class(path)
    except (ImportError, AttributeError, ValueError, TypeError) as error:
        parser.error(f"{flag}: cannot load agent {path!r}: {error}")
    if not (isinstance(agent_class, type) and issubclass(agent_class, Agent)):
        parser.error(f"{flag}: {path!r} is not an agent class (a subclass of arena.agent.Agent)")
    try:
        parsed = json.loads(options)
    except json.JSONDecodeError as error:
        parser.error(f"{flag}-options: agent options must be a JSON object, not {options!r}: {error}")
    if not isinstance(parsed, dict):
        parser.error(f"{flag}-options: agent options must be a JSON object, not {options!r}")
    return path, parsed


def main(argv: list[str] | None = None) -> None:
    """Run the comparison and print it."""
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("game", choices=sorted(GREEDY))
    parser.add_argument("--candidate", default="search", help="module:Class, 'search' (default) or 'greedy'")
    parser.add_argument("--candidate-options", default="{}", help="JSON object of the candidate's options")
    parser.add_argument("--current", default="search", help="module:Class, 'search' (default) or 'greedy'")
    parser.add_argument("--current-options", default="{}", help="JSON object of the current agent's options")
    parser.add_argument("--opponent", default="greedy",
                        help="the agent in the other seats: module:Class or a first-party agent's name "
                             "('greedy', the default; 'search'; a reference heuristic such as 'sniper')")
    parser.add_argument("--players", type=int, default=4, help="Lovat: players (3-6); Lorum is always 4")
    parser.add_argument("--deals", type=int, default=4, help="Lorum: deals per game (4: everyone deals once)")
    parser.add_argument("--seeds", type=int, default=40, help="number of seeds (duplicate deal sets)")
    parser.add_argument("--first-seed", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (1: serial); results do not depend on it")
    args = parser.parse_args(argv)
    if args.seeds < 2:
        parser.error("--seeds must be at least 2 (the interval needs two)")
    if args.game == "lovat" and not 3 <= args.players <= 6:
        parser.error(f"--players: Lovat is played by 3 to 6 players, not {args.players}")
    options = {"players": args.players} if args.game == "lovat" else {"deals": args.deals}
    candidate = parse_spec("--candidate", args.game, args.candidate, args.candidate_options, parser)
    current = parse_spec("--current", args.game, args.current, args.current_options, parser)
    opponent = parse_spec("--opponent", args.game, args.opponent, "{}", parser)
    against = args.opponent if args.opponent in NAMED else opponent[0]
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    work = [(seed, args.game, options, candidate, current, opponent) for seed in seeds]
    start = time.perf_counter()
    results: list[dict[str, Any]] = []
    try:
        with ProcessPoolExecutor(args.jobs) if args.jobs > 1 else _Serial() as pool:
            for index, result in enumerate(pool.map(one_seed, work), start=1):
                results.append(result)
                print(f"\r{index}/{len(work)} seeds", end="", file=sys.stderr, flush=True)
    except AgentFailed as error:
        print(file=sys.stderr)
        parser.exit(1, f"{parser.prog}: error: {error}\n")
    print(file=sys.stderr)
    players = args.players if args.game == "lovat" else 4
    unit = "points" if args.game == "lovat" else "chips"
    print(f"{args.game}, {players} players, {options}: seeds {args.first_seed}..{args.first_seed + args.seeds - 1}, "
          f"each in {players} seats against {against} ({args.seeds * players} games per agent)")
    for label, spec in (("candidate", candidate), ("current", current)):
        times = [t for result in results for t in result[label]["times"]]
        print(f"  {label} {spec[0]} {json.dumps(spec[1])}: rank gain over {against} "
              f"{mean_interval([r[label]['rank'] for r in results], 'ranks')}; score gain "
              f"{mean_interval([r[label]['score'] for r in results], unit, digits=2)}; CPU per decision "
              f"mean {statistics.mean(times):.1f} ms, max {max(times):.0f} ms over {len(times)}")
    paired = [r["candidate"]["rank"] - r["current"]["rank"] for r in results]
    scores = [r["candidate"]["score"] - r["current"]["score"] for r in results]
    print(f"  paired, candidate - current: {mean_interval(paired, 'ranks')}; "
          f"score {mean_interval(scores, unit, digits=2)}")
    print(f"  wall time {time.perf_counter() - start:.0f} s")


class _Serial:
    """A stand-in for the process pool when ``--jobs 1``: maps in this process."""

    def __enter__(self) -> _Serial:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def map(self, function: Any, items: list[Any]) -> Any:
        return map(function, items)


if __name__ == "__main__":
    main()
