"""Property tests over thousands of random games: invariants, replay, no leaks, consistent samples."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lovat_helpers import play_random, random_action

from arena.games.base import IllegalAction
from arena.games.lovat import GAME, LovatState
from arena.games.lovat.deck import CARD_IDS, LEVEL
from arena.games.lovat.state import KEEP, OVER, PHASES

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
PLAYERS = st.sampled_from([3, 4, 5, 6])



def check_invariants(state: LovatState) -> None:
    """What must hold in every state, checked from outside the engine."""
    players = state.players
    assert state.phase in PHASES
    moving = state.to_move()
    if state.phase == OVER:
        assert moving == ()
    elif state.phase == KEEP:
        assert moving and list(moving) == sorted(moving)
    else:
        assert len(moving) == 1
    held = [c for hand in state.hands for c in hand]
    points = [c for pts in state.points for c in pts]
    assert len(set(held)) == len(held) and not set(held) & set(points)
    if state.phase != KEEP:
        remaining = state.variant.turns - state.turn
        # mid-turn, the seats that already used an item this turn hold one less
        used = {seat for seat, _ in state.declarations if _ == "pass"} | {seat for seat, _ in state.plays}
        used |= {seat for seat, _ in state.voids}
        if state.phase == "void" and state.active is not None:
            used.add(state.active)
        for seat in range(players):
            items = len(state.hands[seat]) + state.counters[seat]
            assert items == remaining - (seat in used), (seat, items, remaining, state.phase)
            assert set(state.hands[seat]) <= set(state.keeps[seat] or ())
    # a card is in at most one place: hand, points, face down, or played and discarded
    played = [c for record in state.history for _, c in record[6]] + [c for _, c in state.plays]
    assert len(set(played)) == len(played)
    assert set(points) <= set(played) and not set(played) & set(held)
    assert all(c in state.dealt[seat] for seat in range(players) for c in state.face_down[seat])


@pytest.mark.slow
@settings(max_examples=300)  # sized so the Lovat suite stays well under a minute
@given(seed=SEEDS)
def test_random_games_in_every_player_count_keep_every_invariant(seed: int) -> None:
    rng = random.Random(seed)
    for players in (3, 4, 5, 6):  # four games per example: 1,200 games in all
        state = GAME.new_state(seed, {"players": players})
        check_invariants(state)
        while not state.is_over():
            for seat in state.to_move():
                legal = state.legal_actions(seat)
                assert all(state.is_legal(seat, action) for action in legal)
                others = [s for s in range(players) if s not in state.to_move()]
                if others and legal:
                    assert not state.is_legal(others[0], legal[0])  # out of turn
                action = random_action(state, seat, rng)
                state.apply(seat, action)
                check_invariants(state)
        result = state.result()
        assert sum(result.scores) <= state.variant.turns
        assert sum(1 for e in state.events() if e["type"] in ("turn_won", "void_turn")) == state.variant.turns
        assert min(result.ranks) == 1


@settings(max_examples=150)  # sized so the Lovat suite stays well under a minute
@given(seed=SEEDS, other=SEEDS, players=PLAYERS)
def test_replaying_the_chance_log_and_actions_reproduces_the_game(seed: int, other: int, players: int) -> None:
    state, actions = play_random(seed, players)
    again = GAME.new_state(other, {"players": players}, script=state.chance.log)
    for seat, action in actions:
        again.apply(seat, action)
    assert again.events() == state.events()
    assert again.result() == state.result()
    assert again.chance.log == state.chance.log


@settings(max_examples=150)  # sized so the Lovat suite stays well under a minute
@given(seed=SEEDS, other=SEEDS, players=PLAYERS, cut=st.floats(0, 1), observer=st.integers(0, 5))
def test_an_observation_does_not_depend_on_other_seats_hidden_cards(
    seed: int, other: int, players: int, cut: float, observer: int
) -> None:
    _full, actions = play_random(seed, players)
    stop = int(cut * len(actions))
    observer %= players
    state, _ = play_random(seed, players, stop=stop)
    # Cards hidden from the observer at this point, and where each one is.
    shown = {c for record in state.history for _, c in record[6]} | {c for _, c in state.plays}
    where: dict[str, object] = {c: "undealt" for c in CARD_IDS}
    for seat in range(players):
        for c in state.dealt[seat]:
            where[c] = seat
    hidden = [c for c in CARD_IDS if c not in shown and where[c] != observer]
    rng = random.Random(other)
    pairs = [(x, y) for x in hidden for y in hidden if x < y and LEVEL[x] == LEVEL[y] and where[x] != where[y]]
    x, y = rng.choice(pairs)

    def swap(value):
        if isinstance(value, str):
            return {x: y, y: x}.get(value, value)
        if isinstance(value, tuple):
            return tuple(sorted(swap(item) for item in value))
        return value

    log = [dict(o) for o in state.chance.log]
    last_deal = max(i for i, o in enumerate(log) if o["kind"] == "deal")
    log[last_deal]["value"] = [sorted(swap(c) for c in hand) for hand in log[last_deal]["value"]]
    twin = GAME.new_state(seed, {"players": players}, script=log)
    for seat, action in actions[:stop]:
        twin.apply(seat, swap(action))
    assert twin.dealt != state.dealt  # the states really differ in hidden cards
    assert twin.observation(observer) == state.observation(observer)
    assert twin.events() == state.events()


@settings(max_examples=200)  # sized so the Lovat suite stays well under a minute
@given(seed=SEEDS, players=PLAYERS, cut=st.floats(0, 1), sample_seed=SEEDS)
def test_every_sampled_state_is_consistent_with_the_observation(
    seed: int, players: int, cut: float, sample_seed: int
) -> None:
    _full, actions = play_random(seed, players)
    state, _ = play_random(seed, players, stop=int(cut * len(actions)))
    rng = random.Random(sample_seed)
    for seat in range(players):
        observation = state.observation(seat)
        assert GAME.observation_from_json(observation.to_json()) == observation
        sample = GAME.sample_state(observation, rng)
        assert sample.observation(seat) == observation
        assert sample.events() == state.events()
        assert sample.dealt[seat] == state.dealt[seat]
    # a sample is a full game state: it plays on to the end with every engine check
    while not sample.is_over():
        for mover in sample.to_move():
            sample.apply(mover, random_action(sample, mover, rng))


def test_samples_work_in_every_phase_including_mid_turn_and_keep() -> None:
    seen = set()
    rng = random.Random(0)
    for seed in range(40):
        _full, actions = play_random(seed, 3 + seed % 4)
        for stop in range(0, len(actions) + 1, 3):
            state, _ = play_random(seed, 3 + seed % 4, stop=stop)
            seat = stop % state.players
            observation = state.observation(seat)
            sample = GAME.sample_state(observation, rng)
            assert sample.observation(seat) == observation
            seen.add(state.phase)
    assert seen == set(PHASES)


def test_observation_json_is_plain_and_inverts_exactly() -> None:
    state, _ = play_random(3, 4, stop=40)
    observation = state.observation(1)
    data = observation.to_json()
    assert isinstance(data["history"], list) and isinstance(data["hand"], list)
    assert GAME.observation_from_json(json.loads(json.dumps(data))) == observation


def test_observation_from_json_names_missing_and_unknown_fields() -> None:
    state, _ = play_random(8, 3, stop=20)
    data = state.observation(0).to_json()
    data.pop("hand")
    data["cards"] = []
    with pytest.raises(ValueError, match=r"missing fields \['hand'\], unknown fields \['cards'\]"):
        GAME.observation_from_json(data)


def test_acting_out_of_turn_is_illegal_in_every_phase() -> None:
    for stop in range(0, 120, 7):
        state, _ = play_random(21, 4, stop=stop)
        if state.is_over() or state.phase == "keep":
            continue
        mover = state.to_move()[0]
        idle = (mover + 1) % 4
        for action in state.legal_actions(mover):
            with pytest.raises(IllegalAction, match=f"seat {idle} tried .* out of turn"):
                state.apply(idle, action)
