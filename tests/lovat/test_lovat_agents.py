"""The first-party Lovat agents: always legal, a uniform random keep, and greedy beats random."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest
from lovat_helpers import fill_deal, script
from scipy.stats import chisquare

from arena.games.lovat import GAME
from arena.games.lovat.deck import LEVEL
from arena.games.lovat.state import VARIANTS
from arena_agents.lovat import GreedyLovatAgent, RandomLovatAgent, best_keep, random_keep


def make(agent_class, seat: int, players: int, seed: int):
    return agent_class(seat=seat, game=GAME.info, players=players, seed=seed, options={})


def play(seed: int, classes) -> tuple:
    """One game; returns (final state, agents)."""
    players = len(classes)
    state = GAME.new_state(seed, {"players": players})
    agents = [make(cls, seat, players, seed * 100 + seat) for seat, cls in enumerate(classes)]
    while not state.is_over():
        observations = {seat: state.observation(seat) for seat in state.to_move()}  # simultaneous keep
        for seat, observation in observations.items():
            action = agents[seat].act(observation)
            assert GAME.action_error(observation, action) is None, (seat, observation.phase, action)
            assert state.is_legal(seat, action)
            state.apply(seat, action)
    return state, agents


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_both_agents_always_return_legal_actions(players: int) -> None:
    for seed in range(60):
        classes = [(GreedyLovatAgent, RandomLovatAgent)[(seat + seed) % 2] for seat in range(players)]
        state, _ = play(seed, classes)
        assert state.is_over()
    for seed in range(15):
        play(seed, [GreedyLovatAgent] * players)
        play(seed, [RandomLovatAgent] * players)


def test_agents_are_reproducible_from_their_seed() -> None:
    one, _ = play(5, [RandomLovatAgent] * 4)
    two, _ = play(5, [RandomLovatAgent] * 4)
    assert one.events() == two.events()


# A 3-player hand with 3 level-1, 2 level-2 and 7 level-3 cards: 42 legal keeps (levels 9, 5-9 cards):
# 1+1+1+3+3 (1 x C(7,2) = 21) and 1+1+2+2+3 (C(3,2) x 1 x 7 = 21).
SMALL_HAND = ["L1-01", "L1-02", "L1-03", "L2-01", "L2-02", "L3-01", "L3-02", "L3-03", "L3-04", "L3-05", "L3-06",
              "L3-07"]


def legal_keeps(cards, level_sum, low, high):
    return [
        combo
        for size in range(low, high + 1)
        for combo in combinations(sorted(cards), size)
        if sum(LEVEL[c] for c in combo) == level_sum
    ]


def test_the_random_keep_is_uniform_over_legal_keeps() -> None:
    state = GAME.new_state(0, {"players": 3}, script=script(0, fill_deal(3, {0: SMALL_HAND})))
    observation = state.observation(0)
    keeps = legal_keeps(observation.dealt, 9, 5, 9)
    assert len(keeps) == 42
    agent = make(RandomLovatAgent, 0, 3, 11)
    draws = 100 * len(keeps)
    counts = Counter(agent.act(observation) for _ in range(draws))
    assert set(counts) == set(keeps)
    assert chisquare([counts[k] for k in keeps]).pvalue > 1e-3


def test_random_keep_counts_without_enumerating_and_handles_big_hands() -> None:
    rng = random.Random(1)
    for seed in range(50):
        state = GAME.new_state(seed, {"players": 4})
        variant = VARIANTS[4]
        for seat in range(4):
            keep = random_keep(state.dealt[seat], variant.level_sum, variant.min_keep, variant.max_keep, rng)
            assert state.is_legal(seat, keep)
    with pytest.raises(ValueError, match="no keep"):
        random_keep(["L3-01", "L3-02"], 9, 5, 9, rng)


def test_greedy_keep_is_the_best_scoring_legal_keep() -> None:
    from arena_agents.lovat import keep_value

    keeps = legal_keeps(SMALL_HAND, 9, 5, 9)
    chosen = best_keep(SMALL_HAND, 9, 5, 9)
    assert chosen in keeps
    assert sum(map(keep_value, chosen)) == pytest.approx(max(sum(map(keep_value, k)) for k in keeps))


def test_greedy_beats_random_by_a_clear_margin_in_four_player_games() -> None:
    # Measured over these 200 seeds: greedy about 4.3 points a game, random about 1.1.
    greedy_points = random_points = 0.0
    greedy_ranks = random_ranks = 0.0
    greedy_voids = 0
    games = 200
    for seed in range(games):
        classes = [(GreedyLovatAgent, RandomLovatAgent)[(seat + seed) % 2] for seat in range(4)]
        state, _ = play(seed, classes)
        result = state.result()
        greedy = [seat for seat in range(4) if classes[seat] is GreedyLovatAgent]
        others = [seat for seat in range(4) if seat not in greedy]
        greedy_points += sum(result.scores[s] for s in greedy) / 2
        random_points += sum(result.scores[s] for s in others) / 2
        greedy_ranks += sum(result.ranks[s] for s in greedy) / 2
        random_ranks += sum(result.ranks[s] for s in others) / 2
        greedy_voids += sum(1 for e in state.events() if e["type"] == "void_turn" and e["seat"] in greedy)
    assert greedy_points / games - random_points / games > 2.5
    assert greedy_ranks / games < random_ranks / games - 1.0
    assert greedy_voids == 0  # greedy keeps a card for each of its own turns
