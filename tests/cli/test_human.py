"""A person at the terminal: sees only their seat, is offered legal choices, and is re-asked on bad input."""

from __future__ import annotations

import io
import random

import pytest

from arena.games.lovat import GAME
from arena.human import HumanAgent, InputEnded
from arena_agents.lovat import random_keep


def scripted_reader(answers: list[str]):
    prompts: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        if not answers:
            raise EOFError
        return answers.pop(0)

    return read, prompts


def test_keep_is_typed_and_a_bad_keep_is_asked_again() -> None:
    state = GAME.new_state(3, {"players": 4})
    observation = state.observation(0)
    legal = random_keep(observation.dealt, observation.level_sum, observation.min_size, observation.max_size,
                        random.Random(1))
    read, prompts = scripted_reader([observation.dealt[0], " ".join(legal)])
    out = io.StringIO()
    action = HumanAgent(seat=0, game=GAME, players=4, read=read, out=out).act(observation)
    assert action == tuple(sorted(legal))
    assert len(prompts) == 2
    assert "not legal:" in out.getvalue()
    state.apply(0, action)


def test_menu_choices_and_bad_numbers() -> None:
    state = GAME.new_state(3, {"players": 4})
    for seat in state.to_move():
        obs = state.observation(seat)
        state.apply(seat, tuple(sorted(random_keep(obs.dealt, obs.level_sum, obs.min_size, obs.max_size,
                                                   random.Random(seat)))))
    [seat] = state.to_move()
    observation = state.observation(seat)
    read, prompts = scripted_reader(["0", "banana", "2"])
    out = io.StringIO()
    action = HumanAgent(seat=seat, game=GAME, players=4, read=read, out=out).act(observation)
    assert action == observation.legal[1]
    assert len(prompts) == 3 and out.getvalue().count("is not a choice") == 2


def test_the_view_shows_only_the_seats_own_cards() -> None:
    state = GAME.new_state(8, {"players": 4})
    out = io.StringIO()
    read, _ = scripted_reader([])
    with pytest.raises(InputEnded):
        HumanAgent(seat=1, game=GAME, players=4, read=read, out=out).act(state.observation(1))
    shown = out.getvalue()
    own = state.observation(1).dealt
    others = {card for seat in (0, 2, 3) for card in state.observation(seat).dealt}
    assert all(card in shown for card in own)
    assert not any(card in shown for card in others)
