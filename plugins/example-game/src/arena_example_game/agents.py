"""``counter``: a small Pledge heuristic, to have something better than random to seat."""

from __future__ import annotations

from arena.agent import Agent
from arena.games.base import Action, Observation
from arena_example_game.rules import rank, suit, trick_winner
from arena_example_game.state import BID, PledgeObservation


class CounterAgent(Agent):
    """Pledges its aces and trumps above the ten; then wins tricks while short of its pledge, ducks after."""

    def act(self, observation: Observation) -> Action:
        """A bid, or a card from the legal ones."""
        if not isinstance(observation, PledgeObservation):
            raise TypeError(f"expected a PledgeObservation, got {type(observation).__name__}")
        trumps = suit(observation.trump)
        if observation.phase == BID:
            strong = sum(1 for card in observation.hand if card[0] == "A" or (suit(card) == trumps and rank(card) > 1))
            return str(min(strong, observation.hand_size))
        pledged = observation.bids[self.seat] or 0
        wanted = observation.tricks[self.seat] < pledged
        cards = [card for card in observation.legal if isinstance(card, str)]  # in play, every action is a card
        by_strength = sorted(cards, key=lambda card: (suit(card) == trumps, rank(card)))
        winners = [card for card in by_strength
                   if trick_winner([*observation.trick, (self.seat, card)], trumps) == self.seat]
        if wanted:
            return winners[0] if winners else by_strength[0]  # the cheapest winner, else throw the lowest
        losers = [card for card in by_strength if card not in winners]
        return losers[-1] if losers else by_strength[0]  # the highest card that still loses
