"""``StyleMemory``: which rules (``lorum_sim.FAMILIES``) each other seat has been following this game.

A Lorum observation shows the current deal's cards only, so what a seat did in earlier
deals is remembered by the agent: when a deal ends, its last observation is weighed
against every family, kind of decision by kind (``deal_evidence``), and the sums of those
log-likelihoods are the prior of the next deal's worlds (``prior``).  So a seat that
followed suit by the ducking rule in the first deal is modelled by it from the first card
of the second, where the chain alone would need several of the seat's cards to tell.  Before
any deal has ended the prior is ``STARTING_PRIOR`` for every kind; its spread is capped at
``MAX_PRIOR_ODDS``, so a seat that changes its play is followed within a deal.
"""

from __future__ import annotations

import math

from arena.games.lorum.cards import FULL_DECK_MASK, indices_of, mask_of
from arena.games.lorum.observation import LorumObservation
from arena.games.lorum.sampler import excluded_cards
from arena.games.lorum.state import PLAYERS
from arena_agents.search.lorum_beliefs import MODEL_EPSILON, History, StylePrior
from arena_agents.search.lorum_sim import FAMILIES, KINDS

MAX_PRIOR_ODDS = 1e4
"""The most one family may outweigh another for a kind in the prior: two decisions against it (at
``MODEL_EPSILON``)."""

STARTING_PRIOR = (1.0, 0.1, 0.1)
"""Each family's weight, for every kind of decision, before any deal has ended: a seat is taken to play like
greedy (the rollout policy) until its play shows otherwise; one decision against it outweighs this.  For calls,
where the ducking and the cautious rule both never bid, never bidding so starts at 0.2.  Measured with the
first two families alone (not again with three): against a level start, paired on seeds 9100-9199, +0.044 rank
points among greedy agents, -0.072 among ``example`` agents (docs/agents/search-lorum.md)."""


def deal_evidence(observation: LorumObservation, epsilon: float = MODEL_EPSILON) -> dict[int, list[list[float]]]:
    """Per other seat whose hand is known but for at most one card, per kind of decision: the log-likelihood of its
    decisions of that kind under each family.

    ``observation`` is the seat's last of a deal.  A seat's hand at each of its decisions
    is the cards it played from there on plus what it still holds: nothing, or one of
    the cards it may hold that nobody has shown (each equally likely).  Seats holding
    more (a contract that ended early) are left out: their hands are too uncertain to
    judge their play by.  The unknown card is averaged out kind by kind, where the exact
    weight would average the product over the kinds (it is the same card for each): with at
    most one unknown card the two differ little.
    """
    history = History(observation)
    excluded = excluded_cards(observation)
    unseen = FULL_DECK_MASK & ~mask_of(observation.played) & ~mask_of(observation.hand)
    evidence: dict[int, list[list[float]]] = {}
    for seat in history.others:
        held = observation.hand_sizes[seat]
        if held > 1:
            continue
        hands = [0] if held == 0 else [1 << card for card in indices_of(unseen & ~excluded[seat])]
        if not hands:  # cannot happen in a consistent observation; nothing to learn from it if it does
            continue
        by_hand = [history.all_departures(seat, hand) for hand in hands]
        evidence[seat] = [
            [math.log(sum(History.weight(each[family][kind], epsilon) for each in by_hand) / len(hands))
             for family in range(len(FAMILIES))]
            for kind in range(len(KINDS))
        ]
    return evidence


class StyleMemory:
    """The styles of the other seats, learned from the deals of this game the agent has seen end."""

    def __init__(self) -> None:
        start = [math.log(weight) for weight in STARTING_PRIOR]
        # Per seat, per kind of decision, per family: the starting prior's log plus the past deals' log-likelihoods.
        self.log_likelihood = [[start[:] for _ in KINDS] for _ in range(PLAYERS)]
        self.last: LorumObservation | None = None  # the latest observation of the deal in progress

    def learn(self, observation: LorumObservation) -> None:
        """Take in the agent's next observation; once a new deal has begun, weigh the last one's play."""
        last = self.last
        if last is not None and last.deal != observation.deal and last.phase == "play":
            for seat, kinds in deal_evidence(last).items():
                for kind, weights in enumerate(kinds):
                    for family, weight in enumerate(weights):
                        self.log_likelihood[seat][kind][family] += weight
        self.last = observation

    def prior(self) -> StylePrior:
        """Per seat and kind, each family's weight: ``STARTING_PRIOR`` times its likelihood over the past deals,
        relative to the best, at least ``1 / MAX_PRIOR_ODDS``."""
        floor = -math.log(MAX_PRIOR_ODDS)
        return [
            [tuple(math.exp(max(value - max(values), floor)) for value in values) for values in kinds]
            for kinds in self.log_likelihood
        ]
