"""Agent ``core-reporter``: plays randomly and prints, at each decision, the cores its process may run on.

With ``options["widen"]`` it first asks for every core of the machine, as a seat trying to run beside its
match, or on another match's core, would: a sandboxed seat is refused.
"""

import os

from arena import hookimpl
from arena.agent import Agent, AgentSpec
from arena_agents.lorum import RandomLorumAgent

PREFIX = "CORES "


class CoreReporter(Agent):
    def __init__(self, seat, game, players, seed, options):
        super().__init__(seat=seat, game=game, players=players, seed=seed, options=options)
        self.inner = RandomLorumAgent(seat=seat, game=game, players=players, seed=seed, options={})

    def act(self, observation):
        if self.options.get("widen"):
            try:
                os.sched_setaffinity(0, range(os.cpu_count() or 1))
            except OSError:
                pass
        print(PREFIX + ",".join(str(core) for core in sorted(os.sched_getaffinity(0))), flush=True)
        return self.inner.act(observation)


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="core-reporter", games=("lorum",), factory=CoreReporter,
                       description="prints the cores it may run on", version="1.0"))
