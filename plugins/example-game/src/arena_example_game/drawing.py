"""Pledge at the table, through arena's shared drawing helpers (``arena.games.drawing``).

A game says what is on the table (a ``Table``: seats, hands, counts, the cards in the middle, a few public
facts) and how its cards look (``CardFace``); arena lays it out as an SVG for ``arena replay --svg`` and in the
site's match viewer.  Built from the seats' observations, so a seat's view shows only its own hand.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.base import GameState
from arena.games.drawing import CardFace, SeatView, Table
from arena_example_game.rules import DECK, SUIT_NAMES
from arena_example_game.state import PledgeObservation

SUIT_INK = {"c": "#222222", "d": "#c62828", "h": "#c62828", "s": "#222222"}
"""Black clubs and spades, red diamonds and hearts."""

FACES: dict[str, CardFace] = {card: CardFace(label=card[0], corner=SUIT_NAMES[card[1]], ink=SUIT_INK[card[1]])
                              for card in DECK}
"""Each card's rank big, its suit in the corner."""


def pledge_table(state: GameState, viewer: int | None, hands: bool, names: Sequence[str]) -> Table:
    """The table from ``viewer``'s seat (None: a spectator, seeing every hand with ``hands``)."""
    public = state.observation(0 if viewer is None else viewer)
    assert isinstance(public, PledgeObservation)
    played = [0] * public.players
    for seat, action in public.history:
        played[seat] += action in FACES  # a card, not a pledge
    seats = []
    for seat in range(public.players):
        held = None
        if seat == viewer or (viewer is None and hands):
            own = state.observation(seat)
            assert isinstance(own, PledgeObservation)
            held = own.hand
        bid = public.bids[seat]
        seats.append(SeatView(hand=held, hidden=0 if held is not None else public.hand_size - played[seat],
                              counts=(() if bid is None else (("pledged", bid),)) + (("tricks", public.tricks[seat]),),
                              note="dealer" if seat == public.dealer else ""))
    moving = state.to_move()
    return Table(seats=tuple(seats), names=names, middle=public.trick, info=(f"trump: {public.trump}",),
                 to_move=moving[0] if moving else None)
