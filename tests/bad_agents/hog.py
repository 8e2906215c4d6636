"""Bad agent ``bad-hog``: plays randomly for ``options["after"]`` decisions, then allocates until stopped."""

from arena import hookimpl
from arena.agent import Agent, AgentSpec
from arena_agents.lorum import RandomLorumAgent
from arena_agents.lovat import RandomLovatAgent

HOARD: list = []


class HogAgent(Agent):
    def __init__(self, seat, game, players, seed, options):
        super().__init__(seat=seat, game=game, players=players, seed=seed, options=options)
        inner = RandomLovatAgent if game.name == "lovat" else RandomLorumAgent
        self.inner = inner(seat=seat, game=game, players=players, seed=seed, options={})
        self.decisions = 0

    def act(self, observation):
        self.decisions += 1
        if self.decisions > self.options.get("after", 2):
            while True:
                HOARD.append(bytearray(16 << 20))
        return self.inner.act(observation)


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="bad-hog", games=("lovat", "lorum"), factory=HogAgent,
                       description="allocates memory until stopped", version="1.0"))
