"""``SearchLovatAgent``: determinized Monte Carlo search for Lovat.

At each decision with more than one legal action the agent

1. samples hidden states consistent with its observation (``GAME.sample_state``: uniform
   over the other seats' hidden cards that fit the public record; in the keep phase
   uniform over the other seats' dealt hands, whose keeps it then makes with greedy's
   ``best_keep``);
2. in each sampled state ("world") plays every candidate action out: the candidate, then
   the rest of the game by the greedy policy for every seat (itself included), on
   ``Playout``, a bare simulator about ten times faster than driving ``LovatState``;
   the greedy policy decides from a seat's own hand and the public record only, so a
   playout never uses hidden cards to choose a move;
3. scores a playout by the seat's final standing (``VALUES``, default ``"rank"``: the
   share of opponents it finishes ahead of under L-16, a tie counting half, plus a
   small bonus per point);
4. plays the candidate with the best mean value.  All candidates share each world and
   its die rolls (common random numbers), so they are compared on the same luck.

Candidates are every legal action in the colour, declare, play and void phases (greedy's
choice first, so that it wins exact ties), and in the keep phase a short list of good
keeps: greedy's best keep, the best keep of every legal size, and the best keeps for
other pivots of greedy's keep score (``keep_candidates``).

Options (``self.options``): ``iterations``, playouts per move (one candidate in one world;
default ``DEFAULT_ITERATIONS``, deterministic for a seed), or ``ms``, milliseconds per move
(time-dependent); ``value``, one of ``VALUES``.  The last search's figures are kept in
``self.stats`` (``None`` after a decision taken without search).

Docs and measured strength: ``docs/agents/search-lovat.md``.
"""

from __future__ import annotations

import functools
import math
import random
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.agent import Agent
from arena.games.base import Action, GameInfo
from arena.games.lovat import GAME
from arena.games.lovat.deck import CARD_IDS, COLOUR_INDEX, COLOURS, LEVEL, STRENGTH
from arena.games.lovat.observation import LovatObservation
from arena.games.lovat.sampler import hidden_compositions, sample_compositions
from arena.games.lovat.state import (
    BLANK,
    COLOUR,
    COUNTER,
    DECLARE,
    FACES,
    KEEP,
    OVER,
    PASS,
    PHASES,
    PLAY,
    PLAY_DECISION,
    VARIANTS,
    VOID,
    LovatState,
    Variant,
)
from arena_agents.lovat import GreedyLovatAgent, best_keep, best_strength
from arena_agents.search_common import (
    BUDGET_OPTIONS,
    Budget,
    Candidate,
    SearchStats,
    World,
    check_options,
    move_rng,
)

DEFAULT_ITERATIONS = 320
"""Playouts per move by default: a few tens of ms on one core (see docs/agents/search-lovat.md)."""

VALUES = ("rank", "points")
"""Playout values: ``rank`` (share of opponents beaten, L-16, plus ``POINT_BONUS`` per point) or ``points``
(points plus ``LEVEL_BONUS`` per level of the point cards)."""

OPTIONS = BUDGET_OPTIONS + ("value",)
"""The options the agent accepts."""

POINT_BONUS = 0.01
"""``rank`` value: bonus per point, so that among equal standings more points is better."""

LEVEL_BONUS = 0.01
"""``points`` value: bonus per level of the point cards (the L-16 tie-break)."""

ERROR_PRIOR = (1.0, 10.0)
"""Prior of a seat's rate of decisions against the greedy rule, as (errors, decisions): a mean of 0.1 worth ten
decisions, updated by the facts the cards it shows later confirm or refute (``Evidence``)."""

KEEP_RATE_DEALS = 300
"""Seeded deals from which ``keep_rates`` estimates how often greedy keeps each kind of card."""

KEEP_RATE_SEED = 1789
"""Seed of those deals."""

KEEP_RATE_CLIP = (0.02, 0.98)
"""Bounds of an estimated keep rate (no card is certain to be kept or left)."""

CHAINS = 4
"""Metropolis chains per decision whose states the sampled worlds take in turn (``Worlds``)."""

BURN_IN = 150
"""Swaps a chain makes before its first world."""

LEAN_MOVES = 30
"""Swaps a chain makes between two worlds."""

KEEP_PIVOTS = (20.0, 25.0, 35.0, 40.0)
"""Besides greedy's own, the pivots of greedy's keep score whose best keeps are candidates."""

# -- the deck as small integers (the playout's hot path) ----------------------------------------------

_INDEX: dict[str, int] = {card_id: index for index, card_id in enumerate(CARD_IDS)}
"""Card id -> index; indices follow the ids' string order, so ties broken by index match ties broken by id."""

_STRENGTH: tuple[tuple[int, ...], ...] = tuple(STRENGTH[card_id] for card_id in CARD_IDS)
_LEVEL: tuple[int, ...] = tuple(LEVEL[card_id] for card_id in CARD_IDS)
_BEST: tuple[int, ...] = tuple(best_strength(card_id) for card_id in CARD_IDS)
_BEST_COLOUR: tuple[int, ...] = tuple(s.index(max(s)) for s in _STRENGTH)  # greedy's colour for its strongest card

# Greedy's orderings as single integer keys (``min``/``max`` over a hand with ``key=table.__getitem__``):
_WEAK_KEY: tuple[int, ...] = tuple(_BEST[card] * 100 + card for card in range(len(CARD_IDS)))  # (best, id)
_BY_COLOUR: tuple[tuple[int, ...], ...] = tuple(
    tuple(_STRENGTH[card][colour] for card in range(len(CARD_IDS))) for colour in range(len(COLOURS))
)  # per colour, every card's strength in it
_LEAD_KEY: tuple[tuple[int, ...], ...] = tuple(
    tuple(_STRENGTH[card][colour] * 10_000 + (99 - _BEST[card]) * 100 + card for card in range(len(CARD_IDS)))
    for colour in range(len(COLOURS))
)  # per colour: (strength in the colour, -best strength, id), the active player's choice when others play

_BLANK = FACES.index(BLANK)
"""Index of the die's blank face; faces 0..4 are the colours in ``COLOURS`` order (L-14)."""

# Playout phases (the engine's, as small integers).
_COLOUR, _DECLARE, _PLAY, _VOID, _OVER = range(5)
_PHASE_CODE = {COLOUR: _COLOUR, DECLARE: _DECLARE, PLAY: _PLAY, VOID: _VOID, OVER: _OVER}

_COUNTER = -1
"""A void-phase discard of a counter (card discards are card indices)."""


def _weakest(hand: Sequence[int]) -> int:
    """Greedy's weakest card: lowest best strength, then lowest id."""
    return min(hand, key=_WEAK_KEY.__getitem__)


def _turns_after(seat: int, turn: int, first: int, players: int, turns: int) -> int:
    """How many turns after ``turn`` (of ``turns``) have ``seat`` active, the first player being ``first``."""
    remaining = turns - turn - 1 - (seat - first - turn - 1) % players  # from the seat's next active turn on
    return 0 if remaining <= 0 else (remaining - 1) // players + 1


def _best_play(plays: Iterable[tuple[int, str]], colour: int) -> tuple[int, int, int]:
    """(seat, card index, strength) of the turn's best play so far in ``colour``; (-1, -1, -1) before any."""
    best = (-1, -1, -1)
    for seat, card_id in plays:
        strength = STRENGTH[card_id][colour]
        if strength > best[2]:  # L-13: a tie goes to the card played first
            best = (seat, _INDEX[card_id], strength)
    return best


class Playout:
    """The rest of one Lovat game on small integers: just the rules needed to play it out (L-10..L-16).

    Mirrors ``LovatState`` after the keeps without names, logs, history or checks.  Dice come
    from a list of pre-rolled faces (indices into ``FACES``) consumed in turn order, so that
    every candidate played out in one world meets the same rolls.  ``greedy_action`` is
    ``GreedyLovatAgent``'s decision rule restated on this representation (a test checks
    that the two always agree, and that ``Playout`` follows the engine move for move).
    """

    __slots__ = (
        "players",
        "turns",
        "die_from",
        "first",
        "turn",
        "phase",
        "active",
        "colour",
        "rolled",
        "queue",
        "hands",
        "counters",
        "points",
        "levels",
        "passed",
        "best_seat",
        "best_card",
        "best_strength",
        "dice",
        "die_index",
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
            self.step(_INDEX[action])  # type: ignore[index]

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
        turn = self.turn
        while turn < turns:
            active = (first + turn) % players
            others = [(active + step) % players for step in range(1, players)]
            lead = hands[active]
            if not lead:  # L-12: void turn
                counters[active] -= 1
                points[active] = levels[active] = 0
                for seat in others:
                    hand = hands[seat]
                    if hand and (not counters[seat] or len(hand) > _turns_after(seat, turn, first, players, turns)):
                        hand.remove(min(hand, key=weak_key))
                    else:
                        counters[seat] -= 1
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
            playing = []
            for seat in others:  # L-10 (2), L-11
                hand = hands[seat]
                if not counters[seat] or (
                    hand
                    and len(hand) > _turns_after(seat, turn, first, players, turns)
                    and max(strength[card] for card in hand) >= threshold
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


# -- what the public record says about hidden hands --------------------------------------------------

_BIT: tuple[int, ...] = tuple(1 << card for card in range(len(CARD_IDS)))
"""Card index -> its bit in a hand mask."""


def _mask(cards: Iterable[int]) -> int:
    """The bit mask of a set of card indices."""
    mask = 0
    for card in cards:
        mask |= _BIT[card]
    return mask


def _cards_where(test: Callable[[int], bool]) -> int:
    """The mask of every card for which ``test(card index)`` holds."""
    return _mask(card for card in range(len(CARD_IDS)) if test(card))


class Evidence:
    """Facts about other seats' hands that their public decisions imply if they follow the greedy rule.

    Read backwards through the public record (every completed turn and the current one), so
    that for each decision a seat made, its hand then is known to be its hand now plus the
    cards it has shown since (face-down void discards, L-12, are missed: rare, and the
    facts are soft anyway).  Each fact about a seat's *current* hand is one of

    * ``avoid``: the hand holds no card of a mask (a voluntary pass on a colour: no card as
      strong as greedy's declare threshold; a card played: nothing greedy would have
      played instead);
    * ``meet``: the hand holds a card of a mask (a voluntary play declaration: a card at
      least as strong as the threshold, unless a card shown since explains it);
    * ``top``: the hand's strongest card (greedy's order: best strength, then id), if stronger
      than the cards shown since, has its best strength in the colour the seat named.

    Facts explained or contradicted by the cards shown since are dropped (they are the
    same in every world).  Forced decisions (L-11) and passes greedy makes to save cards
    for its own turns tell nothing and give no fact.  A sampled world is weighted by
    ``softness ** violations``, the softness
    growing with the share of the seat's earlier decisions that its shown cards proved non-greedy: an opponent
    that does not play greedy's way blurs the picture instead of making worlds impossible.
    """

    __slots__ = ("avoid", "meet", "top", "facts", "confirmed", "contradicted", "softness", "trust")

    avoid: list[list[int]]  # per seat, masks its hand holds no card of
    meet: list[list[int]]  # per seat, masks its hand holds a card of
    # per seat, (strongest key shown since, colour named, shown card's colour ok)
    top: list[list[tuple[int, int, bool]]]
    facts: int  # number of facts in all
    confirmed: list[int]  # per seat, facts the cards it showed later bore out
    contradicted: list[int]  # per seat, facts the cards it showed later refuted (it did not decide greedy's way)
    softness: list[float]  # per seat, the weight factor per contradicted fact (``error / (1 - error)``)
    trust: list[float]  # per seat, 1 at the prior error rate or below, falling to 0 as the error rate nears 1/2

    def __init__(self, observation: LovatObservation) -> None:
        obs = observation
        players, me = obs.players, obs.seat
        turns, first = obs.turns, obs.first_player
        self.avoid = [[] for _ in range(players)]
        self.meet = [[] for _ in range(players)]
        self.top = [[] for _ in range(players)]
        self.confirmed = [0] * players
        self.contradicted = [0] * players
        hand = list(obs.hand_sizes)
        counters = list(obs.counter_counts)
        shown: list[list[int]] = [[] for _ in range(players)]  # per seat, cards it has played since the point reached
        records = list(obs.history)
        if obs.phase not in (KEEP, OVER):
            active = (first + obs.turn) % players
            records.append(
                (obs.turn, active, obs.phase == VOID, obs.die, obs.colour, obs.declarations, obs.plays,
                 obs.void_discards)
            )
        for record in reversed(records):
            turn, active, void, die, colour_name, declarations, plays, void_discards = record[:8]
            if void:  # L-12: undo the discards and the active player's counter
                for seat, kind in void_discards:
                    if kind == COUNTER:
                        counters[seat] += 1
                    else:
                        hand[seat] += 1
                counters[active] += 1
                continue
            if colour_name is None:
                continue  # the current turn, its colour not named yet: nothing has happened
            colour = COLOUR_INDEX[colour_name]
            strength = _BY_COLOUR[colour]
            everyone_passed = sum(1 for _, decision in declarations if decision == PASS) == players - 1
            for index in range(len(plays) - 1, -1, -1):
                seat, card_id = plays[index]
                card = _INDEX[card_id]
                hand[seat] += 1
                if seat != me and hand[seat] >= 2:
                    self._add(seat, self._better_play(card, index, plays, colour, everyone_passed), shown, avoid=True)
                shown[seat].append(card)
            threshold = (
                GreedyLovatAgent.die_declare_strength
                if die is not None and die != BLANK
                else GreedyLovatAgent.declare_strength
            )
            strong = _cards_where(lambda card: strength[card] >= threshold)  # noqa: B023 (called at once)
            for seat, decision in reversed(declarations):
                if decision == PASS:
                    counters[seat] += 1
                if seat == me or not counters[seat] or not hand[seat]:
                    continue  # L-11: forced, tells nothing
                if hand[seat] <= _turns_after(seat, turn, first, players, turns):
                    continue  # greedy passes to keep a card for each of its own turns, whatever it holds
                self._add(seat, strong, shown, avoid=decision == PASS)
            if active != me and (die is None or die == BLANK):  # the active player named the colour
                top_shown = max(shown[active], key=_WEAK_KEY.__getitem__, default=-1)
                self.top[active].append(
                    (-1 if top_shown < 0 else _WEAK_KEY[top_shown], colour,
                     top_shown >= 0 and _BEST_COLOUR[top_shown] == colour)
                )
        self.facts = sum(len(self.avoid[seat]) + len(self.meet[seat]) + len(self.top[seat]) for seat in range(players))
        errors, weight = ERROR_PRIOR
        self.softness = []
        self.trust = []
        for seat in range(players):
            error = min(
                0.5, (self.contradicted[seat] + errors) / (self.contradicted[seat] + self.confirmed[seat] + weight)
            )
            self.softness.append(error / (1.0 - error))
            self.trust.append(min(1.0, max(0.0, (1.0 - 2.0 * error) / (1.0 - 2.0 * errors / weight))))

    def _add(self, seat: int, mask: int, shown: list[list[int]], avoid: bool) -> None:
        """Record that the seat's hand (now plus ``shown``) avoids or meets ``mask``, unless the shown cards
        settle it."""
        if _mask(shown[seat]) & mask:  # a card shown since settles the fact, the same way in every world
            if avoid:
                self.contradicted[seat] += 1
            else:
                self.confirmed[seat] += 1
            return
        (self.avoid if avoid else self.meet)[seat].append(mask)

    @staticmethod
    def _better_play(
        card: int, index: int, plays: Sequence[tuple[int, str]], colour: int, everyone_passed: bool
    ) -> int:
        """The cards greedy would have played instead of ``card`` as the ``index``-th card of the turn."""
        strength = _BY_COLOUR[colour]
        if index == 0:
            if everyone_passed:  # the weakest card wins by default
                return _cards_where(lambda other: _WEAK_KEY[other] < _WEAK_KEY[card])
            lead = _LEAD_KEY[colour]
            return _cards_where(lambda other: lead[other] > lead[card])
        to_beat = max(strength[_INDEX[card_id]] for _, card_id in plays[:index])
        if strength[card] > to_beat:  # the cheapest winning card
            return _cards_where(lambda other: strength[other] > to_beat and _WEAK_KEY[other] < _WEAK_KEY[card])
        return _cards_where(lambda other: strength[other] > to_beat or _WEAK_KEY[other] < _WEAK_KEY[card])

    def violations(self, seat: int, hand: Sequence[int]) -> int:
        """How many of the facts about ``seat`` its hidden hand ``hand`` contradicts."""
        mask = _mask(hand)
        count = 0
        for avoid in self.avoid[seat]:
            if mask & avoid:
                count += 1
        for meet in self.meet[seat]:
            if not mask & meet:
                count += 1
        if self.top[seat]:
            top = max(hand, key=_WEAK_KEY.__getitem__, default=-1)
            key = _WEAK_KEY[top] if top >= 0 else -1
            for shown_key, colour, shown_ok in self.top[seat]:
                if key > shown_key:
                    count += _BEST_COLOUR[top] != colour
                else:
                    count += not shown_ok
        return count


# -- what the keep says about hidden hands -----------------------------------------------------------


@functools.cache
def keep_rates(players: int) -> tuple[float, ...]:
    """Per card index, how often greedy's ``best_keep`` keeps the card when it is dealt (``players`` seats).

    Estimated once per process from ``KEEP_RATE_DEALS`` seeded deals, pooled over the cards of one
    level and best strength (greedy's keep score depends on nothing else), and clipped to
    ``KEEP_RATE_CLIP``.  Greedy keeps strong cards: at four players a level-1 card of best strength
    26 or 27 is kept almost always, one of 14 or 17 almost never.
    """
    variant = VARIANTS[players]
    kept: dict[tuple[int, int], list[int]] = {}
    rng = random.Random(KEEP_RATE_SEED)
    deck = list(CARD_IDS)
    for _ in range(KEEP_RATE_DEALS):
        rng.shuffle(deck)
        for seat in range(players):
            dealt = deck[seat * variant.dealt : (seat + 1) * variant.dealt]
            try:
                keep = set(best_keep(dealt, variant.level_sum, variant.min_keep, variant.max_keep))
            except ValueError:  # L-6: a misdealt hand, never played
                continue
            for card_id in dealt:
                counts = kept.setdefault((LEVEL[card_id], best_strength(card_id)), [0, 0])
                counts[0] += card_id in keep
                counts[1] += 1
    low, high = KEEP_RATE_CLIP
    return tuple(
        min(high, max(low, kept[(_LEVEL[card], _BEST[card])][0] / kept[(_LEVEL[card], _BEST[card])][1]))
        for card in range(len(CARD_IDS))
    )


# -- sampled worlds ----------------------------------------------------------------------------------


class Worlds:
    """Draws playouts of hidden states consistent with an observation (after the keeps).

    ``draw`` follows ``GAME.sample_state``'s own steps without its replay through the engine
    (which costs several playouts): each other seat's level composition from the sampler's
    ``sample_compositions`` (weighted by the number of card assignments), then concrete cards
    uniform within each level, a uniform part of each seat's unseen kept cards having gone
    face down on void turns (L-12).  With ``evidence`` the draw is then moved towards the
    worlds the other seats' decisions make likely: ``moves`` Metropolis steps, each swapping
    a hidden hand card with another unseen card of the same level (other hands, face-down
    cards, counters and undealt cards), accepted with probability
    ``min(1, softness ** (change in violations))``.  The swaps keep every level composition,
    and the uniform distribution over card assignments is their stationary distribution, so
    the chain leans towards the facts without leaving the set of consistent deals.
    """

    def __init__(
        self, observation: LovatObservation, evidence: Evidence | None = None, moves: int = 0, tilt: bool = False
    ) -> None:
        obs = observation
        players, me = obs.players, obs.seat
        variant = VARIANTS[players]
        played: list[list[str]] = [[] for _ in range(players)]
        self.face_down = [0] * players
        for record in obs.history:
            for seat, card_id in record[6]:
                played[seat].append(card_id)
            for seat, kind in record[7]:
                self.face_down[seat] += kind == "card"
        for seat, card_id in obs.plays:
            played[seat].append(card_id)
        for seat, kind in obs.void_discards:
            self.face_down[seat] += kind == "card"
        seen = set(obs.dealt)
        for seat in range(players):
            if seat != me:
                seen.update(played[seat])
        self.pool: dict[int, list[int]] = {1: [], 2: [], 3: []}  # unseen cards by level, in index order
        for card, card_id in enumerate(CARD_IDS):
            if card_id not in seen:
                self.pool[_LEVEL[card]].append(card)
        self.others = [seat for seat in range(players) if seat != me]
        self.options = [
            hidden_compositions(
                obs.hand_sizes[seat] + self.face_down[seat],
                variant.level_sum - sum(LEVEL[card_id] for card_id in played[seat]),
            )
            for seat in self.others
        ]
        self.template = Playout.public(obs)
        self.evidence = evidence if evidence is not None else Evidence(obs)
        # The keep tilt: a hidden hand card's weight against an unseen card elsewhere is p / (1 - p) ** share,
        # p its keep rate and share the part of the other unseen cards that are counters (dealt, not kept).
        self.log_weight: tuple[float, ...] | None = None
        if tilt:
            rates = keep_rates(players)
            kept = sum(obs.hand_sizes[seat] + self.face_down[seat] + len(played[seat]) for seat in self.others)
            counters = len(self.others) * variant.dealt - kept
            rest = sum(len(cards) for cards in self.pool.values()) - sum(obs.hand_sizes[seat] for seat in self.others)
            share = counters / rest if rest > 0 else 0.0
            self.log_weight = tuple(math.log(rate) - share * math.log(1.0 - rate) for rate in rates)
        hidden = sum(obs.hand_sizes[seat] for seat in self.others)
        self.moves = moves if hidden and (self.evidence.facts or self.log_weight is not None) else 0
        self.chains: list[_Chain] = []
        self.draws = 0

    def hands(self, rng: random.Random) -> list[list[int]]:
        """Hidden hands for the other seats (own hand: empty), uniform over the consistent deals."""
        pool = self.pool
        chosen = sample_compositions(self.options, (len(pool[1]), len(pool[2]), len(pool[3])), rng)
        shuffled = {level: rng.sample(cards, len(cards)) for level, cards in pool.items()}
        hands: list[list[int]] = [[] for _ in range(len(self.template.hands))]
        for seat, composition in zip(self.others, chosen):
            unseen: list[int] = []
            for level, count in zip((1, 2, 3), composition):
                unseen.extend(shuffled[level][:count])
                del shuffled[level][:count]
            if self.face_down[seat]:
                rng.shuffle(unseen)  # the first ones went face down
            hands[seat] = unseen[self.face_down[seat] :]
        return hands

    def draw(self, rng: random.Random, dice: Sequence[int] = ()) -> Playout:
        """A playout of a sampled world with ``dice`` for the die round.

        Without evidence each draw is independent.  With evidence the draws come in turn from
        ``CHAINS`` Metropolis chains, each started from an independent draw and run
        ``BURN_IN`` swaps before its first world and ``self.moves`` swaps between worlds.
        """
        if not self.moves:
            hands = self.hands(rng)
        else:
            index = self.draws % CHAINS
            if index == len(self.chains):
                self.chains.append(_Chain(self.hands(rng), self.others, self.evidence, self.log_weight))
                self.chains[index].run(BURN_IN, self.pool, rng)
            chain = self.chains[index]
            chain.run(self.moves, self.pool, rng)
            hands = chain.hands
        self.draws += 1
        world = self.template.copy()
        for seat in self.others:
            world.hands[seat] = hands[seat][:]
        world.dice = dice
        return world


class _Chain:
    """One Metropolis chain over the hidden hands (see ``Worlds``): same-level swaps, per-seat softness and tilt."""

    __slots__ = ("hands", "owner", "slots", "violations", "evidence", "log_weight")

    def __init__(
        self, hands: list[list[int]], others: Sequence[int], evidence: Evidence, log_weight: Sequence[float] | None
    ) -> None:
        self.hands = hands
        self.evidence = evidence
        self.log_weight = log_weight
        self.owner = [-1] * len(CARD_IDS)  # per card: the seat holding it, -1 if in no hidden hand
        self.slots: list[tuple[int, int]] = []  # (seat, position) of every hidden hand card
        self.violations = [0] * len(hands)
        for seat in others:
            for position, card in enumerate(hands[seat]):
                self.owner[card] = seat
                self.slots.append((seat, position))
            self.violations[seat] = evidence.violations(seat, hands[seat])

    def run(self, moves: int, pool: Mapping[int, Sequence[int]], rng: random.Random) -> None:
        """``moves`` proposed swaps of a hidden hand card with an unseen card of the same level."""
        hands, owner, slots, violations, evidence = self.hands, self.owner, self.slots, self.violations, self.evidence
        softness, trust, log_weight = evidence.softness, evidence.trust, self.log_weight
        if not slots:
            return
        for _ in range(moves):
            seat, position = slots[rng.randrange(len(slots))]
            hand = hands[seat]
            card = hand[position]
            same_level = pool[_LEVEL[card]]
            other = same_level[rng.randrange(len(same_level))]
            holder = owner[other]
            if holder == seat:
                continue  # the same card, or a swap within one hand: nothing changes
            hand[position] = other
            seat_after = evidence.violations(seat, hand)
            weight = softness[seat] ** (seat_after - violations[seat])
            if holder >= 0:
                holder_hand = hands[holder]
                holder_position = holder_hand.index(other)
                holder_hand[holder_position] = card
                holder_after = evidence.violations(holder, holder_hand)
                weight *= softness[holder] ** (holder_after - violations[holder])
            elif log_weight is not None:  # a card leaves the hands and another enters: the keep tilt
                weight *= math.exp(trust[seat] * (log_weight[other] - log_weight[card]))
            if weight >= 1.0 or rng.random() < weight:
                violations[seat] = seat_after
                owner[other], owner[card] = seat, holder
                if holder >= 0:
                    violations[holder] = holder_after
            else:  # rejected: swap back
                hand[position] = card
                if holder >= 0:
                    holder_hand[holder_position] = other


# -- keep candidates ------------------------------------------------------------------------------


def keep_candidates(observation: LovatObservation) -> list[tuple[str, ...]]:
    """Good legal keeps to compare, greedy's best keep first, without repeats.

    Greedy's best keep; the best keep (by greedy's score) of every legal size, from few
    strong cards and many counters to many weak cards; the best keeps for the pivots in
    ``KEEP_PIVOTS`` (a lower pivot values middling cards more).
    """
    obs = observation
    found: list[tuple[str, ...]] = []

    def add(min_size: int, max_size: int, pivot: float) -> None:
        try:
            keep = best_keep(obs.dealt, obs.level_sum, min_size, max_size, pivot)
        except ValueError:  # no legal keep of that size
            return
        if keep not in found:
            found.append(keep)

    add(obs.min_size, obs.max_size, GreedyLovatAgent.keep_pivot)
    for size in range(obs.min_size, obs.max_size + 1):
        add(size, size, GreedyLovatAgent.keep_pivot)
    for pivot in KEEP_PIVOTS:
        add(obs.min_size, obs.max_size, pivot)
    return found


# -- the search loop ---------------------------------------------------------------------------------


@dataclass(slots=True)
class HalvingStats(SearchStats[Candidate]):
    """``SearchStats`` of a halving search: a candidate dropped early has fewer playouts, so its mean is over
    its own."""

    def mean(self, candidate: Any) -> float:
        """Mean playout value of ``candidate`` over the worlds it was played out in (0.0 if none)."""
        visits = self.visits.get(candidate, 0)
        return self.totals[candidate] / visits if visits else 0.0


def halving_search(
    candidates: Sequence[Candidate],
    sample: Callable[[random.Random], World],
    playout: Callable[[World, Candidate, random.Random], float],
    budget: Budget,
    rng: random.Random,
) -> tuple[Candidate, HalvingStats[Candidate]]:
    """Determinized Monte Carlo with sequential halving: sample worlds, play the surviving candidates out in each.

    The budget is split evenly over ``ceil(log2(len(candidates)))`` rounds.  In a round every
    surviving candidate is played out in the same newly sampled worlds (common random
    numbers), then the better half (by mean over every world seen) survives.  So the
    close contenders get most of the playouts, where flat sampling would spend them evenly
    on moves that are clearly worse.  With an iteration budget a round plays
    ``remaining // (rounds left * survivors)`` worlds (the first at least one); with a
    time budget it plays worlds until its share of the time is spent (at least one world in
    the first round).  ``playout(world, candidate, rng)`` must not modify ``world``.

    Returns the survivor with the best mean (ties go to the earlier candidate) and the
    search's figures.
    """
    if not candidates:
        raise ValueError("halving_search needs at least one candidate")
    stats: HalvingStats[Candidate] = HalvingStats(
        totals={c: 0.0 for c in candidates}, visits={c: 0 for c in candidates}
    )
    alive = list(candidates)
    rounds = max(1, math.ceil(math.log2(len(alive))))
    start = time.perf_counter()
    for round_index in range(rounds):
        width = len(alive)
        if budget.iterations is not None:
            remaining = budget.iterations - stats.iterations
            worlds = remaining // ((rounds - round_index) * width)
        else:
            worlds = None  # unbounded: the clock ends the round
        if round_index == 0:
            worlds = None if worlds is None else max(1, worlds)
        deadline = None if budget.ms is None else start + budget.ms / 1000.0 * (round_index + 1) / rounds
        played = 0
        while worlds is None or played < worlds:
            if played and deadline is not None and time.perf_counter() >= deadline:
                break
            if not played and round_index and deadline is not None and time.perf_counter() >= deadline:
                break
            world = sample(rng)
            for candidate in alive:
                stats.totals[candidate] += playout(world, candidate, rng)
                stats.visits[candidate] += 1
            stats.iterations += width
            stats.worlds += 1
            played += 1
        if round_index < rounds - 1:
            ranked = sorted(alive, key=lambda c: -stats.mean(c))  # stable: ties keep the candidates' order
            keep = set(ranked[: max(2, math.ceil(width / 2))])
            alive = [c for c in alive if c in keep]
    stats.ms = (time.perf_counter() - start) * 1000.0
    best = alive[0]
    for candidate in alive[1:]:
        if stats.mean(candidate) > stats.mean(best):
            best = candidate
    return best, stats


# -- the agent ----------------------------------------------------------------------------------------


class SearchLovatAgent(Agent):
    """Determinized Monte Carlo search with greedy playouts (see the module docstring)."""

    def __init__(self, seat: int, game: GameInfo, players: int, seed: int, options: Mapping[str, Any]) -> None:
        super().__init__(seat=seat, game=game, players=players, seed=seed, options=options)
        check_options(self.options, OPTIONS, "search")
        self.budget = Budget.from_options(self.options, DEFAULT_ITERATIONS)
        self.value_kind = self.options.get("value", "rank")
        if self.value_kind not in VALUES:
            raise ValueError(f"agent option 'value' must be one of {', '.join(VALUES)}, not {self.value_kind!r}")
        self.lean_moves = LEAN_MOVES
        self.tilt = True
        keep_rates(players)  # computed once per process, at start-up rather than in the first move
        self.greedy = GreedyLovatAgent(seat=seat, game=game, players=players, seed=seed, options={})
        self.stats: HalvingStats[Action] | None = None  # the last search (None: decided without search)

    def act(self, observation: LovatObservation) -> Action:  # type: ignore[override]
        obs = observation
        self.stats = None
        if obs.phase == KEEP:
            candidates: list[Action] = list(keep_candidates(obs))
        else:
            if len(obs.legal) == 1:
                return obs.legal[0]
            first = self.greedy.act(obs)
            candidates = [first] + [action for action in obs.legal if action != first]
        if len(candidates) == 1:
            return candidates[0]
        rng = move_rng(
            self.seed, PHASES.index(obs.phase), obs.turn, len(obs.declarations), len(obs.plays), len(obs.void_discards)
        )
        if obs.phase == KEEP:
            sample, playout = self._keep_search(obs)
        else:
            sample, playout = self._turn_search(obs)
        action, self.stats = halving_search(candidates, sample, playout, self.budget, rng)
        return action

    def _dice(self, rng: random.Random) -> list[int]:
        """Die faces for every turn of the die round still to roll (at most one per seat, L-14)."""
        return [rng.randrange(len(FACES)) for _ in range(self.players)]

    def _turn_search(self, obs: LovatObservation) -> tuple[Any, Any]:
        """Sampler and playout for a decision after the keeps."""
        seat, kind = self.seat, self.value_kind

        worlds = Worlds(obs, Evidence(obs), self.lean_moves, tilt=self.tilt)

        def sample(rng: random.Random) -> Playout:
            return worlds.draw(rng, self._dice(rng))

        def playout(world: Playout, action: Action, rng: random.Random) -> float:
            game = world.copy()
            game.apply(action)
            game.run()
            return game.value(seat, kind)

        return sample, playout

    def _keep_search(self, obs: LovatObservation) -> tuple[Any, Any]:
        """Sampler and playout for the keep: other seats' deals sampled, their keeps greedy's."""
        seat, kind = self.seat, self.value_kind
        variant = VARIANTS[obs.players]

        def sample(rng: random.Random) -> tuple[list[tuple[str, ...]], list[int]]:
            state = GAME.sample_state(obs, rng)
            keeps = [
                best_keep(state.dealt[other], variant.level_sum, variant.min_keep, variant.max_keep,
                          GreedyLovatAgent.keep_pivot)
                if other != seat
                else ()
                for other in range(obs.players)
            ]
            return keeps, self._dice(rng)

        def playout(world: tuple[list[tuple[str, ...]], list[int]], keep: Action, rng: random.Random) -> float:
            keeps, dice = world
            keeps = keeps[:seat] + [keep] + keeps[seat + 1 :]  # type: ignore[assignment]  # a keep is a tuple
            game = Playout.after_keeps(variant, obs.dealer, keeps, dice)
            game.run()
            return game.value(seat, kind)

        return sample, playout


__all__ = ["DEFAULT_ITERATIONS", "OPTIONS", "VALUES", "Playout", "SearchLovatAgent", "keep_candidates"]
