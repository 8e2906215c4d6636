"""The agent ``random``: every game's declared uniform random policy, and the substitute after a fault.

This is the one place that names it.  It plays any registered game (``ANY_GAME``) by asking the game
for its policy (``GameInfo.random_action``), so it knows no game by name: a game plugin gets a random
opponent and a substitute for faulted seats by declaring that policy, or by listing its legal actions
(the default policy is uniform over ``Observation.legal``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from arena import __version__
from arena.agent import ANY_GAME, Agent, AgentSpec
from arena.games.interface import GameInfo, Observation
from arena.games.types import Action

SUBSTITUTE = "random"
"""The name of the random agent: seatable by that name, and the substitute the referee seats after a fault."""


class RandomAgent(Agent):
    """Plays the game's uniform random policy (``GameInfo.random_action``) from its own seeded RNG."""

    def __init__(self, seat: int, game: GameInfo, players: int, seed: int, options: Mapping[str, Any]) -> None:
        super().__init__(seat=seat, game=game, players=players, seed=seed, options=options)
        self.rng = random.Random(self.seed)

    def act(self, observation: Observation) -> Action:
        """A uniformly random legal action, as the game defines it."""
        return self.game.random_action(observation, self.rng)


RANDOM = AgentSpec(
    name=SUBSTITUTE,
    games=(ANY_GAME,),
    factory=RandomAgent,
    description="Uniform over the legal actions, by the policy each game declares (GameInfo.random_action).",
    version=__version__,
)
"""The spec the built-in agents plugin registers, and ``play_match``'s default substitute."""
