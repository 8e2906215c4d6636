"""The line protocol's cost: a program seat's decision beside a sandboxed Python seat's and a trusted one's.

Per decision, for a trivial agent (the referee's overhead, which the protocol must not dominate), seen by the
referee from the request to the checked action (``MatchResult.move_seconds``; a process seat's includes
thawing and freezing it):

* **trusted**: the agent ``random`` in the referee's process;
* **sandboxed Python**: the same agent in its sandboxed seat (framed JSON over a socket);
* **protocol, C** and **protocol, JavaScript**: the starter kits (``plugins/c-starter``, first legal action;
  ``plugins/js-starter``, last legal action) through the line protocol, in the same sandbox.

Then matches per second of 4-player Lorum: a table of four C starter agents (sandboxed programs) beside a
table of four built-in greedy agents (trusted) and one of four sandboxed Python seats, on the same deals, one
match at a time.  Medians over the
rounds; the cases interleaved so that a busy neighbour slows them all.

    .venv/bin/python benchmarks/protocol.py            # default sizes
    .venv/bin/python benchmarks/protocol.py --quick    # a few matches (smoke test)
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):
    import common  # type: ignore[import-not-found]  # run as a script: benchmarks/ is on sys.path
else:
    from benchmarks import common

from arena.plugins import Registry, load_registry
from arena.records.seeding import derive_seed
from arena.referee import AgentHost, Limits, MatchResult, SeatPlan, play_match
from arena.referee.confinement import sandbox_level

ROUNDS = {"quick": 2, "default": 12, "full": 40}
"""Matches per case."""

KITS = Path(__file__).resolve().parents[1] / "plugins"

LIMITS = Limits(move_seconds=2.0, bank_seconds=10.0, startup_seconds=30.0)
"""Generous: a measurement must never end in a timeout."""

DECISION_CASES = (("trusted", "random", "trusted"), ("sandboxed Python", "random", "sandboxed"),
                  ("protocol, C", "c-starter", "auto"), ("protocol, JavaScript", "js-starter", "auto"))
"""(case, agent, isolation) of the per-decision rows."""

TABLES = (("greedy", "trusted"), ("random", "sandboxed"), ("c-starter", "auto"))
"""(agent, isolation) of the tables timed per match: the C programs beside trusted greedy agents, and beside
sandboxed Python seats (what a table of third-party Python agents costs)."""


def _match(registry: Registry, host: AgentHost, names: Sequence[str], isolation: Sequence[str],
           seed: int) -> MatchResult:
    game = registry.game("lorum")
    seats = [SeatPlan(name=f"{name}-{seat}", spec=registry.agent(name), seed=derive_seed(seed, "agent", seat),
                      isolation=isolation[seat]) for seat, name in enumerate(names)]
    result = play_match(game, game.info.resolve_options(4, {}), seed, seats, limits=LIMITS, host=host)
    assert not result.record["faults"], result.record["faults"]
    return result


def measure(size: str) -> list[common.Row]:
    """Every row of this section at ``size`` ("quick", "default" or "full")."""
    if sandbox_level() == "none":
        return [common.Row("protocol", "program seat", "not available", "",
                           "this machine offers no sandbox: run 'arena doctor'")]
    registry = load_registry(plugins_dir=KITS, entry_points=False).registry
    cases = [case for case in DECISION_CASES if case[1] in registry.agents
             and (case[1] != "js-starter" or shutil.which("node"))]
    rounds = ROUNDS[size]
    decisions: dict[str, list[float]] = {case: [] for case, _agent, _mode in cases}
    per_match: dict[str, list[float]] = {"greedy": [], "random": [], "c-starter": []}
    with AgentHost() as host:
        for _case, agent, mode in cases:  # a first match builds the kits and starts every zygote
            _match(registry, host, [agent, "random", "random", "random"], [mode] + ["trusted"] * 3, 1)
        for index in range(rounds):
            seed = 100 + index
            for case, agent, mode in cases:
                result = _match(registry, host, [agent, "random", "random", "random"], [mode] + ["trusted"] * 3,
                                seed)
                decisions[case] += result.move_seconds[0]
            for agent, mode in TABLES:
                started = time.perf_counter()
                _match(registry, host, [agent] * 4, [mode] * 4, seed)
                per_match[agent].append(time.perf_counter() - started)
    how = f"{rounds} matches of 4-player Lorum per case, the agent in seat 0, cases interleaved"
    trusted = common.median(decisions["trusted"])
    python = common.median(decisions["sandboxed Python"])
    rows = []
    for case, _agent, _mode in cases:
        value = common.median(decisions[case])
        comparison = f"{common.ratio(value / trusted)} trusted"
        if case.startswith("protocol"):
            comparison += f"; {common.ratio(value / python)} sandboxed Python"
        rows.append(common.Row("protocol", f"per decision, trivial agent: {case}", common.us(value), comparison,
                               f"{how}; median of {len(decisions[case])} decisions, request to checked action"))
    for agent, label in (("greedy", "4 built-in greedy, trusted"), ("random", "4 built-in random, sandboxed"),
                         ("c-starter", "4 C starter programs, sandboxed")):
        rate = 1 / common.median(per_match[agent])
        comparison = "" if agent == "greedy" else f"{common.ratio(rate * common.median(per_match['greedy']))} greedy's"
        if agent == "c-starter":
            comparison += f"; {common.ratio(rate * common.median(per_match['random']))} sandboxed Python's"
        rows.append(common.Row("protocol", f"matches per second, Lorum, a table of {label}", f"{rate:.1f}/s",
                               comparison,
                               f"median of {rounds} matches, one at a time, seats started and stopped per match"))
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    """Run this script's measurements at the size the command line asks for and print the table."""
    size = common.size_from_args(__doc__, argv)
    common.print_table("Protocol", measure(size))


if __name__ == "__main__":
    main()
