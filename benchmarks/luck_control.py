"""What subtracting a reference agent's score from the same seat and deal does to the verdicts of a duplicate field.

The control variate: for every deal, the engine replays the deal with the reference agent (greedy, deterministic
for a seed) in every seat, and each seat's score in the real match has that seat's reference score subtracted.
The subtraction depends on the deal and the seat only, never on what a rated agent does, so its expectation is
the same for every agent: it cannot favour one.  This script measures what it gains, on real matches of both
games: a field of ``skilled`` agents (greedy with probability ``skill`` per decision, else random: a known order
of strength) plays ``blocks`` duplicate blocks (one deal, every rotation of the seats), ``reps`` times on fresh
deals, and each replication is rated

* by Elo over the ranks of the raw scores and over the ranks of the luck-adjusted scores;
* by the mean score, raw and adjusted.

Printed per game and neighbour pair: the mean gap and its actual spread over the replications (not the reported
one: what a verdict needs), their ratio ``z`` for each rating, and the share of the matches the adjusted rating
needs for the same ``z`` (``(z_raw / z_adjusted)^2``: below 1, the adjustment saves matches).  In a complete
duplicate block every agent sits in every seat of the deal once, so the mean score's subtraction is the same for
every agent of a block: the adjusted mean score has exactly the raw one's gaps (checked, printed as "same").

    python benchmarks/luck_control.py                  # 20 replications of 100 blocks per game
    python benchmarks/luck_control.py --reps 5 --blocks 40
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from arena.agent import Agent  # noqa: E402 -- after the path set-up above
from arena.games.lorum import GAME as LORUM  # noqa: E402
from arena.games.lovat import GAME as LOVAT  # noqa: E402
from arena.ratings import fit  # noqa: E402
from arena.ratings.data import MatchOutcome  # noqa: E402
from arena_agents.lorum import GreedyLorumAgent, RandomLorumAgent  # noqa: E402
from arena_agents.lovat import GreedyLovatAgent, RandomLovatAgent  # noqa: E402


@dataclass(frozen=True)
class Field:
    """One game's field: the engine, its options, the greedy and random agents and the skills (strongest first)."""

    name: str
    game: Any
    options: dict[str, Any]
    greedy: type[Agent]
    random: type[Agent]
    skills: tuple[float, ...]


FIELDS = (
    Field("lorum", LORUM, {"deals": 4}, GreedyLorumAgent, RandomLorumAgent, (0.8, 0.7, 0.6, 0.5)),
    Field("lovat", LOVAT, {"players": 3}, GreedyLovatAgent, RandomLovatAgent, (0.8, 0.65, 0.5)),
)


class Skilled(Agent):
    """Greedy with probability ``skill`` per decision, else a uniformly random legal action."""

    def __init__(self, field: Field, seat: int, seed: int, skill: float) -> None:
        players = len(field.skills)
        super().__init__(seat=seat, game=field.game.info, players=players, seed=seed, options={})
        self.skill = skill
        self.rng = random.Random(seed)
        self.greedy = field.greedy(seat=seat, game=field.game.info, players=players, seed=seed, options={})
        self.random = field.random(seat=seat, game=field.game.info, players=players, seed=seed + 1, options={})

    def act(self, observation: Any) -> Any:
        """Greedy's action with probability ``skill``, else random's."""
        return (self.greedy if self.rng.random() < self.skill else self.random).act(observation)


def play(field: Field, seed: int, agents: list[Agent]) -> tuple[float, ...]:
    """The scores of one match of ``field`` on deal ``seed``."""
    state = field.game.new_state(seed, field.options)
    while not state.is_over():
        seat = state.to_move()[0]
        state.apply(seat, agents[seat].act(state.observation(seat)))
    return tuple(float(score) for score in state.result().scores)


def ranks(scores: tuple[float, ...]) -> tuple[int, ...]:
    """Competition ranks, 1 the highest score."""
    return tuple(1 + sum(other > score for other in scores) for score in scores)


def replication(field: Field, first_seed: int, blocks: int) -> tuple[list[MatchOutcome], list[MatchOutcome]]:
    """``blocks`` duplicate blocks of the field: the raw outcomes and the luck-adjusted ones."""
    k = len(field.skills)
    raw, adjusted = [], []
    for block in range(blocks):
        seed = first_seed + block
        reference = play(field, seed, [field.greedy(seat=seat, game=field.game.info, players=k, seed=seed,
                                                    options={}) for seat in range(k)])
        for rotation in range(k):
            skills = [field.skills[(seat + rotation) % k] for seat in range(k)]
            scores = play(field, seed, [Skilled(field, seat, seed * 31 + rotation * 7 + seat, skill)
                                        for seat, skill in enumerate(skills)])
            names = tuple(f"skill-{skill}" for skill in skills)
            match = f"{seed}-r{rotation}"
            raw.append(MatchOutcome(match, str(seed), names, scores, ranks(scores)))
            luckless = tuple(score - value for score, value in zip(scores, reference, strict=True))
            adjusted.append(MatchOutcome(match, str(seed), names, luckless, ranks(luckless)))
    return raw, adjusted


def gaps(outcomes: list[MatchOutcome], method: str, names: list[str]) -> list[float]:
    """Each neighbour pair's gap (the stronger minus the weaker) in ``method``'s rating."""
    table = fit(outcomes, method)
    return [table[a].rating - table[b].rating for a, b in itertools.pairwise(names)]


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=20, help="replications per game (default 20)")
    parser.add_argument("--blocks", type=int, default=100, help="duplicate blocks per replication (default 100)")
    args = parser.parse_args()
    start = time.perf_counter()
    print(f"{args.reps} replications of {args.blocks} duplicate blocks per game; reference agent: greedy in every "
          "seat of the same deal")
    print("| game | pair | Elo: gap, actual sd | Elo: z | adjusted Elo: gap, actual sd | adjusted Elo: z "
          "| adjusted Elo: share of matches | score: z | adjusted score |")
    print("|---|---|---|---|---|---|---|---|---|")
    for field in FIELDS:
        names = [f"skill-{skill}" for skill in field.skills]
        found: dict[str, list[list[float]]] = {"elo": [], "adjusted elo": [], "score": []}
        same = True
        for rep in range(args.reps):
            raw, adjusted = replication(field, 10_000 * (rep + 1), args.blocks)
            found["elo"].append(gaps(raw, "elo", names))
            found["adjusted elo"].append(gaps(adjusted, "elo", names))
            score = gaps(raw, "score", names)
            found["score"].append(score)
            same &= all(math.isclose(a, b, abs_tol=1e-9) for a, b in zip(score, gaps(adjusted, "score", names),
                                                                         strict=True))
        for pair in range(len(names) - 1):
            summary = {}
            for label, values in found.items():
                column = [rep[pair] for rep in values]
                summary[label] = (statistics.fmean(column), statistics.stdev(column))
            z = {label: mean / sd for label, (mean, sd) in summary.items()}
            share = (z["elo"] / z["adjusted elo"]) ** 2
            print(f"| {field.name} | {names[pair]} − {names[pair + 1]} "
                  f"| {summary['elo'][0]:.0f}, {summary['elo'][1]:.0f} | {z['elo']:.2f} "
                  f"| {summary['adjusted elo'][0]:.0f}, {summary['adjusted elo'][1]:.0f} | {z['adjusted elo']:.2f} "
                  f"| {share:.2f} | {z['score']:.2f} | {'same' if same else 'differs'} |", flush=True)
    print(f"measured in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
