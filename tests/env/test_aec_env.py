"""The PettingZoo AEC environment: PettingZoo's own tests, masks equal to the engine's legal actions, rewards."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from arena.env import aec_env

# PettingZoo's api_test suggests a Box or Discrete observation space; the dict of observation and action_mask
# is the convention of its own card-game environments.
pytestmark = pytest.mark.filterwarnings("ignore:Observation:UserWarning")

CASES = [("lorum", {"players": 4, "deals": 1}), *(("lovat", {"players": players}) for players in (3, 4, 5, 6))]
"""Every player count of both games (Lorum with one deal: the same code path as four, a quarter of the time)."""

ALL_CASES = [*CASES, ("lorum", {"players": 4})]
"""Also Lorum's default game of four deals, for PettingZoo's own tests."""


@pytest.mark.parametrize(("game", "options"), ALL_CASES, ids=lambda case: str(case))
def test_pettingzoo_api_and_seed_tests_pass(game, options):
    api_test(aec_env(game, **options), num_cycles=1000)
    seed_test(lambda: aec_env(game, **options), num_cycles=1000)


def play_out(env, seed, check):
    """Play one game with uniformly random open steps, calling ``check(env, agent)`` before each step."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for agent in env.agent_iter():
        observation, _reward, terminated, truncated, _info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        check(env, agent)
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))


@pytest.mark.parametrize(("game", "options"), [CASES[0], CASES[2]], ids=["lorum", "lovat-4"])
def test_single_step_masks_are_exactly_the_engines_legal_actions(game, options):
    seen = set()

    def check(env, agent):
        observation = env.game_observation(agent)
        mask = env.observe(agent)["action_mask"]
        if observation.phase == "keep":
            return  # the keep is several steps: test_encoding checks it
        opened = {env.encoding.decode(observation, (int(i),)) for i in np.flatnonzero(mask)}
        assert opened == set(observation.legal)
        seen.add(observation.phase)
        for other in env.possible_agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any(), "only the selected agent may have open steps"

    play_out(aec_env(game, **options), 3, check)
    assert len(seen) >= 2


def test_rewards_are_scores_minus_the_mean_and_infos_hold_the_result():
    env = aec_env("lorum", deals=1)
    env.reset(seed=5)
    rewards = {agent: 0.0 for agent in env.possible_agents}
    infos = {}
    for agent in env.agent_iter():
        observation, reward, terminated, _truncated, info = env.last()
        rewards[agent] += reward
        if terminated:
            infos[agent] = info
            env.step(None)
        else:
            env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    result = env.state.result()
    mean = sum(result.scores) / 4
    assert any(result.scores), "a deal that moves chips, so that the rewards say something"
    assert rewards == {agent: result.scores[seat] - mean for seat, agent in enumerate(env.possible_agents)}
    assert infos == {agent: {"score": result.scores[seat], "rank": result.ranks[seat]}
                     for seat, agent in enumerate(env.possible_agents)}
    assert env.agents == []  # every agent removed after its terminal step


def test_a_step_the_mask_does_not_open_is_refused_with_the_open_steps():
    env = aec_env("lorum")
    env.reset(seed=1)
    mask = env.observe(env.agent_selection)["action_mask"]
    closed = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match=rf"{env.agent_selection}: action {closed} is not open now; open: \["):
        env.step(closed)
    with pytest.raises(ValueError, match="is not open now"):
        env.step(True)


def test_bad_game_options_are_one_line_errors():
    with pytest.raises(ValueError, match="Lovat is played by 3, 4, 5, 6 players, not 7"):
        aec_env("lovat", players=7)
    with pytest.raises(ValueError, match="unknown game 'lovatt'"):
        aec_env("lovatt")


def test_the_same_seed_gives_the_same_game_and_unseeded_resets_continue_from_it():
    first, second = aec_env("lovat", players=3), aec_env("lovat", players=3)
    first.reset(seed=11)
    second.reset(seed=11)
    assert first.game_seed == second.game_seed
    first.reset()
    second.reset()
    assert first.game_seed == second.game_seed
    assert first.state.observation(0) == second.state.observation(0)


def test_ansi_render_shows_the_public_events():
    env = aec_env("lorum", render_mode="ansi")
    env.reset(seed=2)
    assert "deal" in env.render()
    assert env.render() == ""


def test_a_game_without_an_encoding_is_refused_by_name():
    from arena.games.lorum.game import LorumGame

    class Plain(LorumGame):
        encoding = None  # a game plugin that offers no learning encoding

    with pytest.raises(ValueError, match="game 'lorum' offers no learning encoding"):
        aec_env(Plain())
