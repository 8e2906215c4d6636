"""Steals CPU from the seat that is thinking: spinning threads and spinning children, started at __init__.

``forging-spinner`` first writes the init's "frozen" answer to every pipe it holds, as if it were the init
telling the referee that the seat stopped (a seat holds no pipe: it says so by raising at its first turn).
"""

import os
import stat
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


class ForgingSpinner(ChildSpinner):
    def __init__(self, **kwargs):
        self.pipes = []
        for fd in range(3, 1024):  # the sandbox hides /proc/self/fd
            try:
                if stat.S_ISFIFO(os.fstat(fd).st_mode):
                    self.pipes.append(fd)
                    os.write(fd, b"F" * 64)
            except OSError:
                pass
        super().__init__(**kwargs)

    def act(self, observation):
        if self.pipes:
            raise RuntimeError(f"held pipes {self.pipes}")
        return observation.legal[0]


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="thread-spinner", games=("lorum",), factory=ThreadSpinner,
                       description="spins 4 threads", version="1"))
    register(AgentSpec(name="child-spinner", games=("lorum",), factory=ChildSpinner,
                       description="spins 4 child processes", version="1"))
    register(AgentSpec(name="forging-spinner", games=("lorum",), factory=ForgingSpinner,
                       description="forges freeze answers, then spins 4 child processes", version="1"))
