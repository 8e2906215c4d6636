"""Drawing a game's table: the scene a game describes, and the one SVG renderer every game shares.

A game draws a state in two steps (``Game.table`` and ``Game.card_faces``): it says *what* is on the table
-- each seat's name, hand (face up, or only how many cards when the viewer may not see it), counters, chips or
points, the cards won face up, the cards played to the middle, a few lines of public facts (the pot, the die,
the contract) -- as a ``Table``, and how each card looks as a ``CardFace``.  ``svg`` lays that out around a
table; the site's match viewer draws the same JSON scene in the browser (``arena/site/assets/site.js``,
``drawTable``) with the same layout, so a scene is computed once per step and drawn wherever it is shown.

Every text a scene carries may come from an agent's author (a seat's name is the agent's entry name, and a
plugin game's card labels are its author's): ``svg`` escapes all of it; the browser renderer sets it as text,
never markup.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple
from xml.sax.saxutils import escape, quoteattr

from arena.games.interface import seat_label

WIDTH = 760
"""The drawing's width in SVG units (its height follows the number of seats)."""

CARD_W, CARD_H = 30, 42
"""A card in a hand."""

MID_W, MID_H = 40, 56
"""A card played to the middle."""

WON_W, WON_H = 16, 22
"""A card won, face up beside the seat."""

SEAT_W, SEAT_H = 220, 112
"""A seat's area: name, counts, hand, cards won."""

BACK = "#5b6b8c"
"""A face-down card's colour."""


@dataclass(frozen=True, slots=True)
class CardFace:
    """How one card looks: big ``label`` (a rank, a level), small ``corner`` (its id or suit), the ``ink`` colour
    of both, an optional ``mark`` (its points) and optional ``bars`` (a value per colour, as Lovat's strengths).
    When a table's ``accent`` picks one of the bars, the big text is that bar's value, in its colour."""

    label: str  # the big text in the middle
    corner: str  # the small text in the top corner
    ink: str  # colour of the texts and the border, "#rrggbb"
    mark: str = ""  # a badge at the bottom (e.g. "8 pts"); "" for none
    bars: tuple[tuple[str, int], ...] = ()  # (colour "#rrggbb", value) strips along the bottom

    def to_json(self) -> dict[str, Any]:
        """The short keys the browser renderer reads."""
        return {"t": self.label, "s": self.corner, "c": self.ink, "m": self.mark, "b": [list(bar) for bar in self.bars]}


class SeatView(NamedTuple):
    """One seat as the viewer sees it (a named tuple: a site build makes several per step, and JSON writes it
    as an array as it is)."""

    hand: tuple[str, ...] | None  # the cards face up, or None when the viewer may not see them
    hidden: int = 0  # cards held face down (when ``hand`` is None)
    counts: tuple[tuple[str, int], ...] = ()  # ("chips", 12), ("counters", 3): shown as "chips 12 · counters 3"
    won: tuple[str, ...] = ()  # cards won and shown face up beside the seat (Lovat's point cards)
    note: str = ""  # a short public fact: "dealer", "passed", "called big"

    def cards(self) -> int:
        """How many card shapes this seat's area draws."""
        return (len(self.hand) if self.hand is not None else self.hidden) + len(self.won)


class Table(NamedTuple):
    """What is on the table at one moment, from one viewer's point of view (a named tuple: a site build makes
    one per step of every match, three times faster than a frozen dataclass)."""

    seats: tuple[SeatView, ...]
    names: Sequence[str] = ()  # the seats' agents, labelled as ``seat_label`` does ("seat 2 (greedy)")
    middle: tuple[tuple[int, str], ...] = ()  # (seat, card) played to the middle, in order
    info: tuple[str, ...] = ()  # public facts, one short line each ("deal 2 of 4", "pot 12")
    to_move: int | None = None  # the seat whose decision is pending, if any
    accent: int | None = None  # which of a card's ``bars`` counts now (Lovat: the turn's colour), if any
    faded: bool = False  # the middle shows a finished trick (drawn paler)

    def cards(self) -> int:
        """How many card shapes the drawing holds: every hand, face up or down, the cards won and the middle."""
        return sum(seat.cards() for seat in self.seats) + len(self.middle)

    def to_json(self) -> dict[str, Any]:
        """The scene as compact JSON (the site stores one per step; the seats' names it takes from the match).

        Per seat ``[hand or None, hidden, counts, won, note]``; ``m`` the middle, ``i`` the facts, ``t`` the seat
        to move, ``a`` the accent, ``f`` whether the middle is faded.  Tuples stay tuples: ``json`` writes them
        as arrays, and a site build makes one of these per step.
        """
        return {"s": self.seats, "m": self.middle, "i": self.info, "t": self.to_move, "a": self.accent, "f": self.faded}


def seat_centres(players: int) -> list[tuple[float, float]]:
    """Where each seat's area is centred: seat 0 at the bottom, the others clockwise around an ellipse."""
    height = table_height(players)
    cx, cy = WIDTH / 2, height / 2 + 10
    rx, ry = WIDTH / 2 - SEAT_W / 2 - 6, height / 2 - 70
    centres = []
    for seat in range(players):
        angle = math.pi / 2 + 2 * math.pi * seat / players  # downwards first, then clockwise on screen
        centres.append((round(cx + rx * math.cos(angle), 1), round(cy + ry * math.sin(angle), 1)))
    return centres


def table_height(players: int) -> int:
    """The drawing's height: taller for more seats."""
    return 470 if players <= 4 else 560


def svg(table: Table, faces: Mapping[str, CardFace], title: str = "") -> str:
    """The scene as a standalone SVG document, every text escaped."""
    players = len(table.seats)
    height = table_height(players)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" '
             f'height="{height}" font-family="sans-serif" class="arena-table">',
             f'<rect width="{WIDTH}" height="{height}" fill="#f4f1e8"/>',
             f'<ellipse cx="{WIDTH / 2}" cy="{height / 2 + 10}" rx="{WIDTH / 2 - 150}" ry="{height / 2 - 120}" '
             'fill="#2f6f4f" stroke="#24553c" stroke-width="4"/>']
    if title:
        parts.append(_text(8, 16, title, size=13, weight="bold"))
    for line, text in enumerate(table.info):
        parts.append(_text(WIDTH - 8, 16 + 15 * line, text, size=12, anchor="end"))
    centres = seat_centres(players)
    for seat, (view, (x, y)) in enumerate(zip(table.seats, centres, strict=True)):
        parts.append(_seat(seat_label(seat, table.names), view, x, y, faces, table.accent, seat == table.to_move))
    cx, cy = WIDTH / 2, height / 2 + 10
    for seat, card in table.middle:
        x, y = centres[seat] if 0 <= seat < players else (cx, cy)
        mx, my = cx + (x - cx) * 0.32 - MID_W / 2, cy + (y - cy) * 0.32 - MID_H / 2
        parts.append(_card(card, faces, mx, my, MID_W, MID_H, table.accent, faded=table.faded))
    parts.append("</svg>")
    return "\n".join(parts)


def _seat(name: str, view: SeatView, x: float, y: float, faces: Mapping[str, CardFace], accent: int | None,
          moving: bool) -> str:
    left, top = x - SEAT_W / 2, y - SEAT_H / 2
    parts = ['<g class="seat">',
             f'<rect x="{left}" y="{top}" width="{SEAT_W}" height="{SEAT_H}" rx="8" fill="#ffffff" '
             f'stroke="{"#d9822b" if moving else "#999999"}" stroke-width="{3 if moving else 1}"/>',
             _text(left + 8, top + 15, ("\u25b6 " if moving else "") + name, size=12, weight="bold", clip=34)]
    facts = " \u00b7 ".join(f"{label} {value}" for label, value in view.counts)
    if view.note:
        facts = f"{facts} \u00b7 {view.note}" if facts else view.note
    parts.append(_text(left + 8, top + 29, facts, size=11, clip=40))
    shown = list(view.hand) if view.hand is not None else [None] * view.hidden
    step = min(CARD_W + 2, (SEAT_W - 16 - CARD_W) / max(1, len(shown) - 1)) if shown else 0
    for index, card in enumerate(shown):
        cx = left + 8 + index * step
        parts.append(_back(cx, top + 36, CARD_W, CARD_H) if card is None
                     else _card(card, faces, cx, top + 36, CARD_W, CARD_H, accent))
    if view.won:
        won_step = min(WON_W + 1, (SEAT_W - 16 - WON_W) / max(1, len(view.won) - 1))
        for index, card in enumerate(view.won):
            parts.append(_card(card, faces, left + 8 + index * won_step, top + 84, WON_W, WON_H, accent, small=True))
    parts.append("</g>")
    return "\n".join(parts)


def _card(card: str, faces: Mapping[str, CardFace], x: float, y: float, w: float, h: float, accent: int | None,
          small: bool = False, faded: bool = False) -> str:
    face = faces.get(card) or CardFace(label=card, corner="", ink="#333333")
    opacity = ' opacity="0.6"' if faded else ""
    parts = [f'<g class="card" data-card={quoteattr(card)}{opacity}>',
             f'<rect x="{x:.1f}" y="{y:.1f}" width="{w}" height="{h}" rx="3" fill="#ffffff" '
             f'stroke="{_colour(face.ink)}"/>']
    if small:
        parts.append(_text(x + w / 2, y + h / 2 + 4, face.label, size=9, anchor="middle", fill=face.ink))
        parts.append("</g>")
        return "".join(parts)
    parts.append(_text(x + 3, y + 10, face.corner, size=8, fill=face.ink, clip=8))
    label, ink = face.label, face.ink
    if accent is not None and 0 <= accent < len(face.bars):  # the value that counts now, in its colour
        ink, value = face.bars[accent]
        label = str(value)
    parts.append(_text(x + w / 2, y + h / 2 + 5, label, size=13 if w >= MID_W else 11, anchor="middle",
                       weight="bold", fill=ink))
    if face.bars:
        width = (w - 4) / len(face.bars)
        top = max(face.bars[i][1] for i in range(len(face.bars))) or 1
        for index, (colour, value) in enumerate(face.bars):
            bar = max(1.0, 8 * value / top)
            stroke = ' stroke="#000000" stroke-width="0.8"' if index == accent else ""
            parts.append(f'<rect x="{x + 2 + index * width:.1f}" y="{y + h - 2 - bar:.1f}" width="{width:.1f}" '
                         f'height="{bar:.1f}" fill="{_colour(colour)}"{stroke}/>')
    if face.mark:
        parts.append(_text(x + w / 2, y + h - 3, face.mark, size=8, anchor="middle", fill="#b00020", weight="bold"))
    parts.append("</g>")
    return "".join(parts)


def _back(x: float, y: float, w: float, h: float) -> str:
    return (f'<rect class="card-back" x="{x:.1f}" y="{y:.1f}" width="{w}" height="{h}" rx="3" fill="{BACK}" '
            'stroke="#ffffff"/>')


def _text(x: float, y: float, text: str, size: int, anchor: str = "start", weight: str = "normal",
          fill: str = "#222222", clip: int | None = None) -> str:
    if clip is not None and len(text) > clip:
        text = text[:clip - 1] + "\u2026"
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" font-weight="{weight}" '
            f'fill="{_colour(fill)}">{escape(text)}</text>')


def _colour(value: str) -> str:
    """A colour a game gave, if it is ``#rrggbb``; anything else (markup, a url) is drawn grey."""
    if len(value) == 7 and value[0] == "#" and all(c in "0123456789abcdefABCDEF" for c in value[1:]):
        return value
    return "#777777"


