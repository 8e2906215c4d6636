"""The held-out Lorum heuristics of ``benchmarks/lorum_heuristics.py``: legal, and not one of the modelled families.

They exist to measure the search's opponent model against play it was not built from, so a
test checks what makes them held out: each departs from every family of ``lorum_sim`` taken
whole, and the mixed one leads and follows by the families' rules it claims to combine.
"""

from __future__ import annotations

import pytest

from arena.games.lorum import GAME
from arena.games.lorum.cards import DECK, mask_of
from arena_agents.lorum import RandomLorumAgent
from arena_agents.search.lorum_sim import CARD_RULES, FAMILIES, FOLLOW, LEAD, PlayoutDeal, card_kind
from benchmarks.lorum_heuristics import MixedLorumAgent, PointShyLorumAgent
from tests.search.test_search_lorum import make

DUCKING, CAUTIOUS = FAMILIES.index("ducking"), FAMILIES.index("cautious")


def decisions(agent_class: type) -> list[tuple[PlayoutDeal, int, str]]:
    """Every regular-game card decision with a choice of three such agents (and a random seat) in 12 games:
    (position, kind, card)."""
    found = []
    for seed in range(12):
        state = GAME.new_state(seed, {"deals": 4})
        agents = [make(RandomLorumAgent, 0, seed)] + [make(agent_class, seat, seed + seat) for seat in (1, 2, 3)]
        while not state.is_over():
            (seat,) = state.to_move()
            observation = state.observation(seat)
            action = agents[seat].act(observation)
            assert action in observation.legal
            if seat and observation.phase == "play" and observation.contract == "regular" and len(observation.legal) > 1:
                own = [0] * 4
                own[seat] = mask_of(observation.hand)
                deal = PlayoutDeal.from_observation(observation, own)
                found.append((deal, card_kind(deal, DECK.index(action)), action))
            state.apply(seat, action)
    return found


@pytest.mark.parametrize("agent_class", [MixedLorumAgent, PointShyLorumAgent])
def test_a_held_out_heuristic_departs_from_every_family(agent_class: type) -> None:
    seen = decisions(agent_class)
    assert len(seen) > 150  # measured: 204 and 242
    for family, rule in enumerate(CARD_RULES):
        departures = sum(DECK[rule(deal)] != card for deal, _kind, card in seen)
        assert departures > 0.1 * len(seen), (FAMILIES[family], departures, len(seen))


def test_the_mixed_heuristic_leads_like_the_ducking_rule_and_follows_like_the_cautious_one() -> None:
    """Its leads are the ducking rule's, its follows the cautious rule's but as the last player to a trick."""
    checked = {LEAD: 0, FOLLOW: 0}
    for deal, kind, card in decisions(MixedLorumAgent):
        if kind == LEAD:
            assert DECK[CARD_RULES[DUCKING](deal)] == card
        elif kind == FOLLOW and deal.in_trick < 3:
            assert DECK[CARD_RULES[CAUTIOUS](deal)] == card
        checked[kind] = checked.get(kind, 0) + 1
    assert min(checked.values()) > 30, checked
