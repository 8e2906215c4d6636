"""Hand-written Lovat heuristics to measure the search against, written on card names as a plugin author would.

The search's playouts and beliefs model every other seat by greedy's rule
(``agents/lovat.py``).  A gain measured against greedy and the example plugin alone says
little about a field of agents written by others, so here are three more, each a different
idea of how to play Lovat, using only the observation and the public deck table:

* ``CountingLovatAgent`` counts the cards it has not seen.  It keeps the hand with the most
  likely winners, names the colour in which its best card is beaten by the fewest unseen
  cards, declares play when that card probably holds, spends a strong card only where it
  probably wins, and otherwise throws its weakest;
* ``HoarderLovatAgent`` keeps as many cards as it can (few counters), so it plays most
  turns: it passes only to save a card for its own turns or on a colour where it is weak;
* ``SniperLovatAgent`` keeps as few cards as it can, the strongest, and declares play only
  with a card that cannot lose: the colour's strongest card (50; the next in any colour is 37).

All three follow the same table manners as greedy: on their own turn with nobody else
playing they give up their weakest card, they never let their hand fall below the number
of their own turns to come (a void turn loses every point, L-12), and on another seat's
void turn they discard as greedy does.  They are registered as the agents ``counting``,
``hoarder`` and ``sniper`` (``agents/plugin.py``): seat them in a config by name, or measure
against them with ``benchmarks/search_ab.py lovat --opponent sniper``.
"""

from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from collections.abc import Sequence

from arena.agent import Agent
from arena.games.base import Action, Observation
from arena.games.lovat.deck import CARD_IDS, COLOURS, LEVEL, STRENGTH, strength
from arena.games.lovat.observation import LovatObservation
from arena_agents.lovat import best_strength


def weakest(cards: Sequence[str]) -> str:
    """The card worth least on its owner's own turn: the lowest best strength (then the id)."""
    return min(cards, key=lambda card: (best_strength(card), card))


def legal_keeps(obs: LovatObservation) -> list[tuple[str, ...]]:
    """Every legal keep of the dealt cards (L-5), in a fixed order."""
    return [
        keep
        for size in range(obs.min_size, obs.max_size + 1)
        for keep in itertools.combinations(obs.dealt, size)
        if sum(LEVEL[card] for card in keep) == obs.level_sum
    ]


def unseen(obs: LovatObservation) -> list[str]:
    """The cards this seat has not seen: not dealt to it, not shown on the table."""
    seen = set(obs.dealt)
    for record in obs.history:
        seen.update(card for _seat, card in record[6])
    seen.update(card for _seat, card in obs.plays)
    return [card for card in CARD_IDS if card not in seen]


def best_in_colour(obs: LovatObservation) -> int:
    """The strength of the seat's best card in the turn's colour."""
    return max(strength(card, str(obs.colour)) for card in obs.hand)


def own_turns_left(obs: LovatObservation) -> int:
    """Turns after the current one on which this seat is the active player."""
    return sum(1 for turn in range(obs.turn + 1, obs.turns) if (obs.first_player + turn) % obs.players == obs.seat)


class TableManners(Agent, ABC):
    """What the three share: the keep and the declaration are theirs; the forced and obvious cases are not."""

    def act(self, observation: Observation) -> Action:
        """The keep by ``keep_score``; forced moves; else the heuristic's own colour, declaration and card."""
        assert isinstance(observation, LovatObservation)
        obs = observation
        if obs.phase == "keep":
            return max(legal_keeps(obs), key=self.keep_score)
        legal = list(obs.legal)
        if len(legal) == 1:
            return legal[0]
        if obs.phase == "colour":
            return self.colour(obs)
        if obs.phase == "declare":
            if len(obs.hand) <= own_turns_left(obs):
                return "pass"  # a card for each of its own turns (L-12)
            return "play" if self.plays(obs) else "pass"
        if obs.phase == "void":
            spare = len(obs.hand) - own_turns_left(obs)
            cards = [str(action) for action in legal if action != "counter"]
            return weakest(cards) if cards and (spare > 0 or "counter" not in legal) else "counter"
        cards = [str(action) for action in legal]
        if obs.seat == obs.active and not any(decision == "play" for _seat, decision in obs.declarations):
            return weakest(cards)  # L-13: it wins by default
        return self.card(obs, cards)

    @abstractmethod
    def keep_score(self, keep: tuple[str, ...]) -> tuple[float, ...]:
        """How much the heuristic likes a legal keep (the greatest is kept; the first found on a tie)."""

    def colour(self, obs: LovatObservation) -> str:
        """The colour to name: that of its strongest card in its best colour."""
        strongest = max(obs.hand, key=lambda card: (best_strength(card), card))
        return COLOURS[STRENGTH[strongest].index(best_strength(strongest))]

    @abstractmethod
    def plays(self, obs: LovatObservation) -> bool:
        """Whether to declare play (not forced either way, and a card to spare)."""

    def card(self, obs: LovatObservation, cards: list[str]) -> str:
        """The card to show: the cheapest that beats the cards shown (the strongest when leading), else the weakest."""
        colour = str(obs.colour)
        if not obs.plays:
            return max(cards, key=lambda card: (strength(card, colour), -best_strength(card), card))
        to_beat = max(strength(card, colour) for _seat, card in obs.plays)
        winners = [card for card in cards if strength(card, colour) > to_beat]
        return weakest(winners or cards)


class CountingLovatAgent(TableManners):
    """Counts unseen cards: plays a turn, and spends a strong card, only where it probably wins."""

    confidence = 0.5
    """Declare play, or spend a winning card, when the chance that no unseen card beats it is at least this."""

    def keep_score(self, keep: tuple[str, ...]) -> tuple[float, ...]:
        """Most likely winners (best strength 30 or more), then the most cards."""
        return (sum(best_strength(card) >= 30 for card in keep), len(keep), sum(map(best_strength, keep)))

    def chance(self, obs: LovatObservation, pool: Sequence[str], ours: int, rivals: int) -> float:
        """Rough chance that none of ``rivals`` seats' hands holds a card of ``pool`` (the unseen cards) stronger than
        ``ours``."""
        if not pool or not rivals:
            return 1.0
        colour = str(obs.colour)
        stronger = sum(strength(card, colour) > ours for card in pool) / len(pool)
        held = sum(obs.hand_sizes[seat] for seat in range(obs.players) if seat != obs.seat)
        # each rival card is one of the unseen cards; the rivals hold about held/(players-1) each
        per_rival = held / max(1, obs.players - 1)
        return float((1.0 - stronger) ** (per_rival * rivals))

    def rivals_to_come(self, obs: LovatObservation) -> int:
        """Seats that will still show a card after this seat in the current turn."""
        playing = [seat for seat in range(obs.players) if seat != obs.active and not obs.passes[seat]]
        if obs.seat == obs.active:
            return len(playing)
        shown = {seat for seat, _card in obs.plays}
        return sum(1 for seat in playing if seat != obs.seat and seat not in shown)

    def colour(self, obs: LovatObservation) -> str:
        """The colour in which its best card is beaten by the fewest unseen cards."""
        pool = unseen(obs)

        def beaten_by(colour: str) -> tuple[int, int]:
            best = max(strength(card, colour) for card in obs.hand)
            return -sum(strength(card, colour) > best for card in pool), best

        return max(COLOURS, key=beaten_by)

    def plays(self, obs: LovatObservation) -> bool:
        """Play when its best card in the colour probably beats whatever the other seats could show."""
        rivals = max(1, (obs.players - 1) // 2)  # not every seat will play: count about half
        return self.chance(obs, unseen(obs), best_in_colour(obs), rivals) >= self.confidence

    def card(self, obs: LovatObservation, cards: list[str]) -> str:
        """The cheapest card that beats the cards shown and probably holds; else the weakest."""
        colour = str(obs.colour)
        to_beat = max((strength(card, colour) for _seat, card in obs.plays), default=-1)
        rivals, pool = self.rivals_to_come(obs), unseen(obs)
        holding = [
            card
            for card in cards
            if strength(card, colour) > to_beat
            and self.chance(obs, pool, strength(card, colour), rivals) >= self.confidence
        ]
        return weakest(holding or cards)


class HoarderLovatAgent(TableManners):
    """Keeps as many cards as it can and plays most turns."""

    weak_colour = 20
    """Pass (spending a counter) when its best card in the colour is below this."""

    def keep_score(self, keep: tuple[str, ...]) -> tuple[float, ...]:
        """The most cards, then the greatest summed best strength."""
        return (len(keep), sum(map(best_strength, keep)))

    def plays(self, obs: LovatObservation) -> bool:
        """Play unless its best card in the colour is weak."""
        return best_in_colour(obs) >= self.weak_colour


class SniperLovatAgent(TableManners):
    """Keeps few strong cards and plays only with a card that cannot lose."""

    sure_strength = 50
    """Declare play with a card this strong in the colour: the strongest any card is in any colour, so it cannot
    lose (the next strongest in every colour is 37)."""

    def keep_score(self, keep: tuple[str, ...]) -> tuple[float, ...]:
        """The fewest cards, then the greatest summed best strength."""
        return (-len(keep), sum(map(best_strength, keep)))

    def plays(self, obs: LovatObservation) -> bool:
        """Play only with a card at least ``sure_strength`` in the colour."""
        return best_in_colour(obs) >= self.sure_strength

