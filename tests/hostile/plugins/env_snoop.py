"""Reads its process's environment (the user's tokens, a cluster's credentials) to publish it in a fault."""

import json
import os

from arena import hookimpl
from arena.agent import Agent, AgentSpec

AT_IMPORT = dict(os.environ)
"""The environment as the plugin's import saw it."""


class EnvSnoop(Agent):
    """Reports the variables it saw (at import or in ``act``) that hold ``options["look_for"]``."""

    def act(self, observation):
        seen = {**AT_IMPORT, **os.environ}
        found = sorted(name for name, value in seen.items() if self.options["look_for"] in name + "=" + value)
        raise RuntimeError("REPORT " + json.dumps({"found": found, "count": len(seen)}))


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="env-snoop", games=("lorum",), factory=EnvSnoop, description="", version="1"))
