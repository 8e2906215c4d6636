"""The plugin module named by the ``arena`` entry point: it registers the game and its agent."""

from __future__ import annotations

from collections.abc import Callable

from arena import hookimpl
from arena.agent import AgentSpec
from arena.games.base import Game
from arena_example_game import __version__
from arena_example_game.agents import CounterAgent
from arena_example_game.game import GAME


@hookimpl
def arena_register_games(register: Callable[[Game], None]) -> None:
    """Register Pledge (loaded only when ARENA_PLUGINS_TRUST names this plugin: a game runs in the referee)."""
    register(GAME)


@hookimpl
def arena_register_agents(register: Callable[[AgentSpec], None]) -> None:
    """Register ``counter`` for Pledge (it runs sandboxed, like any third-party agent)."""
    register(AgentSpec(
        name="counter", games=("pledge",), factory=CounterAgent, version=__version__,
        description="Pledges its aces and high trumps; wins tricks until it has its pledge, then ducks.",
    ))
