"""Properties over many random games: S-10 bookkeeping, replay (S-19), no leaks (S-18), sampling, cloning."""

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lorum_helpers import random_game

from arena.games.base import IllegalAction
from arena.games.lorum import GAME
from arena.games.lorum.cards import CARDS_PER_HAND

seeds = st.integers(min_value=0, max_value=2**32 - 1)
stops = st.floats(min_value=0.0, max_value=1.0)


@pytest.mark.slow
@settings(max_examples=1500)  # cheap games: many deals reach the rare settlements (S-13..S-15)
@given(seed=seeds, deals=st.integers(min_value=1, max_value=6))
def test_s10_balances_plus_pot_is_zero_after_every_deal(seed, deals):
    state, _actions = random_game(seed, deals=deals)
    ends = [event for event in state.events() if event["type"] == "deal_end"]
    assert len(ends) == deals
    pot = 0
    for end in ends:
        assert end["pot_before"] == pot  # the pot carries over (S-10)
        assert sum(end["balances"]) + end["pot_after"] == 0
        assert end["pot_after"] >= 0
        if end["contract"] == "regular":
            assert sum(end["points"]) == 20 and sum(end["tricks"]) == 8
        else:
            assert end["pot_after"] == end["pot_before"]  # S-14, S-15: pot untouched
            assert sum(end["changes"]) == 0
        pot = end["pot_after"]
    result = state.result()
    assert sum(result.scores) + result.details["pot"] == 0
    assert result.ranks == tuple(1 + sum(other > mine for other in result.scores) for mine in result.scores)


@settings(max_examples=300)  # more than the profile's 100: an example is one cheap Lorum game
@given(seed=seeds, other=seeds)
def test_s19_replaying_the_chance_log_reproduces_the_game(seed, other):
    state, actions = random_game(seed, deals=3)
    again = GAME.new_state(other, {"deals": 3}, script=state.chance.log)
    for seat, action in actions:
        again.apply(seat, action)
    assert again.is_over()
    assert again.result() == state.result()
    assert again.events() == state.events()
    assert again.chance.log == state.chance.log


@settings(max_examples=300)  # more than the profile's 100: an example is one cheap Lorum game
@given(seed=seeds, stop=stops, seat=st.integers(min_value=0, max_value=3), shuffle=seeds)
def test_s18_observation_and_events_ignore_cards_the_seat_cannot_see(seed, stop, seat, shuffle):
    state, actions = random_game(seed, deals=2, stop=stop)
    log = state.chance.log
    current = max(i for i, outcome in enumerate(log) if outcome["kind"] == "deal")
    played = {s: [] for s in range(4)}
    for plays, _winner in state.tricks:
        for who, card in plays:
            played[who].append(card)
    for who, card in state.trick:
        played[who].append(card)
    others = [s for s in range(4) if s != seat]
    rng = random.Random(shuffle)
    replayed = 0
    for _attempt in range(5):
        hidden = [card for s in others for card in state.hand_names(s)]
        rng.shuffle(hidden)
        deal = [list(hand) for hand in log[current]["value"]]
        for s in others:
            size = len(state.hand_names(s))
            deal[s], hidden = hidden[:size] + played[s], hidden[size:]
        script = [*log[:current], {"kind": "deal", "value": deal}, *log[current + 1 :]]
        other = GAME.new_state(seed, {"deals": 2}, script=script)
        try:
            for who, action in actions:
                other.apply(who, action)
        except IllegalAction:
            continue  # that reshuffle contradicts a void or must-beat: not indistinguishable
        replayed += 1
        assert other.observation(seat) == state.observation(seat)
        assert other.events() == state.events()
    if state.phase == "bid":
        assert replayed == 5  # nothing public constrains the hands yet


@settings(max_examples=300)  # more than the profile's 100: an example is one cheap Lorum game
@given(seed=seeds, stop=stops, seat=st.integers(min_value=0, max_value=3), sample=seeds)
def test_sampled_states_are_consistent_with_the_observation(seed, stop, seat, sample):
    state, _actions = random_game(seed, deals=2, stop=stop)
    observation = state.observation(seat)
    sampled = GAME.sample_state(observation, random.Random(sample))
    assert sampled.observation(seat) == observation
    assert sampled.hand_names(seat) == state.hand_names(seat)
    for s in range(4):
        assert len(sampled.hand_names(s)) == observation.hand_sizes[s]
    # The sampled state plays on to the end like any other.
    rng = random.Random(sample)
    while not sampled.is_over():
        (who,) = sampled.to_move()
        sampled.apply(who, rng.choice(sampled.legal_actions(who)))


@settings(max_examples=300)  # more than the profile's 100: an example is one cheap Lorum game
@given(seed=seeds, stop=stops, seat=st.integers(min_value=0, max_value=3))
def test_observation_json_round_trip_and_invariants(seed, stop, seat):
    state, _actions = random_game(seed, deals=2, stop=stop)
    observation = state.observation(seat)
    data = json.loads(json.dumps(observation.to_json()))
    assert GAME.observation_from_json(data) == observation
    assert sum(observation.hand_sizes) + len(observation.played) == 4 * CARDS_PER_HAND
    assert len(observation.hand) == observation.hand_sizes[seat]
    assert set(observation.legal) == set(state.legal_actions(seat))
    assert (observation.legal != ()) == (state.to_move() == (seat,))


@settings(max_examples=200)  # more than the profile's 100: an example is one cheap Lorum game
@given(seed=seeds, stop=stops, more=seeds, original_first=st.booleans())
def test_clone_is_independent_and_continues_identically(seed, stop, more, original_first):
    state, _actions = random_game(seed, deals=3, stop=stop)
    before = [state.observation(s) for s in range(4)], state.events(), list(state.chance.log)
    twins = [state.clone(), state.clone()]
    order = [state, *twins] if original_first else [*twins, state]

    def finish(copy):
        rng = random.Random(more)
        while not copy.is_over():
            (who,) = copy.to_move()
            copy.apply(who, rng.choice(copy.legal_actions(who)))
        return copy.result(), copy.events(), copy.chance.log

    if not original_first:
        finish(twins[0])
        # Playing a clone on leaves the original untouched.
        assert ([state.observation(s) for s in range(4)], state.events(), state.chance.log) == before
    runs = [finish(copy) for copy in order]
    assert runs[0] == runs[1] == runs[2]  # same RNG position: the same later deals, whoever plays first
