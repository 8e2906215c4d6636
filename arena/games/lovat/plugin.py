"""Registers Lovat with arena through the same hook as any third-party game."""

from __future__ import annotations

from collections.abc import Callable

from arena import hookimpl
from arena.games.base import Game
from arena.games.lovat.game import GAME


@hookimpl
def arena_register_games(register: Callable[[Game], None]) -> None:
    """Register the Lovat ``Game`` object."""
    register(GAME)
