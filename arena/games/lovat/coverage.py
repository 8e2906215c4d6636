"""Lovat's coverage plan for ``arena check-agent``: its cases (a whole game reaches them all, given time).

Declared by ``LovatGame.coverage_plan``; the machinery (``Scenario``, ``CoveragePlan``) is ``arena.coverage``.
"""

from __future__ import annotations

from typing import Any

from arena.coverage import CoveragePlan, Scenario
from arena.games.base import Game

LOVAT_CASES = ("keep", "colour", "declare", "play", "void turn", "die round")
"""Lovat's cases: the keep (L-5), naming a colour, declarations and plays (L-10), discarding on another seat's
void turn (L-12), and any decision in the die round (L-14)."""


def _lovat_cases(observation: Any) -> tuple[str, ...]:
    phase = "void turn" if observation.phase == "void" else observation.phase
    return (phase, "die round") if observation.die_round else (phase,)


def _lovat_scenarios(game: Game, players: int) -> tuple[Scenario, ...]:
    return (Scenario("a whole game", players, {}, (), (), LOVAT_CASES),)


PLAN = CoveragePlan(LOVAT_CASES, _lovat_cases, _lovat_scenarios)
"""What ``arena check-agent`` drives an agent through at Lovat."""
