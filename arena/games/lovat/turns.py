"""The Lovat state machine's transitions: keeps, turns, void turns, the die and the result (L-5..L-16).

``LovatTurns`` is mixed into ``LovatState`` (``state.py``), which builds,
copies, queries and checks a state and hands each legal action to the
transition here that applies it.  Rulings are cited by label (L-n).
"""

from __future__ import annotations

from itertools import product
from operator import add as _add
from typing import Any

from arena.games.base import Chance, GameError, Result, competition_ranks, scripted_choice
from arena.games.chance import randbelow
from arena.games.events import Event, EventKinds
from arena.games.lovat.deck import CARD_IDS, COLOUR_INDEX, LEVEL, STRENGTH
from arena.games.lovat.rules import (
    BLANK,
    COLOUR,
    COUNTER,
    DECLARE,
    FACES,
    OVER,
    PASS,
    PLAY,
    PLAY_DECISION,
    VARIANTS,
    VOID,
    Variant,
)

NO_PASSES: dict[int, tuple[bool, ...]] = {players: (False,) * players for players in VARIANTS}
"""Nobody has passed yet, by player count: the shared ``passed`` of every turn's start."""

PASSED: dict[tuple[bool, ...], tuple[tuple[bool, ...], ...]] = {
    passes: tuple(passes[:seat] + (True,) + passes[seat + 1 :] for seat in range(players))
    for players in VARIANTS
    for passes in product((False, True), repeat=players)
}
"""``PASSED[passes][seat]``: this turn's passes once ``seat`` has passed too (a look-up, where a new tuple
would take a list and a tuple per pass)."""

OTHERS: dict[int, tuple[tuple[int, ...], ...]] = {
    players: tuple(tuple((active + step) % players for step in range(1, players)) for active in range(players))
    for players in VARIANTS
}
"""By player count and active seat, the other seats clockwise from the active player's left (L-10, L-12).

The order of the declarations, of the plays after the active player's, and of a void turn's discards:
a table rather than a comprehension on every turn."""

PLAY_ORDER: dict[tuple[bool, ...], tuple[tuple[int, ...], ...]] = {
    passes: tuple((active, *[other for other in OTHERS[len(passes)][active] if not passes[other]])
                  for active in range(len(passes)))
    for passes in PASSED
}
"""``PLAY_ORDER[passes][active]``: who plays this turn, in order: the active player, then each other seat that did
not pass, clockwise from the active player's left (L-10 (3), (4)); a look-up rather than a comprehension."""

DECIDED: tuple[dict[str, tuple[tuple[int, str]]], ...] = tuple(
    {word: ((seat, word),) for word in (PASS, PLAY_DECISION, COUNTER, "card")} for seat in range(max(VARIANTS))
)
"""``DECIDED[seat][word]``: ``((seat, word),)``, the entry a declaration or a void discard adds to this turn's
record (shared: two tuples fewer to make per decision)."""

EVENTS = EventKinds({
    "misdeal": ("dealer", "number", "seats"),  # L-6
    "deal": ("dealer", "first_player", "players", "cards_each"),  # L-2, L-3
    "keep_done": ("hand_sizes", "counters"),  # L-5
    "counter_discard": ("count", "counters"),  # L-8
    "void_turn": ("turn", "round", "seat", "discarded_points", "counters"),  # L-12
    "die": ("turn", "round", "seat", "face"),  # L-14
    "colour": ("turn", "round", "seat", "colour"),  # L-10
    "declare": ("turn", "seat", "decision", "forced", "counters"),  # L-10, L-11
    "play": ("turn", "seat", "card", "level", "colour", "strength"),  # L-10
    "turn_won": ("turn", "seat", "card", "colour", "strength", "points"),  # L-13
    "void_discard": ("turn", "seat", "item"),  # L-12
    "game_over": ("scores", "level_sums", "ranks"),  # L-16
})
"""Lovat's public events: by type, the keys of the event dict after ``"type"``, in order (the stored tuples'
order too; ``arena/games/events.py``)."""

PLAYED: tuple[dict[str, tuple[tuple[int, str]]], ...] = tuple(
    {card_id: ((seat, card_id),) for card_id in CARD_IDS} for seat in range(max(VARIANTS))
)
"""``PLAYED[seat][card id]``: ``((seat, card id),)``, the entry a play adds to this turn's plays (shared)."""


class LovatTurns:
    """The transitions of a Lovat game; the attributes of a ``LovatState``, declared here for them."""

    __slots__ = (
        "_events", "chance", "colour", "counters", "dealer", "dealt", "declarations", "die", "face_down", "first",
        "fixed", "hands", "history", "keeps", "misdeals", "passed", "phase", "players", "plays", "points", "queue",
        "turn", "turn_facts", "variant", "voids",
    )

    players: int
    chance: Chance
    variant: Variant  # the row of the variant table for this player count
    dealer: int  # the dealer's seat (L-2)
    first: int  # the first player, the dealer's left (L-2)
    misdeals: tuple[tuple[int, ...], ...]  # per misdeal, the seats whose hand admitted no keep (L-6)
    dealt: list[tuple[str, ...]]  # per seat, the dealt cards, sorted (private)
    fixed: tuple[Any, ...]  # per seat, its observations' fields fixed all game (``observation.LovatFixed``)
    keeps: list[tuple[str, ...] | None]  # per seat, the keep once made (private)
    hands: list[list[str]]  # per seat, cards in hand, sorted (private; sizes public)
    counters: tuple[int, ...]  # per seat, counters held (count public)
    points: tuple[tuple[str, ...], ...]  # per seat, point cards face up, in the order won (public)
    face_down: list[list[str]]  # per seat, hand cards discarded face down on void turns (private, L-12)
    phase: str  # one of PHASES
    turn: int  # 0-based turn index; equals variant.turns once the game is over
    turn_facts: tuple[int, int, bool, int | None]  # what observations report as turn, round, die_round, active
    colour: str | None  # this turn's colour, once named or rolled
    die: str | None  # this turn's die face, if rolled
    queue: list[int]  # seats still to decide in this step, in order (keep: ascending)
    passed: tuple[bool, ...]  # per seat, passed this turn
    declarations: tuple[tuple[int, str], ...]  # this turn's (seat, "pass" | "play"), in order
    plays: tuple[tuple[int, str], ...]  # this turn's (seat, card id), in order
    voids: tuple[tuple[int, str], ...]  # this void turn's (seat, "counter" | "card"), in order
    history: tuple[tuple[Any, ...], ...]  # completed turns, public (the records of ``_end_turn``)
    _events: list[Event]  # public events as stored tuples (``EVENTS``; ``LovatState.events`` makes the dicts)

    def level_sums(self) -> tuple[int, ...]:
        """Per seat, the level sum of the point cards (the L-16 tie-break)."""
        return tuple([sum(map(LEVEL.__getitem__, cards)) for cards in self.points])

    def _standings(self) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """L-16: per seat, the score (points), the level sum of the point cards, and the rank by both."""
        scores = tuple(map(len, self.points))
        level_sums = self.level_sums()
        return scores, level_sums, competition_ranks(list(zip(scores, level_sums)))

    def result(self) -> Result:
        """L-16: score = points; rank by (points, level sum of point cards), equal keys share a rank."""
        if self.phase != OVER:
            raise GameError(
                f"the Lovat game is not over (turn {self.turn} of {self.variant.turns}, phase {self.phase})"
            )
        scores, level_sums, ranks = self._standings()
        return Result(
            scores=scores,
            ranks=ranks,
            details={
                "level_sums": list(level_sums),
                "point_cards": [list(cards) for cards in self.points],
                "tie_break": "level sum of point cards (L-16)",
            },
        )

    def _keep(self, seat: int, keep: tuple[str, ...]) -> None:
        """L-5: the keep becomes the hand, the rest counters; after the last keep, L-8 and the first turn."""
        self.keeps[seat] = keep
        self.hands[seat] = list(keep)
        self._add_counters(seat, self.variant.dealt - len(keep))  # from none: counters start at 0 until the keep
        queue = self.queue
        queue.remove(seat)
        if queue:
            return  # L-5: keeps are secret and simultaneous; no event until everyone has kept
        counters = list(self.counters)
        self._events.append(("keep_done", list(map(len, self.hands)), counters))
        discard = self.variant.discard  # L-8: a count, not a choice
        self.counters = tuple([count - discard for count in counters])
        self._events.append(("counter_discard", discard, list(self.counters)))
        self._check_invariant()
        self._start_turn()

    def _start_turn(self) -> None:
        """Begin turn ``self.turn``: void turn (L-12), die (L-14) or colour choice (L-10)."""
        self.colour = None
        self.die = None
        self.passed = NO_PASSES[self.players]
        self.declarations = self.plays = self.voids = ()
        turn = self.turn
        players = self.players
        if turn == self.variant.turns:  # L-15
            self.phase = OVER
            self.queue = []
            self.turn_facts = (turn, turn // players, False, None)
            scores, level_sums, ranks = self._standings()  # what result() reports, without building it
            self._events.append(("game_over", list(scores), list(level_sums), list(ranks)))
            return
        active = (self.first + turn) % players
        round_ = turn // players
        die_round = round_ == self.variant.rounds - 1
        self.turn_facts = (turn, round_, die_round, active)
        if not self.hands[active]:
            # L-12: void turn. No colour, no die: the active player discards a counter and all point cards.
            if self.counters[active] < 1:
                raise AssertionError(f"seat {active} has neither cards nor counters on turn {self.turn + 1}")
            self._add_counters(active, -1)
            lost = list(self.points[active])
            points = list(self.points)
            points[active] = ()
            self.points = tuple(points)
            self._events.append(("void_turn", turn, round_, active, lost, self.counters[active]))
            self.phase = VOID
            self.queue = list(OTHERS[players][active])
            return
        self.phase = COLOUR
        self.queue = [active]
        if die_round:  # L-14: the die on every turn of the last round
            face = self.chance.scripted("die")
            if face is None:
                face = FACES[randbelow(self.chance.rng, 6)]  # rng.randrange(6), inlined
                self.chance.record_fresh("die", face)  # one of FACES: a str, nothing to copy
            else:
                self.chance.record("die", scripted_choice(face, FACES, "die roll"))
            self.die = face
            self._events.append(("die", turn, round_, active, face))
            if face != BLANK:
                self.colour = face
                self._begin_declare(active)
            # blank: the active player names the colour (phase stays COLOUR)

    def _name_colour(self, seat: int, colour: str) -> None:
        """L-10 (1): the active player names the colour."""
        self.colour = colour
        self._events.append(("colour", self.turn, self.turn // self.players, seat, colour))
        self._begin_declare(seat)

    def _begin_declare(self, active: int) -> None:
        """L-10 (2): the others declare, clockwise from the active player's left."""
        self.phase = DECLARE
        self.queue = list(OTHERS[self.players][active])

    def _declare(self, seat: int, decision: str) -> None:
        """L-10 (2), L-11: a pass discards a counter at once."""
        counters = self.counters
        held = counters[seat]
        forced = not held or not self.hands[seat]
        if decision == PASS:
            held -= 1
            changed = list(counters)  # _add_counters(seat, -1), written out: a pass is a third of all decisions
            changed[seat] = held
            self.counters = tuple(changed)
            self.passed = PASSED[self.passed][seat]
        self.declarations += DECIDED[seat][decision]
        self._events.append(("declare", self.turn, seat, decision, forced, held))
        queue = self.queue
        del queue[0]
        if not queue:
            # L-10 (3), (4): the active player plays first, then each non-passer clockwise from its left
            self.phase = PLAY
            self.queue = list(PLAY_ORDER[self.passed][self.turn_facts[3]])  # type: ignore[index]  # the active seat

    def _play(self, seat: int, card_id: str) -> None:
        """L-10 (3), (4): show a card; after the last one, L-13 decides the turn."""
        self.hands[seat].remove(card_id)
        self.plays = plays = self.plays + PLAYED[seat][card_id]
        colour = self.colour
        colour_index = COLOUR_INDEX[colour]  # type: ignore[index]
        self._events.append(
            ("play", self.turn, seat, card_id, LEVEL[card_id], colour, STRENGTH[card_id][colour_index])
        )
        queue = self.queue
        del queue[0]
        if queue:
            return
        # L-13: highest strength wins; a tie goes to the card played first (strict > keeps the earlier one)
        best_seat, best_card = plays[0]
        best = STRENGTH[best_card][colour_index]
        for other, other_card in plays[1:]:
            strength = STRENGTH[other_card][colour_index]
            if strength > best:
                best_seat, best_card, best = other, other_card, strength
        points = list(self.points)
        won = points[best_seat] = points[best_seat] + (best_card,)
        self.points = tuple(points)
        self._events.append(("turn_won", self.turn, best_seat, best_card, colour, best, len(won)))
        self._end_turn(best_seat, False)

    def _void_discard(self, seat: int, item: str) -> None:
        """L-12: discard a counter or a hand card face down (only the kind is public, L-9)."""
        if item == COUNTER:
            self._add_counters(seat, -1)
            kind = COUNTER
        else:
            self.hands[seat].remove(item)
            self.face_down[seat].append(item)
            kind = "card"
        self.voids += DECIDED[seat][kind]
        self._events.append(("void_discard", self.turn, seat, kind))
        queue = self.queue
        del queue[0]
        if not queue:
            self._end_turn(None, True)  # L-12: nobody wins a void turn

    def _end_turn(self, winner: int | None, void: bool) -> None:
        """Archive the turn publicly, check the invariant at the end of a round, start the next turn.

        The turn's public record is ``(turn, active, void, die, colour, declarations, plays, void_discards,
        winner)`` with declarations ``((seat, "pass" | "play"), ...)``, plays ``((seat, card id), ...)`` and
        void_discards ``((seat, "counter" | "card"), ...)``, each in the order they happened.
        """
        turn = self.turn
        self.history += ((turn, self.turn_facts[3], void, self.die, self.colour, self.declarations, self.plays,
                          self.voids, winner),)
        self.turn = turn = turn + 1
        # Once a round (so also at the end of the game), not after every turn: the check reads every hand
        # (about a quarter of a decision's cost, every turn, at six players), and a broken count still
        # surfaces within the round; tests/lovat/test_lovat_properties.py checks it after every decision.
        if turn % self.players == 0:
            self._check_invariant()
        self._start_turn()

    def _add_counters(self, seat: int, change: int) -> None:
        """Add ``change`` to ``seat``'s counters (a new tuple: observations and clones share the old one)."""
        counters = list(self.counters)
        counters[seat] += change
        self.counters = tuple(counters)

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
