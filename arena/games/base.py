"""The game interface, re-exported from the modules that now hold it (the import path every game uses).

* ``arena.games.interface``: ``GameInfo``, ``OptionSpec``, ``ScoreSpec``, ``Deck``, ``Game``,
  ``GameState``, ``Observation``, ``Result``: what a game declares and implements;
* ``arena.games.types``: actions, chance outcomes, errors and JSON conversion;
* ``arena.games.luck``: ``LuckSpec``, the chance a game's luck correction values;
* ``arena.games.chance``: ``Chance``, the seeded RNG with its script and log;
* ``arena.games.scripted``: ``scripted_seat``, ``scripted_choice``, ``scripted_cards``, ``scripted_hands``:
  checks for a record's scripted outcomes (untrusted JSON); ``shown``: a value as messages show it.
"""

from __future__ import annotations

from arena.games.chance import Chance
from arena.games.interface import (
    Deck,
    Game,
    GameInfo,
    GameState,
    Observation,
    OptionSpec,
    Result,
    ScoreSpec,
    competition_ranks,
    log_sentence,
    plural,
    seat_label,
    uniform_or,
    uniform_random_action,
)
from arena.games.luck import LuckSpec
from arena.games.scripted import scripted_cards, scripted_choice, scripted_hands, scripted_seat, shown
from arena.games.types import (
    Action,
    ChanceOutcome,
    GameError,
    IllegalAction,
    InvalidSetup,
    from_json,
    to_json,
)

__all__ = [
    "Action",
    "Chance",
    "ChanceOutcome",
    "Deck",
    "Game",
    "GameError",
    "GameInfo",
    "GameState",
    "IllegalAction",
    "InvalidSetup",
    "LuckSpec",
    "Observation",
    "OptionSpec",
    "Result",
    "ScoreSpec",
    "competition_ranks",
    "from_json",
    "log_sentence",
    "plural",
    "scripted_cards",
    "scripted_choice",
    "scripted_hands",
    "scripted_seat",
    "shown",
    "seat_label",
    "to_json",
    "uniform_or",
    "uniform_random_action",
]
