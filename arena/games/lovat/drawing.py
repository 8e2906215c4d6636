"""Lovat at the table: each seat's cards, counters and point cards won; the cards played this turn; the die.

Built from the seats' observations (``LovatObservation``), so a seat's view holds nothing its observation does
not: its own hand face up, every other hand as a count of face-down cards.  A card shows its id (whose prefix is
its level), its strength in each of the five colours as coloured bars, and, once the turn's colour is named,
that colour's strength in big figures.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.base import GameState
from arena.games.drawing import CardFace, SeatView, Table
from arena.games.lovat.deck import COLOUR_INDEX, COLOURS, LEVEL, STRENGTH
from arena.games.lovat.observation import LovatObservation
from arena.games.lovat.rules import KEEP
from arena.games.lovat.state import LovatState

COLOUR_INK = {"rufous": "#a81c07", "gingerline": "#e0a100", "phlox": "#c000e0", "zaffre": "#0014a8",
              "skobeloff": "#007474"}
"""How each of the five colours is drawn."""

FACES: dict[str, CardFace] = {
    card: CardFace(label=f"L{LEVEL[card]}", corner=card, ink="#333333",
                   bars=tuple((COLOUR_INK[colour], strengths[COLOUR_INDEX[colour]]) for colour in COLOURS))
    for card, strengths in STRENGTH.items()
}
"""Each card: its level big (its strength in the turn's colour once named), its id, its five strengths."""


def held_cards(state: GameState, seat: int) -> tuple[str, ...]:
    """The cards ``seat`` holds, for a view that shows them: its observation's ``hand``, read from the state itself
    when it is Lovat's own (a site build draws every hand at every step; an observation costs a dozen fields)."""
    if isinstance(state, LovatState):
        return tuple(state.hands[seat])
    return state.observation(seat).hand  # type: ignore[attr-defined]


def lovat_table(state: GameState, viewer: int | None, hands: bool, names: Sequence[str]) -> Table:
    """The table from ``viewer``'s seat (None: a spectator, seeing every hand with ``hands``)."""
    public: LovatObservation = state.observation(0 if viewer is None else viewer)  # type: ignore[assignment]
    seats = []
    for seat in range(public.players):
        held = None
        if seat == viewer or (viewer is None and hands):
            held = public.hand if seat == public.seat else held_cards(state, seat)
        note = "dealer" if seat == public.dealer else ""
        if public.passes[seat]:
            note = f"{note}, passed" if note else "passed"
        seats.append(SeatView(held, 0 if held is not None else public.hand_sizes[seat],
                              (("counters", public.counter_counts[seat]),), public.point_cards[seat], note))
    info = ["keeping cards" if public.phase == KEEP else f"turn {min(public.turn + 1, public.turns)} of {public.turns}"]
    if public.active is not None:  # a fact, beside the turn: the mark is the seat whose decision is pending
        info.append(f"active: seat {public.active}")
    if public.die is not None:
        info.append(f"die: {public.die}")
    if public.colour is not None:
        info.append(f"colour: {public.colour}")
    accent = None if public.colour is None else COLOUR_INDEX[public.colour]
    deciding = state.to_move()
    return Table(tuple(seats), names, public.plays, tuple(info), deciding[0] if len(deciding) == 1 else None, accent)
