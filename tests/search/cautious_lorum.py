"""A cautious Lorum player written on card names, as a plugin author would: the model of ``lorum_sim.cautious_card``.

Never bids; leads the lowest card of its longest suit; follows with its lowest card, but as
the last player of a regular trick it must take anyway, with its highest card of the fewest
points; void, sheds the costliest card (the most points, then the highest).  In a big
contract, bidder or not, it plays its highest card.  Ties go to the name that sorts last.
"""

from __future__ import annotations

from arena.agent import Agent
from arena.games.base import Action, Observation
from arena.games.lorum.cards import INDEX, POINTS, RANKS
from arena.games.lorum.observation import LorumObservation


def rank(card: str) -> int:
    """0 for the ace, 7 for the seven."""
    return RANKS.index(card[:-1])


class CautiousLorumAgent(Agent):
    """The cautious rule (see the module docstring)."""

    def act(self, observation: Observation) -> Action:
        """The rule's action."""
        assert isinstance(observation, LorumObservation)
        legal = [str(action) for action in observation.legal]
        if observation.phase == "bid":
            return "pass"
        if observation.contract == "big":
            return min(legal, key=lambda card: (rank(card), card))
        trick = observation.trick
        if not trick:
            length = {suit: sum(card[-1] == suit for card in observation.hand) for suit in "aghb"}
            return max(legal, key=lambda card: (length[card[-1]], rank(card), card))
        led = trick[0][1][-1]
        if legal[0][-1] != led:
            return max(legal, key=lambda card: (POINTS[INDEX[card]], -rank(card), card))
        best = min(rank(card) for _seat, card in trick if card[-1] == led)
        if len(trick) == 3 and observation.contract != "small" and not any(rank(card) > best for card in legal):
            return max(legal, key=lambda card: (-POINTS[INDEX[card]], -rank(card), card))
        return max(legal, key=lambda card: (rank(card), card))
