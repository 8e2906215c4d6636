"""What one Lovat seat may know: the one place hidden information is removed (L-9).

``observe(state, seat)`` is the only function that turns a ``LovatState`` into
a ``LovatObservation``.  It takes the seat's own private cards (dealt cards,
keep, hand, counters) and the public record (counts, declarations, every card
played, point cards, die results), and nothing about other seats' cards,
keeps, counters' identities or face-down discards.  The state holds its public
record in tuples that each change replaces, so the observation shares them
instead of copying (``arena/games/lazy.py``); the seat's hand is copied.

During the keep (L-5: simultaneous and secret) nothing reveals whether other
seats have kept: every seat's public hand size is its dealt count and its
public counter count 0 until everyone has kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from arena.games.lazy import PENDING, LazyObservation, builder_of, fixed_part, lazy_constructor
from arena.games.lovat.deck import COLOURS
from arena.games.lovat.rules import (
    COLOUR,
    DECLARATIONS,
    DECLARE,
    GAME_ID,
    KEEP,
    OVER,
    PLAY,
    VARIANTS,
    VOID,
    Variant,
)

if TYPE_CHECKING:
    from arena.games.lovat.state import LovatState

TurnRecord = tuple[Any, ...]
"""``(turn, active, void, die, colour, declarations, plays, void_discards, winner)``; see ``LovatState._end_turn``."""


@dataclass(frozen=True, slots=True)
class LovatObservation(LazyObservation):
    """One Lovat seat's view at one moment (all fields JSON types; mappings as tuples of pairs).

    ``legal`` is () in the keep phase: the legal keeps are the subsets of
    ``dealt`` whose levels sum to ``level_sum`` with ``min_size``..``max_size`` cards.
    Turn and round numbers are 0-based.  Built by ``arena/games/lazy.py``: ``hand_sizes``
    is computed from the other fields on first access.
    """

    dealer: int  # the dealer's seat (L-2)
    first_player: int  # the dealer's left, who is active on the first turn of each round (L-2)
    misdeals: tuple[tuple[int, ...], ...]  # per misdeal before this deal, the seats that had no legal keep (L-6)
    turn: int  # current turn, 0-based; 0 during the keep, ``turns`` once over
    turns: int  # turns in the game (L-15)
    round: int  # current round, 0-based; ``rounds`` once over
    rounds: int  # rounds in the game (L-15)
    die_round: bool  # whether the current turn is in the die round (L-14)
    active: int | None  # the active player's seat; None during the keep and once over
    colour: str | None  # this turn's colour once named or rolled, else None
    die: str | None  # this turn's die face (a colour or "blank") if rolled, else None
    hand: tuple[str, ...]  # own cards in hand, sorted (during the keep: the dealt cards, or the keep once made)
    counters: int  # own counters (during the keep: 0, or dealt minus keep size once kept)
    dealt: tuple[str, ...]  # own dealt cards, sorted (the keep's candidates)
    keep: tuple[str, ...] | None  # own keep once made, else None
    hand_sizes: tuple[int, ...]  # per seat, cards in hand (public, L-9)
    counter_counts: tuple[int, ...]  # per seat, counters held (public, L-9)
    point_cards: tuple[tuple[str, ...], ...]  # per seat, face-up point cards in the order won (L-9, L-13)
    passes: tuple[bool, ...]  # per seat, whether it passed this turn
    declarations: tuple[tuple[Any, ...], ...]  # this turn's (seat, "pass" | "play"), in order (L-10)
    plays: tuple[tuple[Any, ...], ...]  # this turn's (seat, card id), in order (L-10)
    void_discards: tuple[tuple[Any, ...], ...]  # this void turn's (seat, "counter" | "card"), in order (L-12)
    history: tuple[TurnRecord, ...]  # every completed turn's public record, in order
    level_sum: int  # a keep's exact level sum (L-5)
    min_size: int  # fewest cards in a keep (L-5)
    max_size: int  # most cards in a keep (L-5)


KEEP_COUNTS: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {
    players: ((variant.dealt,) * players, (0,) * players) for players, variant in VARIANTS.items()
}
"""By player count, every seat's public hand size and counter count during the keep: the deal's (L-5)."""

EMPTY_HANDS: dict[int, tuple[int, ...]] = {players: (0,) * players for players in VARIANTS}
"""By player count, every seat's hand size once the game is over (L-15)."""


def observe(state: LovatState, seat: int) -> LovatObservation:
    """The observation of ``seat`` in ``state``: own private cards plus the public record, nothing else."""
    players = state.players
    # The exact-int test first (the common case, fast); bool and other int subclasses fall to the second.
    if (type(seat) is not int or not 0 <= seat < players) and (
        isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players
    ):
        raise ValueError(f"seat {seat!r} does not exist: a {players}-player Lovat game has seats 0..{players - 1}")
    phase = state.phase
    counters = state.counters
    hand = tuple(state.hands[seat])
    # Every field, stored as lazy_constructor's build stores them (_Store, below); hand_sizes may be PENDING.
    obj = _Store()
    obj._fixed = state.fixed[seat]
    obj.phase = phase
    if phase == DECLARE:  # the commonest phase: legal_actions' DECLARE case, without its call
        queue = state.queue
        obj.legal = DECLARATIONS[counters[seat] > 0][len(hand) > 0] if queue and queue[0] == seat else ()  # L-11
        obj.hand_sizes = PENDING  # see _hand_sizes
        obj.counter_counts = counters
    elif phase == PLAY:
        queue = state.queue
        obj.legal = hand if queue and queue[0] == seat else ()
        obj.hand_sizes = PENDING
        obj.counter_counts = counters
    elif phase == COLOUR:  # legal_actions' COLOUR case, without its call
        queue = state.queue
        obj.legal = COLOURS if queue and queue[0] == seat else ()
        obj.hand_sizes = PENDING
        obj.counter_counts = counters
    elif phase == KEEP:
        # L-5: secret, simultaneous keeps. Public counts stay at the deal until everyone has kept.
        obj.legal = ()
        obj.hand_sizes, obj.counter_counts = KEEP_COUNTS[players]
    elif phase == OVER:
        obj.legal = ()
        obj.hand_sizes = EMPTY_HANDS[players]  # L-15: every hand is empty
        obj.counter_counts = counters
    else:  # VOID, the one phase left (L-12)
        obj.legal = state.legal_actions(seat)
        obj.hand_sizes = PENDING
        obj.counter_counts = counters
    obj.turn, obj.round, obj.die_round, obj.active = state.turn_facts
    obj.colour = state.colour
    obj.die = state.die
    obj.hand = hand
    obj.counters = counters[seat]
    obj.keep = state.keeps[seat]
    obj.point_cards = state.points
    obj.passes = state.passed
    obj.declarations = state.declarations
    obj.plays = state.plays
    obj.void_discards = state.voids
    obj.history = state.history
    obj.__class__ = LovatObservation
    return obj


def fixed_parts(
    variant: Variant, dealer: int, first: int, misdeals: tuple[tuple[int, ...], ...], dealt: list[tuple[str, ...]]
) -> tuple[Any, ...]:
    """Per seat, the observation fields that stay the same all game (``LovatFixed``): made once per deal."""
    players, turns, rounds, level_sum, least, most = (variant.players, variant.turns, variant.rounds,
                                                      variant.level_sum, variant.min_keep, variant.max_keep)
    # tuple.__new__ rather than LovatFixed(...): the named tuple's own __new__ is a Python call per seat.
    return tuple([_new_fixed(LovatFixed, (GAME_ID, seat, players, dealer, first, misdeals, turns, rounds,
                                          dealt[seat], level_sum, least, most)) for seat in range(players)])


def _hand_sizes(obs: LovatObservation) -> tuple[int, ...]:
    """Every seat's hand size during a turn, from the public record (the state's invariant, L-12, L-15).

    At the start of turn ``t`` every seat holds ``turns - t`` items, cards and
    counters together, and every seat gives up exactly one item per turn: a
    counter when it passes or on its own void turn, a card when it plays, either
    when it discards on another's void turn.  So a seat's cards are ``turns - t``
    minus its counters, minus one if it has already given up its item this turn.
    """
    left = obs.turns - obs.turn
    used = [0] * obs.players
    if obs.phase == VOID:
        used[obs.active] = 1  # type: ignore[index]  # its counter went at the start of the turn
        for seat, _kind in obs.void_discards:
            used[seat] = 1
    else:
        for seat, passed in enumerate(obs.passes):
            used[seat] = passed
        for seat, _card in obs.plays:
            used[seat] = 1
    return tuple(left - counters - spent for counters, spent in zip(obs.counter_counts, used))


LovatFixed = fixed_part(LovatObservation, (
    "game", "seat", "players", "dealer", "first_player", "misdeals", "turns", "rounds", "dealt", "level_sum",
    "min_size", "max_size",
))
"""A seat's observation fields that stay the same all game, in field order: the game's, the deal's and the
variant's public facts, and the seat's own dealt cards.  The state makes one per seat (``fixed_parts``) and
every observation of that seat shares it (``arena/games/lazy.py``)."""

_new_fixed = tuple.__new__

_build = lazy_constructor(LovatObservation, {"hand_sizes": _hand_sizes}, LovatFixed, snapshot=False)
"""``LovatObservation(*fields)`` from the seat's ``LovatFixed`` and the other fields (``hand_sizes`` possibly
``PENDING``: it is computed from public fields, so no snapshot is kept).  What ``observe`` builds, one call
fewer: it stores the same fields itself (``_Store``), and tests/games holds the two equal."""

_Store = builder_of(_build)
"""What ``observe`` fills: ``_build``'s own builder (a ``LovatObservation`` with ``object``'s plain ``__setattr__``
and ``hand_sizes``' raw slot, so ``PENDING`` is stored as is), then made a ``LovatObservation``."""
