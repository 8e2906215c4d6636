"""OpenSkill ratings for arena: the plugin registers the rating method ``openskill`` (``arena_openskill.method``).

A rating method runs in arena's own process, so arena loads it only when ``ARENA_PLUGINS_TRUST`` names this
plugin (``openskill-ratings`` installed, or ``arena_openskill`` dropped into a plugins folder).
"""

from __future__ import annotations

from collections.abc import Callable

from arena import hookimpl
from arena.ratings.registry import MethodSpec

from .method import METHOD, fit  # relative: the package is also dropped into a plugins folder as is

__version__ = "0.1.0"

SPEC = MethodSpec(METHOD, fit, "OpenSkill mu", digits=1)
"""What leaderboards and configs know of the method: its column label and digits (no bootstrap)."""


@hookimpl
def arena_register_rating_methods(register: Callable[[MethodSpec], None]) -> None:
    """Register ``openskill``: a choice of ``ratings = [...]`` and of ``arena leaderboard --method``."""
    register(SPEC)
