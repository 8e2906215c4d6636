"""Hand-written Lorum heuristics to measure the search's opponent model against, written on card names.

The search models the other seats by families of rules in ``agents/search/lorum_sim.py``
(the rollout policy, the ducking and the cautious rule), chosen kind of decision by kind
(leads, follows, void discards).  A gain measured only against those rules whole says
little about a field of agents written by others, so besides ``CautiousLorumAgent``, the
cautious rule as a plugin author would write it (tests check the model against it), there
are two more:

* ``MixedLorumAgent`` combines parts of the families as no family does whole: it leads like
  the ducking rule (the lowest card of the shortest suit), follows with its lowest card like
  the cautious rule (but also as the last player to a trick) and, void, sheds its highest
  card whatever its points, as the ducking rule does.  Only the choice kind by kind models it;
* ``PointShyLorumAgent`` leads and follows like no family: it leads its lowest card of the
  fewest points and ducks under the winner with its point cards first, then its lowest card;
  forced over it plays its highest.  Its void discards (the most points, then the highest card)
  are the cautious rule's.

The three never bid and play their highest card in a big contract.  ``BoldLorumAgent`` bids
on hands that usually make the contract, where greedy bids only on hands that cannot fail:
small with no ace and at most one of K, O, U; big with three aces and two kings or more.  Four
of them on seeds 0-149 made 17 of 26 small contracts and 6 of 11 big ones.  It plays by the
cautious rule, and as bidder of a small contract its lowest card on the led suit.  They are
registered as the agents ``cautious``, ``mixed``, ``point-shy`` and ``bold`` (``agents/plugin.py``):
seat them in a config by name, or measure against them with
``benchmarks/search_ab.py lorum --opponent point-shy``.
"""

from __future__ import annotations

from abc import abstractmethod

from arena.agent import Agent
from arena.games.base import Action, Observation
from arena.games.lorum.cards import SUITS, points, rank_number, suit
from arena.games.lorum.observation import LorumObservation


def suit_lengths(hand: tuple[str, ...]) -> dict[str, int]:
    """How many cards of each suit ``hand`` holds."""
    return {letter: sum(suit(card) == letter for card in hand) for letter in SUITS}


def by_rank(card: str) -> tuple[int, str]:
    """Sort key: the rank (0 for the ace), then the name; ``min`` of it is the highest card."""
    return rank_number(card), card


class NeverBidding(Agent):
    """What the three share: never bid, and in a big contract, bidder or not, play the highest card (the bold
    bidder, a subclass, overrides the bidding)."""

    def act(self, observation: Observation) -> Action:
        """Pass in the bidding; the highest card in a big contract; else ``card``."""
        assert isinstance(observation, LorumObservation)
        legal = [str(action) for action in observation.legal]
        if observation.phase == "bid":
            return "pass"
        if observation.contract == "big":
            return min(legal, key=by_rank)
        return self.card(observation, legal)

    @abstractmethod
    def card(self, obs: LorumObservation, legal: list[str]) -> str:
        """The card to play from ``legal`` in a regular or small game."""


class CautiousLorumAgent(NeverBidding):
    """The cautious rule: leads the lowest card of its longest suit; follows with its lowest card, but as the last
    player of a regular trick it must take anyway with its highest card of the fewest points; void, sheds the
    costliest card (the most points, then the highest).  Ties go to the name that sorts last (in a big contract,
    first)."""

    def card(self, obs: LorumObservation, legal: list[str]) -> str:
        """The rule's card."""
        if not obs.trick:
            length = suit_lengths(obs.hand)
            return max(legal, key=lambda card: (length[suit(card)], rank_number(card), card))
        led = suit(obs.trick[0][1])
        if suit(legal[0]) != led:
            return max(legal, key=lambda card: (points(card), -rank_number(card), card))
        best = min(rank_number(card) for _seat, card in obs.trick if suit(card) == led)
        if len(obs.trick) == 3 and obs.contract != "small" and not any(rank_number(card) > best for card in legal):
            return max(legal, key=lambda card: (-points(card), -rank_number(card), card))
        return max(legal, key=by_rank)


class MixedLorumAgent(NeverBidding):
    """Leads like the ducking rule, follows like the cautious rule, sheds its highest card when void."""

    def card(self, obs: LorumObservation, legal: list[str]) -> str:
        """The heuristic's card."""
        if not obs.trick:
            length = suit_lengths(obs.hand)
            return max(legal, key=lambda card: (-length[suit(card)], rank_number(card), card))
        if suit(legal[0]) != suit(obs.trick[0][1]):
            return min(legal, key=by_rank)
        return max(legal, key=by_rank)


class PointShyLorumAgent(NeverBidding):
    """Leads low and pointless, ducks with its point cards first (see the module docstring)."""

    def card(self, obs: LorumObservation, legal: list[str]) -> str:
        """The heuristic's card."""
        if not obs.trick:
            return min(legal, key=lambda card: (points(card), -rank_number(card), card))
        led = suit(obs.trick[0][1])
        if suit(legal[0]) != led:
            return max(legal, key=lambda card: (points(card), -rank_number(card), card))
        if obs.contract == "small":
            return max(legal, key=by_rank)
        best = min(rank_number(card) for _seat, card in obs.trick if suit(card) == led)
        under = [card for card in legal if rank_number(card) > best]
        if under:
            return max(under, key=lambda card: (points(card), rank_number(card), card))
        return min(legal, key=by_rank)


class BoldLorumAgent(CautiousLorumAgent):
    """Bids on hands that usually make the contract (see the module docstring); plays by the cautious rule."""

    def act(self, observation: Observation) -> Action:
        """Big or small on a likely hand; as bidder of a small contract its lowest card on the led suit; else the
        cautious rule."""
        assert isinstance(observation, LorumObservation)
        obs = observation
        if obs.phase == "bid":
            aces = sum(rank_number(card) == 0 for card in obs.hand)
            kings = sum(rank_number(card) == 1 for card in obs.hand)
            courts = sum(1 <= rank_number(card) <= 3 for card in obs.hand)  # K, O, U
            if aces >= 3 and kings >= 2 and "big" in obs.legal:
                return "big"
            if not aces and courts <= 1 and "small" in obs.legal:
                return "small"
            return "pass"
        legal = [str(action) for action in obs.legal]
        leading_or_following = not obs.trick or suit(legal[0]) == suit(obs.trick[0][1])
        if obs.contract == "small" and obs.bidder == obs.seat and leading_or_following:
            return max(legal, key=by_rank)  # S-8 may leave only higher cards
        return super().act(obs)
