"""The ``arena`` command line: one module per subcommand, each adding its own parser.

Errors a user can cause (bad options, missing files, illegal records) are
printed as one line on stderr with a non-zero exit status, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
from collections.abc import Sequence

from arena import __version__
from arena.cli import cards, check_agent, common, doctor, ladder, listing, play, replay, results, run, stopping
from arena.tournament.store import StoreError

SUBCOMMANDS = (run, results, ladder, play, replay, cards, listing, check_agent, doctor)
"""Modules that each define ``add_parsers(subparsers)``."""


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every subcommand."""
    parser = common.OneLineParser(
        prog="arena",
        description="A tournament arena for AI agents playing imperfect-information card games.",
        epilog=(
            "examples:\n"
            "  arena run configs/quickstart-lovat.toml\n"
            "  arena leaderboard quickstart-lovat --vs greedy random\n"
            "  arena play lovat --players 4 --seed 7\n"
            "  arena play lorum --agents greedy,random,random,random --record game.json\n"
            "  arena replay game.json\n"
            "  arena agents --game lovat\n"
            "\n"
            "Run 'arena COMMAND --help' for each command's options."
        ),
        formatter_class=common.HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"arena {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in SUBCOMMANDS:
        module.add_parsers(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = build_parser()
    args, extras = parser.parse_known_args(argv)
    if extras and not getattr(args, "takes_game_options", False):
        parser.error(f"unrecognized arguments: {' '.join(extras)}")
    args.game_flags = extras  # `arena play GAME --NAME VALUE`: the game's own options, read by the game
    stopping.install()
    if args.command != "doctor":  # the doctor lists what ended runs left before removing it (--clean)
        stopping.sweep()
    try:
        return int(args.run(args) or 0)
    except common.CliError as error:
        stopping.say(f"arena: error: {error}")
        return error.status
    except sqlite3.DatabaseError as error:  # a store damaged after it was opened (truncated, overwritten)
        print(f"arena: error: the results store is damaged: {' '.join(str(error).split())[:200]}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as interrupt:  # Ctrl-C, SIGTERM or SIGHUP (arena.cli.stopping)
        stopping.say(f"arena: {stopping.describe(interrupt)}")
        return stopping.exit_status(interrupt)
    except StoreError as error:  # a store damaged or altered in a way found only while reading it
        print(f"arena: error: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader closed the pipe (`arena export ... | head`): normal. Point stdout at /dev/null so that
        # the interpreter's final flush cannot fail and print "Broken pipe" at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as error:  # a file or folder the user's system refuses (permissions, a full disk, ...)
        where = f"{error.filename}: " if error.filename else ""
        print(f"arena: error: {where}{error.strerror or error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
