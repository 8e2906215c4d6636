"""Registers Slovak Lorum through the ``arena_register_games`` hook, like any third-party game."""

from __future__ import annotations

from collections.abc import Callable

from arena import hookimpl
from arena.games.base import Game
from arena.games.lorum import GAME


@hookimpl
def arena_register_games(register: Callable[[Game], None]) -> None:
    """Register the Slovak Lorum game object."""
    register(GAME)
