"""A small numpy policy over an ``Encoding``: a multilayer perceptron from observation vector to action logits.

What a trained agent needs at play time, with numpy only: ``MLPPolicy.load`` a
weights file (``.npz``, no pickles), then ``choose(vector, mask)`` the open action
with the highest logit.  ``examples/train_lorum.py`` trains one;
``plugins/example-learned`` seats it.  A weights file records the game and
player count it was trained for and the sizes of its encoding, so a file for
another encoding is refused with a message rather than misread.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

FORMAT = "arena-mlp-1"
"""The ``format`` entry of a weights file."""


class MLPPolicy:
    """Layers ``(weights, bias)``; ReLU between them, none after the last (the action logits)."""

    def __init__(self, layers: Sequence[tuple[np.ndarray, np.ndarray]], game: str, players: int) -> None:
        if not layers:
            raise ValueError("a policy needs at least one layer")
        for (weights, bias), (following, _bias) in zip(layers, [*layers[1:], (None, None)], strict=True):
            if weights.ndim != 2 or bias.shape != (weights.shape[1],):
                raise ValueError(f"a layer of shape {weights.shape} needs a bias of shape ({weights.shape[1]},)")
            if following is not None and following.shape[0] != weights.shape[1]:
                raise ValueError(f"layer sizes do not chain: {weights.shape} then {following.shape}")
        self.layers = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers]
        self.game = game
        self.players = players

    @classmethod
    def initial(cls, sizes: Sequence[int], game: str, players: int, rng: np.random.Generator) -> MLPPolicy:
        """Fresh weights for layer widths ``sizes`` (input first, actions last), He-initialised."""
        layers = [
            (rng.normal(0.0, np.sqrt(2.0 / fan_in), (fan_in, fan_out)).astype(np.float32),
             np.zeros(fan_out, np.float32))
            for fan_in, fan_out in itertools.pairwise(sizes)
        ]
        return cls(layers, game, players)

    @property
    def observation_size(self) -> int:
        """Length of the observation vectors it reads."""
        return self.layers[0][0].shape[0]

    @property
    def action_count(self) -> int:
        """Number of action indices it scores."""
        return self.layers[-1][0].shape[1]

    def logits(self, vectors: np.ndarray) -> np.ndarray:
        """Action logits for a batch of observation vectors ``(n, observation_size)``."""
        hidden = vectors
        for weights, bias in self.layers[:-1]:
            hidden = np.maximum(hidden @ weights + bias, 0.0)
        weights, bias = self.layers[-1]
        return hidden @ weights + bias

    def choose(self, vector: np.ndarray, mask: np.ndarray) -> int:
        """The open action index (``mask`` 1) with the highest logit; the lowest index on a tie.

        Always an open index, whatever the weights hold (infinities, NaN); ``ValueError`` if none is open.
        """
        opened = np.flatnonzero(mask)
        if not len(opened):
            raise ValueError("no action is open")
        logits = self.logits(vector[None, :])[0]
        return int(opened[np.argmax(logits[opened])])

    def save(self, path: Path | str) -> None:
        """Write the weights and what they were trained for to an ``.npz`` file."""
        arrays: dict[str, Any] = {f"w{i}": weights for i, (weights, _bias) in enumerate(self.layers)}
        arrays.update({f"b{i}": bias for i, (_weights, bias) in enumerate(self.layers)})
        np.savez(path, format=np.array(FORMAT), game=np.array(self.game), players=np.array(self.players), **arrays)

    @classmethod
    def load(cls, path: Path | str, game: str, players: int, observation_size: int, action_count: int) -> MLPPolicy:
        """Read a weights file that must fit ``game``, ``players`` and the encoding's sizes; ``ValueError`` if not."""
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {key: data[key] for key in data.files}
        except (OSError, ValueError) as error:
            raise ValueError(f"{path}: not a readable weights file ({error})") from None
        if str(arrays.get("format", "")) != FORMAT:
            raise ValueError(f"{path}: not an {FORMAT} weights file")
        count = sum(1 for key in arrays if key.startswith("w"))
        try:
            layers = [(arrays[f"w{i}"], arrays[f"b{i}"]) for i in range(count)]
        except KeyError as error:
            raise ValueError(f"{path}: layer {error.args[0]} is missing") from None
        try:
            game_trained, players_trained = str(arrays["game"]), int(arrays["players"])
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"{path}: the file does not say which game and player count it was trained for") from None
        policy = cls(layers, game_trained, players_trained)
        expected = (game, players, observation_size, action_count)
        found = (policy.game, policy.players, policy.observation_size, policy.action_count)
        if found != expected:
            raise ValueError(f"{path}: trained for {found[0]} with {found[1]} players, {found[2]} inputs and "
                             f"{found[3]} actions; this encoding is {expected[0]} with {expected[1]} players, "
                             f"{expected[2]} inputs and {expected[3]} actions")
        return policy
