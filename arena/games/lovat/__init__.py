"""Lovat: choose a hand whose levels sum to a total, then win turns with the strongest card.

Rules as implemented: ``docs/rules/lovat.md``; rulings L-1..L-18 and D-1..D-3.
"""

from arena.games.lovat.deck import CARDS, COLOURS, Card, card, deck_json
from arena.games.lovat.game import GAME, INFO, LovatGame
from arena.games.lovat.observation import LovatObservation, observe
from arena.games.lovat.rules import FACES, PHASES, VARIANTS, Variant
from arena.games.lovat.state import LovatState

__all__ = [
    "CARDS",
    "COLOURS",
    "FACES",
    "GAME",
    "INFO",
    "PHASES",
    "VARIANTS",
    "Card",
    "LovatGame",
    "LovatObservation",
    "LovatState",
    "Variant",
    "card",
    "deck_json",
    "observe",
]
