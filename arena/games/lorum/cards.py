"""The 32-card German deck of Slovak Lorum, its names, ranks and card points.

A card has a short conventional name, rank then suit: ranks ``A K O U 10 9 8 7``
(Ober = ``O``, Unter = ``U``; high to low, S-6), suits ``a`` acorns, ``g`` green
(leaves), ``h`` hearts, ``b`` bells.  So ``Ah`` is the ace of hearts, ``Og`` the
green Ober and ``10b`` the ten of bells.

Agents work with names: ``rank``, ``suit``, ``points`` and ``rank_number``
take a card name and raise ``ValueError`` for anything else.

Inside the engine a card is an index ``0..31`` in the canonical deck order
(suits ``a g h b``, each from the ace down), so ``index // 8`` is the suit and a
*smaller* index within a suit is a *higher* card.  A set of cards (a hand) is a
32-bit mask: bit ``i`` set means card ``i`` is in the set.  Masks make hands
cheap to copy (search clones states a lot) and legal moves a couple of ANDs.
"""

from __future__ import annotations

from collections.abc import Iterable

RANKS: tuple[str, ...] = ("A", "K", "O", "U", "10", "9", "8", "7")
"""Ranks from high to low (S-6): Ace, King, Ober, Unter, 10, 9, 8, 7."""

SUITS: tuple[str, ...] = ("a", "g", "h", "b")
"""Suit letters in canonical order: acorns, green (leaves), hearts, bells."""

SUIT_NAMES: dict[str, str] = {"a": "acorns", "g": "green", "h": "hearts", "b": "bells"}
"""Suit letter -> English name."""

RANK_NAMES: dict[str, str] = {
    "A": "Ace",
    "K": "King",
    "O": "Ober",
    "U": "Unter",
    "10": "Ten",
    "9": "Nine",
    "8": "Eight",
    "7": "Seven",
}
"""Rank -> English name."""

DECK: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
"""All 32 card names in canonical order (suits a g h b, each ace down to seven)."""

INDEX: dict[str, int] = {name: i for i, name in enumerate(DECK)}
"""Card name -> index in ``DECK``."""

HEARTS = SUITS.index("h")
"""Suit number of hearts."""

POINTS: tuple[int, ...] = tuple(
    1 if suit == "h" else 4 if name == "Oa" else 8 if name == "Og" else 0
    for name in DECK
    for suit in (name[-1],)
)
"""S-9: card points by index: each heart 1 (the heart Ober too), acorn Ober 4, green Ober 8, others 0."""

TOTAL_POINTS = sum(POINTS)
"""20: the points of the whole deck (S-9)."""

CARDS_PER_HAND = 8
"""Each of the 4 players holds 8 cards (S-3)."""

TRICKS_PER_DEAL = 8
"""A full deal has 8 tricks."""

FULL_DECK_MASK = (1 << 32) - 1
"""The mask holding all 32 cards."""

SUIT_MASKS: tuple[int, ...] = tuple(0xFF << (8 * suit) for suit in range(4))
"""Mask of every card of each suit, by suit number."""

ABOVE_MASKS: tuple[int, ...] = tuple(((1 << card) - 1) & SUIT_MASKS[card >> 3] for card in range(32))
"""For each card, the mask of the cards of its suit ranked above it (used by must-beat, S-8)."""

POINT_MASK = sum(1 << card for card in range(32) if POINTS[card])
"""Mask of the 10 cards that carry points."""

BITS: tuple[int, ...] = tuple(1 << card for card in range(len(DECK)))
"""``1 << card`` by card index."""

_MASK_NAMES: dict[int, tuple[str, ...]] = {}


NAME_FORM = "a card name is rank (A K O U 10 9 8 7) then suit (a g h b), e.g. 'Og', '10b'"
"""How a card name is written, for error messages."""


def _index_of_name(name: str) -> int:
    """The index of a card name; ``ValueError`` naming the bad name and the valid form."""
    index = INDEX.get(name) if isinstance(name, str) else None
    if index is None:
        hint = " (this helper takes names; rank_of and suit_of take indices)" if isinstance(name, int) else ""
        raise ValueError(f"no Lorum card {name!r}: {NAME_FORM}{hint}")
    return index


# -- helpers by card name, for agents -----------------------------------------------------------


def rank(name: str) -> str:
    """The rank of a card name: ``rank("Og") == "O"``, ``rank("10b") == "10"`` (one of ``RANKS``)."""
    return RANKS[_index_of_name(name) & 7]


def suit(name: str) -> str:
    """The suit letter of a card name: ``suit("Og") == "g"`` (one of ``SUITS``)."""
    return SUITS[_index_of_name(name) >> 3]


def points(name: str) -> int:
    """The card points of a card name (S-9): ``points("Og") == 8``, ``points("7h") == 1``, ``points("Ab") == 0``."""
    return POINTS[_index_of_name(name)]


def rank_number(name: str) -> int:
    """How high a card ranks in its suit: 0 for the ace (highest) to 7 for the seven (S-6); lower beats higher."""
    return _index_of_name(name) & 7


# -- helpers by card index, for the engine's hot paths ------------------------------------------


def suit_of(card: int) -> int:
    """Suit number ``0..3`` of a card index."""
    return card >> 3


def rank_of(card: int) -> int:
    """Rank number of a card index: 0 for the ace (highest) up to 7 for the seven (lowest)."""
    return card & 7


def card_index(name: str) -> int:
    """Index of a card name; raises ``KeyError`` for an unknown name."""
    return INDEX[name]


def mask_of(names: Iterable[str]) -> int:
    """The mask of a collection of card names."""
    mask = 0
    for name in names:
        mask |= 1 << INDEX[name]
    return mask


def indices_of(mask: int) -> list[int]:
    """The card indices in a mask, in canonical order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def names_of(mask: int) -> tuple[str, ...]:
    """The card names in a mask, in canonical order (cached: hands repeat a lot in search)."""
    names = _MASK_NAMES.get(mask)
    if names is None:
        names = tuple(DECK[card] for card in indices_of(mask))
        if len(_MASK_NAMES) > 200_000:
            _MASK_NAMES.clear()
        _MASK_NAMES[mask] = names
    return names


_SUIT_BYTE_NAMES: tuple[tuple[tuple[str, ...], ...], ...] = tuple(
    tuple(tuple(DECK[8 * suit + rank] for rank in range(8) if byte >> rank & 1) for byte in range(256))
    for suit in range(4)
)
"""``_SUIT_BYTE_NAMES[suit][byte]``: the names of the cards of ``suit`` whose bits are set in ``byte`` (bit 0 = ace)."""


def mask_names(mask: int) -> tuple[str, ...]:
    """``names_of(mask)`` without its cache: four table look-ups, one per suit's byte of the mask.

    Hands are new masks every deal, so ``names_of``'s cache misses on them (and
    fills up); this costs the same for every mask.
    """
    a, g, h, b = _SUIT_BYTE_NAMES
    return a[mask & 255] + g[mask >> 8 & 255] + h[mask >> 16 & 255] + b[mask >> 24 & 255]


def count(mask: int) -> int:
    """Number of cards in a mask."""
    return mask.bit_count()


def describe_card(name: str) -> str:
    """A long name such as ``"Ober of green (8 points)"``."""
    index = INDEX[name]
    rank, suit = name[:-1], name[-1]
    points = POINTS[index]
    text = f"{RANK_NAMES[rank]} of {SUIT_NAMES[suit]}"
    if points:
        text += f" ({points} point{'s' if points > 1 else ''})"
    return text
