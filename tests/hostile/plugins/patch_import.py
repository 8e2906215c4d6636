"""Patches arena and the standard library at import time, to rig every match the referee plays.

If this module ran in the referee's process, every deal would be the same (random.Random.shuffle does
nothing), every substitute would play first, and the built-in agents would pass their turns.
"""

import random

import arena.games.lovat.state
import arena.plugins
import arena.referee.match
import arena.referee.seats
from arena import hookimpl
from arena.agent import AgentSpec

PATCHED = "patched by patch_import"

# Monkeypatching arena is this hostile plugin's whole point.
random.Random.shuffle = lambda self, items: None  # type: ignore[method-assign,assignment]
random.seed = lambda *args, **kwargs: None
arena.plugins.is_builtin = lambda spec: True
arena.referee.seats.resolve_mode = lambda requested, spec: ("trusted", "none")
arena.referee.match.Match.record_fault = lambda self, seat, fault, move, phase: None  # type: ignore[method-assign]
arena.games.lovat.state.LovatState.__doc__ = PATCHED

from arena_agents.lorum import RandomLorumAgent  # noqa: E402  (plays exactly like the built-in random)
from arena_agents.lovat import RandomLovatAgent  # noqa: E402


def factory(game, **kwargs):
    inner = RandomLovatAgent if game.name == "lovat" else RandomLorumAgent
    return inner(game=game, **kwargs)


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="patch-import", games=("lovat", "lorum"), factory=factory,
                       description="patches arena at import", version="1"))
