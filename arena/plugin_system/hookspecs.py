"""Every hook an arena plugin can implement.

The pluggy marker name and the entry-point group are both ``arena``.  Plugins
register things by calling the ``register`` callback they are handed; behaviour
lives on the registered objects (``arena.agent.Agent``, ``arena.games.base.Game``),
not in hooks, because pluggy calls every implementation of a hook.

A third-party plugin's hooks run only in sandboxed processes of that plugin
(discovery, its zygote); its games, reporters, rating methods, tournament
formats and leaderboard views, which would run in the driver's process, load only when
``ARENA_PLUGINS_TRUST`` names it (``arena.plugins``, docs/security.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from arena.agent import AgentSpec
    from arena.games.base import Game
    from arena.leaderboard.views import View
    from arena.ratings.registry import MethodSpec
    from arena.tournament.formats import Format

PROJECT_NAME = "arena"
"""The pluggy project name, marker name and entry-point group."""

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@hookspec
def arena_register_games(register: Callable[[Game], None]) -> None:
    """Register game modules by calling ``register(game)`` once per ``Game`` object.

    The built-in games (Lovat, Slovak Lorum) register through this hook too.
    """


@hookspec
def arena_register_agents(register: Callable[[AgentSpec], None]) -> None:
    """Register agents by calling ``register(AgentSpec(...))`` once per agent.

    Each spec names the agent, the games it plays, a factory that builds a
    fresh agent for each match, a one-line description and a version.
    """


@hookspec
def arena_match_finished(record: Mapping[str, Any]) -> None:
    """Called after every match with its complete match record (JSON data), for reporters."""


@hookspec
def arena_register_rating_methods(register: Callable[[MethodSpec], None]) -> None:
    """Register rating methods by calling ``register(MethodSpec(...))`` once per method.

    The spec carries everything a view or config needs (label, digits, whether it bootstraps); the method is
    then a choice of ``ratings = [...]`` in configs and of ``arena leaderboard --method``.  Trusted code: it
    runs in the driver, so it loads only from arena itself or a plugin ``ARENA_PLUGINS_TRUST`` names.
    """


@hookspec
def arena_register_formats(register: Callable[[Format], None]) -> None:
    """Register tournament formats by calling ``register(format)`` once per ``arena.tournament.formats.Format``.

    A format carries its own config table, pool size and seat check; configs may then name it in ``format``.
    Trusted code, loaded as rating methods are.
    """


@hookspec
def arena_register_views(register: Callable[[View], None]) -> None:
    """Register leaderboard views by calling ``register(arena.leaderboard.View(...))`` once per view.

    A view is one file every published leaderboard then writes beside the others (its name, file name and
    ``render(leaderboard, head_to_head, title) -> str``).  Trusted code, loaded as rating methods are.
    """
