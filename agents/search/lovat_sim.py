"""``Playout``: the rest of one Lovat game on small integers, played out by the greedy rule (the search's simulator).

A bare simulator about ten times faster than driving ``LovatState``: the rules needed to
play a game out after the keeps (L-10..L-16), ``GreedyLovatAgent``'s decision rule restated
on this representation, and the value of a finished game for a seat (``VALUES``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from arena.games.base import Action
from arena.games.lovat.deck import COLOUR_INDEX, COLOURS, LEVEL
from arena.games.lovat.observation import LovatObservation
from arena.games.lovat.state import BLANK, COUNTER, KEEP, PLAY_DECISION, VARIANTS, LovatState, Variant
from arena_agents.lovat import GreedyLovatAgent
from arena_agents.search.lovat_cards import (
    _BEST_COLOUR,
    _BLANK,
    _BY_COLOUR,
    _COLOUR,
    _COUNTER,
    _DECLARE,
    _INDEX,
    _LEAD_KEY,
    _LEVEL,
    _OVER,
    _PHASE_CODE,
    _PLAY,
    _STRENGTH,
    _VOID,
    _WEAK_KEY,
    _best_play,
    _turns_after,
    _turns_after_table,
    _weakest,
)

VALUES = ("rank", "points")
"""Playout values: ``rank`` (share of opponents beaten, L-16, plus ``POINT_BONUS`` per point) or ``points``
(points plus ``LEVEL_BONUS`` per level of the point cards)."""

POINT_BONUS = 0.01
"""``rank`` value: bonus per point, so that among equal standings more points is better."""

LEVEL_BONUS = 0.01
"""``points`` value: bonus per level of the point cards (the L-16 tie-break)."""


def void_turn(hands: list[list[int]], counters: list[int], points: list[int], levels: list[int], active: int,
              others: list[int], turns_after: Sequence[int]) -> None:
    """L-12 on the greedy rule: the active seat, holding no card, gives up a counter and its point cards; each
    other seat discards its weakest card, or a counter when it must keep its cards for its turns to come."""
    weak_key = _WEAK_KEY.__getitem__
    counters[active] -= 1
    points[active] = levels[active] = 0
    for seat in others:
        hand = hands[seat]
        if hand and (not counters[seat] or len(hand) > turns_after[seat]):
            hand.remove(min(hand, key=weak_key))
        else:
            counters[seat] -= 1


class Playout:
    """The rest of one Lovat game on small integers: just the rules needed to play it out (L-10..L-16).

    Mirrors ``LovatState`` after the keeps without names, logs, history or checks.  Dice come
    from a list of pre-rolled faces (indices into ``FACES``) consumed in turn order, so that
    every candidate played out in one world meets the same rolls.  ``greedy_action`` is
    ``GreedyLovatAgent``'s decision rule restated on this representation (a test checks
    that the two always agree, and that ``Playout`` follows the engine move for move).
    """

    __slots__ = (
        "active",
        "best_card",
        "best_seat",
        "best_strength",
        "colour",
        "counters",
        "dice",
        "die_from",
        "die_index",
        "first",
        "hands",
        "levels",
        "passed",
        "phase",
        "players",
        "points",
        "queue",
        "rolled",
        "turn",
        "turns",
    )

    players: int
    turns: int  # turns in the game (L-15)
    die_from: int  # first turn of the die round (L-14)
    first: int  # the first player (L-2)
    turn: int  # current turn, 0-based
    phase: int  # _COLOUR, _DECLARE, _PLAY, _VOID or _OVER
    active: int  # the active seat of the current turn
    colour: int  # the turn's colour index, -1 until named or rolled
    rolled: bool  # whether the die picked the colour this turn (greedy declares more readily then)
    queue: list[int]  # seats still to decide in this step, in order
    hands: list[list[int]]  # per seat, cards in hand (indices)
    counters: list[int]  # per seat, counters
    points: list[int]  # per seat, point cards
    levels: list[int]  # per seat, level sum of the point cards (L-16 tie-break)
    passed: list[bool]  # per seat, passed this turn
    best_seat: int  # the seat winning the turn so far (-1 before the first card)
    best_card: int  # its card
    best_strength: int  # its strength in the colour
    dice: Sequence[int]  # pre-rolled die faces for the turns still to roll
    die_index: int  # next face to use

    # -- construction -------------------------------------------------------------------------

    @classmethod
    def from_state(cls, state: LovatState, dice: Sequence[int] = ()) -> Playout:
        """The playout of an engine state after the keeps (any phase but ``keep``)."""
        if state.phase == KEEP:
            raise ValueError("a Playout starts after the keeps; use Playout.after_keeps in the keep phase")
        self = cls.__new__(cls)
        variant = state.variant
        self.players = state.players
        self.turns = variant.turns
        self.die_from = (variant.rounds - 1) * state.players
        self.first = state.first
        self.turn = state.turn
        self.phase = _PHASE_CODE[state.phase]
        self.active = (state.first + state.turn) % state.players
        self.colour = -1 if state.colour is None else COLOUR_INDEX[state.colour]
        self.rolled = state.die is not None and state.die != BLANK
        self.queue = list(state.queue)
        self.hands = [[_INDEX[card_id] for card_id in hand] for hand in state.hands]
        self.counters = list(state.counters)
        self.points = [len(cards) for cards in state.points]
        self.levels = list(state.level_sums())
        self.passed = list(state.passed)
        self.best_seat, self.best_card, self.best_strength = _best_play(state.plays, self.colour)
        self.dice = dice
        self.die_index = 0
        return self

    @classmethod
    def after_keeps(
        cls, variant: Variant, dealer: int, keeps: Sequence[Sequence[str]], dice: Sequence[int] = ()
    ) -> Playout:
        """The playout of a game whose seats have kept ``keeps``: L-8's discard, then the first turn."""
        self = cls.__new__(cls)
        players = variant.players
        self.players = players
        self.turns = variant.turns
        self.die_from = (variant.rounds - 1) * players
        self.first = (dealer + 1) % players
        self.turn = 0
        self.hands = [[_INDEX[card_id] for card_id in keep] for keep in keeps]
        self.counters = [variant.dealt - len(keep) - variant.discard for keep in keeps]
        self.points = [0] * players
        self.levels = [0] * players
        self.dice = dice
        self.die_index = 0
        self._start_turn()
        return self

    @classmethod
    def public(cls, observation: LovatObservation) -> Playout:
        """The playout of an observation's public part (after the keeps), own hand included, other hands empty."""
        obs = observation
        players = obs.players
        variant = VARIANTS[players]
        self = cls.__new__(cls)
        self.players = players
        self.turns = variant.turns
        self.die_from = (variant.rounds - 1) * players
        self.first = obs.first_player
        self.turn = obs.turn
        self.phase = _PHASE_CODE[obs.phase]
        active = self.active = (obs.first_player + obs.turn) % players
        self.colour = -1 if obs.colour is None else COLOUR_INDEX[obs.colour]
        self.rolled = obs.die is not None and obs.die != BLANK
        order = [(active + step) % players for step in range(1, players)]
        if self.phase == _COLOUR:
            self.queue = [active]
        elif self.phase == _DECLARE:
            self.queue = order[len(obs.declarations) :]
        elif self.phase == _PLAY:
            self.queue = ([active] + [seat for seat in order if not obs.passes[seat]])[len(obs.plays) :]
        elif self.phase == _VOID:
            self.queue = order[len(obs.void_discards) :]
        else:
            self.queue = []
        self.hands = [[] for _ in range(players)]
        self.hands[obs.seat] = [_INDEX[card_id] for card_id in obs.hand]
        self.counters = list(obs.counter_counts)
        self.points = [len(cards) for cards in obs.point_cards]
        self.levels = [sum(LEVEL[card_id] for card_id in cards) for cards in obs.point_cards]
        self.passed = list(obs.passes)
        self.best_seat, self.best_card, self.best_strength = _best_play(obs.plays, self.colour)
        self.dice = ()
        self.die_index = 0
        return self

    def copy(self) -> Playout:
        """An independent copy (the dice list is shared: it is never modified)."""
        twin = Playout.__new__(Playout)
        twin.players = self.players
        twin.turns = self.turns
        twin.die_from = self.die_from
        twin.first = self.first
        twin.turn = self.turn
        twin.phase = self.phase
        twin.active = self.active
        twin.colour = self.colour
        twin.rolled = self.rolled
        twin.queue = self.queue[:]
        twin.hands = [hand[:] for hand in self.hands]
        twin.counters = self.counters[:]
        twin.points = self.points[:]
        twin.levels = self.levels[:]
        twin.passed = self.passed[:]
        twin.best_seat = self.best_seat
        twin.best_card = self.best_card
        twin.best_strength = self.best_strength
        twin.dice = self.dice
        twin.die_index = self.die_index
        return twin

    # -- the rules ----------------------------------------------------------------------------

    def to_move(self) -> int:
        """The seat whose decision is pending (-1 once over)."""
        if self.phase == _OVER:
            return -1
        return self.queue[0]

    def _start_turn(self) -> None:
        """Begin turn ``self.turn``: the end (L-15), a void turn (L-12), the die (L-14) or a colour to name."""
        self.passed = [False] * self.players
        self.best_seat = self.best_card = self.best_strength = -1
        self.colour = -1
        self.rolled = False
        if self.turn == self.turns:
            self.phase = _OVER
            self.queue = []
            return
        players = self.players
        active = self.active = (self.first + self.turn) % players
        if not self.hands[active]:  # L-12: void turn
            self.counters[active] -= 1
            self.points[active] = 0
            self.levels[active] = 0
            self.phase = _VOID
            self.queue = [(active + step) % players for step in range(1, players)]
            return
        if self.turn >= self.die_from:  # L-14
            face = self.dice[self.die_index]
            self.die_index += 1
            if face != _BLANK:
                self.colour = face
                self.rolled = True
                self.phase = _DECLARE
                self.queue = [(active + step) % players for step in range(1, players)]
                return
        self.phase = _COLOUR
        self.queue = [active]

    def step(self, action: int, start_next: bool = True) -> None:
        """Apply the pending seat's decision, in playout form.

        colour: a colour index; declare: 1 to play, 0 to pass; play: a card index;
        void: a card index or ``_COUNTER``.  Not checked: the caller passes legal actions.
        With ``start_next`` false a decision that ends the turn leaves the next turn
        unstarted (only ``run`` does that, to hand over to ``_greedy_turns``).
        """
        phase = self.phase
        queue = self.queue
        seat = queue.pop(0)
        if phase == _PLAY:
            self.hands[seat].remove(action)
            strength = _STRENGTH[action][self.colour]
            if strength > self.best_strength:  # L-13: strict, so a tie goes to the card played first
                self.best_seat, self.best_card, self.best_strength = seat, action, strength
            if not queue:
                self.points[self.best_seat] += 1
                self.levels[self.best_seat] += _LEVEL[self.best_card]
                self.turn += 1
                if start_next:
                    self._start_turn()
        elif phase == _DECLARE:
            if not action:  # L-10: a pass discards a counter at once
                self.counters[seat] -= 1
                self.passed[seat] = True
            if not queue:
                active, players, passed = self.active, self.players, self.passed
                self.phase = _PLAY
                self.queue = [active] + [
                    other for other in ((active + step) % players for step in range(1, players)) if not passed[other]
                ]
        elif phase == _COLOUR:
            self.colour = action
            self.phase = _DECLARE
            players = self.players
            self.queue = [(seat + step) % players for step in range(1, players)]
        else:  # _VOID (L-12)
            if action == _COUNTER:
                self.counters[seat] -= 1
            else:
                self.hands[seat].remove(action)
            if not queue:
                self.turn += 1  # L-12: nobody wins a void turn
                if start_next:
                    self._start_turn()

    def apply(self, action: Action) -> None:
        """Apply an engine action (a colour, ``pass``/``play``, a card id or ``counter``) for the pending seat."""
        if self.phase == _COLOUR:
            self.step(COLOUR_INDEX[action])  # type: ignore[index]
        elif self.phase == _DECLARE:
            self.step(1 if action == PLAY_DECISION else 0)
        elif self.phase == _VOID and action == COUNTER:
            self.step(_COUNTER)
        else:
            self.step(_INDEX[cast(str, action)])

    def legal(self) -> list[int]:
        """The pending seat's legal decisions, in playout form (for tests and random playouts)."""
        seat = self.queue[0]
        hand, counters = self.hands[seat], self.counters[seat]
        if self.phase == _COLOUR:
            return list(range(len(COLOURS)))
        if self.phase == _DECLARE:
            return [1] if not counters else [0] if not hand else [0, 1]  # L-11
        if self.phase == _PLAY:
            return list(hand)
        return ([_COUNTER] if counters else []) + list(hand)

    # -- greedy's decision rule -----------------------------------------------------------------

    def _own_turns_left(self, seat: int) -> int:
        """The seat's active turns after the current one."""
        return _turns_after(seat, self.turn, self.first, self.players, self.turns)

    def greedy_action(self) -> int:
        """``GreedyLovatAgent``'s decision for the pending seat, in playout form (its thresholds are read from it)."""
        phase = self.phase
        seat = self.queue[0]
        hand = self.hands[seat]
        if phase == _PLAY:
            colour = self.colour
            if len(hand) == 1:
                return hand[0]
            if seat == self.active:
                if len(self.queue) == 1:  # everyone else passed: the card wins by default (L-13)
                    return _weakest(hand)
                return max(hand, key=_LEAD_KEY[colour].__getitem__)
            to_beat = self.best_strength
            winners = [card for card in hand if _STRENGTH[card][colour] > to_beat]
            if winners:
                return _weakest(winners)
            return _weakest(hand)
        if phase == _DECLARE:
            if not self.counters[seat]:
                return 1  # L-11
            if not hand:
                return 0
            if len(hand) <= self._own_turns_left(seat):
                return 0
            colour = self.colour
            best = max(_STRENGTH[card][colour] for card in hand)
            threshold = GreedyLovatAgent.die_declare_strength if self.rolled else GreedyLovatAgent.declare_strength
            return 1 if best >= threshold else 0
        if phase == _COLOUR:
            return _BEST_COLOUR[max(hand, key=_WEAK_KEY.__getitem__)]
        # _VOID
        if hand and (len(hand) > self._own_turns_left(seat) or not self.counters[seat]):
            return _weakest(hand)
        return _COUNTER

    def run(self) -> None:
        """Play the game out with every seat on the greedy rule.

        The current turn is finished step by step; the later turns are played whole by
        ``_greedy_turns``, the same rule and the same rules of play unrolled (much faster).
        """
        turn = self.turn
        while self.phase != _OVER and self.turn == turn:
            self.step(self.greedy_action(), start_next=False)
        self._greedy_turns()

    def _greedy_turns(self) -> None:
        """Play every turn from the start of the current one to the end on the greedy rule (see ``run``)."""
        players, turns, first, die_from = self.players, self.turns, self.first, self.die_from
        hands, counters, points, levels = self.hands, self.counters, self.points, self.levels
        dice, die_index = self.dice, self.die_index
        weak_key = _WEAK_KEY.__getitem__
        declare_strength = GreedyLovatAgent.declare_strength
        die_declare_strength = GreedyLovatAgent.die_declare_strength
        turns_after_table = _turns_after_table(first, players, turns)
        turn = self.turn
        while turn < turns:
            turns_after = turns_after_table[turn]
            active = (first + turn) % players
            others = [(active + step) % players for step in range(1, players)]
            lead = hands[active]
            if not lead:  # L-12: void turn
                void_turn(hands, counters, points, levels, active, others, turns_after)
                turn += 1
                continue
            threshold = declare_strength
            if turn >= die_from and dice[die_index] != _BLANK:  # L-14
                colour = dice[die_index]
                die_index += 1
                threshold = die_declare_strength
            else:
                if turn >= die_from:
                    die_index += 1  # blank: the active player names the colour
                colour = _BEST_COLOUR[max(lead, key=weak_key)]
            strength = _BY_COLOUR[colour]
            strength_of = strength.__getitem__
            playing = []
            for seat in others:  # L-10 (2), L-11
                hand = hands[seat]
                if not counters[seat] or (
                    hand
                    and len(hand) > turns_after[seat]
                    and max(map(strength_of, hand)) >= threshold
                ):
                    playing.append(seat)
                else:
                    counters[seat] -= 1
            if len(lead) == 1:
                card = lead[0]
            elif playing:
                card = max(lead, key=_LEAD_KEY[colour].__getitem__)
            else:
                card = min(lead, key=weak_key)  # L-13: wins by default
            lead.remove(card)
            best_seat, best_card, best = active, card, strength[card]
            for seat in playing:  # L-10 (4)
                hand = hands[seat]
                if len(hand) == 1:
                    card = hand[0]
                else:
                    winners = [card for card in hand if strength[card] > best]
                    card = min(winners or hand, key=weak_key)
                hand.remove(card)
                if strength[card] > best:  # L-13: a tie goes to the card played first
                    best_seat, best_card, best = seat, card, strength[card]
            points[best_seat] += 1
            levels[best_seat] += _LEVEL[best_card]
            turn += 1
        self.turn = turn
        self.die_index = die_index
        self.phase = _OVER
        self.queue = []

    # -- the result -----------------------------------------------------------------------------

    def value(self, seat: int, kind: str = "rank") -> float:
        """The finished game's value for ``seat`` (see ``VALUES``)."""
        points, levels = self.points, self.levels
        if kind == "points":
            return points[seat] + LEVEL_BONUS * levels[seat]
        mine = (points[seat], levels[seat])
        beaten = 0.0
        for other in range(self.players):
            if other != seat:
                theirs = (points[other], levels[other])
                if mine > theirs:
                    beaten += 1.0
                elif mine == theirs:
                    beaten += 0.5  # L-16: a shared rank
        return beaten / (self.players - 1) + POINT_BONUS * points[seat]
