"""The ``example`` agent: a small card-counting heuristic for each game.

Both classes decide from the observation alone.  They keep one seeded RNG
(``random.Random(self.seed)``) for tie-breaks, so a fixed seed always gives
the same play, which ``arena check-agent`` verifies.

Lovat (docs/rules/lovat.md): keep the hand with the most cards that are
strong in their best colour; name the colour of the strongest card held; keep a card
for each of its own active turns, and otherwise declare "play" only when the
best card in the turn's colour probably beats the unseen cards the others
could show; when playing, win as cheaply as possible or throw the weakest
card.

Slovak Lorum (docs/rules/lorum.md): never bid; in a regular game duck under
the trick when possible (throwing the highest card that still loses it) and
lead the lowest card of the shortest suit; against a "big" bidder try to take
a trick, against a "small" bidder try to hand them one.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from typing import Any

from arena.agent import Agent
from arena.games.base import Action, GameInfo, Observation
from arena.games.lorum.cards import RANKS
from arena.games.lovat.deck import CARD_IDS, COLOUR_INDEX, COLOURS, LEVEL, STRENGTH

PLAY_CONFIDENCE = 0.5
"""Lovat: declare "play" when the estimated chance of winning the turn is at least this (option
``play_confidence``, declared in ``plugin.py``)."""

KEEP_EXPONENT = 5
"""Lovat: a card's keep score is its percentile in its best colour to this power (only strong cards count)."""


def make_agent(seat: int, game: GameInfo, players: int, seed: int, options: Mapping[str, Any]) -> Agent:
    """The agent factory arena calls once per match: a fresh agent of the right class for the game."""
    agent_class = ExampleLovatAgent if game.name == "lovat" else ExampleLorumAgent
    return agent_class(seat=seat, game=game, players=players, seed=seed, options=options)


# -- Lovat ------------------------------------------------------------------------------------------


def best_strength(card_id: str) -> int:
    """A card's strength in its best colour."""
    return max(STRENGTH[card_id])


def strength_in(card_id: str, colour: str) -> int:
    """A card's strength in ``colour``."""
    return STRENGTH[card_id][COLOUR_INDEX[colour]]


def _percentile(card_id: str) -> float:
    colour = STRENGTH[card_id].index(best_strength(card_id))
    return sum(1 for other in CARD_IDS if STRENGTH[other][colour] < STRENGTH[card_id][colour]) / len(CARD_IDS)


KEEP_SCORE: dict[str, float] = {card_id: _percentile(card_id) ** KEEP_EXPONENT for card_id in CARD_IDS}
"""Per card: the share of the deck it beats in its best colour, to the power ``KEEP_EXPONENT``.

Computed once when the module is imported (in the isolated host: once for all matches)."""


class ExampleLovatAgent(Agent):
    """Counts the cards it has not seen to judge whether a turn is worth playing."""

    def __init__(self, seat: int, game: GameInfo, players: int, seed: int, options: Mapping[str, Any]) -> None:
        super().__init__(seat=seat, game=game, players=players, seed=seed, options=options)
        self.rng = random.Random(self.seed)
        # arena checked the option against the declaration in plugin.py before the match.
        self.play_confidence = float(self.options.get("play_confidence", PLAY_CONFIDENCE))

    def act(self, observation: Observation) -> Action:
        phase = observation.phase
        if phase == "keep":
            return self.keep(observation)
        legal = list(observation.legal)
        if len(legal) == 1:
            return legal[0]
        if phase == "colour":
            return max(legal, key=lambda colour: (max(strength_in(card, colour) for card in observation.hand),
                                                  -COLOURS.index(colour)))
        if phase == "declare":
            if len(observation.hand) <= self.own_turns_left(observation):
                return "pass"  # keep a card for each of our own turns: a void turn loses every point (L-12)
            return "play" if self.chance_to_win(observation) >= self.play_confidence else "pass"
        if phase == "play":
            return self.play(observation, legal)
        if phase == "void":
            # Counters buy passes; cards avoid void turns.  Give up a counter while two or more remain.
            spare = len(observation.hand) - self.own_turns_left(observation)
            if "counter" in legal and (observation.counters >= 2 or spare <= 0):
                return "counter"
            cards = [action for action in legal if action != "counter"]
            return min(cards, key=best_strength) if cards else legal[0]
        return self.rng.choice(legal)

    def keep(self, observation: Observation) -> tuple[str, ...]:
        """The legal keep with the greatest total ``KEEP_SCORE`` (the first found, on a tie)."""
        dealt = sorted(observation.dealt)
        best: tuple[float, tuple[str, ...]] | None = None
        for size in range(observation.min_size, observation.max_size + 1):
            for keep in itertools.combinations(dealt, size):
                if sum(LEVEL[card] for card in keep) != observation.level_sum:
                    continue
                score = sum(KEEP_SCORE[card] for card in keep)
                if best is None or score > best[0]:
                    best = (score, keep)
        assert best is not None, "the engine only deals hands that admit a keep (L-6)"
        return best[1]

    def own_turns_left(self, observation: Observation) -> int:
        """Turns after the current one on which this seat will be the active player."""
        return sum(1 for turn in range(observation.turn + 1, observation.turns)
                   if (observation.first_player + turn) % observation.players == self.seat)

    def unseen(self, observation: Observation) -> list[str]:
        """Cards this seat has not seen: not in its own dealt cards, and not shown on the table."""
        seen = set(observation.dealt)
        for record in observation.history:
            seen.update(card for _seat, card in record[6])  # the turn's plays
        seen.update(card for _seat, card in observation.plays)
        for cards in observation.point_cards:
            seen.update(cards)
        return [card for card in CARD_IDS if card not in seen]

    def chance_to_win(self, observation: Observation) -> float:
        """Rough chance that our best card in the turn's colour beats what the others show."""
        if not observation.hand or observation.colour is None:
            return 0.0
        ours = max(strength_in(card, observation.colour) for card in observation.hand)
        unseen = self.unseen(observation)
        if not unseen:
            return 1.0
        below = sum(1 for card in unseen if strength_in(card, observation.colour) < ours) / len(unseen)
        rivals = sum(1 for seat in range(self.players) if seat != self.seat and observation.hand_sizes[seat])
        return below ** max(1, rivals // 2)  # not everyone will play: count half the table as rivals

    def play(self, observation: Observation, legal: Sequence[str]) -> str:
        """Win as cheaply as possible, or throw the weakest card."""
        colour = observation.colour
        by_strength = sorted(legal, key=lambda card: (strength_in(card, colour), card))
        shown = [strength_in(card, colour) for _seat, card in observation.plays]
        if not shown:  # we are the active player and play first
            challengers = [seat for seat, declared in observation.declarations if declared == "play"]
            if not challengers:  # everyone passed: any card wins, so give up the weakest
                return min(legal, key=lambda card: (best_strength(card), card))
            return by_strength[-1]
        winners = [card for card in by_strength if strength_in(card, colour) > max(shown)]
        return winners[0] if winners else by_strength[0]


# -- Slovak Lorum -----------------------------------------------------------------------------------


def rank_of(card: str) -> int:
    """0 for the ace (highest) to 7 for the seven (lowest)."""
    return RANKS.index(card[:-1])


def suit_of(card: str) -> str:
    return card[-1]


class ExampleLorumAgent(Agent):
    """Ducks in regular games; chases or feeds a lone bidder."""

    def __init__(self, seat: int, game: GameInfo, players: int, seed: int, options: Mapping[str, Any]) -> None:
        super().__init__(seat=seat, game=game, players=players, seed=seed, options=options)
        self.rng = random.Random(self.seed)

    def act(self, observation: Observation) -> Action:
        legal = list(observation.legal)
        if len(legal) == 1:
            return legal[0]
        if observation.phase == "bid":
            return "pass" if "pass" in legal else self.rng.choice(legal)
        contract, bidder = observation.contract, observation.bidder
        if contract == "big" and bidder != self.seat:
            return self.try_to_win(observation, legal)
        if contract == "small" and bidder != self.seat:
            return self.duck(observation, legal, lowest=True)
        if contract == "big":
            return min(legal, key=rank_of)  # our own big: the highest card
        return self.duck(observation, legal, lowest=contract == "small")

    def winning_rank(self, observation: Observation) -> int | None:
        """The rank of the card now winning the trick (the highest of the led suit), or None when we lead."""
        if not observation.trick:
            return None
        led = suit_of(observation.trick[0][1])
        return min(rank_of(card) for _seat, card in observation.trick if suit_of(card) == led)

    def duck(self, observation: Observation, legal: Sequence[str], lowest: bool) -> str:
        """Lose the trick: the highest card that still loses (or the lowest, if ``lowest``); else the highest."""
        winning = self.winning_rank(observation)
        if winning is None:  # we lead: the lowest card of our shortest suit
            counts = {suit: sum(1 for card in observation.hand if suit_of(card) == suit) for suit in "aghb"}
            return max(legal, key=lambda card: (-counts[suit_of(card)], rank_of(card), card))
        led = suit_of(observation.trick[0][1])
        losing = [card for card in legal if suit_of(card) != led or rank_of(card) > winning]
        if losing:
            return (max if lowest else min)(losing, key=lambda card: (rank_of(card), card))
        return min(legal, key=lambda card: (rank_of(card), card))  # forced to win: win with the highest

    def try_to_win(self, observation: Observation, legal: Sequence[str]) -> str:
        """Take the trick if any card can; otherwise throw the lowest."""
        winning = self.winning_rank(observation)
        if winning is None:
            return min(legal, key=lambda card: (rank_of(card), card))
        led = suit_of(observation.trick[0][1])
        winners = [card for card in legal if suit_of(card) == led and rank_of(card) < winning]
        if winners:
            return min(winners, key=lambda card: (rank_of(card), card))
        return max(legal, key=lambda card: (rank_of(card), card))
