"""The Lovat deck: 80 unique cards loaded once from the checked-in ``deck.csv`` (D-1).

The table was made by ``make_deck.py`` (kept beside it) and is never generated
at run time.  Strengths are stored in colour order ``COLOURS`` (the order
``docs/rules/lovat.md`` lists them in).  Agents look cards up by id with
``level`` and ``strength``, which raise ``ValueError`` for an unknown id or
colour; the engine's hot path uses the plain dicts ``LEVEL`` and ``STRENGTH``
keyed by card id (no checks).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from importlib import resources
from typing import Any

COLOURS: tuple[str, ...] = ("rufous", "gingerline", "phlox", "zaffre", "skobeloff")
"""The five colours, in the rules' order (also the die's first five faces, L-14)."""

COLOUR_INDEX: dict[str, int] = {colour: index for index, colour in enumerate(COLOURS)}
"""Colour name -> position in a card's strengths tuple."""


@dataclass(frozen=True, slots=True)
class Card:
    """One Lovat card."""

    id: str  # stable id, e.g. "L1-07" (level, then number within the level)
    level: int  # 1, 2 or 3
    strengths: tuple[int, ...]  # strength in each colour, in COLOURS order

    def strength(self, colour: str) -> int:
        """This card's strength in ``colour`` (one of ``COLOURS``)."""
        return self.strengths[COLOUR_INDEX[colour]]


def _load() -> tuple[Card, ...]:
    """Parse deck.csv from the package (works from a source tree, a wheel or a zip)."""
    text = resources.files(__package__).joinpath("deck.csv").read_text(encoding="ascii")
    reader = csv.reader(io.StringIO(text))
    header = next(reader)
    expected = ["id", "level", *COLOURS]
    if header != expected:
        raise RuntimeError(f"deck.csv header is {header}, expected {expected}")
    return tuple(Card(row[0], int(row[1]), tuple(int(value) for value in row[2:])) for row in reader)


CARDS: tuple[Card, ...] = _load()
"""Every card, in deck order (level 1 first, then by number)."""

CARD_IDS: tuple[str, ...] = tuple(card.id for card in CARDS)
"""Every card id, in deck order (also ascending string order)."""

BY_ID: dict[str, Card] = {card.id: card for card in CARDS}
"""Card id -> Card."""

LEVEL: dict[str, int] = {card.id: card.level for card in CARDS}
"""Card id -> level (hot-path lookup)."""

STRENGTH: dict[str, tuple[int, ...]] = {card.id: card.strengths for card in CARDS}
"""Card id -> strengths in COLOURS order (hot-path lookup)."""

LEVEL_MAXIMUM: dict[int, int] = {1: 30, 2: 40, 3: 50}
"""D-2: the highest strength allowed on a card of each level."""

LEVEL_TOTAL: dict[int, int] = {1: 50, 2: 75, 3: 100}
"""D-2: the sum of a card's five strengths, per level."""

LEVEL_COUNT: dict[int, int] = {1: 40, 2: 30, 3: 10}
"""D-2: the number of cards of each level."""


ID_FORM = "a card id is L<level>-<number>: L1-01..L1-40, L2-01..L2-30 or L3-01..L3-10"
"""How a card id is written, for error messages."""


def card(card_id: str) -> Card:
    """The card with id ``card_id``; ``KeyError`` naming the id if there is none."""
    try:
        return BY_ID[card_id]
    except KeyError:
        raise KeyError(f"no Lovat card {card_id!r} ({ID_FORM})") from None


def level(card_id: str) -> int:
    """The level (1, 2 or 3) of the card ``card_id``: ``level("L2-07") == 2``; ``ValueError`` for an unknown id."""
    try:
        return LEVEL[card_id]
    except (KeyError, TypeError):  # TypeError: an unhashable value such as a list
        raise ValueError(f"no Lovat card {card_id!r}: {ID_FORM}") from None


def strength(card_id: str, colour: str) -> int:
    """The strength of the card ``card_id`` in ``colour`` (one of ``COLOURS``); ``ValueError`` for a bad id or
    colour."""
    level(card_id)  # the same check and message for a bad id
    index = COLOUR_INDEX.get(colour) if isinstance(colour, str) else None
    if index is None:
        raise ValueError(f"no Lovat colour {colour!r}: the colours are {', '.join(COLOURS)}")
    return STRENGTH[card_id][index]


def deck_json() -> list[dict[str, Any]]:
    """The deck as JSON data, in deck order: ``[{"id", "level", "strengths": {colour: int}}]``."""
    return [
        {"id": c.id, "level": c.level, "strengths": dict(zip(COLOURS, c.strengths))}
        for c in CARDS
    ]
