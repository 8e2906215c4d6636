"""Two hand-written Lorum heuristics the search's opponent model was not built from, to measure it against.

The search models the other seats by the families of rules in ``agents/search/lorum_sim.py``
(the rollout policy, the ducking and the cautious rule).  A gain measured only against those
rules says little about a field of agents written by others, so these two play otherwise:

* ``MixedLorumAgent`` combines parts of the families: it leads like the ducking rule (the
  lowest card of the shortest suit), follows with its lowest card like the cautious rule
  (but also as the last player to a trick) and, void, sheds its highest card whatever its
  points;
* ``PointShyLorumAgent`` matches none of them: it leads its lowest card of the fewest points,
  ducks under the winner with its point cards first, then its lowest, and forced over plays
  its highest card.

Both never bid; in a big contract they play their highest card, in a small one their lowest.
Use them as ``benchmarks/search_ab.py lorum --opponent benchmarks.lorum_heuristics:PointShyLorumAgent``.
"""

from __future__ import annotations

from arena.agent import Agent
from arena.games.base import Action, Observation
from arena.games.lorum.cards import INDEX, POINTS, RANKS
from arena.games.lorum.observation import LorumObservation


def rank(card: str) -> int:
    """0 for the ace, 7 for the seven."""
    return RANKS.index(card[:-1])


def points(card: str) -> int:
    """The card's points (S-9)."""
    return POINTS[INDEX[card]]


def _position(observation: Observation) -> tuple[LorumObservation, list[str]]:
    assert isinstance(observation, LorumObservation)
    return observation, [str(action) for action in observation.legal]


class MixedLorumAgent(Agent):
    """Leads like the ducking rule, follows like the cautious rule, sheds its highest card when void."""

    def act(self, observation: Observation) -> Action:
        """The heuristic's action."""
        obs, legal = _position(observation)
        if obs.phase == "bid":
            return "pass"
        if obs.contract == "big":
            return min(legal, key=lambda card: (rank(card), card))
        if not obs.trick:
            length = {suit: sum(card[-1] == suit for card in obs.hand) for suit in "aghb"}
            return max(legal, key=lambda card: (-length[card[-1]], rank(card), card))
        if legal[0][-1] != obs.trick[0][1][-1]:
            return min(legal, key=lambda card: (rank(card), card))
        return max(legal, key=lambda card: (rank(card), card))


class PointShyLorumAgent(Agent):
    """Leads low and pointless, ducks with its point cards first (see the module docstring)."""

    def act(self, observation: Observation) -> Action:
        """The heuristic's action."""
        obs, legal = _position(observation)
        if obs.phase == "bid":
            return "pass"
        if obs.contract == "big":
            return min(legal, key=lambda card: (rank(card), card))
        if not obs.trick:
            return min(legal, key=lambda card: (points(card), -rank(card), card))
        led = obs.trick[0][1][-1]
        if legal[0][-1] != led:
            return max(legal, key=lambda card: (points(card), -rank(card), card))
        if obs.contract == "small":
            return max(legal, key=lambda card: (rank(card), card))
        best = min(rank(card) for _seat, card in obs.trick if card[-1] == led)
        under = [card for card in legal if rank(card) > best]
        if under:
            return max(under, key=lambda card: (points(card), rank(card), card))
        return min(legal, key=lambda card: (rank(card), card))
