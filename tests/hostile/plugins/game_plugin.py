"""Registers a game, which would run in the referee's process (here arena's own Lorum object, re-registered)."""

from arena import hookimpl


@hookimpl
def arena_register_games(register):
    from arena.games.lorum import GAME

    register(GAME)
