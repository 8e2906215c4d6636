"""``LearnedLorumAgent``: plays the open action its trained policy scores highest.

The policy reads the seat's observation through arena's Lorum encoding
(``arena.env``, documented in arena's docs/learning.md), so it sees exactly what
the seat may know.  Its one option, ``weights``, names the weights file: a path
relative to this package's folder, which must stay inside it (an isolated agent
may read only its own plugin's folder).  Default: ``lorum_policy.npz``, written
by arena's ``examples/train_lorum.py``.  It is deterministic: the same
observation always gives the same action (no randomness at all).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from arena.agent import Agent
from arena.env.policy import MLPPolicy
from arena.games.base import Action, GameInfo, Observation
from arena.games.lorum.encoding import ENCODING

FOLDER = Path(__file__).resolve().parent
"""This package's folder: weights files are looked up in it."""

DEFAULT_WEIGHTS = "lorum_policy.npz"
"""The weights file used when the ``weights`` option is not given."""

OPTIONS = ("weights",)
"""The options this agent takes."""


def weights_path(value: Any) -> Path:
    """The file the ``weights`` option names, checked to be inside ``FOLDER``; ``ValueError`` otherwise."""
    if not isinstance(value, str) or not value:
        raise ValueError(f"option 'weights' must be a file name inside {FOLDER}, not {value!r}")
    path = (FOLDER / value).resolve()
    if not path.is_relative_to(FOLDER):
        raise ValueError(f"option 'weights' must name a file inside {FOLDER}, not {value!r}")
    if not path.is_file():
        raise ValueError(f"option 'weights': no file {value!r} in {FOLDER} (train one with examples/train_lorum.py)")
    return path


@cache
def load_policy(path: Path) -> MLPPolicy:
    """The policy in ``path``, read once per process (in the isolated host, once for every match)."""
    return MLPPolicy.load(path, "lorum", ENCODING.players, ENCODING.observation_size, len(ENCODING.actions))


try:  # Loaded at import: in the isolated host that is once, in the zygote, shared by every match.
    load_policy(FOLDER / DEFAULT_WEIGHTS)
except ValueError:
    pass  # a missing or bad default file is reported when an agent is built with it, naming the problem


class LearnedLorumAgent(Agent):
    """Scores the open actions with the trained policy and plays the best (see the module docstring)."""

    def __init__(self, seat: int, game: GameInfo, players: int, seed: int, options: Mapping[str, Any]) -> None:
        super().__init__(seat=seat, game=game, players=players, seed=seed, options=options)
        unknown = sorted(set(self.options) - set(OPTIONS))
        if unknown:
            raise ValueError(f"unknown option {unknown[0]!r}; the learned agent takes only 'weights'")
        self.policy = load_policy(weights_path(self.options.get("weights", DEFAULT_WEIGHTS)))

    def act(self, observation: Observation) -> Action:
        """The open action with the highest score (one step: every Lorum decision is one index)."""
        index = self.policy.choose(ENCODING.encode(observation), ENCODING.mask(observation))
        return ENCODING.decode(observation, (index,))
