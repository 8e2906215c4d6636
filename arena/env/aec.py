"""A PettingZoo AEC environment over any game that offers an ``Encoding`` (see ``arena.env.encoding``).

The environment drives the game through the game interface only, the way the
referee does: at each decision point it takes the observation of every seat
in ``state.to_move()`` before any of their actions is applied (Lovat's keep is
simultaneous and secret, L-5), lets those seats act one after the other, and
applies their actions together.  Every array an agent receives is built from
its own seat's ``Observation``; the state is never read for them.

Agents are ``player_0`` .. ``player_{n-1}`` (seat order).  A decision of several
steps (Lovat's keep, card by card) keeps the same agent selected until it is
complete.  Rewards come at the end of the game: each seat's score minus the
table's mean score (Lovat: points; Lorum: chips); ``infos`` then hold each
seat's ``score`` and ``rank``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from arena.env.encoding import encoding_for
from arena.games.base import Action, Game, Observation


class ArenaAECEnv(AECEnv):
    """One game of ``game`` with ``options`` per episode; see the module docstring."""

    metadata: dict[str, Any] = {  # noqa: RUF012 (PettingZoo's class attribute)
        "name": "arena_v0", "render_modes": ["ansi"], "is_parallelizable": False
    }

    def __init__(self, game: Game, options: Mapping[str, Any] | None = None, render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, not {render_mode!r}")
        self.game = game
        self.options = game.info.resolve_options(None, options)
        self.encoding = encoding_for(game, self.options)
        self.render_mode = render_mode
        players = self.options["players"]
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        self._seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self.agents: list[str] = []
        self.metadata = {**self.metadata, "name": f"arena_{game.info.name}_{players}p_v0"}
        self._observation_space = spaces.Dict({
            "observation": spaces.Box(-1.0, 1.0, (self.encoding.observation_size,), np.float32),
            "action_mask": spaces.Box(0, 1, (len(self.encoding.actions),), np.int8),
        })
        self._action_space = spaces.Discrete(len(self.encoding.actions))
        self._seeds = random.Random()
        self._mask_key: tuple[int, tuple[int, ...], Observation] | None = None
        self._mask_value = np.zeros(0, dtype=np.int8)
        self.state: Any = None
        self.game_seed: int | None = None
        self._rendered = 0

    def observation_space(self, agent: str) -> spaces.Dict:
        """The same ``Dict`` of ``observation`` and ``action_mask`` for every agent."""
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Discrete:
        """``Discrete(len(encoding.actions))`` for every agent: the game's documented action space."""
        return self._action_space

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game.  ``seed`` fixes this game and, through a seeded generator, every later unseeded reset."""
        if seed is not None:
            self._seeds = random.Random(seed)
        self.game_seed = self._seeds.getrandbits(63)
        self.state = self.game.new_state(self.game_seed, self.options)
        self.agents = list(self.possible_agents)
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._rendered = 0
        self._begin_decisions()

    def _begin_decisions(self) -> None:
        """Take the observations of every seat to move now, before any of their actions is applied."""
        self._deciding = list(self.state.to_move())
        self._observations: dict[int, Observation] = {seat: self.state.observation(seat) for seat in self._deciding}
        self._steps: dict[int, tuple[int, ...]] = {}
        self._decided: list[tuple[int, Action]] = []
        self.agent_selection = self.possible_agents[self._deciding[0]]

    def game_observation(self, agent: str) -> Observation:
        """The arena ``Observation`` that ``agent``'s arrays are built from (what an arena agent would be given)."""
        seat = self._seat_of[agent]
        observation = self._observations.get(seat)
        return observation if observation is not None else self.state.observation(seat)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s ``observation`` vector and ``action_mask`` (all 0 unless it is the agent to act)."""
        seat = self._seat_of[agent]
        observation = self.game_observation(agent)
        steps = self._steps.get(seat, ())
        if agent == self.agent_selection and not self.terminations[agent]:
            mask = self._mask(seat, observation, steps)
        else:
            mask = np.zeros(len(self.encoding.actions), dtype=np.int8)
        return {"observation": self.encoding.encode(observation, steps), "action_mask": mask}

    def _mask(self, seat: int, observation: Observation, steps: tuple[int, ...]) -> np.ndarray:
        """The seat's mask after ``steps``, computed once for ``observe`` and ``step`` alike (a read-only array)."""
        # The observation itself is kept in the key and compared by identity: a new decision never hits.
        key = (seat, steps, observation)
        cached = self._mask_key
        if cached is None or cached[2] is not observation or cached[:2] != key[:2]:
            self._mask_key = key
            self._mask_value = self.encoding.mask(observation, steps)
            self._mask_value.flags.writeable = False
        return self._mask_value

    def step(self, action: int | None) -> None:
        """Take one step of the selected agent's decision; ``ValueError`` for an index its mask does not open."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self._seat_of[agent]
        observation = self._observations[seat]
        steps = self._steps.get(seat, ())
        mask = self._mask(seat, observation, steps)
        if (isinstance(action, bool) or not isinstance(action, (int, np.integer))
                or not 0 <= action < len(mask) or not mask[action]):
            open_steps = np.flatnonzero(mask).tolist()
            raise ValueError(f"{agent}: action {action!r} is not open now; open: {open_steps}")
        steps = (*steps, int(action))
        self._steps[seat] = steps
        decided = self.encoding.decode(observation, steps)
        if decided is None:
            return
        self._decided.append((seat, decided))
        self._deciding.pop(0)
        if self._deciding:
            self.agent_selection = self.possible_agents[self._deciding[0]]
            return
        for mover, move in self._decided:
            self.state.apply(mover, move)
        if self.state.is_over():
            self._finish(seat)
        else:
            self._begin_decisions()

    def _finish(self, last_seat: int) -> None:
        """The game is over: rewards, results in ``infos``, every agent terminated."""
        result = self.state.result()
        mean = sum(result.scores) / len(result.scores)
        self._deciding = []
        self._observations = {}
        self._steps = {}
        # Rewards are 0 on every step before this one, so they are accumulated only here.
        for seat, agent in enumerate(self.possible_agents):
            self.rewards[agent] = float(result.scores[seat] - mean)
            self.terminations[agent] = True
            self.infos[agent] = {"score": result.scores[seat], "rank": result.ranks[seat]}
        self.agent_selection = self.possible_agents[(last_seat + 1) % len(self.possible_agents)]
        self._accumulate_rewards()

    def render(self) -> str | None:
        """``ansi``: the public events since the last call, one readable line each."""
        if self.render_mode is None or self.state is None:
            return None
        events = self.state.events()[self._rendered:]
        self._rendered += len(events)
        return "\n".join(self.game.describe_event(event) for event in events)

    def close(self) -> None:
        """Nothing to release."""
