"""Bad agent ``bad-raises``: plays randomly for ``options["after"]`` decisions (default 2), then raises."""

from arena import hookimpl
from arena.agent import Agent, AgentSpec
from arena_agents.lorum import RandomLorumAgent
from arena_agents.lovat import RandomLovatAgent


class RaisingAgent(Agent):
    def __init__(self, seat, game, players, seed, options):
        super().__init__(seat=seat, game=game, players=players, seed=seed, options=options)
        inner = RandomLovatAgent if game.name == "lovat" else RandomLorumAgent
        self.inner = inner(seat=seat, game=game, players=players, seed=seed, options={})
        self.decisions = 0

    def act(self, observation):
        self.decisions += 1
        if self.decisions > self.options.get("after", 2):
            raise ValueError("deliberately broken")
        return self.inner.act(observation)


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="bad-raises", games=("lovat", "lorum"), factory=RaisingAgent,
                       description="raises ValueError after a few decisions", version="1.0"))
