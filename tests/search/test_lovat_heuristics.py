"""The Lovat heuristics of ``benchmarks/lovat_heuristics.py`` that the search is measured against: legal at every
player count, each keeping and declaring as its docstring says, and none of them greedy under another name.

A measurement against them means something only if they are unlike greedy's rule, which the
search's playouts and beliefs assume for every other seat; a test checks that they are.
"""

from __future__ import annotations

import pytest

from arena.agent import Agent
from arena.games.base import Action
from arena.games.lovat import GAME
from arena.games.lovat.deck import CARD_IDS, COLOUR_INDEX, STRENGTH
from arena.games.lovat.observation import LovatObservation
from arena_agents.lovat import GreedyLovatAgent
from benchmarks.lovat_heuristics import (
    HEURISTICS,
    CountingLovatAgent,
    HoarderLovatAgent,
    SniperLovatAgent,
    best_strength,
    legal_keeps,
    unseen,
)


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
        decisions = play(HEURISTICS[name], players, seed)
        assert sum(obs.phase == "play" for obs, _action, _greedy in decisions) >= players


def keeps(agent_class: type[Agent], players: int) -> list[tuple[LovatObservation, Action]]:
    """Every keep of the heuristic in 4 games: (observation, keep)."""
    return [
        (obs, action) for seed in range(4) for obs, action, _ in play(agent_class, players, seed) if obs.phase == "keep"
    ]


def test_the_hoarder_keeps_as_many_cards_and_the_sniper_as_few_as_the_rules_allow() -> None:
    for obs, keep in keeps(HoarderLovatAgent, 4):
        assert len(keep) == max(len(each) for each in legal_keeps(obs))
    for obs, keep in keeps(SniperLovatAgent, 4):
        assert len(keep) == min(len(each) for each in legal_keeps(obs))


def test_the_counter_keeps_the_most_likely_winners() -> None:
    for obs, keep in keeps(CountingLovatAgent, 3):
        winners = sum(best_strength(card) >= 30 for card in keep)
        assert winners == max(sum(best_strength(card) >= 30 for card in each) for each in legal_keeps(obs))


def test_the_sniper_declares_play_only_with_a_card_beating_nearly_everything() -> None:
    voluntary = 0
    for seed in range(6):
        for obs, action, _greedy in play(SniperLovatAgent, 4, seed):
            if obs.phase == "declare" and action == "play" and obs.counters and len(obs.legal) > 1:
                colour = COLOUR_INDEX[str(obs.colour)]
                assert max(STRENGTH[card][colour] for card in obs.hand) >= SniperLovatAgent.sure_strength
                voluntary += 1
    assert voluntary > 5  # measured: 17


def test_the_counter_declares_play_when_no_unseen_card_beats_its_best_and_passes_when_most_do() -> None:
    played = passed = 0
    for seed in range(6):
        for obs, action, _greedy in play(CountingLovatAgent, 4, seed):
            if obs.phase != "declare" or len(obs.legal) < 2 or len(obs.hand) <= 3:
                continue
            colour = COLOUR_INDEX[str(obs.colour)]
            best = max(STRENGTH[card][colour] for card in obs.hand)
            stronger = sum(STRENGTH[card][colour] > best for card in unseen(obs))
            if stronger == 0:
                assert action == "play"
                played += 1
            if stronger > len(CARD_IDS) // 2:
                assert action == "pass"
                passed += 1
    assert played and passed, (played, passed)


DEPARTS = {
    "counting": ("keep", "colour", "declare", "card"),
    "hoarder": ("keep", "declare"),
    "sniper": ("keep", "declare"),
}
"""Per heuristic, the kinds of decision in which it departs from greedy's rule; in the others it is greedy's."""


@pytest.mark.parametrize("name", sorted(HEURISTICS))
def test_no_heuristic_is_greedy_under_another_name(name: str) -> None:
    """Each differs from greedy's rule in at least a tenth of its decisions with a choice of the kinds it claims,
    and never in the others."""
    by_kind: dict[str, list[bool]] = {}
    for seed in range(6):
        for obs, action, greedy in play(HEURISTICS[name], 4, seed):
            if len(obs.legal) > 1 or obs.phase == "keep":
                kind = "card" if obs.phase in ("play", "void") else obs.phase
                by_kind.setdefault(kind, []).append(action != greedy)
    assert set(by_kind) == {"keep", "colour", "declare", "card"}
    for kind, differs in by_kind.items():
        if kind in DEPARTS[name]:
            assert sum(differs) > 0.1 * len(differs), (name, kind, sum(differs), len(differs))
        else:
            assert not any(differs), (name, kind)
