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

RNG consumption order (L-18), all from the one ``Chance`` of the game:

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
from dataclasses import dataclass
from operator import add as _add
from typing import TYPE_CHECKING, Any

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
from arena.games.lovat.deck import CARD_IDS, COLOUR_INDEX, COLOURS, LEVEL, STRENGTH

if TYPE_CHECKING:
    from arena.games.lovat.observation import LovatObservation

GAME_ID = "lovat-v1"
"""Versioned game id; bump on any rules change."""

BLANK = "blank"
"""The die's sixth face: the active player names the colour (L-14)."""

FACES: tuple[str, ...] = COLOURS + (BLANK,)
"""The die's faces in roll order: ``FACES[rng.randrange(6)]`` (L-14)."""

KEEP, COLOUR, DECLARE, PLAY, VOID, OVER = "keep", "colour", "declare", "play", "void", "over"
"""Phase names."""

PHASES: tuple[str, ...] = (KEEP, COLOUR, DECLARE, PLAY, VOID, OVER)
"""Every phase, in the order a game meets them."""

PASS, PLAY_DECISION = "pass", "play"
"""The two declarations of the declare phase (L-10, L-11)."""

COUNTER = "counter"
"""The void-phase action that discards a counter rather than a card (L-12)."""

_ONE_SEAT: tuple[tuple[int], ...] = tuple((seat,) for seat in range(6))
"""``(seat,)`` for every seat: ``to_move`` returns these shared tuples rather than building one per call."""


@dataclass(frozen=True, slots=True)
class Variant:
    """One row of the variant table (``docs/rules/lovat.md``, Variants)."""

    players: int  # number of seats
    dealt: int  # cards dealt to each seat (L-3)
    level_sum: int  # exact level sum of a keep (L-5)
    min_keep: int  # fewest cards a keep may have (L-5)
    max_keep: int  # most cards a keep may have (L-5)
    discard: int  # counters discarded right after the keeps (L-8)
    rounds: int  # rounds in the game; the last one is the die round (L-14, L-15)

    @property
    def turns(self) -> int:
        """Turns in the game (L-15): rounds x players."""
        return self.rounds * self.players

    @property
    def undealt(self) -> int:
        """Cards left in the deck after the deal (L-3)."""
        return len(CARD_IDS) - self.players * self.dealt


VARIANTS: dict[int, Variant] = {
    3: Variant(players=3, dealt=12, level_sum=9, min_keep=5, max_keep=9, discard=3, rounds=3),
    4: Variant(players=4, dealt=14, level_sum=12, min_keep=6, max_keep=12, discard=2, rounds=3),
    5: Variant(players=5, dealt=12, level_sum=10, min_keep=5, max_keep=10, discard=2, rounds=2),
    6: Variant(players=6, dealt=12, level_sum=12, min_keep=6, max_keep=12, discard=0, rounds=2),
}
"""The variant table, keyed by player count (L-4, L-5, L-8, L-15)."""


def variant_for(players: Any) -> Variant:
    """The variant for ``players`` seats; ``InvalidSetup`` for any other count (L-4)."""
    if isinstance(players, bool) or not isinstance(players, int) or players not in VARIANTS:
        raise InvalidSetup(f"Lovat is played by 3, 4, 5 or 6 players, not {players!r} (L-4)")
    return VARIANTS[players]


def level_counts(cards: Sequence[str]) -> tuple[int, int, int]:
    """How many level-1, level-2 and level-3 cards ``cards`` holds."""
    counts = [0, 0, 0, 0]
    for card_id in cards:
        counts[LEVEL[card_id]] += 1
    return counts[1], counts[2], counts[3]


def keep_compositions(n1: int, n2: int, n3: int, variant: Variant) -> list[tuple[int, int, int]]:
    """The level compositions (a1, a2, a3) of legal keeps from a hand with n1/n2/n3 cards per level (L-5)."""
    found = []
    for a3 in range(min(n3, variant.level_sum // 3) + 1):
        for a2 in range(min(n2, (variant.level_sum - 3 * a3) // 2) + 1):
            a1 = variant.level_sum - 3 * a3 - 2 * a2
            if a1 <= n1 and variant.min_keep <= a1 + a2 + a3 <= variant.max_keep:
                found.append((a1, a2, a3))
    return found


def admits_keep(cards: Sequence[str], variant: Variant) -> bool:
    """Whether a dealt hand has at least one legal keep (L-5, L-6)."""
    return bool(keep_compositions(*level_counts(cards), variant))


def keep_problem(cards: Any, dealt: Sequence[str], variant: Variant) -> str | None:
    """Why ``cards`` is not a legal keep from ``dealt`` (L-5), or None if it is."""
    if not isinstance(cards, tuple) or not all(isinstance(card_id, str) for card_id in cards):
        return "a keep is a tuple of card id strings"
    if list(cards) != sorted(set(cards)):
        return f"a keep lists its card ids once each, sorted ascending: {tuple(sorted(set(cards)))!r}"
    dealt_set = set(dealt)
    missing = [card_id for card_id in cards if card_id not in dealt_set]
    if missing:
        return f"{', '.join(missing)} {'was' if len(missing) == 1 else 'were'} not dealt to this seat"
    total = sum(LEVEL[card_id] for card_id in cards)
    if total != variant.level_sum:
        return f"its levels sum to {total}; a keep's levels must sum to exactly {variant.level_sum} (L-5)"
    if not variant.min_keep <= len(cards) <= variant.max_keep:
        return f"it has {len(cards)} cards; a keep has {variant.min_keep} to {variant.max_keep} cards (L-5)"
    return None


def _validate_deal(value: Any, variant: Variant) -> list[tuple[str, ...]]:
    """Check a scripted deal and return it as sorted hands; ``InvalidSetup`` with one line if it is wrong."""
    players = variant.players
    if not isinstance(value, (list, tuple)) or len(value) != players:
        raise InvalidSetup(f"scripted deal must be a list of {players} hands (one per seat), got {value!r:.80}")
    seen: set[str] = set()
    hands = []
    for seat, hand in enumerate(value):
        if not isinstance(hand, (list, tuple)) or len(hand) != variant.dealt:
            size = len(hand) if isinstance(hand, (list, tuple)) else type(hand).__name__
            raise InvalidSetup(
                f"scripted deal: seat {seat} has {size} cards, a {players}-player deal gives {variant.dealt}"
            )
        for card_id in hand:
            if card_id not in LEVEL:
                raise InvalidSetup(f"scripted deal: seat {seat} has unknown card id {card_id!r}")
            if card_id in seen:
                raise InvalidSetup(f"scripted deal: card {card_id} is dealt twice")
            seen.add(card_id)
        hands.append(tuple(sorted(hand)))
    return hands


def _shuffled_deal(chance: Chance, variant: Variant, dealer: int) -> list[tuple[str, ...]]:
    """L-3: shuffle the full deck and deal one card at a time clockwise from the dealer's left."""
    deck = list(CARD_IDS)
    chance.shuffle(deck)  # the same draws as chance.rng.shuffle(deck), faster
    players = variant.players
    first = (dealer + 1) % players
    dealt = players * variant.dealt
    # Card ``index`` goes to seat ``(first + index) % players``: seat s takes every players-th card from s - first.
    return [tuple(sorted(deck[(seat - first) % players : dealt : players])) for seat in range(players)]


def deal_game(variant: Variant, chance: Chance) -> LovatState:
    """Steps 1-3 of the RNG order: dealer, deal, misdeal redeals (L-2, L-3, L-6)."""
    players = variant.players
    dealer = chance.scripted("dealer")
    if dealer is None:
        dealer = chance.rng.randrange(players)
    elif isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < players:
        raise InvalidSetup(f"scripted dealer must be a seat 0..{players - 1}, got {dealer!r}")
    chance.record("dealer", dealer)
    misdeals: list[tuple[int, ...]] = []
    while True:
        scripted = chance.scripted("deal")
        hands = _shuffled_deal(chance, variant, dealer) if scripted is None else _validate_deal(scripted, variant)
        chance.record("deal", [list(hand) for hand in hands])
        stuck = tuple(seat for seat in range(players) if not admits_keep(hands[seat], variant))
        if not stuck:
            break
        misdeals.append(stuck)  # L-6: gather, reshuffle with the same RNG, redeal by the same dealer
    return LovatState.after_deal(variant, chance, dealer, hands, misdeals)


def _observe(state: LovatState, seat: int) -> LovatObservation:
    """``observation.observe``, imported on first use (observation.py imports this module).

    It then replaces itself with the imported function, so that later calls
    skip the import statement (about 0.7 µs, a third of an observation).
    """
    global _observe
    from arena.games.lovat.observation import observe

    _observe = observe
    return observe(state, seat)


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
        """A state in the keep phase for an accepted deal (used by ``deal_game`` and the sampler)."""
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
            {"type": "deal", "dealer": dealer, "first_player": self.first, "players": players,
             "cards_each": variant.dealt}
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
        return _observe(self, seat)

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
            f"expected one of {', '.join(map(str, legal))}"
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
            elif phase == VOID:
                if action in self.hands[seat] or (action == COUNTER and self.counters[seat]):
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
