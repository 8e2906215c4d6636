"""What ``arena check-agent`` must drive an agent through: every phase and case of a game, and how to reach it.

A game declares its ``CoveragePlan`` (``Game.coverage_plan``; the built-in
games' plans are ``arena/games/lorum/coverage.py`` and
``arena/games/lovat/coverage.py``): it names the game's cases, tells which case
a decision is in from the deciding seat's observation, and lists scenarios
that reach them: a match with chosen game options, a scripted start of the
deal (``Game.new_state(script=...)``) and forced opening actions (the bidding
that makes a contract), the checked agent always in seat 0.  The check plays
scenarios until every case has been reached at every player count or the
attempts run out; a case never reached fails the check.  A game without a
plan is checked without a coverage table.

Cases are read from the match record by replaying it through the engine, so
nothing runs inside the agent's process and the agent cannot claim coverage.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.games.base import Game
from arena.records import action_from_json

ATTEMPTS = 8
"""Scenario rounds tried before a case still unreached counts as never reached."""


@dataclass(frozen=True, slots=True)
class Scenario:
    """One match that aims at some cases."""

    label: str  # what it sets up, e.g. "small game, another seat bid"
    players: int  # seats at the table
    game_options: Mapping[str, Any]  # game options besides players (e.g. deals = 1)
    script: tuple[dict[str, Any], ...] = ()  # chance outcomes fixed up front (e.g. the dealer)
    prefix: tuple[tuple[int, str], ...] = ()  # forced opening actions (a deal's bidding, seat 0's call included)
    targets: tuple[str, ...] = ()  # the cases it is meant to reach


@dataclass(frozen=True, slots=True)
class CoveragePlan:
    """A game's cases, how to classify a decision, and the scenarios that reach the cases."""

    cases: tuple[str, ...]  # every case, in table order
    classify: Callable[[Any], tuple[str, ...]]  # observation of the deciding seat -> the cases it is in
    scenarios: Callable[[Game, int], tuple[Scenario, ...]]  # (game, players) -> scenarios for that count


@dataclass(slots=True)
class Coverage:
    """Decisions the checked agent made in each case, per player count."""

    plan: CoveragePlan
    player_counts: tuple[int, ...]
    decisions: dict[tuple[int, str], int] = field(default_factory=dict)  # (players, case) -> decisions

    def add_match(self, game: Game, record: Mapping[str, Any], seat: int, forced: int) -> None:
        """Count the decisions ``seat`` was asked in a recorded match (not the ``forced`` opening actions, nor a
        substitute's after the seat's first fault, nor any of a seat that never started)."""
        players = record["options"]["players"]
        state = game.new_state(record["seed"], record["options"], script=record["chance"])
        first = min(((fault["move"], fault.get("phase") == "startup") for fault in record["faults"]
                     if fault["seat"] == seat), default=None)
        for move, entry in enumerate(record["actions"]):
            # The faulted decision was asked of the seat (counted), unless it never started (asked nothing).
            if first is not None and (move > first[0] or (move == first[0] and first[1])):
                break
            if entry["seat"] == seat and move >= forced:
                for case in self.plan.classify(state.observation(seat)):
                    key = (players, case)
                    self.decisions[key] = self.decisions.get(key, 0) + 1
            state.apply(entry["seat"], action_from_json(entry["action"]))

    def missing(self, players: int | None = None) -> list[tuple[int, str]]:
        """(players, case) pairs never reached, in table order."""
        counts = self.player_counts if players is None else (players,)
        return [(count, case) for count in counts for case in self.plan.cases
                if not self.decisions.get((count, case))]

    def to_json(self) -> dict[str, dict[str, int]]:
        """``{players: {case: decisions}}`` with every case listed (zeros included)."""
        return {str(count): {case: self.decisions.get((count, case), 0) for case in self.plan.cases}
                for count in self.player_counts}

    def table(self) -> list[str]:
        """The coverage table: one line per case, decisions per player count, ``MISSING`` where none."""
        width = max(len(case) for case in self.plan.cases)
        header = "  " + "case".ljust(width) + "".join(f"  {count} players".rjust(12) for count in self.player_counts)
        lines = [header]
        for case in self.plan.cases:
            cells = "".join(str(self.decisions.get((count, case), 0) or "MISSING").rjust(12)
                            for count in self.player_counts)
            lines.append("  " + case.ljust(width) + cells)
        return lines


def scenarios_for(coverage: Coverage, game: Game, players: int) -> Sequence[Scenario]:
    """The scenarios at ``players`` that still aim at an unreached case."""
    missing = {case for _, case in coverage.missing(players)}
    return [scenario for scenario in coverage.plan.scenarios(game, players) if missing & set(scenario.targets)]
