"""Lorum search beliefs: the opponent model's likelihood of the public record, ``History`` and ``WorldChain``.

The chain samples deals consistent with the public record, weighed by how well the other seats'
decisions fit the rollout policy (``history_likelihood``); ``History`` weighs a world seat by seat
and must agree with a replay of the whole deal, step after step of the chain.
"""

from __future__ import annotations

import math
import random
import statistics
from typing import Any

import pytest

from arena.games.lorum import GAME
from arena.games.lorum.cards import DECK, INDEX, indices_of, mask_of
from arena.games.lorum.sampler import sample_hidden_hands
from arena_agents.search.lorum_beliefs import ROLLOUT_ONLY, History, WorldChain, deal_plays, history_likelihood
from arena_agents.search.lorum_sim import FAMILIES, KINDS, PlayoutDeal, rollout_call, rollout_card
from tests.search.test_search_lorum import facts_from_the_tricks, random_position


def test_history_likelihood_is_one_when_the_others_played_the_rollout_policy():
    """If every other seat played exactly as the rollout policy, the true hands explain the history fully."""
    for seed in range(30):
        rng = random.Random(seed)
        state = GAME.new_state(seed, {"deals": 1})
        for _ in range(rng.randrange(4, 30)):
            if state.is_over():
                break
            (seat,) = state.to_move()
            deal = PlayoutDeal.from_observation(state.observation(seat), list(state.hands))
            action = rollout_call(deal, seat) if state.phase == "bid" else DECK[rollout_card(deal)]
            state.apply(seat, action)
        if state.is_over():
            continue
        observation = state.observation(state.to_move()[0])
        assert history_likelihood(observation, list(state.hands), 0.1) == 1.0
        other = sample_hidden_hands(observation, rng)
        assert 0.0 < history_likelihood(observation, other, 0.1) <= 1.0


def replayed_departures(observation, hands: list[int]) -> int:
    """The other seats' departures from the rollout policy, by replaying the whole deal with every hand."""
    dealt = list(hands)
    for seat, name in deal_plays(observation):
        dealt[seat] |= 1 << INDEX[name]
    deal = PlayoutDeal.start(observation.dealer, dealt, observation.pot)
    count = 0
    for seat, call in observation.bids:
        count += seat != observation.seat and rollout_call(deal, seat) != call
        deal.bid(seat, call)
    for seat, name in deal_plays(observation):
        legal = deal.legal()
        count += seat != observation.seat and bool(legal & (legal - 1)) and rollout_card(deal) != INDEX[name]
        deal.play(INDEX[name])
    return count


def test_the_history_weighs_a_world_seat_by_seat_as_a_whole_replay_does():
    """``History``'s per-seat departures add up to those of a replay of the deal from its start."""
    for seed in range(40):
        state = random_position(seed, deals=1)
        if state.is_over():
            continue
        observation = state.observation(state.to_move()[0])
        history = History(observation)
        rng = random.Random(seed)
        for hands in (list(state.hands), sample_hidden_hands(observation, rng), sample_hidden_hands(observation, rng)):
            departures = sum(sum(history.departures(seat, hands[seat])) for seat in history.others)
            assert departures == replayed_departures(observation, hands)
            assert history_likelihood(observation, hands, 0.1) == pytest.approx(0.1**departures)


def policy_position(seed: int) -> Any:
    """A position some tricks into a one-deal game in which every seat played the rollout policy."""
    rng = random.Random(seed)
    state = GAME.new_state(seed, {"deals": 1})
    for _ in range(rng.randrange(12, 26)):
        (seat,) = state.to_move()
        deal = PlayoutDeal.from_observation(state.observation(seat), list(state.hands))
        state.apply(seat, rollout_call(deal, seat) if state.phase == "bid" else DECK[rollout_card(deal)])
    return state


def test_the_world_chain_draws_worlds_that_explain_the_others_play_better_than_uniform_draws():
    """The chain's worlds are more likely under the opponent model than uniform ones, and fit the public record."""
    chained, uniform = [], []
    for seed in range(12):
        state = policy_position(seed)
        (seat,) = state.to_move()
        observation = state.observation(seat)
        rng = random.Random(seed)
        chain = WorldChain(observation, rng)
        excluded = facts_from_the_tricks(observation)
        for _ in range(20):
            hands = chain.draw(rng)
            assert hands[seat] == mask_of(observation.hand)
            for other in range(4):
                assert hands[other].bit_count() == observation.hand_sizes[other]
                assert not {DECK[card] for card in indices_of(hands[other])} & excluded[other]
            chained.append(history_likelihood(observation, hands))
            uniform.append(history_likelihood(observation, sample_hidden_hands(observation, rng)))
    assert statistics.mean(chained) > 2 * statistics.mean(uniform)  # measured: 0.81 against 0.09


ROWS = [(1.0, 0.5, 0.0), (0.3, 1.0, 0.2), (1.0, 1.0, 1.0), (0.2, 0.0, 1.0)]
MIXED_PRIOR = [ROWS[seat:] + ROWS[:seat] for seat in range(4)]  # per seat and kind, each family's weight: all differ


@pytest.mark.parametrize("prior", [ROLLOUT_ONLY, MIXED_PRIOR])
def test_the_chain_weighs_each_world_it_moves_to_as_a_fresh_weighing_does(prior) -> None:
    """After every step the chain's likelihood is its current world's, weighed from scratch (its bookkeeping): per
    other seat, the product over the kinds of decision of the sum over the families of the family's prior times
    epsilon to the seat's departures from it in that kind."""
    for seed in range(40):
        state = random_position(seed, deals=1)
        if state.is_over():
            continue
        observation = state.observation(state.to_move()[0])
        rng = random.Random(seed)
        chain = WorldChain(observation, rng, epsilon=0.3, prior=prior)
        history = History(observation)
        for _ in range(30):
            chain.step(rng)
            weight = math.prod(
                sum(
                    prior[seat][kind][family] * 0.3 ** history.departures(seat, chain.hands[seat], family)[kind]
                    for family in range(len(FAMILIES))
                )
                for seat in history.others
                for kind in range(len(KINDS))
            )
            assert chain.likelihood == pytest.approx(weight, rel=1e-12)
            if prior is ROLLOUT_ONLY:  # the rollout policy's likelihood alone
                assert chain.likelihood == pytest.approx(history_likelihood(observation, chain.hands, 0.3), rel=1e-12)
