"""Observations built lazily (arena/games/lazy.py): frozen at the moment they are made, and leak-free.

An observation shares the state's immutable public record and computes some fields on first access,
so these tests take observations, move the game on, and only then read them; and walk everything
reachable from an observation (gc.get_referents) for the state, anything mutable, or a hidden card.
"""

from __future__ import annotations

import gc
import random
from typing import Any

import pytest

from arena.games.base import Observation
from arena.games.lazy import PENDING
from arena.games.lorum import GAME as LORUM
from arena.games.lorum.cards import DECK, names_of
from arena.games.lovat import GAME as LOVAT
from arena.games.lovat.deck import CARD_IDS
from arena_agents.lovat import random_keep

IMMUTABLE = (tuple, str, int, bool, type(None), type(PENDING))


def reachable(observation: Observation) -> list[Any]:
    """Every object reachable from ``observation`` through gc.get_referents, classes (shared code) excluded."""
    seen, todo, found = {id(observation)}, [observation], []
    while todo:
        for item in gc.get_referents(todo.pop()):
            if isinstance(item, type) or id(item) in seen:
                continue
            seen.add(id(item))
            found.append(item)
            todo.append(item)
    return found


def random_action(state: Any, seat: int, rng: random.Random) -> Any:
    """A uniformly random legal action (a random legal keep in Lovat's keep phase)."""
    legal = state.legal_actions(seat)
    if legal:
        return rng.choice(legal)
    observation = state.observation(seat)
    return random_keep(observation.dealt, observation.level_sum, observation.min_size, observation.max_size, rng)


def play_some(state: Any, steps: int, rng: random.Random) -> None:
    """Apply up to ``steps`` decisions of random play (every keeping seat's keep counts as one)."""
    for _ in range(steps):
        if state.is_over():
            return
        for seat in state.to_move():
            state.apply(seat, random_action(state, seat, rng))


def hidden_cards(state: Any, seat: int) -> set[str]:
    """The cards ``seat`` may not know now: all but its own and those shown face up."""
    if state.players == 4 and hasattr(state, "bids"):  # Lorum: own hand and this deal's played cards
        return set(DECK) - set(names_of(state.hands[seat])) - set(state.played)
    shown = {card for cards in state.points for card in cards} | {card for _seat, card in state.plays}
    shown |= {card for record in state.history for _seat, card in record[6]}
    return set(CARD_IDS) - set(state.dealt[seat]) - shown


CASES = [(LOVAT, {"players": players}) for players in (3, 4, 5, 6)] + [(LORUM, {"deals": 2})]


@pytest.mark.parametrize(("game", "options"), CASES, ids=lambda value: getattr(value, "info", value))
def test_an_observation_keeps_its_values_and_reaches_nothing_hidden_or_mutable(game: Any, options: dict) -> None:
    rng = random.Random(5)
    for seed in range(6):
        state = game.new_state(seed, options)
        play_some(state, rng.randrange(0, 60), rng)
        players = state.players
        taken = [state.observation(seat) for seat in range(players)]  # nothing read from them yet
        expected = [state.clone().observation(seat).to_json() for seat in range(players)]
        hidden = [hidden_cards(state, seat) for seat in range(players)]
        play_some(state, 200, rng)  # the game moves on (often to its end) before the observations are read
        for seat, observation in enumerate(taken):
            before = reachable(observation)
            assert all(isinstance(item, IMMUTABLE) for item in before), {type(item) for item in before}
            assert observation.to_json() == expected[seat]  # reads (and computes) every field
            rebuilt = game.observation_from_json(expected[seat])
            assert rebuilt == observation and hash(rebuilt) == hash(observation)
            after = reachable(observation)
            assert not any(item is state for item in after)
            assert all(isinstance(item, IMMUTABLE) for item in after), {type(item) for item in after}
            assert not {item for item in after if isinstance(item, str)} & hidden[seat]


def test_lovat_hand_sizes_computed_from_the_public_record_match_the_hands() -> None:
    rng = random.Random(11)
    for players in (3, 4, 5, 6):
        for seed in range(8):
            state = LOVAT.new_state(seed, {"players": players})
            while not state.is_over():
                if state.phase != "keep":
                    sizes = tuple(map(len, state.hands))
                    assert all(state.observation(seat).hand_sizes == sizes for seat in range(players))
                play_some(state, 1, rng)
            assert state.observation(0).hand_sizes == (0,) * players


def test_lorum_fields_computed_from_the_public_record_match_the_state() -> None:
    rng = random.Random(12)
    for seed in range(10):
        state = LORUM.new_state(seed, {"deals": 3})
        while True:
            for seat in range(4):
                observation = state.observation(seat)
                assert observation.hand == names_of(state.hands[seat])
                assert observation.hand_sizes == tuple(mask.bit_count() for mask in state.hands)
                assert observation.points == tuple(state.points)
                assert observation.tricks_won == tuple(state.tricks_won)
                assert observation.balances == tuple(state.balances)
            if state.is_over():
                break
            play_some(state, 1, rng)


def test_observations_with_shared_fixed_fields_copy_pickle_and_replace_like_dataclasses() -> None:
    # Lovat's fixed fields live in one named tuple per seat (lazy.fixed_part); the constructor, copying,
    # pickling and dataclasses.replace must still give equal observations with every field in place.
    import copy
    import dataclasses
    import pickle

    rng = random.Random(3)
    state = LOVAT.new_state(4, {"players": 4})
    play_some(state, 9, rng)
    for seat in range(4):
        built = state.observation(seat)
        rebuilt = LOVAT.observation_from_json(built.to_json())
        for observation in (built, rebuilt):
            for twin in (copy.copy(observation), copy.deepcopy(observation), pickle.loads(pickle.dumps(observation))):
                assert twin == built and hash(twin) == hash(built) and twin.to_json() == built.to_json()
            moved = dataclasses.replace(observation, seat=(seat + 1) % 4, legal=())
            assert moved.seat == (seat + 1) % 4 and moved.legal == () and moved.dealt == built.dealt
            assert moved != built and observation.seat == seat
            with pytest.raises(dataclasses.FrozenInstanceError):
                observation.seat = 0  # type: ignore[misc]
    with pytest.raises(TypeError):
        type(built)(**{**built.to_json(), "extra": 1})
