"""The Lovat heuristics of ``agents/heuristics/lovat.py`` that the search is measured against: legal at every
player count, each keeping and declaring as its docstring says, and none of them greedy under another name.

A measurement against them means something only if they are unlike greedy's rule, which the
search's playouts and beliefs assume for every other seat; a test checks that they are.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from arena.agent import Agent
from arena.games.base import Action
from arena.games.lovat import GAME
from arena.games.lovat.deck import CARD_IDS, COLOUR_INDEX, STRENGTH
from arena.games.lovat.observation import LovatObservation
from arena_agents.heuristics.lovat import (
    CountingLovatAgent,
    HoarderLovatAgent,
    SniperLovatAgent,
    best_strength,
    legal_keeps,
    own_turns_left,
)
from arena_agents.lovat import GreedyLovatAgent, RandomLovatAgent

HEURISTICS: dict[str, type[Agent]] = {
    "counting": CountingLovatAgent,
    "hoarder": HoarderLovatAgent,
    "sniper": SniperLovatAgent,
}
"""Each heuristic by the name it is registered under (``agents/plugin.py``; a test checks the registration)."""

def play(agent_class: type[Agent], players: int, seed: int) -> list[tuple[LovatObservation, Action, Action]]:
    """A game of ``agent_class`` in every seat: each decision's (observation, action, greedy's action there)."""
    state = GAME.new_state(seed, {"players": players})
    agents = [agent_class(seat=seat, game=GAME.info, players=players, seed=seed, options={}) for seat in range(players)]
    greedy = [
        GreedyLovatAgent(seat=seat, game=GAME.info, players=players, seed=seed, options={}) for seat in range(players)
    ]
    decisions = []
    while not state.is_over():
        for seat in state.to_move():  # every seat at once in the keep (L-5), one at a time after it
            observation = state.observation(seat)
            action = agents[seat].act(observation)
            assert state.is_legal(seat, action), (agent_class.__name__, observation.phase, action)
            decisions.append((observation, action, greedy[seat].act(observation)))
            state.apply(seat, action)
    return decisions


@pytest.mark.parametrize("players", [3, 4, 5, 6])
@pytest.mark.parametrize("name", sorted(HEURISTICS))
def test_every_heuristic_plays_whole_games_legally(name: str, players: int) -> None:
    for seed in range(3):
        play(HEURISTICS[name], players, seed)  # asserts every action legal


def keeps(agent_class: type[Agent], players: int) -> list[tuple[LovatObservation, Action]]:
    """Every keep of the heuristic in 4 games: (observation, keep)."""
    return [
        (obs, action) for seed in range(4) for obs, action, _ in play(agent_class, players, seed) if obs.phase == "keep"
    ]


def test_the_hoarder_keeps_as_many_cards_and_the_sniper_as_few_as_the_rules_allow_the_strongest_of_that_size() -> None:
    for agent_class, size_of in ((HoarderLovatAgent, max), (SniperLovatAgent, min)):
        for obs, keep in keeps(agent_class, 4):
            assert isinstance(keep, tuple)
            size = size_of(len(each) for each in legal_keeps(obs))
            assert len(keep) == size
            strongest = max(sum(map(best_strength, each)) for each in legal_keeps(obs) if len(each) == size)
            assert sum(map(best_strength, keep)) == strongest


def test_the_counter_keeps_the_most_likely_winners_then_the_most_cards() -> None:
    def winners(keep: Sequence[str]) -> int:
        return sum(best_strength(card) >= 30 for card in keep)

    for obs, keep in keeps(CountingLovatAgent, 3):
        assert isinstance(keep, tuple)
        most = max(winners(each) for each in legal_keeps(obs))
        assert winners(keep) == most
        assert len(keep) == max(len(each) for each in legal_keeps(obs) if winners(each) == most)


def voluntary_declarations(agent_class: type[Agent], players: int, seeds: int) -> list[tuple[LovatObservation, Action]]:
    """The heuristic's declarations in self-play that neither the rules (L-11) nor its own turns to come force."""
    return [
        (obs, action)
        for seed in range(seeds)
        for obs, action, _ in play(agent_class, players, seed)
        if obs.phase == "declare" and len(obs.legal) > 1 and len(obs.hand) > own_turns_left(obs)
    ]


@pytest.mark.parametrize(("agent_class", "threshold"), [(HoarderLovatAgent, 20), (SniperLovatAgent, 50)])
def test_the_hoarder_and_the_sniper_declare_play_exactly_at_their_thresholds(
    agent_class: type[Agent], threshold: int
) -> None:
    declared = voluntary_declarations(agent_class, 4, 6)
    outcomes = set()
    for obs, action in declared:
        colour = COLOUR_INDEX[str(obs.colour)]
        plays = max(STRENGTH[card][colour] for card in obs.hand) >= threshold
        assert action == ("play" if plays else "pass")
        outcomes.add(action)
    assert outcomes == {"play", "pass"}, len(declared)


def test_the_counter_declares_play_when_its_best_card_probably_beats_the_unseen_cards() -> None:
    """The rule of its docstring, with the unseen cards counted here from the record independently."""
    outcomes = set()
    for obs, action in voluntary_declarations(CountingLovatAgent, 4, 8):
        seen = set(obs.dealt) | {card for _seat, card in obs.plays}
        for record in obs.history:
            seen.update(card for _seat, card in record[6])
        pool = [card for card in CARD_IDS if card not in seen]
        colour = COLOUR_INDEX[str(obs.colour)]
        best = max(STRENGTH[card][colour] for card in obs.hand)
        stronger = sum(STRENGTH[card][colour] > best for card in pool) / len(pool)
        held = sum(obs.hand_sizes) - len(obs.hand)
        rivals = max(1, (obs.players - 1) // 2)
        chance = (1.0 - stronger) ** (held / (obs.players - 1) * rivals)
        assert action == ("play" if chance >= CountingLovatAgent.confidence else "pass"), (chance, action)
        outcomes.add(action)
    assert outcomes == {"play", "pass"}


def test_the_counter_counts_the_rivals_still_to_show_a_card() -> None:
    counted = 0
    for seed in range(4):
        for obs, _action, _greedy in play(CountingLovatAgent, 5, seed):
            if obs.phase != "play":
                continue
            playing = {seat for seat, decision in obs.declarations if decision == "play"} - {obs.seat}
            shown = {seat for seat, _card in obs.plays}
            expected = len(playing) if obs.seat == obs.active else len(playing - shown)
            assert CountingLovatAgent.rivals_to_come(CountingLovatAgent.__new__(CountingLovatAgent), obs) == expected
            counted += 1
    assert counted > 50


def random_observations(players: int, seeds: int) -> list[LovatObservation]:
    """Every observation of random players in ``seeds`` games: many void turns (L-12), every kind of decision."""
    return [obs for seed in range(seeds) for obs, _action, _greedy in play(RandomLovatAgent, players, seed)]


DEPARTS = {
    "counting": ("keep", "colour", "declare", "play"),
    "hoarder": ("keep", "declare"),
    "sniper": ("keep", "declare"),
}
"""Per heuristic, the kinds of decision in which it departs from greedy's rule; in the others it is greedy's."""


@pytest.mark.parametrize("name", sorted(HEURISTICS))
def test_each_heuristic_departs_from_greedy_where_it_says_and_nowhere_else(name: str) -> None:
    """On the positions random players reach (every kind of decision, void turns included): at least a tenth of
    the decisions with a choice differ from greedy's in the kinds the heuristic claims, none in the others, and
    every declaration that would leave it short of a card for its own turns is a pass, as greedy's."""
    agents = {
        seat: (
            HEURISTICS[name](seat=seat, game=GAME.info, players=4, seed=0, options={}),
            GreedyLovatAgent(seat=seat, game=GAME.info, players=4, seed=0, options={}),
        )
        for seat in range(4)
    }
    by_kind: dict[str, list[bool]] = {}
    for obs in random_observations(4, 10):
        if len(obs.legal) == 1:
            continue
        heuristic, greedy = agents[obs.seat]
        action = heuristic.act(obs)
        by_kind.setdefault(obs.phase, []).append(action != greedy.act(obs))
        if obs.phase == "declare" and len(obs.hand) <= own_turns_left(obs):
            assert action == "pass"
    assert set(by_kind) == {"keep", "colour", "declare", "play", "void"}, {k: len(v) for k, v in by_kind.items()}
    for kind, differs in by_kind.items():
        if kind in DEPARTS[name]:
            assert sum(differs) > 0.1 * len(differs), (name, kind, sum(differs), len(differs))
        else:
            assert not any(differs), (name, kind)
