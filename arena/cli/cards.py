"""``arena cards``: print a game's deck."""

from __future__ import annotations

import argparse
from typing import Any

from rich.console import Console
from rich.table import Table

from arena.cli.common import CliError, add_command, print_json


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    """Register ``arena cards``."""
    parser = add_command(
        subparsers,
        "cards",
        help="print a game's deck",
        description=(
            "Print the deck of a game: for Lovat the 80 cards with level and strength in each colour; for "
            "Slovak Lorum the 32 cards with the names the logs and records use, and their card points (S-9)."
        ),
        examples=("arena cards lovat", "arena cards lorum", "arena cards lovat --json"),
    )
    parser.add_argument("game", help="game name (lovat or lorum)")
    parser.add_argument("--json", action="store_true",
                        help='print JSON: Lovat [{"id", "level", "strengths": {colour: int}}], '
                             'Lorum [{"name", "suit", "rank", "points"}]')
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the deck as a table or JSON."""
    decks = {"lovat": _lovat, "lorum": _lorum}
    if args.game not in decks:
        raise CliError(f"'arena cards' knows the decks of {' and '.join(decks)}, not {args.game!r}")
    cards, table = decks[args.game]()
    if args.json:
        print_json(cards)
    else:
        Console().print(table)
    return 0


def _lovat() -> tuple[list[dict[str, Any]], Table]:
    from arena.games.lovat.deck import COLOURS, deck_json

    cards = deck_json()
    table = Table(title="Lovat deck (80 cards)")
    table.add_column("id")
    table.add_column("level", justify="right")
    for colour in COLOURS:
        table.add_column(colour, justify="right")
    for card in cards:
        table.add_row(card["id"], str(card["level"]), *(str(card["strengths"][colour]) for colour in COLOURS))
    return cards, table


def _lorum() -> tuple[list[dict[str, Any]], Table]:
    from arena.games.lorum.cards import DECK, POINTS, RANK_NAMES, SUIT_NAMES

    cards: list[dict[str, Any]] = [
             {"name": name, "suit": SUIT_NAMES[name[-1]], "rank": RANK_NAMES[name[:-1]], "points": points}
             for name, points in zip(DECK, POINTS)]
    table = Table(title="Slovak Lorum deck (32 cards, highest first)",
                  caption="names: rank (A K O U 10 9 8 7) then suit (a acorns, g green, h hearts, b bells)",
                  caption_justify="left")
    for column in ("name", "suit", "rank", "points"):
        table.add_column(column, justify="right" if column == "points" else "left")
    for card in cards:
        table.add_row(card["name"], card["suit"], card["rank"], str(card["points"]))
    return cards, table
