"""Helpers for the hostile suite: play a Lorum match with attackers seated, read what an attacker reported."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from arena.plugins import Registry
from arena.referee import AgentHost, Limits, MatchResult, SeatPlan, play_match
from arena.referee.confinement import sandbox_level
from arena.seeding import derive_seed

HOSTILE = Path(__file__).resolve().parent / "plugins"

LIMITS = Limits(move_seconds=2.0, bank_seconds=2.0, startup_seconds=10.0, memory_mb=256)
"""Generous time limits: an attack must fail because it is stopped, never because the machine is slow."""


def needs_sandbox() -> str:
    """The machine's sandbox level; skips the test (naming ``arena doctor``) where there is none."""
    level = sandbox_level()
    if level == "none":
        pytest.skip("this machine offers no sandbox for third-party agents: run 'arena doctor' to see what is missing")
    return level


def play(registry: Registry, host: AgentHost, names: Sequence[str], seed: int = 3,
         isolation: Sequence[str] | str = "auto", options: dict[int, dict[str, Any]] | None = None,
         limits: Limits = LIMITS) -> MatchResult:
    """One 4-player Lorum match with ``names`` seated in order."""
    modes = [isolation] * len(names) if isinstance(isolation, str) else list(isolation)
    game = registry.game("lorum")
    seats = [SeatPlan(name=name, spec=registry.agent(name), seed=derive_seed(seed, "agent", seat),
                      options=(options or {}).get(seat, {}), isolation=modes[seat])
             for seat, name in enumerate(names)]
    return play_match(game, game.info.resolve_options(len(names), {}), seed, seats,
                      substitute=registry.agent("random"), limits=limits, host=host)


def report_of(match: MatchResult, seat: int) -> dict[str, Any]:
    """What the attacker at ``seat`` reported; asserts that its fault is the match's only one."""
    faults = match.record["faults"]
    assert [fault["seat"] for fault in faults] == [seat], faults
    found = re.search(r"REPORT (\{.*\}) \(at ", faults[0]["message"])
    assert found is not None, faults[0]["message"]
    return json.loads(found.group(1))


def processes_named(name: str) -> list[int]:
    """Pids of live processes whose command name is ``name``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            comm = (entry / "comm").read_text().strip()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if comm == name and state != "Z":
            found.append(int(entry.name))
    return found
