"""Slovak Lorum's coverage plan for ``arena check-agent``: its cases, and scenarios that force each contract.

Declared by ``LorumGame.coverage_plan``; the machinery (``Scenario``, ``CoveragePlan``) is
``arena.conformance.coverage``.
"""

from __future__ import annotations

from typing import Any

from arena.conformance.coverage import CoveragePlan, Scenario
from arena.games.base import Game
from arena.games.lorum.cards import ABOVE_MASKS, SUIT_MASKS, card_index, mask_of, suit_of

LORUM_CASES = ("bidding", "regular: lead", "regular: follow", "big: lead", "big: follow", "small: lead",
               "small: follow, must beat", "small: follow, free")
"""Lorum's cases: S-4 bidding; S-6/S-7 leading and following in each contract; S-8 must-beat in the small game."""


def _lorum_cases(observation: Any) -> tuple[str, ...]:
    if observation.contract is None:
        return ("bidding",)
    if not observation.trick:
        return (f"{observation.contract}: lead",)
    if observation.contract != "small":
        return (f"{observation.contract}: follow",)
    cards = [card_index(card) for _, card in observation.trick]
    led = suit_of(cards[0])
    trick = sum(1 << card for card in cards)
    best = next(card for card in cards if suit_of(card) == led and not ABOVE_MASKS[card] & trick)
    able = mask_of(observation.hand) & SUIT_MASKS[led] & ABOVE_MASKS[best]
    return ("small: follow, must beat" if able else "small: follow, free",)


def _lorum_scenarios(game: Game, players: int) -> tuple[Scenario, ...]:
    """One-deal games whose bidding is forced: seat 3 deals, so seat 0 bids first and leads a regular game."""
    dealer = ({"kind": "dealer", "value": players - 1},)
    options = {"deals": 1}
    order = [(players - 1 + step) % players for step in range(1, players + 1)]  # dealer's next first (S-4)

    def bids(bidder: int | None, call: str) -> tuple[tuple[int, str], ...]:
        return tuple((seat, call if seat == bidder else "pass") for seat in order)

    return (
        Scenario("regular game (everyone passed)", players, options, dealer, bids(None, "pass"),
                 ("regular: lead", "regular: follow")),
        Scenario("big game, the agent bid", players, options, dealer, bids(0, "big"), ("big: lead",)),
        Scenario("big game, another seat bid", players, options, dealer, bids(1, "big"), ("big: follow",)),
        Scenario("small game, the agent bid", players, options, dealer, bids(0, "small"),
                 ("small: lead", "small: follow, must beat", "small: follow, free")),
        Scenario("small game, another seat bid", players, options, dealer, bids(1, "small"),
                 ("small: lead", "small: follow, must beat", "small: follow, free")),
        Scenario("a whole game, bidding freely", players, {}, (), (), ("bidding",)),
    )


PLAN = CoveragePlan(LORUM_CASES, _lorum_cases, _lorum_scenarios)
"""What ``arena check-agent`` drives an agent through at Slovak Lorum."""
