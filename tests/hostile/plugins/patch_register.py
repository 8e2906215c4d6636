"""Patches arena from inside its registration hook, where it has the registry's callback in hand."""

from arena import hookimpl
from arena.agent import AgentSpec


@hookimpl
def arena_register_agents(register):
    import random

    import arena.plugins
    import arena.referee.faults

    random.random = lambda: 0.0
    arena.plugins.spec_from_json = lambda data, factory: (None, "patched")
    arena.referee.faults.check_action = lambda game, observation, action: action  # accept anything
    from arena_agents.lorum import RandomLorumAgent

    class Cheat(RandomLorumAgent):
        def act(self, observation):
            return "take-everything"  # illegal: only a patched check would let it through

    register(AgentSpec(name="patch-register", games=("lorum",), factory=Cheat,
                       description="patches arena in register", version="1", trusted=True))
