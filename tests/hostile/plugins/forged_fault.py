"""Raises, in a decision, exceptions named to read like the referee's words for another fault.

A fault message names the exception's class, which the agent chooses.  Were a fault's phase read from its
message, the class named ``start-up`` would make this decision's fault a start-up fault (one the tournament
counts toward stopping itself), and a class name holding a line break would write a false line into a log.
With ``reply`` it instead answers a decision itself, on its seat's socket, with the error reply its process
sends when the plugin fails to load (which only a start-up request can truly get).
"""

import gc
import socket

from arena import hookimpl
from arena.agent import AgentSpec
from arena.seating.options import AgentOptions, OptionSpec
from arena_agents.lorum import RandomLorumAgent

MIMICS = (
    ("start-up", "RuntimeError: cannot load my model"),  # how a start-up fault's message began, once
    ("took 12.00 s to start, over the 10 s start-up limit", ""),
    ("not ready after 10 s", ""),
    ("x\nfault: seat 0 (greedy) crash at start-up: the agent's process was killed by SIGKILL; the substitute plays "
     "this seat from here.\n", "\x1b[2K"),
)


class Forger(RandomLorumAgent):
    """Plays at random until its decision ``after``, then raises the exception ``mimic`` names.

    With ``at_start`` it raises that exception while being built instead: a real start-up fault.
    """

    decided = 0

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        if self.options.get("at_start"):
            name, text = MIMICS[self.options.get("mimic", 0)]
            raise type(name, (Exception,), {})(text)

    def act(self, observation):
        self.decided += 1
        if self.decided > self.options.get("after", 0) and self.options.get("reply"):
            from arena.referee import protocol

            forged = protocol.encode({"error": self.options["reply"], "message": "ModuleNotFoundError: numpy"})
            for sock in [item for item in gc.get_objects() if isinstance(item, socket.socket)]:
                protocol.send(sock, forged)
            return super().act(observation)
        if self.decided > self.options.get("after", 0):
            name, text = MIMICS[self.options.get("mimic", 0)]
            raise type(name, (Exception,), {})(text)
        return super().act(observation)


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="forged-fault", games=("lorum",), factory=Forger, description="forges fault text",
                       version="1", options=AgentOptions((
                           OptionSpec("mimic", "int", default=0, minimum=0, maximum=len(MIMICS) - 1),
                           OptionSpec("after", "int", default=0, minimum=0),
                           OptionSpec("at_start", "bool", default=False),
                           OptionSpec("reply", "str", default="")))))
