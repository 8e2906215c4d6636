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
from operator import add as _add
from typing import Any

from arena.games.base import (
    Action,
    Chance,
    GameError,
    GameState,
    IllegalAction,
    InvalidSetup,
    Result,
    competition_ranks,
)
from arena.games.lovat.deck import COLOUR_INDEX, COLOURS, LEVEL, STRENGTH
from arena.games.lovat.observation import LovatObservation, observe
from arena.games.lovat.rules import (
    BLANK,
    COLOUR,
    COUNTER,
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

_ONE_SEAT: tuple[tuple[int], ...] = tuple((seat,) for seat in range(6))
"""``(seat,)`` for every seat: ``to_move`` returns these shared tuples rather than building one per call."""


class LovatState(GameState):
    """A complete Lovat state, hidden information included.

    Compact by design (search clones it a lot): lists of ints and strings,
    tuples of tuples for the immutable history, and one shared ``Variant``.
    """

    __slots__ = (
        "chance",
        "colour",
        "counters",
        "dealer",
        "dealt",
        "declarations",
        "die",
        "face_down",
        "first",
        "hands",
        "history",
        "keeps",
        "log",
        "misdeals",
        "passed",
        "phase",
        "players",
        "plays",
        "points",
        "queue",
        "turn",
        "variant",
        "voids",
    )

    players: int
    chance: Chance
    variant: Variant  # the row of the variant table for this player count
    dealer: int  # the dealer's seat (L-2)
    first: int  # the first player, the dealer's left (L-2)
    misdeals: list[tuple[int, ...]]  # per misdeal, the seats whose hand admitted no keep (L-6)
    dealt: list[tuple[str, ...]]  # per seat, the dealt cards, sorted (private)
    keeps: list[tuple[str, ...] | None]  # per seat, the keep once made (private)
    hands: list[list[str]]  # per seat, cards in hand, sorted (private; sizes public)
    counters: list[int]  # per seat, counters held (count public)
    points: list[list[str]]  # per seat, point cards face up, in the order won (public)
    face_down: list[list[str]]  # per seat, hand cards discarded face down on void turns (private, L-12)
    phase: str  # one of PHASES
    turn: int  # 0-based turn index; equals variant.turns once the game is over
    colour: str | None  # this turn's colour, once named or rolled
    die: str | None  # this turn's die face, if rolled
    queue: list[int]  # seats still to decide in this step, in order (keep: ascending)
    passed: list[bool]  # per seat, passed this turn
    declarations: list[tuple[int, str]]  # this turn's (seat, "pass" | "play"), in order
    plays: list[tuple[int, str]]  # this turn's (seat, card id), in order
    voids: list[tuple[int, str]]  # this void turn's (seat, "counter" | "card"), in order
    history: list[tuple[Any, ...]]  # completed turns, public (see ``turn_record``)
    log: list[dict[str, Any]]  # public events

    # -- construction -------------------------------------------------------------------------

    @classmethod
    def after_deal(
        cls,
        variant: Variant,
        chance: Chance,
        dealer: int,
        hands: Sequence[Sequence[str]],
        misdeals: Sequence[Sequence[int]] = (),
    ) -> LovatState:
        """A state in the keep phase for an accepted deal (used by ``deal.deal_game`` and the sampler)."""
        players = variant.players
        self = cls.__new__(cls)
        self.players = players
        self.chance = chance
        self.variant = variant
        self.dealer = dealer
        self.first = (dealer + 1) % players
        self.misdeals = [tuple(seats) for seats in misdeals]
        self.dealt = [tuple(sorted(hand)) for hand in hands]
        self.keeps = [None] * players
        self.hands = [list(hand) for hand in self.dealt]
        self.counters = [0] * players
        self.points = [[] for _ in range(players)]
        self.face_down = [[] for _ in range(players)]
        self.phase = KEEP
        self.turn = 0
        self.colour = None
        self.die = None
        self.queue = list(range(players))
        self.passed = [False] * players
        self.declarations = []
        self.plays = []
        self.voids = []
        self.history = []
        self.log = []
        for number, seats in enumerate(self.misdeals, 1):
            self.log.append({"type": "misdeal", "dealer": dealer, "number": number, "seats": list(seats)})
        self.log.append(
            {
                "type": "deal",
                "dealer": dealer,
                "first_player": self.first,
                "players": players,
                "cards_each": variant.dealt,
            }
        )
        return self

    def clone(self) -> LovatState:
        """An independent copy; immutable parts (tuples, event dicts, the variant) are shared."""
        twin = LovatState.__new__(LovatState)
        twin.players = self.players
        twin.chance = self.chance.copy()
        twin.variant = self.variant
        twin.dealer = self.dealer
        twin.first = self.first
        twin.misdeals = list(self.misdeals)
        twin.dealt = list(self.dealt)
        twin.keeps = list(self.keeps)
        twin.hands = [list(hand) for hand in self.hands]
        twin.counters = list(self.counters)
        twin.points = [list(cards) for cards in self.points]
        twin.face_down = [list(cards) for cards in self.face_down]
        twin.phase = self.phase
        twin.turn = self.turn
        twin.colour = self.colour
        twin.die = self.die
        twin.queue = list(self.queue)
        twin.passed = list(self.passed)
        twin.declarations = list(self.declarations)
        twin.plays = list(self.plays)
        twin.voids = list(self.voids)
        twin.history = list(self.history)
        twin.log = list(self.log)
        return twin

    # -- queries ------------------------------------------------------------------------------

    @property
    def active(self) -> int | None:
        """The active player's seat, or None during the keep and once the game is over."""
        if self.phase in (KEEP, OVER):
            return None
        return (self.first + self.turn) % self.players

    @property
    def round(self) -> int:
        """0-based round of the current turn (``variant.rounds`` once over)."""
        return self.turn // self.players

    @property
    def die_round(self) -> bool:
        """Whether the current turn is in the last round, where the die is used (L-14)."""
        return self.phase not in (KEEP, OVER) and self.round == self.variant.rounds - 1

    def to_move(self) -> tuple[int, ...]:
        if self.phase == KEEP:
            return tuple(self.queue)
        return _ONE_SEAT[self.queue[0]] if self.queue else ()

    def legal_actions(self, seat: int) -> tuple[Action, ...]:
        if self.phase in (KEEP, OVER) or not self.queue or seat != self.queue[0]:
            return ()
        if self.phase == COLOUR:
            return COLOURS
        if self.phase == DECLARE:
            if not self.counters[seat]:
                return (PLAY_DECISION,)  # L-11: no counters, must play
            if not self.hands[seat]:
                return (PASS,)  # L-11: no cards, must pass
            return (PASS, PLAY_DECISION)
        if self.phase == PLAY:
            return tuple(self.hands[seat])
        # VOID (L-12): a counter or any card from hand; forced if the seat holds only one kind
        return ((COUNTER,) if self.counters[seat] else ()) + tuple(self.hands[seat])

    def is_legal(self, seat: int, action: Action) -> bool:
        return self._problem(seat, action) is None

    def is_over(self) -> bool:
        return self.phase == OVER

    def events(self, start: int = 0) -> list[dict[str, Any]]:
        """The public log from event ``start`` on (a new list; the event dicts must not be mutated)."""
        return self.log[start:]

    def observation(self, seat: int) -> LovatObservation:
        return observe(self, seat)

    def level_sums(self) -> tuple[int, ...]:
        """Per seat, the level sum of the point cards (the L-16 tie-break)."""
        return tuple(sum(LEVEL[card_id] for card_id in cards) for cards in self.points)

    def result(self) -> Result:
        """L-16: score = points; rank by (points, level sum of point cards), equal keys share a rank."""
        if self.phase != OVER:
            raise GameError(
                f"the Lovat game is not over (turn {self.turn} of {self.variant.turns}, phase {self.phase})"
            )
        scores = tuple(len(cards) for cards in self.points)
        level_sums = self.level_sums()
        ranks = competition_ranks(list(zip(scores, level_sums)))
        return Result(
            scores=scores,
            ranks=ranks,
            details={
                "level_sums": list(level_sums),
                "point_cards": [list(cards) for cards in self.points],
                "tie_break": "level sum of point cards (L-16)",
            },
        )

    # -- legality -----------------------------------------------------------------------------

    def _problem(self, seat: Any, action: Any) -> str | None:
        """Why ``seat`` may not take ``action`` now (one line naming what was tried and what was expected)."""
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.players:
            return f"seat {seat!r} does not exist: a {self.players}-player Lovat game has seats 0..{self.players - 1}"
        if self.phase == OVER:
            return f"seat {seat} tried {action!r} but the game is over"
        if self.phase == KEEP:
            if seat not in self.queue:
                return f"seat {seat} tried keep {action!r} but has already kept"
            problem = keep_problem(action, self.dealt[seat], self.variant)
            if problem:
                return f"seat {seat} tried keep {action!r}: {problem}"
            return None
        expected = self.queue[0]
        if seat != expected:
            return (
                f"seat {seat} tried {action!r} out of turn: in the {self.phase} phase of turn {self.turn + 1} "
                f"it is seat {expected}'s decision"
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
        else:
            reason = f"that is not a {self.phase} action"
        return (
            f"seat {seat} tried {action!r} in the {self.phase} phase of turn {self.turn + 1}: {reason}; "
            f"expected one of {', '.join(legal)}"
        )

    # -- transitions --------------------------------------------------------------------------

    def apply(self, seat: int, action: Action) -> None:
        phase = self.phase
        queue = self.queue
        # Fast path: the common legal single-seat decision, checked exactly as ``legal_actions`` would.
        # Anything else (the keep, a bool or int-subclass seat, a str subclass, an illegal action) goes
        # through ``_problem`` below, which also words the error.
        if type(seat) is int and type(action) is str and queue and seat == queue[0]:
            if phase == PLAY:
                if action in self.hands[seat]:
                    self._play(seat, action)
                    return
            elif phase == DECLARE:
                counters, hand = self.counters[seat], self.hands[seat]
                if (action == PLAY_DECISION and (not counters or hand)) or (action == PASS and counters and hand):
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

    def _keep(self, seat: int, keep: tuple[str, ...]) -> None:
        """L-5: the keep becomes the hand, the rest counters; after the last keep, L-8 and the first turn."""
        self.keeps[seat] = keep
        self.hands[seat] = list(keep)
        self.counters[seat] = self.variant.dealt - len(keep)
        self.queue.remove(seat)
        if self.queue:
            return  # L-5: keeps are secret and simultaneous; no event until everyone has kept
        self.log.append(
            {
                "type": "keep_done",
                "hand_sizes": [len(hand) for hand in self.hands],
                "counters": list(self.counters),
            }
        )
        discard = self.variant.discard  # L-8: a count, not a choice
        for other in range(self.players):
            self.counters[other] -= discard
        self.log.append({"type": "counter_discard", "count": discard, "counters": list(self.counters)})
        self._check_invariant()
        self._start_turn()

    def _start_turn(self) -> None:
        """Begin turn ``self.turn``: void turn (L-12), die (L-14) or colour choice (L-10)."""
        self.colour = None
        self.die = None
        self.passed = [False] * self.players
        self.declarations = []
        self.plays = []
        self.voids = []
        if self.turn == self.variant.turns:  # L-15
            self.phase = OVER
            self.queue = []
            result = self.result()
            self.log.append(
                {
                    "type": "game_over",
                    "scores": list(result.scores),
                    "level_sums": list(result.details["level_sums"]),
                    "ranks": list(result.ranks),
                }
            )
            return
        players = self.players
        active = (self.first + self.turn) % players
        if not self.hands[active]:
            # L-12: void turn. No colour, no die: the active player discards a counter and all point cards.
            if self.counters[active] < 1:
                raise AssertionError(f"seat {active} has neither cards nor counters on turn {self.turn + 1}")
            self.counters[active] -= 1
            lost = self.points[active]
            self.points[active] = []
            self.log.append(
                {
                    "type": "void_turn",
                    "turn": self.turn,
                    "round": self.round,
                    "seat": active,
                    "discarded_points": lost,
                    "counters": self.counters[active],
                }
            )
            self.phase = VOID
            self.queue = [(active + step) % players for step in range(1, players)]
            return
        self.phase = COLOUR
        self.queue = [active]
        if self.round == self.variant.rounds - 1:  # L-14: the die on every turn of the last round
            face = self.chance.scripted("die")
            if face is None:
                face = FACES[self.chance.rng.randrange(6)]
            elif face not in FACES:
                raise InvalidSetup(f"scripted die roll must be one of {', '.join(FACES)}, got {face!r}")
            self.chance.record("die", face)
            self.die = face
            self.log.append({"type": "die", "turn": self.turn, "round": self.round, "seat": active, "face": face})
            if face != BLANK:
                self.colour = face
                self._begin_declare(active)
            # blank: the active player names the colour (phase stays COLOUR)

    def _name_colour(self, seat: int, colour: str) -> None:
        """L-10 (1): the active player names the colour."""
        self.colour = colour
        self.log.append({"type": "colour", "turn": self.turn, "round": self.round, "seat": seat, "colour": colour})
        self._begin_declare(seat)

    def _begin_declare(self, active: int) -> None:
        """L-10 (2): the others declare, clockwise from the active player's left."""
        self.phase = DECLARE
        self.queue = [(active + step) % self.players for step in range(1, self.players)]

    def _declare(self, seat: int, decision: str) -> None:
        """L-10 (2), L-11: a pass discards a counter at once."""
        forced = not self.counters[seat] or not self.hands[seat]
        if decision == PASS:
            self.counters[seat] -= 1
            self.passed[seat] = True
        self.declarations.append((seat, decision))
        self.log.append(
            {
                "type": "declare",
                "turn": self.turn,
                "seat": seat,
                "decision": decision,
                "forced": forced,
                "counters": self.counters[seat],
            }
        )
        self.queue.pop(0)
        if not self.queue:
            # L-10 (3), (4): the active player plays first, then each non-passer clockwise from its left
            active = (self.first + self.turn) % self.players
            self.phase = PLAY
            self.queue = [active] + [
                other
                for other in ((active + step) % self.players for step in range(1, self.players))
                if not self.passed[other]
            ]

    def _play(self, seat: int, card_id: str) -> None:
        """L-10 (3), (4): show a card; after the last one, L-13 decides the turn."""
        self.hands[seat].remove(card_id)
        self.plays.append((seat, card_id))
        colour_index = COLOUR_INDEX[self.colour]  # type: ignore[index]
        self.log.append(
            {
                "type": "play",
                "turn": self.turn,
                "seat": seat,
                "card": card_id,
                "level": LEVEL[card_id],
                "colour": self.colour,
                "strength": STRENGTH[card_id][colour_index],
            }
        )
        self.queue.pop(0)
        if self.queue:
            return
        # L-13: highest strength wins; a tie goes to the card played first (strict > keeps the earlier one)
        best_seat, best_card = self.plays[0]
        best = STRENGTH[best_card][colour_index]
        for other, other_card in self.plays[1:]:
            strength = STRENGTH[other_card][colour_index]
            if strength > best:
                best_seat, best_card, best = other, other_card, strength
        self.points[best_seat].append(best_card)
        self.log.append(
            {
                "type": "turn_won",
                "turn": self.turn,
                "seat": best_seat,
                "card": best_card,
                "colour": self.colour,
                "strength": best,
                "points": len(self.points[best_seat]),
            }
        )
        self._end_turn(winner=best_seat, void=False)

    def _void_discard(self, seat: int, item: str) -> None:
        """L-12: discard a counter or a hand card face down (only the kind is public, L-9)."""
        if item == COUNTER:
            self.counters[seat] -= 1
            kind = COUNTER
        else:
            self.hands[seat].remove(item)
            self.face_down[seat].append(item)
            kind = "card"
        self.voids.append((seat, kind))
        self.log.append({"type": "void_discard", "turn": self.turn, "seat": seat, "item": kind})
        self.queue.pop(0)
        if not self.queue:
            self._end_turn(winner=None, void=True)  # L-12: nobody wins a void turn

    def _end_turn(self, winner: int | None, void: bool) -> None:
        """Archive the turn publicly, check the invariant, start the next turn."""
        self.history.append(self.turn_record(winner, void))
        self.turn += 1
        self._check_invariant()
        self._start_turn()

    def turn_record(self, winner: int | None, void: bool) -> tuple[Any, ...]:
        """The public record of the current turn.

        ``(turn, active, void, die, colour, declarations, plays, void_discards, winner)`` with
        declarations ``((seat, "pass" | "play"), ...)``, plays ``((seat, card id), ...)`` and
        void_discards ``((seat, "counter" | "card"), ...)``, each in the order they happened.
        """
        return (
            self.turn,
            (self.first + self.turn) % self.players,
            void,
            self.die,
            self.colour,
            tuple(self.declarations),
            tuple(self.plays),
            tuple(self.voids),
            winner,
        )

    def _check_invariant(self) -> None:
        """Cards in hand + counters = turns remaining, for every seat; nobody empty while turns remain."""
        remaining = self.variant.turns - self.turn
        # Fast check first (cards + counters == remaining for every seat, no negative counters); when it
        # holds, nobody can be empty with turns left.  Otherwise the loop below names the broken seat.
        if min(self.counters) >= 0 and set(map(_add, map(len, self.hands), self.counters)) == {remaining}:
            return
        for seat in range(self.players):
            cards, counters = len(self.hands[seat]), self.counters[seat]
            if counters < 0 or cards + counters != remaining:
                raise AssertionError(
                    f"Lovat invariant broken after turn {self.turn}: seat {seat} holds {cards} cards + "
                    f"{counters} counters, but {remaining} turns remain"
                )
            if remaining and not cards and not counters:
                raise AssertionError(f"seat {seat} has neither cards nor counters with {remaining} turns left")


__all__ = [  # the rules are re-exported here, where the engine's users have always imported them from
    "BLANK", "COLOUR", "COUNTER", "DECLARE", "FACES", "GAME_ID", "KEEP", "OVER", "PASS", "PHASES", "PLAY",
    "PLAY_DECISION", "VARIANTS", "VOID", "LovatState", "Variant", "admits_keep", "keep_compositions",
    "keep_problem", "level_counts", "variant_for",
]
