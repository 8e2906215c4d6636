"""What the Lorum search believes about the hidden hands: how well a sampled deal explains the others' play.

The sampler (``arena.games.lorum.sampler``) already keeps to the public facts (voids,
must-beat); ``history_likelihood`` weighs a sampled deal by an opponent model, the
rollout policy with mistakes.
"""

from __future__ import annotations

from arena.games.lorum.cards import INDEX
from arena.games.lorum.observation import LorumObservation
from arena_agents.search.lorum_sim import PlayoutDeal, rollout_call, rollout_card

MODEL_EPSILON = 0.05
"""Relative likelihood of a call or card the rollout policy would not have chosen (1 when it would)."""

MODEL_DRAWS = 4
"""Worlds sampled per world played out, picked by likelihood (1: importance weights instead)."""

MAX_WORLDS = 60
"""At most this many worlds per move, whatever the budget: with two or three candidates sampling and
weighing a world costs more than its playouts, and more worlds add time but, measured, no strength."""


def history_likelihood(observation: LorumObservation, hands: list[int], epsilon: float = MODEL_EPSILON) -> float:
    """How well a world with ``hands`` explains the other seats' calls and cards this deal.

    The deal is replayed from its start (the sampled hands plus the cards played);
    every decision of another seat with a choice counts 1 when the rollout policy,
    in that seat's place, would have made it and ``epsilon`` when not.  So worlds
    in which the others' play looks sensible weigh more, yet none is ruled out.
    """
    me = observation.seat
    dealt = list(hands)
    plays = deal_plays(observation)
    for seat, name in plays:
        dealt[seat] |= 1 << INDEX[name]
    deal = PlayoutDeal.start(observation.dealer, dealt, observation.pot)
    weight = 1.0
    for seat, call in observation.bids:
        if seat != me and rollout_call(deal, seat) != call:
            weight *= epsilon
        deal.bid(seat, call)
    for seat, name in plays:
        card = INDEX[name]
        if seat != me:
            legal = deal.legal()
            if legal & (legal - 1) and rollout_card(deal) != card:
                weight *= epsilon
        deal.play(card)
    return weight


def deal_plays(observation: LorumObservation) -> list[tuple[int, str]]:
    """Every ``(seat, card)`` played this deal, in order."""
    plays = [play for trick, _winner in observation.tricks for play in trick]
    plays.extend(observation.trick)
    return plays
