"""Bad agent ``bad-printer``: prints ``options["megabytes"]`` (default 2) MB to stdout and stderr per decision.

It plays legally (randomly): the referee must neither show the output nor hold it in memory.
"""

import sys

from arena import hookimpl
from arena.agent import Agent, AgentSpec
from arena_agents.lorum import RandomLorumAgent
from arena_agents.lovat import RandomLovatAgent

MARKER = "BAD-PRINTER-OUTPUT "


class PrintingAgent(Agent):
    def __init__(self, seat, game, players, seed, options):
        super().__init__(seat=seat, game=game, players=players, seed=seed, options=options)
        inner = RandomLovatAgent if game.name == "lovat" else RandomLorumAgent
        self.inner = inner(seat=seat, game=game, players=players, seed=seed, options={})
        self.text = (MARKER * (1 << 16))[: int(self.options.get("megabytes", 2) * (1 << 20))]

    def act(self, observation):
        print(self.text)
        print(self.text, file=sys.stderr)
        return self.inner.act(observation)


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="bad-printer", games=("lovat", "lorum"), factory=PrintingAgent,
                       description="floods stdout and stderr", version="1.0"))
