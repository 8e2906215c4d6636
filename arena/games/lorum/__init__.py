"""Slovak Lorum: a 4-player trick-taking game with big/small contracts and a carried pot.

``GAME`` is the registered ``Game`` object; the rules as implemented are in
``docs/rules/lorum.md`` and cite rulings S-1..S-19.
"""

from arena.games.lorum.cards import DECK, POINTS
from arena.games.lorum.game import GAME, INFO, LorumGame
from arena.games.lorum.observation import LorumObservation, build_observation
from arena.games.lorum.rules import GAME_ID, settle_contract, settle_regular
from arena.games.lorum.sampler import sample_state
from arena.games.lorum.state import LorumState

__all__ = [
    "DECK",
    "GAME",
    "GAME_ID",
    "INFO",
    "POINTS",
    "LorumGame",
    "LorumObservation",
    "LorumState",
    "build_observation",
    "sample_state",
    "settle_contract",
    "settle_regular",
]
