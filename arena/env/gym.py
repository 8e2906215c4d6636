"""A single-agent Gymnasium environment: the learner holds one seat, arena agents play the others.

Built on ``ArenaAECEnv``: the opponents are real arena agents (``AgentSpec``s from
the registry, made fresh for every episode with their own seeds), given the same
``Observation`` objects the referee would give them and told every public event and the result;
their actions enter the AEC environment through ``Encoding.steps_of``.  They run
in this process (trusted), as suits training against first-party agents.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np

from arena.agent import Agent, AgentSpec
from arena.env.aec import ArenaAECEnv
from arena.records.seeding import derive_seed


class ArenaGymEnv(gymnasium.Env):
    """One game per episode with the learner in seat ``seat``; see the module docstring.

    Observations are the AEC environment's dicts (``observation``, ``action_mask``);
    the reward is 0 until the last step, then the learner's score minus the
    table's mean score; ``info`` then holds ``score`` and ``rank``.
    """

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012 (Gymnasium's attribute, declared per instance there)

    def __init__(self, aec: ArenaAECEnv, opponents: Sequence[AgentSpec], seat: int = 0,
                 opponent_options: Sequence[Mapping[str, Any]] | None = None) -> None:
        players = len(aec.possible_agents)
        if len(opponents) != players - 1:
            wanted = len(opponents) + 1
            hint = (f"; pass players={wanted} for a {wanted}-player game"
                    if wanted in aec.game.info.player_counts else "")
            raise ValueError(f"a {players}-player game needs {players - 1} opponents, not {len(opponents)}{hint}")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
            raise ValueError(f"seat must be 0..{players - 1}, not {seat!r}")
        self.aec = aec
        self.seat = seat
        self.learner = aec.possible_agents[seat]
        self.opponents = list(opponents)
        self.opponent_options = [dict(options) for options in (opponent_options or [{}] * len(opponents))]
        if len(self.opponent_options) != len(self.opponents):
            raise ValueError("opponent_options needs one mapping per opponent")
        self.observation_space = aec.observation_space(self.learner)
        self.action_space = aec.action_space(self.learner)
        self.render_mode = aec.render_mode
        self._agents: dict[int, Agent] = {}
        self._events = 0

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict[str, np.ndarray], dict]:
        """A new game; ``seed`` fixes the deal and the opponents' seeds (and every later unseeded reset)."""
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(2**63))
        self.aec.reset(seed=game_seed)
        info = self.aec.game.info
        others = [seat for seat in range(len(self.aec.possible_agents)) if seat != self.seat]
        self._agents = {
            seat: spec.factory(seat=seat, game=info, players=len(self.aec.possible_agents),
                               seed=derive_seed(game_seed, "opponent", seat), options=options_)
            for seat, spec, options_ in zip(others, self.opponents, self.opponent_options, strict=True)
        }
        self._events = 0
        self._advance()
        return self.aec.observe(self.learner), {}

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict]:
        """One step of the learner's decision, then the opponents' decisions until the learner's next step."""
        self.aec.step(action)
        self._advance()
        terminated = self.aec.terminations[self.learner]
        if terminated:
            result = self.aec.state.result().to_json()
            for agent in self._agents.values():
                agent.on_result(result)
        reward = self.aec._cumulative_rewards[self.learner] if terminated else 0.0
        info = dict(self.aec.infos[self.learner]) if terminated else {}
        return self.aec.observe(self.learner), float(reward), terminated, False, info

    def _advance(self) -> None:
        """Play the opponents until the learner is to act or the game is over."""
        aec = self.aec
        while not aec.terminations[self.learner] and aec.agent_selection != self.learner:
            self._tell_events()
            seat = aec.possible_agents.index(aec.agent_selection)
            observation = aec.game_observation(aec.agent_selection)
            action = self._agents[seat].act(observation)
            for step in aec.encoding.steps_of(observation, action):
                aec.step(step)
        self._tell_events()

    def _tell_events(self) -> None:
        """Hand the opponents the public events they have not yet been told."""
        events = self.aec.state.events()[self._events:]
        self._events += len(events)
        for event in events:
            for agent in self._agents.values():
                agent.on_event(event)

    def render(self) -> str | None:
        """The AEC environment's ``ansi`` rendering."""
        return self.aec.render()

