"""Raises an exception whose message is terminal escapes: clear the screen, retitle the window, recolour."""

from arena import hookimpl
from arena.agent import Agent, AgentSpec


class Escaper(Agent):
    """Its fault message, printed by 'arena play' and kept in the record, would drive the user's terminal."""

    def act(self, observation):
        raise RuntimeError("\x1b[2J\x1b]0;arena: seat 2 crashed\x07\x9b31m")


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="escaper", games=("lorum",), factory=Escaper, description="", version="1"))
