"""Spreads its memory over child processes, so that no single process goes over a per-process limit."""

import os
import time

from arena import hookimpl
from arena.agent import Agent, AgentSpec


class TreeHog(Agent):
    """At its first decision: 6 children hold 48 MB each (touched), then it thinks while they live."""

    def act(self, observation):
        for _ in range(6):
            if os.fork() == 0:
                block = bytearray(48 << 20)
                for index in range(0, len(block), 4096):
                    block[index] = 1
                time.sleep(60)
                os._exit(0)
        time.sleep(1.5)
        return observation.legal[0]


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="tree-hog", games=("lorum",), factory=TreeHog, description="memory in children",
                       version="1"))
