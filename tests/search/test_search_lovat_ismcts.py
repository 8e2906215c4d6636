"""The information-set tree search for Lovat: legal, reproducible, within its budget, blind to hidden cards.

``IsmctsLovatAgent`` keeps the flat search's root and grows trees over the seat's own later
decisions; these tests check what the trees add: every answer legal (a node's stored actions
must stay legal in every sampled world that reaches it), the same game for the same seeds, at
most one new node per playout, and node keys built from the seat's own cards and the public
record only.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.games.lovat import GAME, LovatState
from arena.games.lovat.state import KEEP, VARIANTS
from arena_agents.lovat import GreedyLovatAgent, RandomLovatAgent, random_keep
from arena_agents.search.lovat_beliefs import Worlds
from arena_agents.search.lovat_ismcts import DEFAULT_ITERATIONS, IsmctsLovatAgent, _context
from arena_agents.search.lovat_sim import Playout


def ismcts(seat: int, players: int, seed: int = 1, **options: Any) -> IsmctsLovatAgent:
    return IsmctsLovatAgent(seat=seat, game=GAME.info, players=players, seed=seed, options=options)


def greedy(seat: int, players: int) -> GreedyLovatAgent:
    return GreedyLovatAgent(seat=seat, game=GAME.info, players=players, seed=seat, options={})


def play_game(seed: int, players: int, searching: set[int], **options: Any) -> LovatState:
    """A game with the tree search in ``searching`` and greedy agents elsewhere; keeps on pre-keep observations."""
    state = GAME.new_state(seed, {"players": players})
    agents = [
        ismcts(seat, players, seed=seed * 10 + seat, **options) if seat in searching else greedy(seat, players)
        for seat in range(players)
    ]
    while not state.is_over():
        observations = {seat: state.observation(seat) for seat in state.to_move()}
        for seat, observation in observations.items():
            state.apply(seat, agents[seat].act(observation))
    return state


def test_every_answer_is_legal_at_every_player_count() -> None:
    asked: dict[str, int] = {}
    for players in (3, 4, 5, 6):
        for game in range(2):
            state = GAME.new_state(200 * players + game, {"players": players})
            agents = [ismcts(seat, players, seed=game, iterations=60) for seat in range(players)]
            while not state.is_over():
                observations = {seat: state.observation(seat) for seat in state.to_move()}
                for seat, observation in observations.items():
                    action = agents[seat].act(observation)
                    assert GAME.action_error(observation, action) is None, (observation.phase, action)
                    if len(observation.legal) > 1 or observation.phase == KEEP:
                        asked[observation.phase] = asked.get(observation.phase, 0) + 1
                    state.apply(seat, action)
    assert {"keep", "colour", "declare", "play"} <= set(asked), asked


def test_every_answer_is_legal_among_careless_players_and_on_void_turns() -> None:
    # Random keeps and random play run seats out of cards: void turns (L-12), in the game and in the playouts.
    rng = random.Random(7)
    void_answers = 0
    for game in range(24):
        players = 3 + game % 4
        variant = VARIANTS[players]
        state = GAME.new_state(game, {"players": players})
        for seat in range(players):
            keep = random_keep(state.dealt[seat], variant.level_sum, variant.min_keep, variant.max_keep, rng)
            state.apply(seat, keep)
        while not state.is_over():
            (seat,) = state.to_move()
            observation = state.observation(seat)
            if seat == 0 and len(observation.legal) > 1:
                action = ismcts(seat, players, seed=game, iterations=48).act(observation)
                assert action in observation.legal, (observation.phase, action)
                void_answers += observation.phase == "void"
            else:
                action = RandomLovatAgent(seat=seat, game=GAME.info, players=players, seed=game,
                                          options={}).act(observation)
            state.apply(seat, action)
    assert void_answers >= 3


def test_the_same_seeds_give_the_same_game_and_the_same_observation_the_same_action() -> None:
    one = play_game(21, 4, {0, 2}, iterations=80)
    two = play_game(21, 4, {0, 2}, iterations=80)
    assert one.events() == two.events() and one.result() == two.result()
    state = after_keeps(22, 5)
    for _ in range(7):
        (seat,) = state.to_move()
        state.apply(seat, greedy(seat, 5).act(state.observation(seat)))
    (seat,) = state.to_move()
    observation = state.observation(seat)
    fresh = ismcts(seat, 5, seed=4, iterations=120)
    used = ismcts(seat, 5, seed=4, iterations=120)
    used.act(GAME.observation_from_json(observation.to_json()))  # an earlier decision leaves no trace
    assert fresh.act(observation) == used.act(observation)


def after_keeps(seed: int, players: int) -> LovatState:
    """A game just after greedy keeps."""
    state = GAME.new_state(seed, {"players": players})
    for seat in range(players):
        state.apply(seat, greedy(seat, players).act(state.observation(seat)))
    return state


def test_the_budget_is_honoured_and_each_playout_adds_at_most_one_node() -> None:
    state = after_keeps(12, 4)
    while True:  # a play decision with a choice, early enough for later own decisions
        (seat,) = state.to_move()
        observation = state.observation(seat)
        if observation.phase == "play" and len(observation.legal) > 3:
            break
        state.apply(seat, greedy(seat, 4).act(observation))
    width = len(observation.legal)
    for budget in (width, 7 * width + 1, 300):
        agent = ismcts(seat, 4, iterations=budget)
        agent.act(observation)
        assert agent.stats is not None and agent.tree is not None
        assert budget - width < agent.stats.iterations <= budget
        assert 0 < len(agent.tree) <= agent.stats.iterations
        # a node's visits are the playouts through it: every one of them chose one of its actions
        assert all(sum(node.visits) == node.total_visits for node in agent.tree.values())
    assert agent.tree is not None and max(node.total_visits for node in agent.tree.values()) > 1  # the trees are used, not only grown
    agent = ismcts(seat, 4)
    agent.act(observation)
    assert agent.stats is not None and DEFAULT_ITERATIONS - width < agent.stats.iterations <= DEFAULT_ITERATIONS
    agent = ismcts(seat, 4, ms=5)
    agent.act(observation)
    assert agent.stats is not None and agent.stats.iterations >= width
    agent.act(GAME.new_state(12, {"players": 4}).observation(0))  # the keep search (the parent's) grows no tree
    assert agent.tree is None and agent.stats is not None


def test_node_keys_read_no_hidden_card() -> None:
    # The key of a decision is the same in every world that shares the seat's hand and the public record.
    rng = random.Random(5)
    checked = 0
    for game in range(30):
        players = 3 + game % 4
        state = after_keeps(300 + game, players)
        for _ in range(rng.randrange(1, 40)):
            if state.is_over():
                break
            (seat,) = state.to_move()
            state.apply(seat, greedy(seat, players).act(state.observation(seat)))
        if state.is_over():
            continue
        (me,) = state.to_move()
        truth = Playout.from_state(state)
        worlds = Worlds(state.observation(me))
        for _ in range(4):
            assert _context(worlds.draw(rng), me) == _context(truth, me)
            checked += 1
    assert checked > 60


def test_bad_options_are_refused() -> None:
    for options in ({"iterations": 0}, {"ms": "5"}, {"value": "chips"}, {"depth": 3}):
        with pytest.raises(ValueError):
            IsmctsLovatAgent(seat=0, game=GAME.info, players=4, seed=0, options=options)
