"""``ReaderLovatAgent``: a Lovat heuristic that reads the table, what each other seat can still hold, before it plays.

No search and no sampling: from its observation and the public deck table alone it works out,
for every other seat, how likely that seat's hand holds a card stronger than a given strength
in a given colour (``Table``), and decides by those chances:

* what a seat can hold: the cards this seat has not seen, split by level; a seat's kept cards
  add up to the variant's level sum (L-5), so the levels of the cards it has shown fix how
  many level-1, -2 and -3 cards its hand (with any cards laid face down on void turns) can
  hold, each mix weighted by how many ways the unseen cards allow it;
* what a seat has passed: a seat that passed in a colour while it had a card to spare
  probably holds no strong card in that colour (``PASS_WEIGHT`` discounts such cards for it);
* what a seat has said: a seat that declared play probably holds a strong card in the
  colour, and an active player who named the colour holds one (the chances are conditioned on
  that, ``DECLARED_STRENGTH`` and ``NAMED_STRENGTH``); a colour the die rolled says nothing.

Then:

* keep: greedy's keep (``best_keep``: the strongest cards the level sum allows);
* colour: the colour in which its best card is most likely to stand against every other hand;
* declare: it keeps a card for each of its own turns to come (a void turn loses every point,
  L-12); with cards to spare it plays when its best card in the colour probably wins, and the
  more of its remaining other seats' turns it must play on anyway (few counters, many spare
  cards), the smaller the chance it asks for (``PLAY_BAR``);
* play: the cheapest card that beats the cards shown and probably holds against the seats
  still to show; as the active player, with nobody playing, its weakest card (it wins by
  default, L-13), and against declared players the cheapest card that gives its best chance,
  or its weakest when no card of its is likely to win (a strong card is saved for a later turn);
* void turns of others: greedy's discard.

Registered as ``reader`` (``agents/plugin.py``).  Under a millisecond a decision.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

from arena.agent import Agent
from arena.games.base import Action, Observation
from arena.games.lovat.deck import COLOUR_INDEX, COLOURS, LEVEL, STRENGTH
from arena.games.lovat.observation import LovatObservation
from arena_agents.heuristics.lovat import own_turns_left, unseen, weakest
from arena_agents.lovat import COUNTER, PASS, PLAY, GreedyLovatAgent, best_keep, best_strength

PASS_WEIGHT = 0.3
"""How much likelier a card strong in a colour is to be held by a seat that passed there with a card to spare (1:
no evidence, 0: certainly not held)."""

PASS_STRENGTH = 30
"""A pass with a card to spare marks the seat as probably holding nothing this strong in the colour (greedy's bar)."""

DIE_PASS_STRENGTH = 26
"""The same after the die picked the colour (greedy's bar is lower there)."""

DECLARED_STRENGTH = 26
"""A seat that declared play (not forced) is taken to hold a card at least this strong in the colour."""

NAMED_STRENGTH = 30
"""An active player who named the colour is taken to hold a card at least this strong in it."""

PLAY_BAR = 0.4
"""Declare play when the chance to win is at least this times the share of its other seats' turns it may still pass
on (counters / (counters + spare cards))."""

HOLD = 0.5
"""Spend the cheapest winning card whose chance to hold is at least this."""

LONG_SHOT = 0.2
"""Below ``HOLD``, still spend the likeliest winner if its chance is at least this; otherwise throw the weakest."""

LEAD_HOPE = 0.15
"""As the active player against declared players: below this chance with its best card, throw the weakest."""


@lru_cache(maxsize=4096)
def _comb(n: int, k: int) -> int:
    return math.comb(n, k) if 0 <= k <= n else 0


class Table:
    """What one seat can infer about the other seats' hands from its observation and the deck table."""

    def __init__(self, obs: LovatObservation) -> None:
        self.obs = obs
        pool = unseen(obs)
        self.pool = {level: [card for card in pool if LEVEL[card] == level] for level in (1, 2, 3)}
        shown: dict[int, list[str]] = {seat: [] for seat in range(obs.players)}
        face_down = [0] * obs.players
        turns: list[tuple[int, int, bool, str | None, str | None, Sequence[tuple[int, str]],
                          Sequence[tuple[int, str]], Sequence[tuple[int, str]]]] = []
        for record in obs.history:
            turn, active, _void, die, colour, declarations, plays, void_discards, _winner = record
            turns.append((turn, active, bool(_void), die, colour, declarations, plays, void_discards))
        turns.append((obs.turn, obs.active if obs.active is not None else -1, obs.phase == "void", obs.die,
                      obs.colour, obs.declarations, obs.plays, obs.void_discards))
        for _turn, _active, _void, _die, _colour, _declarations, plays, void_discards in turns:
            for seat, card in plays:
                shown[seat].append(card)
            for seat, item in void_discards:
                face_down[seat] += item == "card"
        # cards each seat still held at the start of each turn: its hand now plus what it gave up since
        held = list(obs.hand_sizes)
        self.caps: list[dict[int, int]] = [{} for _ in range(obs.players)]
        for turn, _active, void, die, colour, declarations, plays, void_discards in reversed(turns):
            for seat, _card in plays:
                held[seat] += 1
            for seat, item in void_discards:
                held[seat] += item == "card"
            if void or colour is None:
                continue
            rolled = die is not None and die != "blank"
            bar = DIE_PASS_STRENGTH if rolled else PASS_STRENGTH
            for seat, decision in declarations:
                spare = held[seat] - _turns_after(seat, turn, obs)
                if decision == PASS and seat != obs.seat and spare > 0:
                    index = COLOUR_INDEX[colour]
                    self.caps[seat][index] = min(bar, self.caps[seat].get(index, bar))
        self.mixes: dict[int, list[tuple[float, tuple[float, float, float]]]] = {}
        for seat in range(obs.players):
            if seat != obs.seat:
                self.mixes[seat] = self._mixes(seat, shown[seat], face_down[seat])
        self._cache: dict[tuple[int, int, int], float] = {}

    def _mixes(self, seat: int, shown: list[str], face_down: int) -> list[tuple[float, tuple[float, float, float]]]:
        """The level mixes (cards of level 1, 2, 3 in the seat's hand) with their probabilities."""
        hand = self.obs.hand_sizes[seat]
        total = hand + face_down
        rest = self.obs.level_sum - sum(LEVEL[card] for card in shown)
        counts = [len(self.pool[level]) for level in (1, 2, 3)]
        share = hand / total if total else 0.0
        found = []
        for threes in range(total + 1):
            for twos in range(total - threes + 1):
                ones = total - threes - twos
                if ones + 2 * twos + 3 * threes != rest:
                    continue
                weight = _comb(counts[0], ones) * _comb(counts[1], twos) * _comb(counts[2], threes)
                if weight:
                    found.append((float(weight), (ones * share, twos * share, threes * share)))
        if not found:  # nothing fits (a seat that broke no rule always fits): fall back on the pool's proportions
            size = sum(counts) or 1
            return [(1.0, tuple(hand * count / size for count in counts))]  # type: ignore[list-item]
        norm = sum(weight for weight, _mix in found)
        return [(weight / norm, mix) for weight, mix in found]

    def none_above(self, seat: int, colour: int, strength: int) -> float:
        """The chance that the seat's hand holds no card stronger than ``strength`` in the colour."""
        key = (seat, colour, strength)
        if key in self._cache:
            return self._cache[key]
        if not self.obs.hand_sizes[seat]:
            return 1.0
        caps = self.caps[seat]
        below = []
        for level in (1, 2, 3):
            total = above = 0.0
            for card in self.pool[level]:
                weight = 1.0
                for index, bar in caps.items():
                    if STRENGTH[card][index] >= bar:
                        weight *= PASS_WEIGHT
                total += weight
                if STRENGTH[card][colour] > strength:
                    above += weight
            below.append(1.0 - above / total if total else 1.0)
        chance = sum(
            weight * math.prod(q**n for q, n in zip(below, mix, strict=True)) for weight, mix in self.mixes[seat]
        )
        self._cache[key] = chance
        return chance

    def beaten_by_none(self, seat: int, colour: int, strength: int, at_least: int = 0) -> float:
        """The chance that the seat holds nothing stronger than ``strength``, given that it holds a card at least
        ``at_least`` strong in the colour (0: nothing known)."""
        below = self.none_above(seat, colour, strength)
        if at_least <= 0:
            return below
        if strength < at_least:
            return 0.0
        weak = self.none_above(seat, colour, at_least - 1)
        return max(0.0, below - weak) / (1.0 - weak) if weak < 1.0 else below


def _turns_after(seat: int, turn: int, obs: LovatObservation) -> int:
    """The seat's active turns after ``turn``."""
    return sum(1 for later in range(turn + 1, obs.turns) if (obs.first_player + later) % obs.players == seat)


class ReaderLovatAgent(Agent):
    """Reads what the other seats can still hold and plays by those chances (see the module docstring)."""

    def act(self, observation: Observation) -> Action:
        """The keep, colour, declaration, card or void discard for this observation."""
        assert isinstance(observation, LovatObservation)
        obs = observation
        if obs.phase == "keep":
            return best_keep(obs.dealt, obs.level_sum, obs.min_size, obs.max_size, GreedyLovatAgent.keep_pivot)
        legal = list(obs.legal)
        if len(legal) == 1:
            return legal[0]
        if obs.phase == "void":
            spare = len(obs.hand) - own_turns_left(obs)
            return weakest(obs.hand) if obs.hand and (spare > 0 or COUNTER not in legal) else COUNTER
        table = Table(obs)
        if obs.phase == "colour":
            return self.colour(obs, table)
        if obs.phase == "declare":
            return self.declare(obs, table)
        return self.card(obs, table, [str(action) for action in legal])

    def colour(self, obs: LovatObservation, table: Table) -> str:
        """The colour in which its best card is likeliest to stand against every other hand (then the strongest)."""
        others = [seat for seat in range(obs.players) if seat != obs.seat]

        def chance(index: int) -> tuple[float, int]:
            best = max(STRENGTH[card][index] for card in obs.hand)
            return math.prod(table.none_above(seat, index, best) for seat in others), best

        return COLOURS[max(range(len(COLOURS)), key=chance)]

    def win_chance(self, obs: LovatObservation, table: Table, strength: int) -> float:
        """The chance that a card of ``strength`` in the colour, shown by this seat as a non-active player, wins."""
        colour = COLOUR_INDEX[str(obs.colour)]
        rolled = obs.die is not None and obs.die != "blank"
        active = int(obs.active)  # type: ignore[arg-type]  # a declaration has an active player
        chance = table.beaten_by_none(active, colour, strength - 1, 0 if rolled else NAMED_STRENGTH)
        said = dict(obs.declarations)
        for step in range(1, obs.players):
            seat = (active + step) % obs.players
            if seat == obs.seat:
                continue
            if seat not in said:  # still to declare: it plays over us if it can
                chance *= table.none_above(seat, colour, strength)
            elif said[seat] == PLAY:
                before = (seat - active) % obs.players < (obs.seat - active) % obs.players
                chance *= table.beaten_by_none(seat, colour, strength - 1 if before else strength, DECLARED_STRENGTH)
        return chance

    def declare(self, obs: LovatObservation, table: Table) -> str:
        """Pass to keep a card for each own turn; else play when the chance to win clears the bar."""
        spare = len(obs.hand) - own_turns_left(obs)
        if spare <= 0:
            return PASS
        colour = COLOUR_INDEX[str(obs.colour)]
        best = max(STRENGTH[card][colour] for card in obs.hand)
        bar = PLAY_BAR * obs.counters / (obs.counters + spare)
        return PLAY if self.win_chance(obs, table, best) >= bar else PASS

    def card(self, obs: LovatObservation, table: Table, cards: list[str]) -> str:
        """The card to show (see the module docstring)."""
        colour = COLOUR_INDEX[str(obs.colour)]
        if obs.seat == obs.active:
            playing = [seat for seat, decision in obs.declarations if decision == PLAY]
            if not playing:
                return weakest(cards)  # L-13: it wins by default

            def lead(card: str) -> float:
                strength = STRENGTH[card][colour]
                return math.prod(table.beaten_by_none(seat, colour, strength, DECLARED_STRENGTH) for seat in playing)

            chances = {card: lead(card) for card in cards}
            top = max(chances.values())
            if top < LEAD_HOPE:
                return weakest(cards)
            return weakest([card for card in cards if chances[card] >= top - 0.05])
        to_beat = max(STRENGTH[card][colour] for _seat, card in obs.plays)
        shown = {seat for seat, _card in obs.plays}
        later = [
            seat for seat, decision in obs.declarations if decision == PLAY and seat not in shown and seat != obs.seat
        ]
        winners = [card for card in cards if STRENGTH[card][colour] > to_beat]
        if not winners:
            return weakest(cards)
        holds = {
            card: math.prod(
                table.beaten_by_none(seat, colour, STRENGTH[card][colour], DECLARED_STRENGTH) for seat in later
            )
            for card in winners
        }
        sure = [card for card in winners if holds[card] >= HOLD]
        if sure:
            return weakest(sure)
        likeliest = max(winners, key=lambda card: (holds[card], -best_strength(card), card))
        return likeliest if holds[likeliest] >= LONG_SHOT else weakest(cards)


__all__ = ["ReaderLovatAgent", "Table"]
