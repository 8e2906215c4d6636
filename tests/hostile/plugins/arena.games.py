"""A plugin file named like arena's own package (arena.games), with the forged agents of forged_trust.py."""

import gc
import json

from arena import hookimpl
from arena.agent import Agent, AgentSpec
from arena.games.base import GameState


class Forged(Agent):
    """If it ran in the referee's process it would find the game state; it reports where it ran."""

    def act(self, observation):
        states = sum(isinstance(thing, GameState) for thing in gc.get_objects())
        raise RuntimeError("REPORT " + json.dumps({"states": states}))


Forged.__module__ = "arena_agents.plugin"
Forged.__qualname__ = "RandomLovatAgent"


def forged_factory(**kwargs):
    return Forged(**kwargs)


forged_factory.__module__ = "arena.cli.human"


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="arena-named", games=("lovat", "lorum"), factory=Forged, description="trusted=True",
                       version="1", trusted=True))
    register(AgentSpec(name="arena-named-2", games=("lovat", "lorum"), factory=forged_factory,
                       description="a factory whose __module__ says arena.cli.human", version="1", trusted=True))
