"""Hidden-state sampling: consistency with the observation, the constraints it uses, and exact uniformity."""

import itertools
import random
from collections import Counter

import pytest
from lorum_helpers import OWNERS_K1, new_game, run
from scipy.stats import chisquare

from arena.games.base import GameError
from arena.games.lorum import DECK, GAME
from arena.games.lorum.cards import SUIT_MASKS, mask_of, names_of
from arena.games.lorum.sampler import excluded_cards, sample_state, split_weights


def test_sampled_state_reproduces_the_observation_and_keeps_own_hand():
    state = new_game(3, OWNERS_K1)
    run(state, "pass pass pass pass Aa Oa 10a 8a Ka Ua")
    for seat in range(4):
        observation = state.observation(seat)
        for k in range(20):
            sampled = GAME.sample_state(observation, random.Random(k))
            assert sampled.observation(seat) == observation
            assert sampled.hand_names(seat) == state.hand_names(seat)
            assert sum(len(sampled.hand_names(s)) for s in range(4)) == 32 - 6


def test_voids_exclude_a_whole_suit():
    state = new_game(3, {"a": "01111233", "g": "11223300", "h": "22330011", "b": "00022233"})
    assert not any(card.endswith("b") for card in state.hand_names(1))
    run(state, "pass pass pass pass Ab Ka")  # seat 1 is void in bells and discards
    observation = state.observation(2)
    assert excluded_cards(observation) == [0, SUIT_MASKS[3], 0, 0]
    for k in range(50):
        sampled = sample_state(observation, random.Random(k))
        assert sampled.observation(2) == observation
        assert not any(card.endswith("b") for card in sampled.hand_names(1))


def test_must_beat_excludes_the_cards_above_the_trick_in_the_small_game():
    state = new_game(3, OWNERS_K1)
    run(state, "small pass pass pass 9h 8h Kh")  # seat 1 could not beat 9h: holds no heart above it
    observation = state.observation(3)
    assert names_of(excluded_cards(observation)[1]) == ("Ah", "Kh", "Oh", "Uh", "10h")
    assert excluded_cards(observation)[2] == 0  # seat 2 did beat: nothing learnt
    for k in range(100):
        sampled = sample_state(observation, random.Random(k))
        assert "Ah" not in sampled.hand_names(1)
    # The same plays in a regular game prove nothing.
    regular = new_game(3, OWNERS_K1)
    run(regular, "pass pass pass pass 9h 8h Kh")
    assert excluded_cards(regular.observation(3))[1] == 0


def test_sampler_draws_future_deals_from_the_given_rng():
    state = new_game(3, OWNERS_K1, deals=2)
    run(state, "pass pass pass pass Aa Oa 10a 8a")
    observation = state.observation(0)
    logs = []
    for seed in (5, 5, 6):
        sampled = sample_state(observation, random.Random(seed))
        assert sampled.chance.log[0]["kind"] == "deal" and len(sampled.chance.log) == 1
        play = random.Random(0)
        while sampled.deal == 1:
            (seat,) = sampled.to_move()
            sampled.apply(seat, play.choice(sampled.legal_actions(seat)))
        assert len(sampled.chance.log) == 2
        logs.append(sampled.chance.log)
    assert logs[0] == logs[1]
    assert logs[0][1] != logs[2][1]  # the second deal came from each rng


def test_inconsistent_observation_is_reported():
    state = new_game(3, OWNERS_K1)
    run(state, "pass pass pass pass Aa")
    observation = state.observation(1)
    forged = type(observation)(**{**{f: getattr(observation, f) for f in observation.__dataclass_fields__}, "hand": ("Aa",)})
    with pytest.raises(GameError, match="inconsistent observation"):
        sample_state(forged, random.Random(0))


# ------------------------------------------------------------------------------------- exact uniformity


def consistent_deals(seed, actions, seat):
    """Brute force: every assignment of the unseen cards whose replay gives ``seat`` the same observation."""
    state = replay(None, actions, seed=seed)
    target = state.observation(seat)
    own = mask_of(target.hand)
    unseen = [c for c in DECK if c not in target.hand and c not in target.played]
    others = [s for s in range(4) if s != seat]
    sizes = [target.hand_sizes[s] for s in others]
    played_by = {s: [card for plays, _w in target.tricks for who, card in plays if who == s] for s in range(4)}
    for who, card in target.trick:
        played_by[who].append(card)
    found = []
    for first in itertools.combinations(unseen, sizes[0]):
        rest = [c for c in unseen if c not in first]
        for second in itertools.combinations(rest, sizes[1]):
            third = [c for c in rest if c not in second]
            hands = {seat: list(names_of(own)), others[0]: list(first), others[1]: list(second), others[2]: third}
            deal = [hands[s] + played_by[s] for s in range(4)]
            try:
                other = replay(deal, actions)
            except GameError:
                continue
            if other.observation(seat) == target:
                found.append(tuple(mask_of(hands[s]) for s in others))
    return found, target


def replay(deal, actions, dealer=3, seed=99):
    """A one-deal game, from ``deal`` (or the seed), with ``actions`` applied."""
    outcomes = [{"kind": "dealer", "value": dealer}]
    if deal is not None:
        outcomes.append({"kind": "deal", "value": deal})
    state = GAME.new_state(seed, {"deals": 1}, script=outcomes)
    for who, action in actions:
        state.apply(who, action)
    return state


def find_late_position(contract):
    """A deterministic late position (in trick 6, two cards played) where public constraints cut the deals."""
    for seed in range(400):
        rng = random.Random(seed)
        state = replay(None, [], seed=seed)
        actions = []
        bids = {"small": ["small", "pass", "pass", "pass"], "regular": ["pass"] * 4}[contract]
        for call in bids:
            actions.append((state.to_move()[0], call))
            state.apply(*actions[-1])
        while not state.is_over() and (len(state.tricks) < 5 or len(state.trick) < 2):
            seat = state.to_move()[0]
            actions.append((seat, rng.choice(state.legal_actions(seat))))
            state.apply(*actions[-1])
        if state.is_over():
            continue
        seat = state.to_move()[0]
        deals, target = consistent_deals(seed, actions, seat)
        unconstrained = 1
        left = len([c for c in DECK if c not in target.hand and c not in target.played])
        for s in range(4):
            if s != seat:
                unconstrained *= len(list(itertools.combinations(range(left), target.hand_sizes[s])))
                left -= target.hand_sizes[s]
        weights = {weight for _groups, _split, weight in split_weights(target)}
        if (
            6 <= len(deals) < unconstrained
            and len(weights) > 1  # unequal splits: a sampler ignoring the weights would fail
            and (contract != "small" or must_beat_bites(target))
        ):
            return actions, seat, deals, target
    raise AssertionError(f"no suitable {contract} position found")


def must_beat_bites(observation):
    """Whether some must-beat exclusion is not already implied by a void."""
    small = excluded_cards(observation)
    regular = excluded_cards(type(observation)(**{**{f: getattr(observation, f) for f in observation.__dataclass_fields__}, "contract": "regular"}))
    unseen = ~mask_of(observation.hand) & ~mask_of(observation.played) & ((1 << 32) - 1)
    return any((a & ~b) & unseen for a, b in zip(small, regular))


@pytest.mark.parametrize("contract", ["regular", "small"])
def test_sampler_is_uniform_over_the_consistent_deals(contract):
    _actions, seat, deals, target = find_late_position(contract)
    others = [s for s in range(4) if s != seat]
    rng = random.Random(2024)
    draws = 60 * len(deals)
    counts = Counter()
    for _ in range(draws):
        sampled = sample_state(target, rng)
        key = tuple(sampled.hands[s] for s in others)
        counts[key] += 1
    assert set(counts) <= set(deals), "the sampler produced a deal the brute force rejects"
    observed = [counts[deal] for deal in deals]
    assert min(observed) > 0
    _stat, p_value = chisquare(observed)
    assert p_value > 1e-4, (p_value, observed)
