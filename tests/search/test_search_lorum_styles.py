"""Lorum search styles: the ducking rule, the chain's styles and the styles learned over a game.

The search models each other seat by one of ``STYLES``: the rollout policy or the ducking
rule of ``plugins/example-agent``.  ``StyleMemory`` learns from the deals that ended which
seat plays which, and ``WorldChain`` draws each world's styles with its hands.
"""

from __future__ import annotations

import functools
import math
import random
import sys
from pathlib import Path
from typing import Any

import pytest

import arena_agents.search.lorum as lorum_module
from arena.games.lorum import GAME
from arena.games.lorum.cards import DECK, mask_of
from arena_agents.lorum import GreedyLorumAgent, RandomLorumAgent
from arena_agents.search.lorum import SearchLorumAgent, play_out_searching
from arena_agents.search.lorum_beliefs import ROLLOUT_ONLY, History, WorldChain, draw_styles
from arena_agents.search.lorum_sim import (
    CALL_RULES,
    CARD_RULES,
    STYLES,
    PlayoutDeal,
    ducking_call,
    ducking_card,
    play_out,
)
from arena_agents.search.lorum_styles import MAX_PRIOR_ODDS, STARTING_PRIOR, StyleMemory, deal_evidence
from tests.search.test_search_lorum import make, random_position

EXAMPLE_SOURCE = Path(__file__).resolve().parents[2] / "plugins" / "example-agent" / "src"
DUCKING = STYLES.index("ducking")
ROLLOUT = STYLES.index("rollout")


@pytest.fixture
def example_agent(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The example plugin's Lorum agent class, imported from its source tree."""
    monkeypatch.syspath_prepend(str(EXAMPLE_SOURCE))
    monkeypatch.delitem(sys.modules, "arena_example_agent.agents", raising=False)
    from arena_example_agent.agents import ExampleLorumAgent

    return ExampleLorumAgent


def ruled_game(seed: int, styles: list[int], deals: int = 2) -> list[tuple[Any, list[int]]]:
    """A game in which each seat plays its style's rules on its own hand: seat 0's observations, each with the
    hands at that moment."""
    state = GAME.new_state(seed, {"deals": deals})
    seen = []
    while not state.is_over():
        (seat,) = state.to_move()
        observation = state.observation(seat)
        if seat == 0:
            seen.append((observation, list(state.hands)))
        own = [0] * 4
        own[seat] = mask_of(observation.hand)
        deal = PlayoutDeal.from_observation(observation, own)
        style = styles[seat]
        if observation.phase == "bid":
            state.apply(seat, CALL_RULES[style](deal, seat))
        else:
            state.apply(seat, DECK[CARD_RULES[style](deal)])
    return seen


def test_the_ducking_rule_plays_exactly_as_the_example_agent(example_agent: Any) -> None:
    """Every decision with a choice of the example agents in whole games (one random seat, so that big and small
    contracts come up): the ducking rule makes the same one."""
    checked = {"regular": 0, "big": 0, "small": 0}
    for seed in range(24):
        state = GAME.new_state(seed, {"deals": 4})
        agents = [make(RandomLorumAgent, 0, seed)] + [make(example_agent, seat, seed * 10 + seat) for seat in (1, 2, 3)]
        while not state.is_over():
            (seat,) = state.to_move()
            observation = state.observation(seat)
            action = agents[seat].act(observation)
            if seat and len(observation.legal) > 1:
                own = [0] * 4
                own[seat] = mask_of(observation.hand)
                deal = PlayoutDeal.from_observation(observation, own)
                rule = ducking_call(deal, seat) if observation.phase == "bid" else DECK[ducking_card(deal)]
                assert rule == action, (seed, observation)
                checked[observation.contract or "regular"] += 1
            state.apply(seat, action)
    assert min(checked.values()) > 60, checked  # measured: 683 regular, 94 big, 298 small


def test_history_counts_departures_from_each_seats_own_style() -> None:
    """A seat that plays a style departs from it nowhere with its true hand, and from the other style somewhere."""
    departed = {ROLLOUT: 0, DUCKING: 0}
    for seed in range(20):
        styles = [ROLLOUT, DUCKING, ROLLOUT, DUCKING]
        observation, hands = ruled_game(seed, styles, deals=1)[-1]  # seat 0's last decision of the deal
        history = History(observation)
        for seat in history.others:
            assert history.departures(seat, hands[seat], styles[seat]) == 0
            departed[styles[seat]] += history.departures(seat, hands[seat], 1 - styles[seat])
    assert departed[ROLLOUT] > 20 and departed[DUCKING] > 20


def test_the_style_memory_learns_which_seat_ducks_from_the_deals_that_ended() -> None:
    """With no deal ended the prior is the starting one; after a deal it is that times each style's likelihood of
    the deal, which favours each seat's own style by a departure's worth or more for most seats (in the rest both
    styles made the seat's every choice alike)."""
    learned, clear = 0, 0
    for seed in range(16):
        styles = [ROLLOUT, DUCKING, ROLLOUT, DUCKING]
        seen = [observation for observation, _hands in ruled_game(seed, styles)]
        memory = StyleMemory()
        first_deal = [observation for observation in seen if observation.deal == 1]
        for observation in first_deal:
            memory.learn(observation)
        assert memory.prior() == [pytest.approx(STARTING_PRIOR)] * 4  # nothing ended yet
        memory.learn(next(observation for observation in seen if observation.deal == 2))
        prior = memory.prior()
        evidence = deal_evidence(first_deal[-1])
        for seat in (1, 2, 3):
            if seat not in evidence:  # a contract that ended early: nothing learned about the seat
                assert prior[seat] == pytest.approx(STARTING_PRIOR)
                continue
            weights = [start * math.exp(log) for start, log in zip(STARTING_PRIOR, evidence[seat], strict=True)]
            assert prior[seat] == pytest.approx(tuple(max(w / max(weights), 1 / MAX_PRIOR_ODDS) for w in weights))
            learned += 1
            clear += prior[seat][styles[seat]] == 1.0 and prior[seat][1 - styles[seat]] <= 0.011
    assert learned >= 30 and clear >= 0.7 * learned, (learned, clear)  # measured: 36 of 48


def test_deal_evidence_leaves_out_seats_that_still_hold_several_cards() -> None:
    for seed in range(30):
        state = random_position(seed, deals=1)
        if state.is_over() or state.phase != "play":
            continue
        observation = state.observation(state.to_move()[0])
        evidence = deal_evidence(observation)
        assert all(observation.hand_sizes[seat] <= 1 for seat in evidence)
        assert observation.seat not in evidence


def test_the_prior_never_rules_a_style_out() -> None:
    """However one-sided the past deals, a style keeps ``1 / MAX_PRIOR_ODDS`` of the best one's weight."""
    memory = StyleMemory()
    memory.log_likelihood[1] = [-500.0, 0.0]
    memory.log_likelihood[2] = [0.0, -2.0]
    prior = memory.prior()
    assert prior[1] == (pytest.approx(1 / MAX_PRIOR_ODDS), 1.0)
    assert prior[2] == (1.0, pytest.approx(math.exp(-2.0)))


def test_styles_are_drawn_from_the_prior_and_never_for_the_searching_seat() -> None:
    rng = random.Random(3)
    assert all(draw_styles(ROLLOUT_ONLY, 0, rng) == [0, 0, 0, 0] for _ in range(50))
    prior = [(1.0, 1.0), (0.0, 1.0), (1.0, 1.0), (1.0, 3.0)]
    drawn = [draw_styles(prior, 0, rng) for _ in range(4000)]
    assert {styles[0] for styles in drawn} == {ROLLOUT}
    assert {styles[1] for styles in drawn} == {DUCKING}
    assert sum(styles[2] for styles in drawn) / len(drawn) == pytest.approx(0.5, abs=0.03)
    assert sum(styles[3] for styles in drawn) / len(drawn) == pytest.approx(0.75, abs=0.03)


def test_the_chain_draws_each_seats_style_in_proportion_to_how_well_it_explains_the_seats_play() -> None:
    """Given a world's hands, a seat's style is drawn with odds prior times epsilon to the departures; the
    searching seat is always on the rollout policy."""
    prior = [(1.0, 1.0)] * 4
    for seed in range(6):
        seen = ruled_game(seed, [ROLLOUT, DUCKING, ROLLOUT, DUCKING], deals=1)
        observation, _hands = next((o, h) for o, h in seen if len(o.tricks) >= 2)
        rng = random.Random(seed)
        chain = WorldChain(observation, rng, epsilon=0.3, prior=prior)
        counts = {seat: [0, 0] for seat in (1, 2, 3)}
        expected = {seat: [0.0, 0.0] for seat in (1, 2, 3)}
        for _ in range(600):
            hands = chain.draw(rng)
            assert chain.styles[0] == ROLLOUT
            for seat in (1, 2, 3):
                counts[seat][chain.styles[seat]] += 1
                odds = [0.3 ** chain.history.departures(seat, hands[seat], style) for style in (0, 1)]
                expected[seat][DUCKING] += odds[1] / sum(odds)
        for seat in (1, 2, 3):
            assert counts[seat][DUCKING] == pytest.approx(expected[seat][DUCKING], abs=60)


def test_the_chain_finds_the_ducking_seats_in_a_deal() -> None:
    """Four tricks into a deal, with a level prior, the chain's worlds give the ducking seats the ducking style far
    more often than the others."""
    share: dict[int, list[float]] = {ROLLOUT: [], DUCKING: []}
    styles = [ROLLOUT, DUCKING, ROLLOUT, DUCKING]
    for seed in range(10):
        seen = [observation for observation, _hands in ruled_game(seed, styles, deals=1)]
        observation = next((o for o in seen if o.contract == "regular" and len(o.tricks) >= 4), None)
        if observation is None:
            continue
        rng = random.Random(seed)
        chain = WorldChain(observation, rng, prior=[(1.0, 1.0)] * 4)
        drawn = []
        for _ in range(40):
            chain.draw(rng)
            drawn.append(chain.styles)
        for seat in (1, 2, 3):
            share[styles[seat]].append(sum(world[seat] for world in drawn) / len(drawn))
    ducking, rollout = (sum(share[style]) / len(share[style]) for style in (DUCKING, ROLLOUT))
    assert ducking > 0.6 and rollout < 0.3, (ducking, rollout)


def test_the_search_remembers_the_styles_over_a_game() -> None:
    """A search agent among greedy agents learns that they play like its rollout policy, not the ducking rule."""
    state = GAME.new_state(4, {"deals": 3})
    agents = [make(SearchLorumAgent, 0, 4, {"iterations": 24})] + [make(GreedyLorumAgent, s, s) for s in (1, 2, 3)]
    while not state.is_over():
        (seat,) = state.to_move()
        state.apply(seat, agents[seat].act(state.observation(seat)))
    prior = agents[0].style_memory.prior()
    assert all(prior[seat][ROLLOUT] == 1.0 and prior[seat][DUCKING] < 0.01 for seat in (1, 2, 3))


def own_chips(seat: int, changes: tuple[int, ...]) -> float:
    """A playout's value for ``seat``: its chip change."""
    return changes[seat]


def test_the_playouts_play_each_other_seat_by_its_style(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a playout every seat's card is its style's (the searching seat's later own cards in a card's playouts
    apart, which it searches): the ducking seats' cards are the ducking rule's even where the policy differs."""
    checked: dict[str, int] = {"cards": 0, "unlike the policy": 0}
    main: dict[str, Any] = {}  # the deal being played out (not the copies its candidates are tried on), and me
    play = PlayoutDeal.play

    def checked_play(deal: PlayoutDeal, card: int) -> None:
        if main and deal is main["deal"] and deal.to_act != main["me"]:
            assert card == CARD_RULES[deal.styles[deal.to_act]](deal)
            checked["cards"] += 1
            checked["unlike the policy"] += card != CARD_RULES[ROLLOUT](deal)
        play(deal, card)

    monkeypatch.setattr(PlayoutDeal, "play", checked_play)
    for seed in range(60):
        state = random_position(seed, deals=1)
        if state.is_over() or state.phase == "bid":
            continue
        (me,) = state.to_move()
        deal = PlayoutDeal.from_observation(state.observation(me), list(state.hands))
        deal.styles = [ROLLOUT if seat == me else (seat + seed) % 2 for seat in range(4)]
        main.update(deal=deal.copy(), me=me)
        play_out_searching(main["deal"], me, functools.partial(own_chips, me))
        main.update(deal=deal.copy(), me=-1)  # the plain playout: every seat by its style
        play_out(main["deal"])
        main.clear()
    assert checked["cards"] > 300 and checked["unlike the policy"] > 20, checked


def test_the_search_plays_its_worlds_with_the_styles_it_has_learned(monkeypatch: pytest.MonkeyPatch) -> None:
    """An agent sure that the others duck, among ducking seats, plays out worlds in which they duck, before they
    have played a card this deal (drawn from the prior) and after (from the chain); one sure that they play the
    policy, among seats that do, worlds in which they play it."""
    drawn: list[list[int]] = []
    search = lorum_module.determinized_search

    def recording(candidates, sample, playout, budget, rng, max_worlds=None):
        def recorded(rng):
            world = sample(rng)
            drawn.append(list(world.styles))
            return world

        return search(candidates, recorded, playout, budget, rng, max_worlds=max_worlds)

    monkeypatch.setattr(lorum_module, "determinized_search", recording)
    for sure, expected in ((DUCKING, 1.0), (ROLLOUT, 0.0)):
        drawn.clear()
        for observation, _hands in ruled_game(3, [ROLLOUT, sure, sure, sure], deals=1):
            if len(observation.legal) < 2:
                continue
            agent = make(SearchLorumAgent, 0, 3, {"iterations": 24})
            agent.style_memory.log_likelihood = [[0.0, -30.0] if sure == ROLLOUT else [-30.0, 0.0]] * 4
            agent.act(observation)
        assert len(drawn) > 50
        assert all(world[0] == ROLLOUT for world in drawn)
        share = sum(world[seat] for world in drawn for seat in (1, 2, 3)) / (3 * len(drawn))
        assert share == pytest.approx(expected, abs=0.01)
