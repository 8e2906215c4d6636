"""The games installed in this process, by name, for code that knows a game only by the name a store recorded.

A leaderboard read back from a store (``arena leaderboard NAME``) knows its game by name alone, yet the
score's unit and divisor are the game's (``GameInfo.score``).  ``score_spec`` finds them among arena's own
games and, when ``ARENA_PLUGINS_TRUST`` names plugins, among the games those trusted plugins register
(``arena.plugins``: third-party games load only then).  A game that is no longer installed scores per game.
``luck_spec`` finds the chance its luck correction values (``GameInfo.luck``) alike.
``installed_game`` finds one game so, from a given plugins folder (the site's match pages replay with it).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from pathlib import Path

from arena.games.interface import Game, ScoreSpec
from arena.games.luck import LuckSpec


def _builtin_games() -> dict[str, Game]:
    """Arena's own games (no third-party plugin is looked at)."""
    from arena.plugin_system.loading import PluginManager, builtin_sources  # imports games.base

    manager = PluginManager()
    for source in builtin_sources():
        manager.add(source)
    return dict(manager.registry.games)


def _trusted_games(plugins_dir: Path | str | None) -> Mapping[str, Game]:
    """Every game loaded when ``ARENA_PLUGINS_TRUST`` names plugins (those plugins' games, from ``plugins_dir`` or
    installed packages, beside the built-ins); nothing otherwise.

    A third-party game runs in this process, so it loads only when trusted (``arena.plugins``); without trust no
    third-party plugin is discovered at all, since none of its games could load.  A plugin's game named like a
    built-in is refused (the built-in stays).
    """
    from arena.plugin_system.loading import TRUST_ENV, load_registry  # imports games.base

    if not os.environ.get(TRUST_ENV, "").strip():
        return {}
    return load_registry(plugins_dir=plugins_dir).registry.games


def installed_game(name: str, plugins_dir: Path | str | None) -> Game | None:
    """The game ``name``, read afresh: a built-in, else a trusted plugin's from ``plugins_dir`` or installed
    packages (plugins are looked at only for a game that is not built in); None when it is not installed."""
    found = _builtin_games().get(name)
    return found if found is not None else _trusted_games(plugins_dir).get(name)


@functools.cache
def installed_games() -> Mapping[str, Game]:
    """Every game this process can load: the built-ins, and the trusted plugins' games (loaded once)."""
    from arena.plugin_system.loading import DEFAULT_PLUGINS_DIR  # imports games.base

    return {**_builtin_games(), **_trusted_games(DEFAULT_PLUGINS_DIR)}


def score_spec(game: str) -> ScoreSpec:
    """The score declared by the installed game called ``game``; points per game if it is not installed."""
    found = installed_games().get(game)
    return found.info.score if found is not None else ScoreSpec()


def luck_spec(game: str) -> LuckSpec | None:
    """The chance the installed game called ``game`` values for its luck correction; None if it declares none or
    is not installed."""
    found = installed_games().get(game)
    return found.info.luck if found is not None else None
