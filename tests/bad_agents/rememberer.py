"""Bad agent ``bad-rememberer``: tries to carry what it saw from one match to the next.

Everything it observes goes into a module-level global, a class attribute and a
file in the temporary folder.  When built, it appends to ``options["report"]``
(JSON lines) what it finds of earlier matches in each of those places:
``{"global": [...], "class": [...], "file": [...]}``.  It plays legally (randomly).
In isolated mode every match must start with nothing remembered in memory.
"""

import json
import os
import tempfile
from typing import ClassVar

from arena import hookimpl
from arena.agent import Agent, AgentSpec
from arena_agents.lorum import RandomLorumAgent
from arena_agents.lovat import RandomLovatAgent

MEMORY: list = []


class RememberingAgent(Agent):
    SEEN: ClassVar[list] = []

    def __init__(self, seat, game, players, seed, options):
        super().__init__(seat=seat, game=game, players=players, seed=seed, options=options)
        inner = RandomLovatAgent if game.name == "lovat" else RandomLorumAgent
        self.inner = inner(seat=seat, game=game, players=players, seed=seed, options={})
        self.file = os.path.join(tempfile.gettempdir(), "bad-rememberer-memory.json")
        remembered = {"global": list(MEMORY), "class": list(RememberingAgent.SEEN), "file": []}
        if os.path.exists(self.file):
            with open(self.file) as memory:
                remembered["file"] = json.load(memory)
        if self.options.get("report"):
            with open(self.options["report"], "a") as out:
                out.write(json.dumps(remembered) + "\n")

    def act(self, observation):
        hand = list(observation.hand)
        MEMORY.append(hand)
        RememberingAgent.SEEN.append(hand)
        with open(self.file, "w") as memory:
            json.dump(MEMORY, memory)
        return self.inner.act(observation)


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="bad-rememberer", games=("lovat", "lorum"), factory=RememberingAgent,
                       description="tries to remember deals across matches", version="1.0"))
