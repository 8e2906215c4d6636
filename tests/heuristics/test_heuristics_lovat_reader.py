"""The reader heuristic (``agents/heuristics/lovat_reader.py``): legal at every player count, its key decisions as
its docstring states them, its chances sound, and its play blind to the hidden cards."""

from __future__ import annotations

import itertools
import random

import pytest

from arena.games.base import Action
from arena.games.lovat import GAME
from arena.games.lovat.deck import COLOUR_INDEX, COLOURS, STRENGTH
from arena.games.lovat.observation import LovatObservation
from arena_agents.heuristics.lovat import own_turns_left, weakest
from arena_agents.heuristics.lovat_reader import ReaderLovatAgent, Table


def decisions(players: int, seed: int) -> list[tuple[LovatObservation, Action]]:
    """A game of readers in every seat: each decision's observation and action (each asserted legal)."""
    state = GAME.new_state(seed, {"players": players})
    agents = [ReaderLovatAgent(seat=seat, game=GAME.info, players=players, seed=seed, options={})
              for seat in range(players)]
    found = []
    while not state.is_over():
        for seat in state.to_move():
            observation = state.observation(seat)
            action = agents[seat].act(observation)
            assert state.is_legal(seat, action), (observation.phase, action)
            found.append((observation, action))
            state.apply(seat, action)
    return found


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_reader_plays_whole_games_legally(players: int) -> None:
    for seed in range(3):
        decisions(players, seed)


def test_key_decisions_follow_the_rules_it_states() -> None:
    lone = spare_less = sure_colour = 0
    for players in (3, 4):
        for seed in range(8):
            for obs, action in decisions(players, seed):
                if len(obs.legal) < 2:
                    continue
                if obs.phase == "play" and obs.seat == obs.active and not any(
                    decision == "play" for _seat, decision in obs.declarations
                ):
                    assert action == weakest(list(obs.hand))  # L-13: it wins by default, so nothing better is spent
                    lone += 1
                if obs.phase == "declare" and len(obs.hand) <= own_turns_left(obs):
                    assert action == "pass"  # a card kept for each own turn (L-12)
                    spare_less += 1
                if obs.phase == "colour":
                    unbeatable = [c for c in COLOURS if max(STRENGTH[card][COLOUR_INDEX[c]] for card in obs.hand) == 50]
                    if unbeatable:
                        assert action in unbeatable  # a card nothing can beat makes the turn sure
                        sure_colour += 1
    assert lone and spare_less and sure_colour  # each rule was exercised


def test_chances_are_probabilities_that_fall_with_the_strength_to_beat() -> None:
    for obs, _action in decisions(4, 11):
        if obs.phase not in ("declare", "play") or obs.turn < 2:
            continue
        table = Table(obs)
        for seat in range(obs.players):
            if seat == obs.seat:
                continue
            chances = [table.none_above(seat, 0, strength) for strength in range(0, 51)]
            assert all(0.0 <= c <= 1.0 + 1e-9 for c in chances)
            assert all(a <= b + 1e-9 for a, b in itertools.pairwise(chances))
            assert chances[50] == pytest.approx(1.0)  # no card is stronger than 50 in any colour


def test_the_levels_shown_fix_the_level_sum_left_in_each_hand() -> None:
    """A seat's kept cards add up to the level sum (L-5): its hand's level mixes add up to what it has not shown."""
    from arena.games.lovat.deck import LEVEL

    checked = 0
    for obs, _action in decisions(3, 5):
        if obs.phase != "declare" or obs.turn < 3 or any(record[2] for record in obs.history):
            continue
        table = Table(obs)
        for seat, mixes in table.mixes.items():
            shown = sum(LEVEL[card] for record in obs.history for s, card in record[6] if s == seat)
            shown += sum(LEVEL[card] for s, card in obs.plays if s == seat)
            expected = sum(weight * (m[0] + 2 * m[1] + 3 * m[2]) for weight, m in mixes)
            assert expected == pytest.approx(obs.level_sum - shown)
            assert sum(weight for weight, _m in mixes) == pytest.approx(1.0)
            checked += 1
    assert checked


def test_its_play_depends_on_its_observation_only() -> None:
    """Any hidden deal consistent with the observation gives the same decision: hidden cards stay hidden."""
    rng = random.Random(3)
    checked = 0
    for obs, action in decisions(4, 21):
        if obs.phase in ("declare", "play", "colour") and len(obs.legal) > 1:
            for _ in range(3):
                other = GAME.sample_state(obs, rng)
                again = ReaderLovatAgent(seat=obs.seat, game=GAME.info, players=4, seed=0, options={})
                assert again.act(other.observation(obs.seat)) == action
            checked += 1
    assert checked > 10
