"""The agent interface: what a plugin implements and what the referee calls.

It stays at the top of ``arena`` because it is the public entry point of agent authors: docs/writing-agents.md,
the example plugins and every first-party agent import ``Agent`` and ``AgentSpec`` from ``arena.agent``.

An agent is created fresh for every match (so it cannot carry knowledge of a
deal from one match of a duplicate block to the next).  It only ever receives
observations, public events and the final result: plain, immutable data that
references no game state.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from arena.games.base import Action, GameInfo, Observation
from arena.seating.options import NO_OPTIONS, AgentOptions


class Agent:
    """Base class for agents.  Subclasses override ``act`` and optionally the hooks below."""

    def __init__(self, seat: int, game: GameInfo, players: int, seed: int, options: Mapping[str, Any]) -> None:
        self.seat = seat  # this agent's seat, 0-based, clockwise / in play order
        self.game = game  # the game's declared info (id, player counts, options)
        self.players = players  # number of seats at the table
        self.seed = seed  # seed for the agent's own RNG, derived from the match seed
        self.options = dict(options)  # per-agent options from the tournament config

    def act(self, observation: Observation) -> Action:
        """Return one of the legal actions for ``observation``."""
        raise NotImplementedError

    def on_event(self, event: Mapping[str, Any]) -> None:
        """Told each public event as it happens (optional)."""

    def on_result(self, result: Mapping[str, Any]) -> None:
        """Told the final result as JSON data (optional)."""


ANY_GAME = "*"
"""In ``AgentSpec.games``: the agent plays every registered game (the random agent, ``arena.seating.substitute``)."""

AgentFactory = Callable[..., Agent]
"""Called as ``factory(seat=, game=, players=, seed=, options=)``; returns a fresh ``Agent``."""


@dataclass(frozen=True, slots=True)
class AgentSpec:
    """An agent as a plugin registers it."""

    name: str  # unique name used in configs and on the command line, e.g. "greedy"
    games: tuple[str, ...]  # short names of the games it plays, e.g. ("lovat", "lorum"); ANY_GAME for all
    factory: AgentFactory  # builds a fresh agent for one match
    description: str  # one line for `arena agents`
    version: str  # the agent's own version, recorded with every match
    trusted: bool = False  # ignored: where an agent runs comes from its origin (arena.plugins), not from its plugin
    options: AgentOptions = NO_OPTIONS  # the options it accepts (arena.options); by default none

    def plays(self, game_name: str) -> bool:
        """Whether this agent plays the game with short name ``game_name``."""
        return game_name in self.games or ANY_GAME in self.games
