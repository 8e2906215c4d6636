"""Agents whose notifications raise: on_event partway through a match, on_event with SystemExit, on_result."""

import random

from arena import hookimpl
from arena.agent import Agent, AgentSpec


class First(Agent):
    """Plays the game's random policy, as the built-in random agent does."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.rng = random.Random(self.seed)
        self.seen = 0

    def act(self, observation):
        return self.game.random_action(observation, self.rng)


class EventRaises(First):
    """Raises at its twentieth public event: mid-match, between two of its decisions."""

    def on_event(self, event):
        self.seen += 1
        if self.seen == 20:
            raise ValueError("bad event handling")


class EventExits(EventRaises):
    def on_event(self, event):
        raise SystemExit(3)


class ResultRaises(First):
    def on_result(self, result):
        raise KeyError("scores")


@hookimpl
def arena_register_agents(register):
    for name, factory in (("event-raises", EventRaises), ("event-exits", EventExits),
                          ("result-raises", ResultRaises)):
        register(AgentSpec(name=name, games=("lovat", "lorum"), factory=factory, description=name, version="1"))
