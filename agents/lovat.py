"""First-party Lovat agents: a uniform random player and a greedy heuristic.

Both read only the observation (and the public deck table); neither keeps
state between decisions beyond its own RNG.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

from arena.agent import Agent
from arena.games.base import Action
from arena.games.lovat.deck import COLOUR_INDEX, COLOURS, LEVEL, STRENGTH
from arena.games.lovat.keeps import count_keeps as count_keeps  # re-exported: tests and benchmarks use it here
from arena.games.lovat.keeps import random_keep as random_keep
from arena.games.lovat.observation import LovatObservation
from arena.seating.substitute import RandomAgent

PASS, PLAY, COUNTER, KEEP = "pass", "play", "counter", "keep"


class RandomLovatAgent(RandomAgent):
    """Uniform over the legal actions; the keep is uniform over all legal keeps (the game's declared policy)."""


# -- the greedy heuristic ---------------------------------------------------------------------------

KEEP_PIVOT = 30.0
"""A card whose best strength is this high is worth half a point in the keep score."""

KEEP_SPREAD = 6.0
"""Softness of the keep score's logistic curve (strength units)."""

DECLARE_STRENGTH = 30
"""Outside forced cases the greedy player declares play only with a card at least this strong in the colour."""

DIE_DECLARE_STRENGTH = 26
"""The same threshold in the die round, where the colour was not chosen by a strong active player."""


def best_strength(card_id: str) -> int:
    """A card's strength in its best colour (what it is worth on its owner's own turn)."""
    return max(STRENGTH[card_id])


def keep_value(card_id: str, pivot: float = KEEP_PIVOT, spread: float = KEEP_SPREAD) -> float:
    """Rough chance that a card wins a turn it is played on (logistic in its best strength)."""
    return 1.0 / (1.0 + math.exp(-(best_strength(card_id) - pivot) / spread))


def best_keep(
    cards: Sequence[str], level_sum: int, min_size: int, max_size: int, pivot: float = KEEP_PIVOT
) -> tuple[str, ...]:
    """The legal keep with the highest total ``keep_value`` (exact knapsack over level sum and size)."""
    # best[(total, size)] = (score, cards) over the cards seen so far
    best: dict[tuple[int, int], tuple[float, tuple[str, ...]]] = {(0, 0): (0.0, ())}
    for card_id in sorted(cards):
        level, value = LEVEL[card_id], keep_value(card_id, pivot)
        for (total, size), (score, chosen) in list(best.items()):
            key = (total + level, size + 1)
            if key[0] <= level_sum and (key not in best or best[key][0] < score + value):
                best[key] = (score + value, chosen + (card_id,))
    legal = [best[(level_sum, size)] for size in range(min_size, max_size + 1) if (level_sum, size) in best]
    if not legal:
        raise ValueError(f"no keep of {list(cards)} has levels summing to {level_sum}")
    return tuple(sorted(max(legal)[1]))


class GreedyLovatAgent(Agent):
    """A one-ply heuristic.

    * Keep: the legal keep maximising the summed ``keep_value`` of its cards (strong cards first;
      every keep is at least 5 cards, more than the 2-3 own active turns).
    * Colour: the colour of its single strongest card.
    * Declare: plays when it has a card likely to win (``DECLARE_STRENGTH``) and a card to spare
      beyond those needed for its own remaining active turns, or when it must (no counters);
      otherwise passes, spending a counter it would have to spend on some turn anyway.
    * Play: as active player, the weakest card if everyone passed, else its strongest in the colour;
      otherwise the cheapest card that beats the cards shown so far, else its weakest card.
    * Void turns of others: a spare weak card if it has one, else a counter.
    """

    keep_pivot = KEEP_PIVOT  # the keep score's pivot strength
    declare_strength = DECLARE_STRENGTH  # declare play with a card this strong in the colour
    die_declare_strength = DIE_DECLARE_STRENGTH  # the same in the die round

    def act(self, observation: LovatObservation) -> Action:  # type: ignore[override]
        obs = observation
        if obs.phase == KEEP:
            return best_keep(obs.dealt, obs.level_sum, obs.min_size, obs.max_size, self.keep_pivot)
        if len(obs.legal) == 1:
            return obs.legal[0]
        if obs.phase == "colour":
            strongest = max(obs.hand, key=lambda card_id: (best_strength(card_id), card_id))
            strengths = STRENGTH[strongest]
            return COLOURS[strengths.index(max(strengths))]
        if obs.phase == "declare":
            return self._declare(obs)
        if obs.phase == "play":
            return self._play(obs)
        return self._void(obs)

    def _own_turns_left(self, obs: LovatObservation) -> int:
        """Own active turns after the current one."""
        return sum(
            1 for turn in range(obs.turn + 1, obs.turns) if (obs.first_player + turn) % obs.players == obs.seat
        )

    def _declare(self, obs: LovatObservation) -> str:
        # Not forced, so it holds a counter. Cards + counters = turns left, so every spare card must be
        # played on someone else's turn sooner or later and every counter spent on a pass: play the
        # spare cards where they are likely to win, pass elsewhere.
        if len(obs.hand) <= self._own_turns_left(obs):
            return PASS  # keep a card for each of its own turns (a void turn loses every point, L-12)
        colour = COLOUR_INDEX[obs.colour]  # type: ignore[index]
        best = max(STRENGTH[card_id][colour] for card_id in obs.hand)
        rolled = obs.die is not None and obs.die != "blank"
        threshold = self.die_declare_strength if rolled else self.declare_strength
        return PLAY if best >= threshold else PASS

    def _play(self, obs: LovatObservation) -> str:
        colour = COLOUR_INDEX[obs.colour]  # type: ignore[index]
        hand = cast("list[str]", list(obs.legal))  # the play phase: every legal action is a card id
        weakest = min(hand, key=lambda card_id: (best_strength(card_id), card_id))
        if obs.seat == obs.active:
            if all(obs.passes[seat] for seat in range(obs.players) if seat != obs.seat):
                return weakest  # L-13: the active player wins by default
            return max(hand, key=lambda card_id: (STRENGTH[card_id][colour], -best_strength(card_id), card_id))
        to_beat = max(STRENGTH[card_id][colour] for _, card_id in obs.plays)
        winners = [card_id for card_id in hand if STRENGTH[card_id][colour] > to_beat]  # ties go to the earlier card
        if winners:
            return min(winners, key=lambda card_id: (best_strength(card_id), card_id))
        return weakest

    def _void(self, obs: LovatObservation) -> str:
        spare = len(obs.hand) - self._own_turns_left(obs)
        if obs.hand and (spare > 0 or COUNTER not in obs.legal):
            return min(obs.hand, key=lambda card_id: (best_strength(card_id), card_id))
        return COUNTER
