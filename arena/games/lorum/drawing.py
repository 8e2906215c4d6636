"""Slovak Lorum at the table: each seat's cards, chips, tricks and points; the trick in the middle; the pot.

Built from the seats' observations (``LorumObservation``), so a seat's view holds nothing its observation does
not: its own hand face up, every other hand as a count of face-down cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.games.base import GameState, plural
from arena.games.drawing import CardFace, SeatView, Table
from arena.games.lorum.cards import DECK, POINTS, SUIT_NAMES, mask_names
from arena.games.lorum.observation import LorumObservation
from arena.games.lorum.rules import PLAYERS
from arena.games.lorum.state import LorumState

SUIT_INK = {"a": "#7a4a1d", "g": "#2e7d32", "h": "#c62828", "b": "#b8860b"}
"""Ink per suit: acorns brown, green (leaves) green, hearts red, bells gold."""

FACES: dict[str, CardFace] = {
    card: CardFace(label=card[:-1], corner=SUIT_NAMES[card[-1]], ink=SUIT_INK[card[-1]],
                   mark="" if not points else plural(points, "pt"))
    for card, points in zip(DECK, POINTS, strict=True)
}
"""Each card's rank big, its suit in the corner, its points (S-9) marked."""


def lorum_table(state: GameState, viewer: int | None, hands: bool, names: Sequence[str]) -> Table:
    """The table from ``viewer``'s seat (None: a spectator, seeing every hand with ``hands``)."""
    if viewer is None and hands and isinstance(state, LorumState):
        return _open_table(state, names)
    return _observed_table(state, viewer, hands, names)


def _observed_table(state: GameState, viewer: int | None, hands: bool, names: Sequence[str]) -> Table:
    """``lorum_table`` built from the observations: what ``viewer`` (or a spectator) may know, and nothing else."""
    public: LorumObservation = state.observation(0 if viewer is None else viewer)  # type: ignore[assignment]
    seats = []
    for seat, size in enumerate(public.hand_sizes):
        held = None
        if seat == viewer or (viewer is None and hands):
            held = (public if seat == public.seat else state.observation(seat)).hand  # type: ignore[attr-defined]
        note = "dealer" if seat == public.dealer else ""
        if seat == public.bidder:
            note = f"{note}, called {public.contract}" if note else f"called {public.contract}"
        seats.append(SeatView(held, 0 if held is not None else size,
                              (("chips", public.balances[seat]), ("tricks", public.tricks_won[seat]),
                               ("points", public.points[seat])), (), note))
    middle, faded = public.trick, False
    if not middle and public.phase != "bid" and public.tricks:  # between tricks: the one just taken, paler
        middle, faded = public.tricks[-1][0], True
    contract = "bidding" if public.contract is None else f"contract: {public.contract}"
    return Table(tuple(seats), names, middle, (f"deal {public.deal} of {public.deals}", contract, f"pot {public.pot}"),
                 public.to_move, None, faded)


_LAST_SEATS: list[tuple[tuple[int, int, int, int, str], SeatView] | None] = [None, None, None, None]
"""Per seat, the last open table's view of it with what it was made of: a step changes one seat or two, so the
next table takes the others as they were (a view is made only of its key, so a stale one is right)."""

_NOTES: dict[tuple[int, int | None, str | None], tuple[str, ...]] = {}
"""Each seat's note by (dealer, bidder, contract): they change once or twice a deal, the table at every step."""

_LAST_INFO: list[tuple[Any, tuple[str, ...]]] = [(None, ())]
"""The last open table's facts as ``((deal, deals, contract, pot), lines)``: they change a few times a deal (one
tuple, read and replaced whole, so that a table built in another thread never pairs one's key with other lines)."""


def _notes(dealer: int, bidder: int | None, contract: str | None) -> tuple[str, ...]:
    notes = []
    for seat in range(PLAYERS):
        note = "dealer" if seat == dealer else ""
        if seat == bidder:
            note = f"{note}, called {contract}" if note else f"called {contract}"
        notes.append(note)
    return _NOTES.setdefault((dealer, bidder, contract), tuple(notes))


def _open_table(state: LorumState, names: Sequence[str]) -> Table:
    """``lorum_table`` for a spectator who sees every hand, read from the state itself: the same scene without
    building five observations (a site build draws one per step of every match; every field here is public
    or, with every hand shown, the spectator's to see)."""
    contract = state.contract
    notes = _NOTES.get((state.dealer, state.bidder, contract)) or _notes(state.dealer, state.bidder, contract)
    seats = []
    for seat, key in enumerate(zip(state.hands, state.balances, state.tricks_won, state.points, notes)):
        last = _LAST_SEATS[seat]
        if last is not None and last[0] == key:
            seats.append(last[1])
            continue
        held, chips, tricks, points, note = key
        view = SeatView(mask_names(held), 0, (("chips", chips), ("tricks", tricks), ("points", points)), (), note)
        _LAST_SEATS[seat] = (key, view)
        seats.append(view)
    middle, faded = state.trick, False
    if not middle and state.phase != "bid" and state.tricks:  # between tricks: the one just taken, paler
        middle, faded = state.tricks[-1][0], True
    facts = (state.deal, state.deals, contract, state.pot)
    info = _LAST_INFO[0]
    if info[0] != facts:
        shown = "bidding" if contract is None else f"contract: {contract}"
        info = _LAST_INFO[0] = (facts, (f"deal {state.deal} of {state.deals}", shown, f"pot {state.pot}"))
    return Table(tuple(seats), names, middle, info[1], state.to_act, None, faded)
