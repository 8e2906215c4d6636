"""``arena cards``: print a game's deck."""

from __future__ import annotations

import argparse

from arena.cli.common import CliError, add_command, print_json


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    """Register ``arena cards``."""
    parser = add_command(
        subparsers,
        "cards",
        help="print a game's deck",
        description="Print the deck of a game: for Lovat the 80 cards with level and strength in each colour.",
        examples=("arena cards lovat", "arena cards lovat --json"),
    )
    parser.add_argument("game", help="game name (lovat)")
    parser.add_argument("--json", action="store_true", help='print JSON: [{"id", "level", "strengths": {colour: int}}]')
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the deck as a table or JSON."""
    if args.game != "lovat":
        raise CliError(f"'arena cards' knows the lovat deck only, not {args.game!r}")
    from arena.games.lovat.deck import COLOURS, deck_json

    cards = deck_json()
    if args.json:
        print_json(cards)
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(title="Lovat deck (80 cards)")
    table.add_column("id")
    table.add_column("level", justify="right")
    for colour in COLOURS:
        table.add_column(colour, justify="right")
    for card in cards:
        table.add_row(card["id"], str(card["level"]), *(str(card["strengths"][colour]) for colour in COLOURS))
    Console().print(table)
    return 0
