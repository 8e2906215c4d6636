"""Bad agent ``bad-sleeper``: too slow.

Sleeps ``options["startup"]`` seconds when built (default 0), then plays
randomly for ``options["after"]`` decisions (default 2) and afterwards sleeps
``options["seconds"]`` (default 10) before each decision.
"""

import time

from arena import hookimpl
from arena.agent import Agent, AgentSpec
from arena_agents.lorum import RandomLorumAgent
from arena_agents.lovat import RandomLovatAgent


class SleepingAgent(Agent):
    def __init__(self, seat, game, players, seed, options):
        super().__init__(seat=seat, game=game, players=players, seed=seed, options=options)
        time.sleep(self.options.get("startup", 0))
        inner = RandomLovatAgent if game.name == "lovat" else RandomLorumAgent
        self.inner = inner(seat=seat, game=game, players=players, seed=seed, options={})
        self.decisions = 0

    def act(self, observation):
        self.decisions += 1
        if self.decisions > self.options.get("after", 2):
            time.sleep(self.options.get("seconds", 10))
        return self.inner.act(observation)


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="bad-sleeper", games=("lovat", "lorum"), factory=SleepingAgent,
                       description="sleeps past the time limit", version="1.0"))
