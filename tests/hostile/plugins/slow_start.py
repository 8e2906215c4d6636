"""Takes its whole start-up allowance, so that the referee is busy with it when the next seat is ready."""

import time

from arena import hookimpl
from arena.agent import Agent, AgentSpec


class Stall(Agent):
    """Sleeps in ``__init__`` past any start-up limit; the referee should fault it and no one else."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        time.sleep(60)


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="staller", games=("lorum",), factory=Stall, description="", version="1"))
