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


# -- Lorum: a scripted deal whose first trick shows must-follow and must-beat -------------------------------

from arena.games.lorum import GAME as LORUM  # noqa: E402 (the Lorum half of this file)
from arena.games.lorum.cards import DECK  # noqa: E402

SEAT0 = ["8a", "7g", "8g", "9g", "7h", "8h", "7b", "8b"]
SEAT1 = ["Aa", "Ka", "7a", "Kg", "Ah", "Kh", "Ab", "Kb"]
REST = [card for card in DECK if card not in SEAT0 + SEAT1]


def small_game_first_trick():
    """Dealer 3, so seat 0 bids first: it calls small, the rest pass, and it leads 8a."""
    deal = [SEAT0, SEAT1, REST[:8], REST[8:]]
    state = LORUM.new_state(0, {"deals": 1}, script=[{"kind": "dealer", "value": 3}, {"kind": "deal", "value": deal}])
    for seat, call in ((0, "small"), (1, "pass"), (2, "pass"), (3, "pass")):
        state.apply(seat, call)
    state.apply(0, "8a")
    return state


def test_lorum_view_groups_the_hand_names_the_trick_and_says_why_cards_are_barred() -> None:
    state = small_game_first_trick()
    observation = state.observation(1)
    assert observation.legal == ("Aa", "Ka")
    read, prompts = scripted_reader(["ka"])  # by name, in any case
    out = io.StringIO()
    names = ["greedy", "you", "search", "random"]
    action = HumanAgent(seat=1, game=LORUM, players=4, read=read, out=out, names=names).act(observation)
    assert action == "Ka" and len(prompts) == 1
    shown = out.getvalue()
    assert "your hand: acorns: Aa Ka 7a | green: Kg | hearts: Ah Kh | bells: Ab Kb" in shown
    assert "trick 1 so far: seat 0 (greedy) 8a" in shown
    assert "not allowed: Kg Ah Kh Ab Kb: you must follow acorns (S-6)" in shown
    assert "not allowed: 7a: in the small game you must beat 8a when you can (S-8)" in shown
    assert "contract: small (take no trick), bid by seat 0 (greedy)" in shown
    assert not any(card in shown for card in REST)  # nobody else's cards


def test_a_forced_move_is_played_without_a_prompt_and_said() -> None:
    state = LORUM.new_state(0, {"deals": 1}, script=[{"kind": "dealer", "value": 3}])
    state.apply(0, "big")  # after a big bid the others can only pass (S-4)
    observation = state.observation(1)
    assert observation.legal == ("pass",)
    read, prompts = scripted_reader([])
    out = io.StringIO()
    action = HumanAgent(seat=1, game=LORUM, players=4, read=read, out=out).act(observation)
    assert action == "pass" and prompts == []
    assert "forced: pass (your only legal move, played for you)" in out.getvalue()


def test_a_menu_choice_by_name_ignores_case_and_a_wrong_name_is_asked_again() -> None:
    state = LORUM.new_state(0, {"deals": 1}, script=[{"kind": "dealer", "value": 3}])
    observation = state.observation(0)
    read, prompts = scripted_reader(["smal", "SMALL"])
    out = io.StringIO()
    assert HumanAgent(seat=0, game=LORUM, players=4, read=read, out=out).act(observation) == "small"
    assert len(prompts) == 2 and "'smal' is not a choice" in out.getvalue()


def test_a_lovat_keep_is_read_in_any_order_and_any_case() -> None:
    state = GAME.new_state(3, {"players": 4})
    observation = state.observation(0)
    legal = random_keep(observation.dealt, observation.level_sum, observation.min_size, observation.max_size,
                        random.Random(1))
    typed = ", ".join(card.lower() for card in reversed(sorted(legal)))
    read, prompts = scripted_reader([typed])
    action = HumanAgent(seat=0, game=GAME, players=4, read=read, out=io.StringIO()).act(observation)
    assert action == tuple(sorted(legal)) and len(prompts) == 1
