"""What subtracting the luck of Lovat's die along the path played (``arena.ratings.luck``) does to the verdicts.

A duplicate block replays one deal in every rotation of the seats, which cancels the deal's luck between agents
but not the die's: the rotations reach the die round on different paths, so the same faces are worth different
amounts to them.  At every roll ``arena.ratings.luck`` subtracts ``v(rolled) − mean over faces of v(face)``, ``v``
being the result of greedy in every seat playing the rest from the full state, valued by the score (points) or by
the rank (seats beaten, a tie half).  This script plays fields of ``skilled`` agents (greedy with probability
``skill`` per decision, else random: a known order of strength) in 3-, 4- and 5-player Lovat, ``blocks``
complete duplicate blocks per replication, ``reps`` replications on fresh deals, and rates each replication

* by the mean score, raw and corrected (v = score), and the mean seats beaten, raw and corrected (v = rank);
* by Elo over the ranks of the raw result, of the corrected scores and of the corrected seats beaten.

Printed per field and neighbour pair: each rating's ``z`` (mean gap over its actual spread across replications)
and the share of matches the corrected rating needs for the same ``z``, ``(z_raw / z_corrected)²``, with a 90%
bootstrap interval over the replications.  Then each agent's mean correction over all its matches with its
standard error (the correction has expectation zero: these should be within noise of 0), and the correction's
CPU time per match.

    python benchmarks/luck_dice.py                        # 30 replications of 30 blocks per field
    python benchmarks/luck_dice.py --reps 4 --blocks 5 --players 3
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from arena.games.base import Result, competition_ranks  # noqa: E402 -- after the path set-up above
from arena.games.lovat import GAME as LOVAT  # noqa: E402
from arena.games.lovat.rules import FACES  # noqa: E402
from arena.ratings import fit  # noqa: E402
from arena.ratings.data import MatchOutcome  # noqa: E402
from arena.ratings.luck import beaten, chance_terms, scores  # noqa: E402
from arena_agents.lovat import GreedyLovatAgent, RandomLovatAgent  # noqa: E402
from benchmarks.luck_control import Field, Skilled  # noqa: E402

SKILLS = {3: (0.8, 0.65, 0.5), 4: (0.8, 0.7, 0.6, 0.5), 5: (0.8, 0.7, 0.6, 0.5, 0.4)}
"""Each field's skills, strongest first."""

KINDS = ("raw", "v=score", "v=rank")
"""The results rated: as played, corrected with v = score, corrected with v = rank."""


def field(players: int) -> Field:
    """The ``skilled`` field of ``players``-player Lovat."""
    return Field(f"lovat {players}p", LOVAT, {"players": players}, GreedyLovatAgent, RandomLovatAgent,
                 SKILLS[players])


def play(game_field: Field, seed: int, agents: Sequence[Any]) -> dict[str, Any]:
    """One match of ``game_field`` on deal ``seed``, as a record: seed, options, chance log and actions."""
    state = game_field.game.new_state(seed, game_field.options)
    actions = []
    while not state.is_over():
        seat = state.to_move()[0]
        action = agents[seat].act(state.observation(seat))
        state.apply(seat, action)
        actions.append({"seat": seat, "action": list(action) if isinstance(action, tuple) else action})
    return {"seed": seed, "options": game_field.options, "chance": list(state.chance.log), "actions": actions,
            "result": state.result()}


def both(result: Result) -> tuple[float, ...]:
    """Scores then seats beaten: both valuations from one play-out per face."""
    return scores(result) + beaten(result)


def replication(game_field: Field, first_seed: int, blocks: int, clock: list[float],
                corrections: dict[str, list[tuple[float, float]]]) -> dict[str, list[MatchOutcome]]:
    """``blocks`` duplicate blocks: per kind of result, its outcomes (ranks of the corrected values).

    Adds the correction's CPU seconds to ``clock`` and each agent's (score, rank) correction to ``corrections``.
    """
    k = len(game_field.skills)
    greedy = [GreedyLovatAgent(seat=seat, game=LOVAT.info, players=k, seed=0, options={}) for seat in range(k)]

    def policy(observation: Any) -> Any:
        return greedy[observation.seat].act(observation)

    found: dict[str, list[MatchOutcome]] = {kind: [] for kind in KINDS}
    for block in range(blocks):
        seed = first_seed + block
        for rotation in range(k):
            skills = [game_field.skills[(seat + rotation) % k] for seat in range(k)]
            record = play(game_field, seed, [Skilled(game_field, seat, seed * 31 + rotation * 7 + seat, skill)
                                             for seat, skill in enumerate(skills)])
            start = time.process_time()
            terms = chance_terms(LOVAT, record, {"die": FACES}, policy, both)
            clock.append(time.process_time() - start)
            total = [sum(column) for column in zip(*terms, strict=True)] if terms else [0.0] * 2 * k
            result: Result = record["result"]
            names = tuple(f"skill-{skill}" for skill in skills)
            match = f"{seed}-r{rotation}"
            raw = scores(result)
            by_score = tuple(value - part for value, part in zip(raw, total[:k], strict=True))
            by_rank = tuple(value - part for value, part in zip(beaten(result), total[k:], strict=True))
            found["raw"].append(MatchOutcome(match, str(seed), names, raw, result.ranks))
            found["v=score"].append(MatchOutcome(match, str(seed), names, by_score, competition_ranks(by_score)))
            found["v=rank"].append(MatchOutcome(match, str(seed), names, by_rank, competition_ranks(by_rank)))
            for name, score_part, rank_part in zip(names, total[:k], total[k:], strict=True):
                corrections[name].append((score_part, rank_part))
    return found


def mean_gaps(outcomes: list[MatchOutcome], names: list[str]) -> list[float]:
    """Each neighbour pair's gap in mean value per match (complete blocks: the same opposition)."""
    totals: dict[str, list[float]] = {name: [] for name in names}
    for outcome in outcomes:
        for name, value in zip(outcome.agents, outcome.scores, strict=True):
            totals[name].append(value)
    return [statistics.fmean(totals[a]) - statistics.fmean(totals[b]) for a, b in itertools.pairwise(names)]


def elo_gaps(outcomes: list[MatchOutcome], names: list[str]) -> list[float]:
    """Each neighbour pair's Elo gap over the outcomes' ranks."""
    table = fit(outcomes, "elo")
    return [table[a].rating - table[b].rating for a, b in itertools.pairwise(names)]


def z(values: Sequence[float]) -> float:
    """Mean over spread across replications."""
    return statistics.fmean(values) / statistics.stdev(values)


def share(raw: Sequence[float], corrected: Sequence[float], rng: random.Random) -> tuple[float, float, float]:
    """``(z_raw / z_corrected)²`` and its 90% bootstrap interval over the replications (resampled in pairs)."""
    point = (z(raw) / z(corrected)) ** 2
    draws = []
    for _ in range(1000):
        picks = [rng.randrange(len(raw)) for _ in raw]
        try:
            draws.append((z([raw[i] for i in picks]) / z([corrected[i] for i in picks])) ** 2)
        except (ZeroDivisionError, statistics.StatisticsError):
            continue
    draws.sort()
    return point, draws[int(0.05 * len(draws))], draws[int(0.95 * len(draws)) - 1]


def report(raw: Sequence[float], corrected: Sequence[float], rng: random.Random) -> str:
    """One cell group: z raw, z corrected, share with interval."""
    point, low, high = share(raw, corrected, rng)
    return f"{z(raw):.2f} | {z(corrected):.2f} | {point:.2f} ({low:.2f}–{high:.2f})"


def main() -> None:
    """Print the tables."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=30, help="replications per field (default 30)")
    parser.add_argument("--blocks", type=int, default=30, help="duplicate blocks per replication (default 30)")
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4, 5], choices=sorted(SKILLS),
                        help="the fields to play (default 3 4 5)")
    args = parser.parse_args()
    start = time.perf_counter()
    rng = random.Random(7)
    print(f"{args.reps} replications of {args.blocks} duplicate blocks per field; v: greedy in every seat plays "
          "the rest, averaged over every later roll")
    print("| field | pair | score: z raw | z v=score | share | Elo: z raw | z v=score | share "
          "| Elo: z raw | z v=rank | share | seats beaten: z raw | z v=rank | share |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    unbiased, costs = [], []
    for players in args.players:
        game_field = field(players)
        names = [f"skill-{skill}" for skill in game_field.skills]
        gaps: dict[str, list[list[float]]] = {}
        clock: list[float] = []
        corrections: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
        for rep in range(args.reps):
            found = replication(game_field, 10_000 * (rep + 1), args.blocks, clock, corrections)
            rows = {
                "score raw": mean_gaps(found["raw"], names),
                "score v=score": mean_gaps(found["v=score"], names),
                "beaten raw": mean_gaps(_beaten(found["raw"]), names),
                "beaten v=rank": mean_gaps(found["v=rank"], names),
                "elo raw": elo_gaps(found["raw"], names),
                "elo v=score": elo_gaps(found["v=score"], names),
                "elo v=rank": elo_gaps(found["v=rank"], names),
            }
            for label, values in rows.items():
                gaps.setdefault(label, []).append(values)
        for pair in range(len(names) - 1):
            column = {label: [rep[pair] for rep in values] for label, values in gaps.items()}
            print(f"| {game_field.name} | {names[pair]} − {names[pair + 1]} "
                  f"| {report(column['score raw'], column['score v=score'], rng)} "
                  f"| {report(column['elo raw'], column['elo v=score'], rng)} "
                  f"| {report(column['elo raw'], column['elo v=rank'], rng)} "
                  f"| {report(column['beaten raw'], column['beaten v=rank'], rng)} |", flush=True)
        for name, pairs in corrections.items():
            for position, unit in ((0, "points"), (1, "seats beaten")):
                parts = [pair[position] for pair in pairs]
                unbiased.append(f"| {game_field.name} | {name} | {unit} | {statistics.fmean(parts):+.4f} "
                                f"| {statistics.stdev(parts) / len(parts) ** 0.5:.4f} "
                                f"| {statistics.stdev(parts):.3f} |")
        costs.append(f"| {game_field.name} | {1000 * statistics.fmean(clock):.1f} | {1000 * max(clock):.1f} |")
    print("\nMean correction per agent (expectation 0):\n\n| field | agent | unit | mean | its standard error "
          "| sd per match |\n|---|---|---|---|---|---|")
    print("\n".join(unbiased))
    print("\nCPU time of the correction (both valuations from the same play-outs), ms per match:\n\n"
          "| field | mean | max |\n|---|---|---|")
    print("\n".join(costs))
    print(f"measured in {time.perf_counter() - start:.0f} s")


def _beaten(outcomes: list[MatchOutcome]) -> list[MatchOutcome]:
    """The outcomes with each seat's seats beaten as its score (the raw counterpart of v = rank)."""
    return [MatchOutcome(outcome.match_id, outcome.block, outcome.agents,
                         beaten(Result(tuple(0 for _ in outcome.ranks), outcome.ranks)), outcome.ranks)
            for outcome in outcomes]


if __name__ == "__main__":
    main()
