"""Registers the first-party agents through the same hook any plugin uses.

``greedy`` and ``search`` play both games; the factory picks the implementation
for the game being played.  The reference heuristics (``agents/heuristics/``)
play one game each: opponents of other styles than greedy's, to measure an agent
against a field it was not tuned on.  The random agent plays every game by the
policy each game declares (``arena.seating.substitute``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from arena import __version__, hookimpl
from arena.agent import Agent, AgentSpec
from arena.games.base import GameInfo
from arena.seating.options import NO_OPTIONS, AgentOptions, OptionSpec
from arena.seating.substitute import RANDOM


def _by_game(implementations: Mapping[str, Callable[[], type[Agent]]]) -> Callable[..., Agent]:
    """A factory that builds the implementation for the match's game (imported lazily)."""

    def factory(seat: int, game: GameInfo, players: int, seed: int, options: Mapping[str, Any]) -> Agent:
        agent_class = implementations[game.name]()
        return agent_class(seat=seat, game=game, players=players, seed=seed, options=options)

    return factory


def _implementation(module: str, class_name: str) -> Callable[[], type[Agent]]:
    """Import ``arena_agents.<module>.<class_name>`` only when a match needs it."""

    def load() -> type[Agent]:
        return getattr(importlib.import_module(f"arena_agents.{module}"), class_name)

    return load


FIRST_PARTY: tuple[tuple[str, str, str, str, str], ...] = (
    ("greedy", "lovat", "GreedyLovatAgent", "lorum", "GreedyLorumAgent"),
    ("search", "search.lovat", "SearchLovatAgent", "search.lorum", "SearchLorumAgent"),
)
"""(agent name, Lovat module, Lovat class, Lorum module, Lorum class) under ``arena_agents``."""

DESCRIPTIONS = {
    "greedy": "A one-ply heuristic: strong keeps and cheap winning plays; avoids points in Lorum.",
    "search": "Determinized search: samples hidden deals consistent with what it saw and plays them out "
              "(docs/agents/search-lovat.md, docs/agents/search-lorum.md).",
}


SEARCH_OPTIONS = AgentOptions((
    OptionSpec("iterations", "int", default=640, minimum=1, games=("lovat",),
               help="playouts per move; deterministic for a seed"),
    OptionSpec("iterations", "int", default=240, minimum=1, games=("lorum",),
               help="playouts per move (a bid gets three times as many); deterministic for a seed"),
    OptionSpec("ms", "float", minimum=1,
               help="milliseconds per move (with iterations: whichever ends first); play then depends on the machine"),
    OptionSpec("value", "str", default="rank", choices=("rank", "points"), games=("lovat",),
               help="what a playout scores: rank (opponents beaten) or points"),
    OptionSpec("playouts", "str", default="greedy", choices=("greedy", "fitted", "fitted-own"), games=("lovat",),
               help="who plays the playouts: greedy's rule, the fitted policy for every seat, or for this seat only"),
))
"""The search agents' options (``Budget.from_options``; Lovat's ``value``): defaults as the modules define them."""

OPTIONS = {"greedy": NO_OPTIONS, "search": SEARCH_OPTIONS}
"""What each first-party agent accepts (greedy: nothing)."""

HEURISTICS: tuple[tuple[str, str, str, str, str], ...] = (
    ("counting", "lovat", "heuristics.lovat", "CountingLovatAgent",
     "Counts the unseen cards: keeps likely winners, plays a turn when its best card probably holds."),
    ("hoarder", "lovat", "heuristics.lovat", "HoarderLovatAgent",
     "Keeps as many cards as the rules allow and plays every turn unless weak in the colour."),
    ("sniper", "lovat", "heuristics.lovat", "SniperLovatAgent",
     "Keeps few strong cards and plays a turn only with a card that cannot lose."),
    ("reader", "lovat", "heuristics.lovat_reader", "ReaderLovatAgent",
     "Reads what the others can still hold (levels shown, passes, declarations) and plays by its chances to win."),
    ("cautious", "lorum", "heuristics.lorum", "CautiousLorumAgent",
     "Never bids; leads low from its longest suit, follows low, sheds its costliest card when void."),
    ("mixed", "lorum", "heuristics.lorum", "MixedLorumAgent",
     "Never bids; leads the lowest card of its shortest suit, follows low, sheds its highest card when void."),
    ("point-shy", "lorum", "heuristics.lorum", "PointShyLorumAgent",
     "Never bids; leads its lowest card of fewest points, ducks with its point cards first."),
    ("bold", "lorum", "heuristics.lorum", "BoldLorumAgent",
     "Bids on hands that usually make the contract; otherwise plays like cautious."),
)
"""(agent name, game, module under ``arena_agents``, class, description): the reference heuristics, no options."""


@hookimpl
def arena_register_agents(register: Callable[[AgentSpec], None]) -> None:
    """Register `greedy` and `search` for both games, the reference heuristics for theirs, and `random`
    (``arena.seating.substitute``) for every game."""
    register(RANDOM)
    for name, lovat_module, lovat_class, lorum_module, lorum_class in FIRST_PARTY:
        factory = _by_game({"lovat": _implementation(lovat_module, lovat_class),
                            "lorum": _implementation(lorum_module, lorum_class)})
        register(AgentSpec(name=name, games=("lovat", "lorum"), factory=factory, description=DESCRIPTIONS[name],
                           version=__version__, options=OPTIONS[name]))
    for name, game, module, class_name, description in HEURISTICS:
        register(AgentSpec(name=name, games=(game,), factory=_by_game({game: _implementation(module, class_name)}),
                           description=description, version=__version__))
