"""``arena cards``: print a game's deck, as the game describes it (``Game.deck``)."""

from __future__ import annotations

import argparse

from rich.table import Table

from arena.cli.common import CliError, add_command, add_plugins_dir, game_named, print_json, registry
from arena.cli.console import output_console
from arena.games.base import to_json


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    """Register ``arena cards``."""
    parser = add_command(
        subparsers,
        "cards",
        help="print a game's deck",
        description=(
            "Print the deck of an installed game as the game describes it: every card with the names logs and "
            "records use and what the rules need of it (levels and strengths, points...)."
        ),
        examples=("arena cards lovat", "arena cards lorum", "arena cards lovat --json"),
    )
    parser.add_argument("game", help="game name (see 'arena games')")
    parser.add_argument("--json", action="store_true", help="print JSON: one object per card, as the game names them")
    add_plugins_dir(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the deck as a table or JSON."""
    game = game_named(registry(args), args.game)
    deck = game.deck()
    if deck is None:
        raise CliError(f"{game.info.title} has no deck to show")
    if args.json:
        print_json(to_json(list(deck.cards)))
        return 0
    table = Table(title=deck.title, caption=deck.caption or None, caption_justify="left")
    for heading, justify in deck.columns:
        table.add_column(heading, justify="right" if justify == "right" else "left")
    for row in deck.rows:
        table.add_row(*row)
    output_console().print(table)
    return 0
