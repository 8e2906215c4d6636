"""Helpers for the referee tests: small limits, seat plans, matches, the substitute-from-the-fault replay."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.agent import Agent, AgentSpec
from arena.plugins import Registry
from arena.records.seeding import derive_seed
from arena.referee import AgentHost, Limits, MatchResult, SeatPlan, play_match

BAD_AGENTS = Path(__file__).resolve().parents[1] / "bad_agents"

SMALL = Limits(move_seconds=0.2, bank_seconds=0.2, startup_seconds=2.0, memory_mb=64)
"""Small limits keep the suite fast: a hung agent costs 0.4 s."""


def plans(registry: Registry, names: Sequence[str], seed: int, isolation: Sequence[str] | str = "auto",
          options: dict[int, dict[str, Any]] | None = None) -> list[SeatPlan]:
    """Seat plans for ``names``, seeded as ``arena play`` seeds them."""
    modes = [isolation] * len(names) if isinstance(isolation, str) else list(isolation)
    return [
        SeatPlan(name=name, spec=registry.agent(name), seed=derive_seed(seed, "agent", seat),
                 options=(options or {}).get(seat, {}), isolation=modes[seat])
        for seat, name in enumerate(names)
    ]


def play(registry: Registry, host: AgentHost, game_name: str, names: Sequence[str], seed: int = 11,
         isolation: Sequence[str] | str = "auto", limits: Limits = SMALL,
         options: dict[int, dict[str, Any]] | None = None) -> MatchResult:
    """Play one match of ``game_name`` with agents ``names``."""
    game = registry.game(game_name)
    resolved = game.info.resolve_options(len(names), {})
    return play_match(game, resolved, seed, plans(registry, names, seed, isolation, options),
                      substitute=registry.agent("random"), limits=limits, host=host)


def replaced_from_fault(registry: Registry, game_name: str, names: Sequence[str], seed: int, seat: int,
                        record: dict[str, Any]) -> MatchResult:
    """The same match with ``seat`` played by its recorded actions up to its fault, then by the substitute.

    If the referee isolates faults properly this reproduces the faulty match
    action for action: the other seats cannot tell the difference.
    """
    fault_move = next(fault["move"] for fault in record["faults"] if fault["seat"] == seat)
    before = [entry["action"] for entry in record["actions"][:fault_move] if entry["seat"] == seat]
    substitute = registry.agent("random")

    class ScriptedThenSubstitute(Agent):
        def __init__(self, seat: int, game: Any, players: int, seed: int, options: Any) -> None:
            super().__init__(seat=seat, game=game, players=players, seed=seed, options=options)
            self.script = [tuple(action) if isinstance(action, list) else action for action in before]
            self.substitute: Agent | None = None

        def act(self, observation: Any) -> Any:
            if self.script:
                return self.script.pop(0)
            if self.substitute is None:  # built at the fault, as the referee builds its substitute
                self.substitute = substitute.factory(seat=self.seat, game=self.game, players=self.players,
                                                     seed=self.seed, options={})
            return self.substitute.act(observation)

    game = registry.game(game_name)
    resolved = game.info.resolve_options(len(names), {})
    seats = plans(registry, names, seed, "trusted")
    stand_in = AgentSpec(name="stand-in", games=(game_name,), factory=ScriptedThenSubstitute, description="",
                         version="0")
    seats[seat] = SeatPlan(name=names[seat], spec=stand_in, seed=seats[seat].seed, isolation="trusted")
    return play_match(game, resolved, seed, seats, substitute=substitute, limits=Limits(move_seconds=60))


def children_of(pid: int) -> list[int]:
    """Live (not zombie) child processes of ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def seats_left(host: AgentHost) -> list[int]:
    """Live seat processes of every zygote of ``host`` (none once each match is over)."""
    return [child for zygote in host.pids for child in children_of(zygote)]
