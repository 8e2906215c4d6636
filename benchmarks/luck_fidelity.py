"""The luck method on real Lovat matches: its intervals, identical agents, and the matches a verdict needs.

Fields of ``skilled`` agents (greedy with probability ``skill`` per decision, else random: benchmarks/luck_control.py)
play complete duplicate blocks of 3-player Lovat (strong 0.8, twin-a and twin-b 0.65), 4-player Lovat (the same
and weak 0.5) and 5-player Lovat (the same and weakest 0.35); twin-a and twin-b are the same agent under two
names.  Each replication plays ``blocks`` blocks on
fresh deals and computes each match's luck correction as a run does (``arena.tournament.luck``: the die valued by
Lovat's declared reference, greedy), then is rated four ways: ``luck``; the same matches without their corrections
(the raw seats beaten, ``luck`` with nothing subtracted); ``score``; ``elo``.  Printed per field and rating:

* coverage of the 95% intervals and the actual over the reported spread (``arena.ratings.fidelity.measure``: the
  target is the rating's mean over the other replications);
* how often the twins were called different at the 5% level (P(stronger) beyond 0.975 either way: 5% is right);
* ``z`` of each neighbour gap (strong − twin-a, and twin-b − weak with 4 or 5 players: mean over the actual spread
  across replications) and the matches the rating needs for Elo's verdict, ``(z_elo / z)^2``, with a 90% bootstrap
  interval over the replications; and how often P(strong stronger than twin-a) reached 0.99.

Then each agent's mean correction over its matches (expectation zero) and the correction's CPU time per match.

    python benchmarks/luck_fidelity.py               # 3 players: 100 replications of 20 blocks; 4: 60; 5: 40
    python benchmarks/luck_fidelity.py --quick       # 3 players: 3 replications of 3 blocks; 4 and 5: 2 of 2
    python benchmarks/luck_fidelity.py --players 5   # one field only (repeat the option for more)
"""

from __future__ import annotations

import dataclasses
import functools
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

from arena.games.lovat import GAME as LOVAT  # noqa: E402 -- after the path set-up above
from arena.plugins import load_trusted_registry  # noqa: E402
from arena.ratings import fit  # noqa: E402
from arena.ratings.data import MatchOutcome  # noqa: E402
from arena.ratings.fidelity import measure  # noqa: E402
from arena.tournament.luck import record_luck  # noqa: E402
from arena_agents.lovat import GreedyLovatAgent, RandomLovatAgent  # noqa: E402
from benchmarks import common  # noqa: E402
from benchmarks.luck_control import Field, Skilled  # noqa: E402
from benchmarks.luck_dice import play, share  # noqa: E402

FIELDS: dict[int, dict[str, float]] = {
    3: {"strong": 0.8, "twin-a": 0.65, "twin-b": 0.65},
    4: {"strong": 0.8, "twin-a": 0.65, "twin-b": 0.65, "weak": 0.5},
    5: {"strong": 0.8, "twin-a": 0.65, "twin-b": 0.65, "weak": 0.5, "weakest": 0.35},
}
"""Each field's agents and skills, strongest first; the twins are one agent under two names."""

SIZES = {"quick": {3: (3, 3), 4: (2, 2), 5: (2, 2)}, "default": {3: (100, 20), 4: (60, 20), 5: (40, 20)}}
"""(replications, blocks) per field."""

RATINGS = ("luck", "raw seats beaten", "score", "elo")
"""The ratings compared: the luck method, it without the corrections, and two of today's methods."""


@dataclasses.dataclass
class Played:
    """A field's replications, played once and rated every way: ``measure`` takes it as a field."""

    players: int
    blocks: int
    keep_luck: bool = True
    cache: dict[int, list[MatchOutcome]] = dataclasses.field(default_factory=dict)
    clock: list[float] = dataclasses.field(default_factory=list)  # CPU seconds of each correction

    def strengths(self) -> dict[str, float]:
        """The skills: their order is the true one (the twins tie)."""
        return dict(FIELDS[self.players])

    def outcomes(self, replication: int) -> list[MatchOutcome]:
        """The replication's matches, with their corrections or (``keep_luck`` off) without."""
        if replication not in self.cache:
            self.cache[replication] = self._play(replication)
        found = self.cache[replication]
        return found if self.keep_luck else [dataclasses.replace(outcome, luck=None) for outcome in found]

    def without_luck(self) -> Played:
        """The same replications (shared, played once), rated without their corrections."""
        return dataclasses.replace(self, keep_luck=False)

    def _play(self, replication: int) -> list[MatchOutcome]:
        names = list(FIELDS[self.players])
        skills = tuple(FIELDS[self.players].values())
        field = Field(f"lovat {self.players}p", LOVAT, {"players": self.players}, GreedyLovatAgent, RandomLovatAgent,
                      skills)
        found = []
        for block in range(self.blocks):
            seed = 50_000 * (replication + 1) + block
            for rotation in range(self.players):
                order = [(seat + rotation) % self.players for seat in range(self.players)]
                record = play(field, seed, [Skilled(field, seat, seed * 31 + rotation * 7 + seat, skills[agent])
                                            for seat, agent in enumerate(order)])
                started = time.process_time()
                luck = record_luck(_registry(), LOVAT, record)
                self.clock.append(time.process_time() - started)
                result = record["result"]
                found.append(MatchOutcome(f"{seed}-r{rotation}", str(seed), tuple(names[agent] for agent in order),
                                          tuple(map(float, result.scores)), result.ranks,
                                          luck=None if luck is None else tuple(luck)))
        return found


@functools.cache
def _registry() -> Any:
    """Arena's own plugins (greedy, the reference Lovat declares), loaded once."""
    return load_trusted_registry().registry


def rating(played: Played, name: str, replication: int) -> Any:
    """Replication ``replication`` rated the way ``name`` says."""
    if name == "raw seats beaten":
        return fit(played.without_luck().outcomes(replication), "luck")
    return fit(played.outcomes(replication), name)


def study(players: int, replications: int, blocks: int, rng: random.Random) -> tuple[list[str], list[str], str]:
    """One field: its rows of the ratings table, of the mean corrections, and of the CPU time."""
    played = Played(players, blocks)
    names = list(FIELDS[players])
    pairs = [("strong", "twin-a")] + ([("twin-b", "weak")] if "weak" in names else [])
    gaps: dict[str, list[list[float]]] = {name: [] for name in RATINGS}  # per replication, each pair's gap
    found, twins, verdicts = {}, dict.fromkeys(RATINGS, 0), dict.fromkeys(RATINGS, 0)
    for name in RATINGS:
        source = played.without_luck() if name == "raw seats beaten" else played
        found[name] = measure("luck" if name == "raw seats beaten" else name, source, replications)
        for replication in range(replications):
            table = rating(played, name, replication)
            p = table.probability_stronger("twin-a", "twin-b")
            twins[name] += p > 0.975 or p < 0.025
            verdicts[name] += table.probability_stronger("strong", "twin-a") >= 0.99
            gaps[name].append([table[a].rating - table[b].rating for a, b in pairs])
    rows = []
    for name in RATINGS:
        cells = [f"{found[name].coverage:.1%} ({found[name].spread_ratio:.2f})", f"{twins[name] / replications:.0%}"]
        for index, (a, b) in enumerate(pairs):
            mine, elo = ([gap[index] for gap in gaps[key]] for key in (name, "elo"))
            point, low, high = share(elo, mine, rng)
            cells.append(f"{statistics.fmean(mine) / statistics.stdev(mine):.2f}, {point:.2f} ({low:.2f}–{high:.2f})"
                         f" of {a} − {b}")
        cells += ["–"] * (2 - len(pairs))  # a 3-player field has one neighbour pair (5 players: the first two)
        cells.append(f"{verdicts[name] / replications:.0%}")
        rows.append(f"| {players}p | {name} | " + " | ".join(cells) + " |")
    means = []
    every = [outcome for replication in range(replications) for outcome in played.outcomes(replication)]
    for agent in names:
        parts = [outcome.luck[seat] for outcome in every for seat, seated in enumerate(outcome.agents)
                 if seated == agent and outcome.luck is not None]
        means.append(f"| {players}p | {agent} | {statistics.fmean(parts):+.4f} | "
                     f"{statistics.stdev(parts) / len(parts) ** 0.5:.4f} | {len(parts):,} |")
    cost = f"| {players}p | {1000 * statistics.fmean(played.clock):.0f} | {replications} × {blocks} blocks |"
    return rows, means, cost


def main(argv: Sequence[str] | None = None) -> None:
    """Print the tables."""
    parser = common.size_parser(__doc__)
    parser.add_argument("--players", type=int, action="append", choices=sorted(FIELDS),
                        help="a field to study (repeatable; default every field)")
    args = parser.parse_args(argv)
    size = args.size or "default"
    started = time.perf_counter()
    rng = random.Random(11)
    tables: tuple[list[str], list[str], list[str]] = ([], [], [])
    for players, (replications, blocks) in SIZES[size].items():
        if args.players and players not in args.players:
            continue
        rows, means, cost = study(players, replications, blocks, rng)
        tables[0].extend(rows)
        tables[1].extend(means)
        tables[2].append(cost)
        print(f"  {players} players: {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    print("| field | rating | coverage (actual/reported sd) | twins called different | z, matches for Elo's verdict "
          "| the same, twin-b − weak (4 or 5 players) | P(strong > twin-a) ≥ 0.99 |\n|---|---|---|---|---|---|---|")
    print("\n".join(tables[0]))
    print("\n| field | agent | mean correction | its standard error | matches |\n|---|---|---|---|---|")
    print("\n".join(tables[1]))
    print("\n| field | correction's CPU ms per match | size |\n|---|---|---|")
    print("\n".join(tables[2]))
    print(f"measured in {time.perf_counter() - started:.0f} s; {common.machine_line()}")


if __name__ == "__main__":
    main()
