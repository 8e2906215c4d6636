"""The per-game encodings: built from a seat's observation only, and Lovat's keep steps are exactly the legal keeps."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from arena.env.encoding import encoding_for
from arena.games.lorum import GAME as LORUM
from arena.games.lovat import GAME as LOVAT
from arena.games.lovat.deck import CARD_IDS
from arena.games.lovat.encoding import DONE_INDEX


def decision_points(game, options, seed, every=1):
    """(state, seat) at every ``every``-th decision of a random game (states cloned)."""
    rng = random.Random(seed)
    state = game.new_state(seed, options)
    points = []
    count = 0
    while not state.is_over():
        decided = []
        for seat in state.to_move():
            observation = state.observation(seat)
            if count % every == 0:
                points.append((state.clone(), seat))
            count += 1
            if observation.legal:
                decided.append((seat, rng.choice(observation.legal)))
            else:
                decided.append((seat, random_keep(observation, rng)))
        for seat, action in decided:
            state.apply(seat, action)
    return points


def random_keep(observation, rng):
    """A uniformly random open path through the keep steps."""
    encoding = encoding_for(LOVAT, {"players": observation.players})
    steps = ()
    while True:
        steps = (*steps, int(rng.choice(np.flatnonzero(encoding.mask(observation, steps)))))
        keep = encoding.decode(observation, steps)
        if keep is not None:
            return keep


CASES = [(LORUM, {"players": 4, "deals": 2}), (LOVAT, {"players": 3}), (LOVAT, {"players": 6})]


@pytest.mark.parametrize(("game", "options"), CASES, ids=["lorum", "lovat-3", "lovat-6"])
def test_states_differing_only_in_other_seats_hidden_cards_encode_identically(game, options):
    encoding = encoding_for(game, game.info.resolve_options(None, options))
    rng = random.Random(7)
    compared = 0
    for state, seat in decision_points(game, game.info.resolve_options(None, options), 7, every=3):
        observation = state.observation(seat)
        # A state consistent with everything the seat knows: the other seats' hidden cards are re-dealt.
        other = game.sample_state(observation, rng)
        hidden = [s for s in range(state.players) if s != seat]
        if [other_hand(other, s) for s in hidden] == [other_hand(state, s) for s in hidden]:
            continue  # nothing hidden is left to differ (the end of a deal)
        compared += 1
        for steps in ((), first_open_steps(encoding, observation)):
            mine = encoding.encode(observation, steps)
            theirs = encoding.encode(other.observation(seat), steps)
            assert np.array_equal(mine, theirs)
            assert np.array_equal(encoding.mask(observation, steps), encoding.mask(other.observation(seat), steps))
    assert compared >= 5


def other_hand(state, seat):
    """A seat's hidden cards in either game (Lorum: a card mask; Lovat: dealt cards and hand)."""
    if hasattr(state, "dealt"):
        return (tuple(state.dealt[seat]), tuple(state.hands[seat]), state.keeps[seat])
    return state.hands[seat]


def first_open_steps(encoding, observation):
    """One open step (for Lovat's keep, the steps taken so far change the vector), or () when none."""
    opened = np.flatnonzero(encoding.mask(observation))
    return (int(opened[0]),) if observation.phase == "keep" and len(opened) else ()


def every_keep_path(encoding, observation):
    """Every complete sequence of open keep steps, depth first; fails on a dead end."""
    found = []
    stack = [()]
    while stack:
        steps = stack.pop()
        opened = np.flatnonzero(encoding.mask(observation, steps))
        assert len(opened), f"dead end after steps {steps}"
        for index in opened:
            path = (*steps, int(index))
            keep = encoding.decode(observation, path)
            if keep is None:
                stack.append(path)
            else:
                found.append(keep)
    return found


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_the_keep_steps_reach_every_legal_keep_exactly_once_and_nothing_else(players):
    options = {"players": players}
    encoding = encoding_for(LOVAT, options)
    for seed in range(2):
        observation = LOVAT.new_state(seed, options).observation(0)
        paths = every_keep_path(encoding, observation)
        legal = [
            keep
            for size in range(observation.min_size, observation.max_size + 1)
            for keep in itertools.combinations(sorted(observation.dealt), size)
            if LOVAT.action_error(observation, keep) is None
        ]
        assert len(paths) == len(set(paths)), "a keep reached by two paths"
        assert sorted(paths) == sorted(legal) and legal
        for keep in legal[:20]:
            assert encoding.decode(observation, encoding.steps_of(observation, keep)) == keep


def test_keep_steps_are_cards_in_ascending_order_then_done():
    encoding = encoding_for(LOVAT, {"players": 4})
    observation = LOVAT.new_state(3, {"players": 4}).observation(1)
    keep = every_keep_path(encoding, observation)[0]
    steps = encoding.steps_of(observation, keep)
    assert steps[-1] == DONE_INDEX and list(steps[:-1]) == sorted(CARD_IDS.index(card) for card in keep)
    # Before the last step the keep is not decided, and "keep" is closed until the cards are a legal keep.
    assert encoding.decode(observation, steps[:-1]) is None
    assert encoding.mask(observation, ())[DONE_INDEX] == 0
    # Once decided, nothing is open.
    assert not encoding.mask(observation, steps).any()


def test_encodings_are_fixed_size_and_within_the_box():
    for game, options in CASES:
        encoding = encoding_for(game, game.info.resolve_options(None, options))
        for state, seat in decision_points(game, game.info.resolve_options(None, options), 1, every=5):
            vector = encoding.encode(state.observation(seat))
            assert vector.dtype == np.float32 and vector.shape == (encoding.observation_size,)
            assert vector.min() >= -1.0 and vector.max() <= 1.0


def test_steps_of_refuses_what_is_not_an_action():
    observation = LORUM.new_state(0, {"players": 4}).observation(0)
    with pytest.raises(ValueError, match="'Zz' is not a Lorum action"):
        encoding_for(LORUM, {"players": 4}).steps_of(observation, "Zz")
    observation = LOVAT.new_state(0, {"players": 4}).observation(0)
    with pytest.raises(ValueError, match="'keep' is not a Lovat action"):
        encoding_for(LOVAT, {"players": 4}).steps_of(observation, "keep")


def test_a_keep_step_encodes_as_if_from_scratch():
    # encode() reuses the vector of the observation without steps during a keep: it must equal a fresh encoding.
    fresh = encoding_for(LOVAT, {"players": 5})
    reused = type(fresh)(5)
    observation = LOVAT.new_state(8, {"players": 5}).observation(2)
    steps = ()
    while not steps or fresh.decode(observation, steps) is None:
        steps = (*steps, int(np.flatnonzero(fresh.mask(observation, steps))[-1]))
        expected = fresh._encode(observation, steps)
        assert np.array_equal(reused.encode(observation, steps), expected)
    assert steps[-1] == DONE_INDEX


def test_lorum_vectors_kept_per_trick_equal_fresh_encodings_in_interleaved_games():
    # The shared encoding keeps the completed tricks' vector (seat 0's view, rotated per observer): observations
    # of two games taken in turn, every seat's, must encode as an encoding with nothing kept does.
    from arena.games.lorum.encoding import LorumEncoding

    shared = encoding_for(LORUM, {"players": 4, "deals": 2})
    games = [decision_points(LORUM, {"players": 4, "deals": 2}, seed) for seed in (3, 4)]
    for first, second in itertools.zip_longest(*games):
        for point in (first, second):
            if point is None:
                continue
            state, _seat = point
            for seat in range(4):
                observation = state.observation(seat)
                assert np.array_equal(shared.encode(observation), LorumEncoding().encode(observation))


def test_legal_masks_are_fresh_arrays_and_the_kept_ones_are_bounded():
    from arena.env.encoding import LegalMasks

    masks = LegalMasks({"a": 0, "b": 1, "c": 2}, 4, limit=2)
    first = masks(("a", "c"))
    first[:] = 0  # a caller's change must not reach the next mask of the same tuple
    assert masks(("a", "c")).tolist() == [1, 0, 1, 0]
    masks(("b",))
    masks(("c",))  # the third tuple: the two kept are dropped first
    assert len(masks._masks) == 1
    assert masks(("b",)).tolist() == [0, 1, 0, 0]
    with pytest.raises(KeyError):
        masks(("d",))


def test_lorum_seat_blocks_are_relative_to_the_observer():
    # points, tricks won, balances and void flags are per relative seat r = seat (observer + r) % 4 (docs/learning.md).
    from arena.games.lorum.cards import DECK, INDEX, TOTAL_POINTS, TRICKS_PER_DEAL
    from arena.games.lorum.encoding import CHIP_SCALE, LAYOUT

    encoding = encoding_for(LORUM, {"players": 4, "deals": 2})
    uneven = void = 0
    points = [point for seed in range(5, 15) for point in decision_points(LORUM, {"players": 4, "deals": 2}, seed, 3)]
    for state, _seat in points:
        for me in range(4):
            observation = state.observation(me)
            vector = encoding.encode(observation)
            seats = [(me + relative) % 4 for relative in range(4)]
            for block, values, scale in (("points", observation.points, TOTAL_POINTS),
                                         ("tricks_won", observation.tricks_won, TRICKS_PER_DEAL),
                                         ("balances", observation.balances, CHIP_SCALE)):
                start = LAYOUT[block][0]
                expected = [np.clip(values[seat] / scale, -1, 1) for seat in seats]
                assert np.allclose(vector[start:start + 4], expected), block
            voids = np.zeros((4, 4))
            for plays, _winner in (*observation.tricks, (observation.trick, None)):
                if plays:
                    led = INDEX[plays[0][1]] // (len(DECK) // 4)
                    for seat, card in plays[1:]:
                        if INDEX[card] // (len(DECK) // 4) != led:
                            voids[(seat - me) % 4, led] = 1
            start = LAYOUT["void"][0]
            assert np.array_equal(vector[start:start + 16].reshape(4, 4), voids)
            uneven += len(set(observation.balances)) > 1
            void += voids.any()
    assert uneven and void  # some observations had uneven balances, some a void: where a wrong rotation shows
