"""The single-agent Gymnasium environment: arena agents in the other seats, deterministic for a seed."""

from __future__ import annotations

import numpy as np
import pytest

from arena.env import gym_env


def episode(env, seed):
    """Play one episode with the first open step each time; (every observation vector, reward, info)."""
    observation, _info = env.reset(seed=seed)
    seen = [observation["observation"]]
    total = 0.0
    while True:
        observation, reward, terminated, truncated, info = env.step(int(np.flatnonzero(observation["action_mask"])[0]))
        seen.append(observation["observation"])
        total += reward
        if terminated or truncated:
            return seen, total, info


def test_observations_lie_in_the_observation_space():
    # Gymnasium's check_env steps unmasked random actions, which this environment refuses (ValueError), so the
    # space is checked here along a masked episode.
    env = gym_env("lorum", opponents=["random", "greedy", "random"], deals=1)
    seen, _reward, _info = episode(env, 2)
    for vector in seen:
        assert env.observation_space["observation"].contains(vector)


def test_an_episode_ends_with_the_learners_score_minus_the_mean():
    env = gym_env("lovat", opponents=["greedy", "random"], seat=1, players=3)
    _seen, reward, info = episode(env, 4)
    result = env.aec.state.result()
    assert info == {"score": result.scores[1], "rank": result.ranks[1]}
    assert reward == pytest.approx(result.scores[1] - sum(result.scores) / 3)


def test_the_same_seed_gives_the_same_episode():
    first = episode(gym_env("lorum", opponents=["greedy", "random", "greedy"], deals=1), 9)
    second = episode(gym_env("lorum", opponents=["greedy", "random", "greedy"], deals=1), 9)
    assert len(first[0]) == len(second[0]) and all(map(np.array_equal, first[0], second[0]))
    assert first[1:] == second[1:]


def test_the_learner_only_acts_on_its_own_decisions():
    env = gym_env("lorum", opponents=["random"] * 3, seat=2, deals=1)
    observation, _info = env.reset(seed=1)
    while True:
        assert env.aec.agent_selection == "player_2" and observation["action_mask"].any()
        observation, _reward, terminated, _truncated, _info = env.step(int(np.flatnonzero(observation["action_mask"])[-1]))
        if terminated:
            break


def test_wrong_opponents_are_refused():
    with pytest.raises(ValueError) as caught:  # Lorum is only ever 4 players: no players= to suggest
        gym_env("lorum", opponents=["random", "random"])
    assert str(caught.value) == "a 4-player game needs 3 opponents, not 2"
    with pytest.raises(ValueError) as caught:  # Lovat defaults to 4 players; two opponents make a 3-player game
        gym_env("lovat", opponents=["random", "random"])
    assert str(caught.value) == "a 4-player game needs 3 opponents, not 2; pass players=3 for a 3-player game"
    with pytest.raises(ValueError, match="unknown agent 'randon'"):
        gym_env("lorum", opponents=["randon", "random", "random"])


@pytest.mark.parametrize("missing", ["gymnasium", "pettingzoo"])
def test_without_the_rl_extra_the_error_names_the_install(monkeypatch: pytest.MonkeyPatch, missing: str) -> None:
    """'pip install arena[rl]' would fetch whatever an index calls arena: the message installs this folder's."""
    import sys

    from arena.env import aec_env

    monkeypatch.setitem(sys.modules, missing, None)  # its import fails, as without the extra
    for module in ("arena.env.aec", "arena.env.gym"):
        monkeypatch.delitem(sys.modules, module, raising=False)
    with pytest.raises(ModuleNotFoundError, match=r"^arena.env needs the rl extra: pip install -e '\.\[rl\]' in "
                                                  r"arena's folder \(.*" + missing):
        aec_env("lorum")
    with pytest.raises(ModuleNotFoundError, match="needs the rl extra"):
        gym_env("lorum", opponents=["random", "random", "random"])
