"""The lightest possible third-party agent (the first legal action): what a seat costs beyond the agent's own time.

``benchmarks/sandbox_match.py`` loads this folder as a plugins folder, so this is a third-party agent: seated
under ``auto`` it runs sandboxed.
"""

from collections.abc import Callable

from arena import hookimpl
from arena.agent import Agent, AgentSpec
from arena.games.base import Action, Observation


class FirstLegal(Agent):
    """Plays the first legal action; ignores every event."""

    def act(self, observation: Observation) -> Action:
        """The first legal action."""
        return observation.legal[0]


@hookimpl
def arena_register_agents(register: Callable[[AgentSpec], None]) -> None:
    """Register ``trivial``."""
    register(AgentSpec(name="trivial", games=("lorum", "lovat"), factory=FirstLegal,
                       description="the first legal action", version="1"))
