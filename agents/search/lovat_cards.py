"""The Lovat deck as small integers, and greedy's orderings as tables: the search's hot-path representation.

Card indices follow the card ids' string order, so that ties broken by index match ties
broken by id.  Shared by the simulator (``lovat_sim``) and the beliefs (``lovat_beliefs``);
the underscored names are internal to this package.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence

from arena.games.lovat.deck import CARD_IDS, COLOURS, LEVEL, STRENGTH
from arena.games.lovat.state import BLANK, COLOUR, DECLARE, FACES, OVER, PLAY, VOID
from arena_agents.lovat import best_strength

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


@functools.cache
def _turns_after_table(first: int, players: int, turns: int) -> tuple[tuple[int, ...], ...]:
    """``_turns_after`` for every turn and seat of one game: ``table[turn][seat]`` (shared by its playouts)."""
    return tuple(
        tuple(_turns_after(seat, turn, first, players, turns) for seat in range(players)) for turn in range(turns)
    )


def _best_play(plays: Iterable[tuple[int, str]], colour: int) -> tuple[int, int, int]:
    """(seat, card index, strength) of the turn's best play so far in ``colour``; (-1, -1, -1) before any."""
    best = (-1, -1, -1)
    for seat, card_id in plays:
        strength = STRENGTH[card_id][colour]
        if strength > best[2]:  # L-13: a tie goes to the card played first
            best = (seat, _INDEX[card_id], strength)
    return best


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
