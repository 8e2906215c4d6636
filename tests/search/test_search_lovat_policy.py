"""The fitted Lovat playout policy and its training script.

* with greedy's weights the policy is greedy's rule, and its unrolled playout ends like ``Playout.run``;
* with any weights it picks legal choices only, the best of its own feature vectors, the same way
  step by step as unrolled, and its playouts end properly;
* the weights file loads and the search plays legally and reproducibly with it;
* the training script gathers and fits a tiny sample.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from arena.games.lovat import GAME, LovatState
from arena_agents.lovat import GreedyLovatAgent
from arena_agents.search.lovat import SearchLovatAgent
from arena_agents.search.lovat_policy import FEATURES, WEIGHTS_FILE, FittedPolicy, choices, fitted_policy
from arena_agents.search.lovat_sim import Playout
from benchmarks.fit_lovat_policy import main as fit_main

GREEDY_WEIGHTS = {name: [1.0] + [0.0] * (len(features) - 1) for name, features in FEATURES.items()}
"""Weights that score greedy's choice 1 and every other 0 (a declaration's pass scores 0 too, so for the
declarations the bias of -0.5 makes greedy's "pass" win)."""
GREEDY_WEIGHTS["declare"][1] = -0.5


def after_keeps(seed: int, players: int) -> LovatState:
    """A game after greedy's keeps."""
    state = GAME.new_state(seed, {"players": players})
    for seat in range(players):
        agent = GreedyLovatAgent(seat=seat, game=GAME.info, players=players, seed=seat, options={})
        state.apply(seat, agent.act(state.observation(seat)))
    return state


def random_policy(rng: random.Random) -> FittedPolicy:
    return FittedPolicy({name: [rng.gauss(0, 1) for _ in features] for name, features in FEATURES.items()})


def test_greedys_weights_play_greedys_rule() -> None:
    policy = FittedPolicy(GREEDY_WEIGHTS)
    rng = random.Random(1)
    for game in range(40):
        players = 3 + game % 4
        world = Playout.from_state(after_keeps(game, players), [rng.randrange(6) for _ in range(players)])
        stepped = world.copy()
        while stepped.phase != 4:
            assert policy.action(stepped) == stepped.greedy_action()
            stepped.step(stepped.greedy_action())
        fitted, greedy = world.copy(), world.copy()
        policy.run(fitted)
        greedy.run()
        assert (fitted.points, fitted.levels, fitted.counters) == (greedy.points, greedy.levels, greedy.counters)


def test_any_weights_pick_legal_choices_the_best_by_their_features_and_playouts_end() -> None:
    rng = random.Random(2)
    decisions = 0
    for game in range(60):
        players = 3 + game % 4
        policy = random_policy(rng)
        seats = None if game % 2 else (rng.randrange(players),)
        world = Playout.from_state(after_keeps(100 + game, players), [rng.randrange(6) for _ in range(players)])
        unrolled = world.copy()
        policy.run(unrolled, seats)
        stepped = world.copy()
        while stepped.phase != 4:
            if seats is not None and stepped.queue[0] not in seats:
                stepped.step(stepped.greedy_action())
                continue
            action = policy.action(stepped)
            assert action in stepped.legal()
            found = choices(stepped)
            if found is not None:
                name, legal, rows = found
                scores = [sum(w * x for w, x in zip(policy.weights[name], row)) for row in rows]
                assert scores[legal.index(action)] == pytest.approx(max(scores))
                decisions += 1
            stepped.step(action)
        for done in (stepped, unrolled):
            assert done.phase == 4 and done.turn == done.turns and not any(done.hands)
            assert sum(done.points) <= done.turns and min(done.counters) >= 0
        assert (unrolled.points, unrolled.levels, unrolled.counters) == (
            stepped.points, stepped.levels, stepped.counters)
    assert decisions > 1000


def test_weights_of_the_wrong_shape_are_refused() -> None:
    with pytest.raises(ValueError, match="'play': need 7 numbers"):
        FittedPolicy({**GREEDY_WEIGHTS, "play": [1.0]})


def test_the_weights_file_loads_and_the_search_plays_it_legally_and_reproducibly() -> None:
    policy = fitted_policy()
    assert set(policy.weights) == set(FEATURES)
    assert json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))["features"] == {k: list(v) for k, v in FEATURES.items()}
    for playouts in ("fitted", "fitted-own"):
        for players in (3, 5):
            results = []
            for _ in range(2):
                state = GAME.new_state(7, {"players": players})
                agents = [
                    SearchLovatAgent(seat=seat, game=GAME.info, players=players, seed=seat,
                                     options={"iterations": 24, "playouts": playouts})
                    for seat in range(players)
                ]
                while not state.is_over():
                    for seat in list(state.to_move()):
                        observation = state.observation(seat)
                        action = agents[seat].act(observation)
                        assert action in observation.legal or observation.phase == "keep"
                        state.apply(seat, action)
                results.append(state.result().scores)
            assert results[0] == results[1]
    with pytest.raises(ValueError, match="'playouts' must be one of greedy, fitted, fitted-own"):
        SearchLovatAgent(seat=0, game=GAME.info, players=3, seed=0, options={"playouts": "clever"})


def test_the_training_script_gathers_and_fits_a_tiny_sample(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "greedy.npz"
    fit_main(["gather", "--agent", "greedy", "--players", "3", "--games", "3", "--out", str(data)])
    assert "decisions from 3 games at 3 players" in capsys.readouterr().out
    weights = tmp_path / "weights.json"
    fit_main(["fit", str(data), "--out", str(weights)])
    fitted = json.loads(weights.read_text(encoding="utf-8"))
    assert fitted["greedy_accuracy"] == {name: 1.0 for name in FEATURES}  # greedy's data: greedy's rule fits
    assert fitted["accuracy"] == {name: 1.0 for name in FEATURES}
    assert all(fitted["decisions"][name] > 5 for name in FEATURES)
    assert fitted["weights"]["play"][0] > 0  # "is greedy's choice" pulls towards it
    FittedPolicy(fitted["weights"])  # loads
