"""Processes meant to outlive the match: a setsid double-fork at import, in __init__ and in act."""

import os
import time

from arena import hookimpl
from arena.agent import Agent, AgentSpec

MARK = b"hostile-leftover"


def daemon():
    """A setsid double-fork whose grandchild renames itself and sleeps (found by name in /proc)."""
    if os.fork() != 0:
        return
    os.setsid()
    if os.fork() != 0:
        os._exit(0)
    try:
        with open("/proc/self/comm", "wb") as comm:
            comm.write(MARK)
    except OSError:
        pass
    time.sleep(120)
    os._exit(0)


daemon()  # at import: in discovery and in the zygote


class Leaver(Agent):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        daemon()

    def act(self, observation):
        daemon()
        return observation.legal[0]


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="leaver", games=("lorum",), factory=Leaver, description="leaves processes behind",
                       version="1"))
