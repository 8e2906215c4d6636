"""Lorum search styles: the ducking and cautious rules, the chain's styles and the styles learned over a game.

The search models each other seat by a style: for each kind of decision (calls, leads,
follows, void discards) one of ``FAMILIES``: the rollout policy, the ducking rule of
``plugins/example-agent`` or the cautious rule of ``agents/heuristics/lorum.py``.  ``StyleMemory``
learns from the deals that ended which seat plays which, and ``WorldChain`` draws each
world's styles with its hands.
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
from arena_agents.heuristics.lorum import CautiousLorumAgent
from arena_agents.lorum import GreedyLorumAgent, RandomLorumAgent
from arena_agents.search.lorum import SearchLorumAgent, play_out_searching
from arena_agents.search.lorum_beliefs import ROLLOUT_ONLY, History, WorldChain, draw_styles
from arena_agents.search.lorum_sim import (
    CALL,
    CALL_RULES,
    CARD_RULES,
    FAMILIES,
    FOLLOW,
    KINDS,
    LEAD,
    VOID,
    PlayoutDeal,
    Style,
    card_kind,
    card_rule,
    cautious_card,
    ducking_card,
    pass_call,
    play_out,
)
from arena_agents.search.lorum_styles import MAX_PRIOR_ODDS, STARTING_PRIOR, StyleMemory, deal_evidence
from tests.search.test_search_lorum import make, random_position

EXAMPLE_SOURCE = Path(__file__).resolve().parents[2] / "plugins" / "example-agent" / "src"
ROLLOUT, DUCKING, CAUTIOUS = (FAMILIES.index(name) for name in ("rollout", "ducking", "cautious"))


def whole(family: int) -> Style:
    """The style of a seat that follows ``family`` in every kind of decision."""
    return (family,) * len(KINDS)


def level(families: int = len(FAMILIES)) -> list[list[tuple[float, ...]]]:
    """A prior that weighs the first ``families`` families alike for every seat and kind (the rest not at all)."""
    return [[(1.0,) * families + (0.0,) * (len(FAMILIES) - families)] * len(KINDS)] * 4


@pytest.fixture
def example_agent(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The example plugin's Lorum agent class, imported from its source tree."""
    monkeypatch.syspath_prepend(str(EXAMPLE_SOURCE))
    monkeypatch.delitem(sys.modules, "arena_example_agent.agents", raising=False)
    from arena_example_agent.agents import ExampleLorumAgent

    return ExampleLorumAgent


def ruled_game(seed: int, styles: list[Style], deals: int = 2) -> list[tuple[Any, list[int]]]:
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
            state.apply(seat, CALL_RULES[style[CALL]](deal, seat))
        else:
            state.apply(seat, DECK[card_rule(style)(deal)])
    return seen


@pytest.mark.parametrize("family", ["ducking", "cautious"])
def test_each_simpler_rule_plays_exactly_as_the_agent_it_models(family: str, example_agent: Any) -> None:
    """Every decision with a choice of the modelled agents in whole games (one random seat, so that big and small
    contracts come up): the rule makes the same one.  The ducking rule models ``plugins/example-agent``, the
    cautious rule ``arena_agents.heuristics.lorum.CautiousLorumAgent``, each written on card names."""
    agent_class, card = {"ducking": (example_agent, ducking_card), "cautious": (CautiousLorumAgent, cautious_card)}[family]
    checked = {"regular": 0, "big": 0, "small": 0}
    for seed in range(24):
        state = GAME.new_state(seed, {"deals": 4})
        agents = [make(RandomLorumAgent, 0, seed)] + [make(agent_class, seat, seed * 10 + seat) for seat in (1, 2, 3)]
        while not state.is_over():
            (seat,) = state.to_move()
            observation = state.observation(seat)
            action = agents[seat].act(observation)
            if seat and len(observation.legal) > 1:
                own = [0] * 4
                own[seat] = mask_of(observation.hand)
                deal = PlayoutDeal.from_observation(observation, own)
                rule = pass_call(deal, seat) if observation.phase == "bid" else DECK[card(deal)]
                assert rule == action, (seed, observation)
                checked[observation.contract or "regular"] += 1
            state.apply(seat, action)
    assert min(checked.values()) > 60, checked  # measured: ducking 683, 94, 298; cautious 750, 77, 187


MIXED: Style = (ROLLOUT, DUCKING, CAUTIOUS, ROLLOUT)  # bids and sheds like greedy, leads and follows like others


def test_history_counts_departures_kind_by_kind_from_each_seats_own_families() -> None:
    """A seat departs from its own family for each kind nowhere with its true hand, and from another family
    somewhere; a seat that mixes families is judged kind by kind."""
    departed: dict[tuple[int, int], int] = {}
    # For each kind of card decision, each family is some other seat's (a Latin square); seat 0 is the observer.
    styles = [whole(ROLLOUT)] + [(ROLLOUT,) + tuple((seat + kind) % 3 for kind in range(3)) for seat in range(3)]
    for seed in range(20):
        observation, hands = ruled_game(seed, styles, deals=1)[-1]  # seat 0's last decision of the deal
        history = History(observation)
        for seat in history.others:
            for family in range(len(FAMILIES)):
                counts = history.departures(seat, hands[seat], family)
                for kind, count in enumerate(counts):
                    if styles[seat][kind] == family:
                        assert count == 0, (seed, seat, family, kind)
                    else:
                        departed[kind, styles[seat][kind]] = departed.get((kind, styles[seat][kind]), 0) + count
    for kind in (LEAD, FOLLOW, VOID):
        for family in range(len(FAMILIES)):
            assert departed[kind, family] > 5, departed


def test_the_style_memory_learns_each_seats_families_from_the_deals_that_ended() -> None:
    """With no deal ended the prior is the starting one; after a deal it is that times each family's likelihood of
    the seat's decisions of each kind, in which the seat's own family for that kind is (almost always) the best.  After one deal that favours the family a seat follows suit by over every
    other for most seats (in the rest the families made the seat's every choice alike), though every seat below
    follows by a family the starting prior puts at a tenth of the rollout policy."""
    learned, clear, checked, own_best = 0, 0, 0, 0
    styles = [whole(ROLLOUT), whole(DUCKING), MIXED, whole(CAUTIOUS)]
    for seed in range(16):
        seen = [observation for observation, _hands in ruled_game(seed, styles)]
        memory = StyleMemory()
        first_deal = [observation for observation in seen if observation.deal == 1]
        for observation in first_deal:
            memory.learn(observation)
        assert memory.prior() == [[pytest.approx(STARTING_PRIOR)] * len(KINDS)] * 4  # nothing ended yet
        memory.learn(next(observation for observation in seen if observation.deal == 2))
        prior = memory.prior()
        evidence = deal_evidence(first_deal[-1])
        for seat in (1, 2, 3):
            if seat not in evidence:  # a contract that ended early: nothing learned about the seat
                assert prior[seat] == [pytest.approx(STARTING_PRIOR)] * len(KINDS)
                continue
            for kind in range(len(KINDS)):
                weights = [start * math.exp(log) for start, log in zip(STARTING_PRIOR, evidence[seat][kind], strict=True)]
                assert prior[seat][kind] == pytest.approx(tuple(max(w / max(weights), 1 / MAX_PRIOR_ODDS) for w in weights))
            for kind in (LEAD, FOLLOW, VOID):  # the evidence of a kind is that of the seat's decisions of that kind
                checked += 1
                own_best += evidence[seat][kind][styles[seat][kind]] == max(evidence[seat][kind])
            own = styles[seat][FOLLOW]
            learned += 1
            clear += prior[seat][FOLLOW][own] == 1.0 and all(
                weight < 1.0 for family, weight in enumerate(prior[seat][FOLLOW]) if family != own)
    assert learned >= 30 and clear >= 0.5 * learned, (learned, clear)  # measured: 31 of 48
    # The seat's own family explains its decisions of each kind best, but where the card it still held is unknown.
    assert own_best >= 0.95 * checked, (own_best, checked)


def test_deal_evidence_leaves_out_seats_that_still_hold_several_cards() -> None:
    for seed in range(30):
        state = random_position(seed, deals=1)
        if state.is_over() or state.phase != "play":
            continue
        observation = state.observation(state.to_move()[0])
        evidence = deal_evidence(observation)
        assert all(observation.hand_sizes[seat] <= 1 for seat in evidence)
        assert observation.seat not in evidence


def test_the_prior_never_rules_a_family_out() -> None:
    """However one-sided the past deals, a family keeps ``1 / MAX_PRIOR_ODDS`` of the best one's weight."""
    memory = StyleMemory()
    memory.log_likelihood[1][FOLLOW] = [-500.0, 0.0, -1.0]
    memory.log_likelihood[2][LEAD] = [0.0, -2.0, -900.0]
    prior = memory.prior()
    assert prior[1][FOLLOW] == (pytest.approx(1 / MAX_PRIOR_ODDS), 1.0, pytest.approx(math.exp(-1.0)))
    assert prior[2][LEAD] == (1.0, pytest.approx(math.exp(-2.0)), pytest.approx(1 / MAX_PRIOR_ODDS))
    assert prior[1][LEAD] == pytest.approx(STARTING_PRIOR)  # the other kinds untouched


def test_styles_are_drawn_kind_by_kind_from_the_prior_and_never_for_the_searching_seat() -> None:
    rng = random.Random(3)
    assert all(draw_styles(ROLLOUT_ONLY, 0, rng) == [whole(ROLLOUT)] * 4 for _ in range(50))
    prior = [
        [(1.0, 1.0, 1.0)] * 4,
        [(0.0, 1.0, 0.0)] * 4,
        [(1.0, 1.0, 0.0), (0.0, 0.0, 1.0), (1.0, 0.0, 3.0), (0.0, 1.0, 0.0)],
        [(1.0, 3.0, 0.0)] * 4,
    ]
    drawn = [draw_styles(prior, 0, rng) for _ in range(4000)]
    assert {styles[0] for styles in drawn} == {whole(ROLLOUT)}
    assert {styles[1] for styles in drawn} == {whole(DUCKING)}
    share = {(seat, kind, family): sum(styles[seat][kind] == family for styles in drawn) / len(drawn)
             for seat in (2, 3) for kind in range(len(KINDS)) for family in range(len(FAMILIES))}
    assert share[2, CALL, DUCKING] == pytest.approx(0.5, abs=0.03)
    assert share[2, LEAD, CAUTIOUS] == 1.0 and share[2, VOID, DUCKING] == 1.0
    assert share[2, FOLLOW, CAUTIOUS] == pytest.approx(0.75, abs=0.03) and share[2, FOLLOW, DUCKING] == 0.0
    assert all(share[3, kind, DUCKING] == pytest.approx(0.75, abs=0.03) for kind in range(len(KINDS)))


def test_the_chain_draws_each_seats_families_in_proportion_to_how_well_they_explain_the_seats_play() -> None:
    """Given a world's hands, a seat's family for a kind is drawn with odds prior times epsilon to its departures
    in that kind; the searching seat is always on the rollout policy."""
    for seed in range(6):
        seen = ruled_game(seed, [whole(ROLLOUT), whole(DUCKING), MIXED, whole(CAUTIOUS)], deals=1)
        observation, _hands = next((o, h) for o, h in seen if len(o.tricks) >= 2)
        rng = random.Random(seed)
        chain = WorldChain(observation, rng, epsilon=0.3, prior=level())
        counts = {(seat, kind): [0] * len(FAMILIES) for seat in (1, 2, 3) for kind in (LEAD, FOLLOW)}
        expected = {key: [0.0] * len(FAMILIES) for key in counts}
        for _ in range(600):
            hands = chain.draw(rng)
            assert chain.styles[0] == whole(ROLLOUT)
            for seat, kind in counts:
                counts[seat, kind][chain.styles[seat][kind]] += 1
                odds = [0.3 ** chain.history.departures(seat, hands[seat], family)[kind]
                        for family in range(len(FAMILIES))]
                for family, odd in enumerate(odds):
                    expected[seat, kind][family] += odd / sum(odds)
        for key, drawn in counts.items():
            assert drawn == pytest.approx(expected[key], abs=60), key


def test_the_chain_finds_how_each_seat_follows_in_a_deal() -> None:
    """Four tricks into a deal, with a level prior, the chain's worlds give each seat the family it follows suit by
    far more often than the others, a seat that leads by another family too."""
    share: dict[int, list[float]] = {family: [] for family in range(len(FAMILIES))}
    styles = [whole(ROLLOUT), whole(DUCKING), MIXED, whole(CAUTIOUS)]
    for seed in range(10):
        seen = [observation for observation, _hands in ruled_game(seed, styles, deals=1)]
        observation = next((o for o in seen if o.contract == "regular" and len(o.tricks) >= 4), None)
        if observation is None:
            continue
        rng = random.Random(seed)
        chain = WorldChain(observation, rng, prior=level())
        drawn = []
        for _ in range(40):
            chain.draw(rng)
            drawn.append(chain.styles)
        for seat in (1, 2, 3):
            own = styles[seat][FOLLOW]
            share[own].append(sum(world[seat][FOLLOW] == own for world in drawn) / len(drawn))
    found = {FAMILIES[family]: sum(shares) / len(shares) for family, shares in share.items() if shares}
    assert len(found) == 2 and min(found.values()) > 0.6, found


def test_the_search_remembers_the_styles_over_a_game() -> None:
    """A search agent among greedy agents learns that they play like its rollout policy: its family is the likeliest
    for every kind of decision, and the others are far behind where the families differ most, following suit."""
    state = GAME.new_state(4, {"deals": 3})
    agents = [make(SearchLorumAgent, 0, 4, {"iterations": 24})] + [make(GreedyLorumAgent, s, s) for s in (1, 2, 3)]
    while not state.is_over():
        (seat,) = state.to_move()
        state.apply(seat, agents[seat].act(state.observation(seat)))
    prior = agents[0].style_memory.prior()
    for seat in (1, 2, 3):
        assert all(weights[ROLLOUT] == 1.0 for weights in prior[seat]), (seat, prior[seat])
        assert max(prior[seat][FOLLOW][1:]) < 0.01, (seat, prior[seat])


def own_chips(seat: int, changes: tuple[int, ...]) -> float:
    """A playout's value for ``seat``: its chip change."""
    return changes[seat]


def test_the_playouts_play_each_other_seat_by_its_style(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a playout every seat's card is its style's family's for the kind of decision (the searching seat's later
    own cards in a card's playouts apart, which it searches), even where the policy differs."""
    checked: dict[str, int] = {"cards": 0, "unlike the policy": 0}
    main: dict[str, Any] = {}  # the deal being played out (not the copies its candidates are tried on), and me
    play = PlayoutDeal.play

    def checked_play(deal: PlayoutDeal, card: int) -> None:
        if main and deal is main["deal"] and deal.to_act != main["me"]:
            family = deal.styles[deal.to_act][card_kind(deal, card)]
            assert card == CARD_RULES[family](deal)
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
        deal.styles = [whole(ROLLOUT) if seat == me else tuple((seat + seed + kind) % len(FAMILIES) for kind in
                                                                range(len(KINDS))) for seat in range(4)]
        main.update(deal=deal.copy(), me=me)
        play_out_searching(main["deal"], me, functools.partial(own_chips, me))
        main.update(deal=deal.copy(), me=-1)  # the plain playout: every seat by its style
        play_out(main["deal"])
        main.clear()
    assert checked["cards"] > 300 and checked["unlike the policy"] > 20, checked


def test_the_search_plays_its_worlds_with_the_styles_it_has_learned(monkeypatch: pytest.MonkeyPatch) -> None:
    """An agent sure of how the others play, among such seats, plays out worlds in which they play so, before they
    have played a card this deal (drawn from the prior) and after (from the chain)."""
    drawn: list[list[Style]] = []
    search = lorum_module.determinized_search

    def recording(candidates, sample, playout, budget, rng, max_worlds=None):
        def recorded(rng):
            world = sample(rng)
            drawn.append(list(world.styles))
            return world

        return search(candidates, recorded, playout, budget, rng, max_worlds=max_worlds)

    monkeypatch.setattr(lorum_module, "determinized_search", recording)
    for sure in (whole(DUCKING), whole(ROLLOUT), MIXED):
        drawn.clear()
        for observation, _hands in ruled_game(3, [whole(ROLLOUT), sure, sure, sure], deals=1):
            if len(observation.legal) < 2:
                continue
            agent = make(SearchLorumAgent, 0, 3, {"iterations": 24})
            agent.style_memory.log_likelihood = [
                [[0.0 if family == sure[kind] else -30.0 for family in range(len(FAMILIES))] for kind in range(len(KINDS))]
                for _seat in range(4)
            ]
            agent.act(observation)
        assert len(drawn) > 50
        assert all(world[0] == whole(ROLLOUT) for world in drawn)
        for kind in (LEAD, FOLLOW, VOID):
            share = sum(world[seat][kind] == sure[kind] for world in drawn for seat in (1, 2, 3)) / (3 * len(drawn))
            assert share == pytest.approx(1.0, abs=0.01), (sure, kind)
