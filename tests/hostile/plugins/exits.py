"""BaseException from agent code: SystemExit and KeyboardInterrupt in __init__ and in act."""

from arena import hookimpl
from arena.agent import Agent, AgentSpec


class ExitInAct(Agent):
    def act(self, observation):
        raise SystemExit(0)


class InterruptInAct(Agent):
    def act(self, observation):
        raise KeyboardInterrupt


class ExitInInit(Agent):
    def __init__(self, **kwargs):
        raise SystemExit(0)


class GeneratorExitInAct(Agent):
    def act(self, observation):
        raise GeneratorExit


@hookimpl
def arena_register_agents(register):
    for name, factory in (("exit-act", ExitInAct), ("interrupt-act", InterruptInAct), ("exit-init", ExitInInit),
                          ("generator-exit-act", GeneratorExitInAct)):
        register(AgentSpec(name=name, games=("lovat", "lorum"), factory=factory, description=name, version="1"))
