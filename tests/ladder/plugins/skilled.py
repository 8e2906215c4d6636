"""An agent of fixed, known skill: each decision is greedy's with probability ``skill``, else uniformly random.

A field of ``skilled`` entries with different ``skill`` options has a known order of strength (more
greedy decisions play better in both games), which the ladder tests settle with real matches.
"""

import random

from arena import hookimpl
from arena.agent import Agent, AgentSpec
from arena.seating.options import AgentOptions, OptionSpec
from arena_agents.lorum import GreedyLorumAgent, RandomLorumAgent
from arena_agents.lovat import GreedyLovatAgent, RandomLovatAgent

GREEDY = {"lovat": GreedyLovatAgent, "lorum": GreedyLorumAgent}
RANDOM = {"lovat": RandomLovatAgent, "lorum": RandomLorumAgent}


class Skilled(Agent):
    """Greedy with probability ``skill`` per decision, else a uniformly random legal action."""

    def __init__(self, seat, game, players, seed, options):
        super().__init__(seat=seat, game=game, players=players, seed=seed, options=options)
        self.skill = float(options.get("skill", 1.0))
        self.rng = random.Random(seed)
        self.greedy = GREEDY[game.name](seat=seat, game=game, players=players, seed=seed, options={})
        self.random = RANDOM[game.name](seat=seat, game=game, players=players, seed=seed + 1, options={})

    def act(self, observation):
        chosen = self.greedy if self.rng.random() < self.skill else self.random
        return chosen.act(observation)


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="skilled", games=("lovat", "lorum"), factory=Skilled, version="1.0",
                       description="greedy with probability skill per decision, else random",
                       options=AgentOptions((OptionSpec("skill", "float", default=1.0, minimum=0.0, maximum=1.0,
                                                        help="share of decisions played greedily"),))))
