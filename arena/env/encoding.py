"""The contract between a game and arena's learning environments: a fixed-size view of one seat's information.

A game that offers learning environments gives its ``Game`` object a method
``encoding(options) -> Encoding`` (``options`` resolved, ``players`` included);
the game's own package holds the code (``arena/games/<game>/encoding.py``), so
nothing outside a game's package knows its internals.

An ``Encoding`` turns a seat's ``Observation`` (never a state) into

* a fixed-size ``float32`` vector in [-1, 1] (``encode``), and
* a fixed, documented action space of ``len(actions)`` indices, with a mask of the
  indices open to the seat now (``mask``).

A decision may take several steps (Lovat's keep is chosen card by card): the
steps taken so far in the current decision are passed back in as ``steps``, and
``decode`` returns the engine's action once they complete one (``None`` until
then).  ``steps_of`` is its inverse, so that any engine action (an arena
agent's, a recorded one) can be replayed through the index space.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

import numpy as np

from arena.games.base import Action, Game, Observation


class Encoding(ABC):
    """How one game at one player count is shown to a learner (see the module docstring)."""

    players: int  # seats at the table
    observation_size: int  # length of every vector ``encode`` returns
    actions: tuple[str, ...]  # a label per action index: the documented action space

    @abstractmethod
    def encode(self, observation: Observation, steps: tuple[int, ...] = ()) -> np.ndarray:
        """The seat's information set (and its own steps of an unfinished decision) as ``float32`` in [-1, 1]."""

    @abstractmethod
    def mask(self, observation: Observation, steps: tuple[int, ...] = ()) -> np.ndarray:
        """``int8`` per action index: 1 where the index is a legal next step of the seat's decision, else 0."""

    @abstractmethod
    def decode(self, observation: Observation, steps: tuple[int, ...]) -> Action | None:
        """The engine action that ``steps`` (each legal when taken) complete, or ``None`` if more steps are due."""

    @abstractmethod
    def steps_of(self, observation: Observation, action: Action) -> tuple[int, ...]:
        """The action indices that encode ``action``, in the order they are taken (the inverse of ``decode``)."""


class LegalMasks:
    """The mask of each tuple of engine actions (an observation's ``legal``), made once and copied out.

    A mask built from a list of indices costs a few microseconds (numpy's conversion of the list), a copy of
    a kept one a fraction of that; the same ``legal`` tuples come back often within and across games.  At most
    ``limit`` masks are kept (all are dropped when it is reached), so memory stays bounded whatever is asked.
    """

    def __init__(self, action_index: Mapping[Any, int], size: int, limit: int = 4096) -> None:
        self._index = action_index
        self._size = size
        self._limit = limit
        self._masks: dict[tuple[Any, ...], np.ndarray] = {}

    def __call__(self, legal: tuple[Any, ...]) -> np.ndarray:
        """A new ``int8`` array of ``size``: 1 at the index of each action in ``legal``; ``KeyError`` for an unknown."""
        kept = self._masks.get(legal)
        if kept is None:
            kept = np.zeros(self._size, dtype=np.int8)
            kept[[self._index[action] for action in legal]] = 1
            if len(self._masks) >= self._limit:
                self._masks.clear()
            self._masks[legal] = kept
        return kept.copy()


def encoding_for(game: Game, options: Mapping[str, Any]) -> Encoding:
    """The encoding ``game`` offers for ``options`` (resolved); ``ValueError`` if the game offers none."""
    make = getattr(game, "encoding", None)
    if make is None:
        raise ValueError(f"game {game.info.name!r} offers no learning encoding (its Game object has no `encoding`)")
    return make(options)
