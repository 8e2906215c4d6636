"""The game conformance kit under its documented name: ``from arena.testing import check_game``.

It lives in ``arena.conformance.games`` with the rest of the conformance kits (docs/writing-games.md).
"""

from arena.conformance.games import GameCheck, check_game

__all__ = ["GameCheck", "check_game"]
