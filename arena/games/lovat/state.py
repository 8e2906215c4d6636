"""The Lovat engine: setup, keeps, turns, void turns, die and result.

Rulings are cited by label (L-n, D-n); the rules as implemented, with every
ruling, are written up in ``docs/rules/lovat.md``.

Phases and actions (every decision is asked, even a forced one, so that a
record lists every decision explicitly):

=========  ==================================  ====================================================
phase      who moves                           action
=========  ==================================  ====================================================
keep       every seat that has not kept yet    tuple of card ids, sorted ascending (L-5); the legal
           (simultaneous, secret)              set is a rule, so ``legal_actions`` returns ()
colour     the active player                   one of ``COLOURS`` (outside the die round, or after
                                               the die shows blank, L-14)
declare    each other player in turn,          "pass" (discards a counter at once) or "play";
           clockwise from the active's left    a forced seat is offered its only option (L-11)
play       the active player, then each        a card id from the player's hand (L-10)
           non-passer clockwise from its left
void       each other player, clockwise from   "counter" or a card id from hand, discarded face
           the active's left (L-12)            down; forced if the seat holds only one kind
over       nobody                              --
=========  ==================================  ====================================================

Automatic steps (no decision): the deal and misdeal redeals (L-3, L-6), the
immediate counter discard after the keeps (L-8), the die roll at the start of
each turn of the last round (L-14), and the active player's counter and point
cards on a void turn (L-12).

RNG consumption order (L-18), all from the one ``Chance`` of the game (steps 1-3 in ``deal.py``):

1. dealer: ``rng.randrange(players)`` (or the scripted "dealer" outcome) (L-2);
2. deal: the deck's ids in deck order, ``rng.shuffle``, dealt one at a time
   clockwise from the dealer's left (or the scripted "deal" outcome) (L-3);
3. while some hand admits no legal keep: the deal is still logged, a public
   "misdeal" event is recorded, and step 2 is repeated (fresh full deck, same
   RNG; a scripted next deal is used if present) (L-6);
4. one die roll ``FACES[rng.randrange(6)]`` at the start of every non-void
   turn of the last round, in turn order (or the scripted "die" outcome) (L-14).

Nothing else consumes the RNG.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.games.base import (
    Action,
    Chance,
    GameState,
    IllegalAction,
    shown,
)
from arena.games.lovat.deck import COLOURS, LEVEL
from arena.games.lovat.observation import fixed_parts, observe
from arena.games.lovat.rules import (
    BLANK,
    COLOUR,
    COUNTER,
    DECLARATIONS,
    DECLARE,
    FACES,
    GAME_ID,
    KEEP,
    OVER,
    PASS,
    PHASES,
    PLAY,
    PLAY_DECISION,
    VARIANTS,
    VOID,
    Variant,
    admits_keep,
    keep_compositions,
    keep_problem,
    level_counts,
    variant_for,
)
from arena.games.lovat.turns import EVENTS, NO_PASSES, LovatTurns

_read_events = EVENTS.reader()
"""``LovatState.events`` (and what ``log`` reads, whatever ``events`` is replaced by)."""

NO_CARDS: dict[int, tuple[tuple[()], ...]] = {players: ((),) * players for players in VARIANTS}
"""By player count, an empty tuple per seat: ``after_deal`` makes the face-down piles from it by a C-level map."""

KEEP_FACTS = (0, 0, False, None)
"""``turn_facts`` during the keep: what observations report as turn, round, die_round and active (L-5)."""

_ONE_SEAT: tuple[tuple[int], ...] = tuple((seat,) for seat in range(6))
"""``(seat,)`` for every seat: ``to_move`` returns these shared tuples rather than building one per call."""



class LovatState(LovatTurns, GameState):
    """A complete Lovat state, hidden information included.

    Compact by design (search clones it a lot, and every decision observes it):
    the public record (counters, point cards, passes, this turn's decisions,
    the history), which changes a few times a turn, is held in tuples that
    each change replaces, so that clones and observations share them instead
    of copying; hands and the queue are lists; one ``Variant`` is shared.
    """

    __slots__ = ()  # declared on LovatTurns

    # The attributes are declared (and documented) on ``LovatTurns``.

    # -- construction -------------------------------------------------------------------------

    @classmethod
    def after_deal(
        cls,
        variant: Variant,
        chance: Chance,
        dealer: int,
        hands: Sequence[Sequence[str]],
        misdeals: Sequence[Sequence[int]] = (),
        *,
        presorted: bool = False,
    ) -> LovatState:
        """A state in the keep phase for an accepted deal (used by ``deal.deal_game`` and the sampler).

        ``presorted``: ``hands`` are tuples of sorted ids already (the deal's own), so they are not sorted again.
        """
        players = variant.players
        self = cls.__new__(cls)
        self.players = players
        self.chance = chance
        self.variant = variant
        self.dealer = dealer
        self.first = (dealer + 1) % players
        # C-level map passes rather than comprehensions: a game's every deal comes through here.
        self.misdeals = tuple(map(tuple, misdeals)) if misdeals else ()
        self.dealt = list(hands) if presorted else list(map(tuple, map(sorted, hands)))  # type: ignore[arg-type]
        self.fixed = fixed_parts(variant, dealer, self.first, self.misdeals, self.dealt)
        self.keeps = [None] * players
        self.hands = list(map(list, self.dealt))
        self.counters = (0,) * players
        self.points = ((),) * players
        self.face_down = list(map(list, NO_CARDS[players]))
        self.phase = KEEP
        self.turn = 0
        self.turn_facts = KEEP_FACTS  # turn 0, round 0, no die round, nobody active
        self.colour = None
        self.die = None
        self.queue = list(range(players))
        self.passed = NO_PASSES[players]
        self.declarations = self.plays = self.voids = ()
        self.history = ()
        deal = ("deal", dealer, self.first, players, variant.dealt)
        if misdeals:
            self._events = [("misdeal", dealer, number, list(seats)) for number, seats in enumerate(self.misdeals, 1)]
            self._events.append(deal)
        else:
            self._events = [deal]
        return self

    def clone(self) -> LovatState:
        """An independent copy; immutable parts (the public tuples, the stored events, the variant) are shared."""
        twin = LovatState.__new__(LovatState)
        twin.players = self.players
        twin.chance = self.chance.copy()
        twin.variant = self.variant
        twin.dealer = self.dealer
        twin.first = self.first
        twin.misdeals = self.misdeals
        twin.dealt = list(self.dealt)
        twin.fixed = self.fixed
        twin.keeps = list(self.keeps)
        twin.hands = [list(hand) for hand in self.hands]
        twin.counters = self.counters
        twin.points = self.points
        twin.face_down = [list(cards) for cards in self.face_down]
        twin.phase = self.phase
        twin.turn = self.turn
        twin.turn_facts = self.turn_facts
        twin.colour = self.colour
        twin.die = self.die
        twin.queue = list(self.queue)
        twin.passed = self.passed
        twin.declarations = self.declarations
        twin.plays = self.plays
        twin.voids = self.voids
        twin.history = self.history
        twin._events = list(self._events)
        return twin

    # -- queries ------------------------------------------------------------------------------

    @property
    def active(self) -> int | None:
        """The active player's seat, or None during the keep and once the game is over."""
        return self.turn_facts[3]

    @property
    def round(self) -> int:
        """0-based round of the current turn (``variant.rounds`` once over)."""
        return self.turn_facts[1]

    @property
    def die_round(self) -> bool:
        """Whether the current turn is in the last round, where the die is used (L-14)."""
        return self.turn_facts[2]

    def to_move(self) -> tuple[int, ...]:
        if self.phase == KEEP:
            return tuple(self.queue)
        return _ONE_SEAT[self.queue[0]] if self.queue else ()

    def legal_actions(self, seat: int) -> tuple[Action, ...]:
        queue = self.queue
        if not queue or seat != queue[0]:
            return ()
        phase = self.phase
        if phase == DECLARE:
            return DECLARATIONS[self.counters[seat] > 0][len(self.hands[seat]) > 0]  # L-11
        if phase == PLAY:
            return tuple(self.hands[seat])
        if phase == COLOUR:
            return COLOURS
        if phase == VOID:  # L-12: a counter or any card from hand; forced if the seat holds only one kind
            return ((COUNTER,) if self.counters[seat] else ()) + tuple(self.hands[seat])
        return ()  # the keep (a rule describes the legal keeps) or the end

    def is_legal(self, seat: int, action: Action) -> bool:
        return self._problem(seat, action) is None

    def is_over(self) -> bool:
        return self.phase == OVER

    events = _read_events  # the public log from event ``start`` on, as new dicts (``EVENTS``)

    @property
    def log(self) -> list[dict[str, Any]]:
        """The whole public log as event dicts: ``events()``, under the attribute name the log has always had."""
        return _read_events(self)

    observation = observe  # the method is the function itself: one call fewer per observation

    # -- legality -----------------------------------------------------------------------------

    def _problem(self, seat: Any, action: Any) -> str | None:
        """Why ``seat`` may not take ``action`` now (one line naming what was tried and what was expected)."""
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.players:
            return f"seat {seat!r} does not exist: a {self.players}-player Lovat game has seats 0..{self.players - 1}"
        if self.phase == OVER:
            return f"seat {seat} tried {shown(action)} but the game is over"
        if self.phase == KEEP:
            if seat not in self.queue:
                return f"seat {seat} tried keep {shown(action)} but has already kept"
            problem = keep_problem(action, self.dealt[seat], self.variant)
            if problem:
                return f"seat {seat} tried keep {shown(action)}: {problem}"
            return None
        expected = self.queue[0]
        if seat != expected:
            return (
                f"seat {seat} tried {shown(action)} out of turn: in the {self.phase} phase of turn {self.turn + 1} "
                f"it is seat {expected}'s decision{self._die_chose(action, '; ')}"
            )
        legal = self.legal_actions(seat)
        if isinstance(action, str) and action in legal:
            return None
        if self.phase == DECLARE and action == PASS:
            reason = "it has no counters, so it must play (L-11)"
        elif self.phase == DECLARE and action == PLAY_DECISION:
            reason = "it has no cards, so it must pass (L-11)"
        elif self.phase in (PLAY, VOID) and isinstance(action, str) and action in LEVEL:
            reason = f"{action} is not in its hand"
        elif self.phase == VOID and action == COUNTER:
            reason = "it has no counters left"
        elif die_note := self._die_chose(action, ""):
            reason = die_note
        else:
            reason = f"that is not a {self.phase} action"
        return (
            f"seat {seat} tried {shown(action)} in the {self.phase} phase of turn {self.turn + 1}: {reason}; "
            f"expected one of {', '.join(map(str, legal))}"
        )

    def _die_chose(self, action: Any, before: str) -> str:
        """``before`` and a note that the die chose this turn's colour, when ``action`` is a colour tried after
        it did (L-14: a record that writes the colour the die took, say); else ``""``."""
        if self.phase == DECLARE and isinstance(action, str) and action in COLOURS and self.die in COLOURS:
            return f"{before}the die showed {self.die}, which set the turn's colour, so no seat chooses one (L-14)"
        return ""

    # -- transitions --------------------------------------------------------------------------

    def apply(self, seat: int, action: Action) -> None:
        phase = self.phase
        queue = self.queue
        # Fast paths: the common legal single-seat decision, checked exactly as ``legal_actions`` would.  Anything
        # else (a keep, a bool or int-subclass seat, a str subclass, an illegal action) goes through ``_problem``
        # below, which checks it once and words the error.
        if type(seat) is int:
            if type(action) is str and queue and seat == queue[0]:
                if phase == PLAY:
                    if action in self.hands[seat]:
                        self._play(seat, action)
                        return
                elif phase == DECLARE:
                    if action in DECLARATIONS[self.counters[seat] > 0][len(self.hands[seat]) > 0]:  # L-11
                        self._declare(seat, action)
                        return
                elif phase == COLOUR:
                    if action in COLOURS:
                        self._name_colour(seat, action)
                        return
                elif phase == VOID and (action in self.hands[seat] or (action == COUNTER and self.counters[seat])):
                    self._void_discard(seat, action)
                    return
        problem = self._problem(seat, action)
        if problem:
            raise IllegalAction(problem)
        if phase == KEEP:
            self._keep(seat, action)  # type: ignore[arg-type]
        elif phase == COLOUR:
            self._name_colour(seat, action)  # type: ignore[arg-type]
        elif phase == DECLARE:
            self._declare(seat, action)  # type: ignore[arg-type]
        elif phase == PLAY:
            self._play(seat, action)  # type: ignore[arg-type]
        else:
            self._void_discard(seat, action)  # type: ignore[arg-type]


__all__ = [  # the rules are re-exported here, where the engine's users have always imported them from
    "BLANK", "COLOUR", "COUNTER", "DECLARE", "FACES", "GAME_ID", "KEEP", "OVER", "PASS", "PHASES", "PLAY",
    "PLAY_DECISION", "VARIANTS", "VOID", "LovatState", "Variant", "admits_keep", "keep_compositions",
    "keep_problem", "level_counts", "variant_for",
]
