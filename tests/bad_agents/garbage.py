"""Bad agent ``bad-garbage``: plays randomly for ``options["after"]`` decisions, then returns a non-action.

``options["value"]`` picks the garbage: "object" (default), "dict", "number", "none" or "list" (of numbers).
"""

from arena import hookimpl
from arena.agent import Agent, AgentSpec
from arena_agents.lorum import RandomLorumAgent
from arena_agents.lovat import RandomLovatAgent

GARBAGE = {
    "object": lambda: object(),
    "dict": lambda: {"card": "not an action"},
    "number": lambda: 42,
    "none": lambda: None,
    "list": lambda: [1, 2, 3],
}


class GarbageAgent(Agent):
    def __init__(self, seat, game, players, seed, options):
        super().__init__(seat=seat, game=game, players=players, seed=seed, options=options)
        inner = RandomLovatAgent if game.name == "lovat" else RandomLorumAgent
        self.inner = inner(seat=seat, game=game, players=players, seed=seed, options={})
        self.decisions = 0

    def act(self, observation):
        self.decisions += 1
        if self.decisions > self.options.get("after", 2):
            return GARBAGE[self.options.get("value", "object")]()
        return self.inner.act(observation)


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="bad-garbage", games=("lovat", "lorum"), factory=GarbageAgent,
                       description="returns values that are not actions", version="1.0"))
