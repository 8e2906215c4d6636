"""Bad agent ``bad-unsteady``: legal but not deterministic (its RNG ignores the seed it is given)."""

import os

from arena import hookimpl
from arena.agent import Agent, AgentSpec
from arena_agents.lorum import RandomLorumAgent
from arena_agents.lovat import RandomLovatAgent


class UnsteadyAgent(Agent):
    def __init__(self, seat, game, players, seed, options):
        super().__init__(seat=seat, game=game, players=players, seed=seed, options=options)
        inner = RandomLovatAgent if game.name == "lovat" else RandomLorumAgent
        entropy = int.from_bytes(os.urandom(8), "big")  # the bug: not self.seed
        self.inner = inner(seat=seat, game=game, players=players, seed=entropy, options={})

    def act(self, observation):
        return self.inner.act(observation)


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="bad-unsteady", games=("lovat", "lorum"), factory=UnsteadyAgent,
                       description="random, but not from its seed", version="1.0"))
