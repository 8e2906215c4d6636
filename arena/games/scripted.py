"""Checks for scripted chance outcomes: a record's ``chance`` list is untrusted input.

A record (``arena replay FILE``, a hand-written scenario) may script any outcome with any JSON value: a
list where a card name belongs, ``true`` for a seat, an object for a die.  Each check here takes the value
as JSON gave it, returns it in the shape the engine expects, or raises ``InvalidSetup`` with one line naming
the outcome and what was wrong, so a bad value never reaches a dict lookup (``unhashable type``) or a sort.
Every game, a game plugin's too, checks its outcomes with these.
"""

from __future__ import annotations

import json
from collections.abc import Container, Mapping, Sequence
from typing import Any

from arena.games.types import InvalidSetup, to_json

SHOWN_MAX = 80
"""Longest a value is shown in a message (a whole deal would make a very long line)."""


def shown(value: Any) -> str:
    """``value`` for a message, cut to ``SHOWN_MAX`` characters: a string quoted (``'zaffre'``), anything else as
    a record writes it (``["L1-03", "L1-06"]``, ``true``, ``null``), not as Python prints it (``('L1-03', ...)``,
    ``True``, ``None``); either way control characters are escaped."""
    if isinstance(value, str):
        text = repr(value)
    else:
        try:
            text = json.dumps(to_json(value))
        except (TypeError, ValueError):  # not JSON data (an agent may return any object): Python's view of it
            text = repr(value)
    return text if len(text) <= SHOWN_MAX else text[: SHOWN_MAX - 3] + "..."


def check_script(script: Sequence[Any]) -> None:
    """Every outcome of ``script`` is an object with a string ``kind``; ``InvalidSetup`` names the first that is not."""
    if isinstance(script, (str, bytes, Mapping)):
        raise InvalidSetup("a chance script is a list of {'kind': ..., 'value': ...} objects")
    for index, outcome in enumerate(script):
        if not isinstance(outcome, Mapping) or type(outcome.get("kind")) is not str:
            raise InvalidSetup(f"chance outcome {index} must be an object {{'kind': ..., 'value': ...}} with a "
                               f"string kind, not {shown(outcome)}")


def scripted_seat(value: Any, players: int, what: str = "dealer") -> int:
    """``value`` as a seat ``0..players-1`` (an exact integer: ``true`` is not seat 1, ``1.0`` is not either)."""
    if type(value) is not int or not 0 <= value < players:
        raise InvalidSetup(f"scripted {what} must be a seat 0..{players - 1}, not {shown(value)}")
    return value


def scripted_choice(value: Any, choices: Sequence[str], what: str) -> str:
    """``value`` as one of the strings ``choices`` (a die's faces, say)."""
    if type(value) is not str or value not in choices:
        raise InvalidSetup(f"scripted {what} must be one of {', '.join(choices)}, got {shown(value)}")
    return value


def scripted_cards(value: Any, count: int, known: Container[str], hint: str = "",
                   where: str = "scripted deal", seen: set[str] | None = None) -> list[str]:
    """``value`` as a list of ``count`` distinct card names from ``known``.

    ``hint`` follows the message for an unknown card (how names are written); ``where`` names the list in
    messages; ``seen`` holds cards already dealt elsewhere in the same deal (updated).
    """
    if not isinstance(value, (list, tuple)):
        raise InvalidSetup(f"{where} must hold a list of {count} cards, not {shown(value)}")
    if len(value) != count:
        raise InvalidSetup(f"{where} holds {len(value)} cards, not {count}: {shown(value)}")
    seen = set() if seen is None else seen
    for card in value:
        if type(card) is not str or card not in known:  # a list or an object is no card (nor hashable)
            raise InvalidSetup(f"{where} holds unknown card {shown(card)}{hint}")
        if card in seen:
            raise InvalidSetup(f"scripted deal: card {card} is dealt twice")
        seen.add(card)
    return list(value)


def scripted_hands(value: Any, players: int, size: int, known: Container[str], hint: str = "") -> list[list[str]]:
    """``value`` as ``players`` hands (by seat) of ``size`` distinct card names from ``known``, no card twice."""
    if not isinstance(value, (list, tuple)) or len(value) != players:
        raise InvalidSetup(f"scripted deal must be a list of {players} hands (one per seat), not {shown(value)}")
    seen: set[str] = set()
    return [scripted_cards(hand, size, known, hint, f"scripted deal: seat {seat}", seen)
            for seat, hand in enumerate(value)]
