"""plugins/example-learned: the trained policy is seated with its weights file as an option, and beats random."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import arena
from arena.agent import AgentSpec
from arena.env.policy import MLPPolicy
from arena.games.lorum import INFO

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "plugins" / "example-learned" / "src"


@pytest.fixture
def agent_module(monkeypatch):
    """The plugin's agent module, imported from the source folder (as an installed package would be)."""
    monkeypatch.syspath_prepend(str(SOURCE))
    from arena_example_learned import agent

    return agent


def make(agent_module, **options):
    return agent_module.LearnedLorumAgent(seat=0, game=INFO, players=4, seed=0, options=options)


def test_the_shipped_weights_fit_the_lorum_encoding(agent_module):
    policy = make(agent_module).policy
    assert (policy.observation_size, policy.action_count) == (262, 35)


def test_the_weights_option_must_name_a_file_inside_the_plugin_folder(agent_module, tmp_path):
    outside = tmp_path / "policy.npz"
    MLPPolicy.initial([262, 4, 35], "lorum", 4, np.random.default_rng(0)).save(outside)
    with pytest.raises(ValueError, match=r"must name a file inside .*arena_example_learned, not '../../"):
        make(agent_module, weights="../../../../../" + str(outside))
    with pytest.raises(ValueError, match="must name a file inside"):
        make(agent_module, weights=str(outside))  # an absolute path replaces the folder: refused too
    with pytest.raises(ValueError, match=r"no file 'missing.npz' in"):
        make(agent_module, weights="missing.npz")
    with pytest.raises(ValueError, match="must be a file name inside"):
        make(agent_module, weights=3)
    with pytest.raises(ValueError, match="unknown option 'temperature'"):
        make(agent_module, temperature=1.0)


def test_weights_for_another_encoding_are_refused(tmp_path):
    path = tmp_path / "lovat.npz"
    MLPPolicy.initial([542, 8, 89], "lovat", 4, np.random.default_rng(0)).save(path)
    with pytest.raises(ValueError, match="trained for lovat with 4 players, 542 inputs and 89 actions; this encoding"
                                         " is lorum with 4 players, 262 inputs and 35 actions"):
        MLPPolicy.load(path, "lorum", 4, 262, 35)
    np.savez(tmp_path / "bare.npz", format=np.array("arena-mlp-1"), w0=np.zeros((262, 35)), b0=np.zeros(35))
    with pytest.raises(ValueError, match="does not say which game and player count"):
        MLPPolicy.load(tmp_path / "bare.npz", "lorum", 4, 262, 35)
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a readable weights file"):
        MLPPolicy.load(tmp_path / "junk.npz", "lorum", 4, 262, 35)


def test_the_policy_only_ever_chooses_an_open_action():
    layers = [(np.full((3, 4), np.nan, np.float32), np.zeros(4, np.float32))]
    policy = MLPPolicy(layers, "lorum", 4)
    assert policy.choose(np.ones(3, np.float32), np.array([0, 0, 1, 1], np.int8)) in (2, 3)
    policy.layers = [(np.zeros((3, 4), np.float32), np.array([9, -np.inf, -np.inf, 0], np.float32))]
    assert policy.choose(np.ones(3, np.float32), np.array([0, 1, 1, 0], np.int8)) == 1
    with pytest.raises(ValueError, match="no action is open"):
        policy.choose(np.ones(3, np.float32), np.zeros(4, np.int8))


def test_the_learned_agent_beats_random_over_rotated_deals(agent_module):
    spec = AgentSpec(name="learned", games=("lorum",), factory=agent_module.LearnedLorumAgent,
                     description="the example learned agent", version="test")
    learned = others = 0.0
    for deal in range(3):
        for rotation in range(4):  # the same deal with the learner in every seat
            seats = ["random"] * 4
            seats[rotation] = spec
            match = arena.play_match("lorum", seats, seed=deal, options={"deals": 1}, isolation="trusted",
                                     plugins_dir=None)
            scores = match.record["result"]["scores"]
            learned += scores[rotation]
            others += (sum(scores) - scores[rotation]) / 3
    assert learned / 12 > others / 12 + 10  # chips per match


@pytest.mark.slow
def test_a_tournament_seats_it_with_the_weights_file_as_an_option(tmp_path, monkeypatch):
    # Installed as a user would (pip), so that its entry point is discovered and its agents run sandboxed,
    # reading the weights file from the installed package's own folder.
    site = tmp_path / "site"
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site),
               str(SOURCE.parent)]
    if importlib.util.find_spec("wheel") is not None:  # with it the build needs no index
        command.insert(4, "--no-build-isolation")
    installed = subprocess.run(command, capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")])))
    plugins = tmp_path / "plugins"
    config = {
        "name": "learned-test", "game": "lorum", "seed": 2, "blocks": 1, "game_options": {"players": 4, "deals": 1},
        "agents": [{"name": "learned", "options": {"weights": "lorum_policy.npz"}}, {"name": "random"},
                   {"name": "random-2", "plugin": "random"}, {"name": "random-3", "plugin": "random"}],
    }
    summary = arena.run_tournament(config, leaderboards=tmp_path / "boards", plugins_dir=plugins, workers=1)
    records = arena.load_records(summary.store)
    assert len(records) == 4 and not any(record["faults"] for record in records)
    assert all(seat["plugin"] == "learned" for record in records for seat in record["seats"]
               if seat["agent"] == "learned")
