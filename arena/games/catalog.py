"""The games installed in this process, by name, for code that knows a game only by the name a store recorded.

A leaderboard read back from a store (``arena leaderboard NAME``) knows its game by name alone, yet the
score's unit and divisor are the game's (``GameInfo.score``).  ``score_spec`` finds them among arena's own
games and, when ``ARENA_PLUGINS_TRUST`` names plugins, among the games those trusted plugins register
(``arena.plugins``: third-party games load only then).  A game that is no longer installed scores per game.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping

from arena.games.interface import Game, ScoreSpec


@functools.cache
def installed_games() -> Mapping[str, Game]:
    """Every game this process can load: the built-ins, and the trusted plugins' games (loaded once)."""
    from arena.plugins import TRUST_ENV, PluginManager, builtin_sources, load_registry  # imports games.base

    manager = PluginManager()
    for source in builtin_sources():
        manager.add(source)
    games = dict(manager.registry.games)
    if os.environ.get(TRUST_ENV, "").strip():
        games.update(load_registry().registry.games)
    return games


def score_spec(game: str) -> ScoreSpec:
    """The score declared by the installed game called ``game``; points per game if it is not installed."""
    found = installed_games().get(game)
    return found.info.score if found is not None else ScoreSpec()
