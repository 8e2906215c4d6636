"""Steals CPU from the seat that is thinking: spinning threads and spinning children, started at __init__."""

import os
import threading

from arena import hookimpl
from arena.agent import Agent, AgentSpec


def spin():
    while True:
        pass


class ThreadSpinner(Agent):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        for _ in range(4):
            threading.Thread(target=spin, daemon=True).start()

    def act(self, observation):
        return observation.legal[0]


class ChildSpinner(Agent):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        for _ in range(4):
            if os.fork() == 0:
                spin()

    def act(self, observation):
        return observation.legal[0]


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="thread-spinner", games=("lorum",), factory=ThreadSpinner,
                       description="spins 4 threads", version="1"))
    register(AgentSpec(name="child-spinner", games=("lorum",), factory=ChildSpinner,
                       description="spins 4 child processes", version="1"))
