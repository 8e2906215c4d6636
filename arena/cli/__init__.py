"""The ``arena`` command line: one module per subcommand, each adding its own parser.

Errors a user can cause (bad options, missing files, illegal records) are
printed as one line on stderr with a non-zero exit status, never a traceback.

A command imports only what it needs: ``COMMANDS`` names each command's module
and one-line help, so ``arena --help`` imports no command module, and ``arena
agents`` only its own (the ratings, numpy and scipy are loaded by the commands
that rate; Ray by a run that starts it).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sqlite3
import sys
from collections.abc import Sequence

from arena import __version__
from arena.cli import common, stopping

COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("run", "run a tournament from a TOML config"),
    "leaderboard": ("results", "rate a stored tournament and show its leaderboard"),
    "publish": ("results", "rewrite a stored tournament's leaderboard files"),
    "export": ("results", "write a stored tournament's match table as CSV or JSON lines, or one match's record"),
    "luck": ("luck", "compute the luck correction of a stored tournament's matches that lack it"),
    "ladder": ("ladder", "a living ladder: add agents over time, rated without replaying the field"),
    "play": ("play", "play one game and print a readable log"),
    "replay": ("replay", "re-run a match record and check it; print its log"),
    "cards": ("cards", "print a game's deck"),
    "plugins": ("listing", "list loaded plugins"),
    "agents": ("listing", "list installed agents"),
    "games": ("listing", "list installed games"),
    "check-agent": ("check_agent", "check that an agent plays legally, in time and reproducibly"),
    "doctor": ("doctor", "show the sandbox features this machine offers and what each isolation mode uses"),
    "serve": ("serve", "host a competition: participants submit agents, the ladder plays them"),
    "submit": ("submit", "upload an agent to a served competition and follow its check"),
}
"""Every command, in the order ``--help`` lists them: the module of ``arena.cli`` whose ``add_parsers(subparsers)``
adds it (a module's commands are listed together), and its one-line help as that module gives it."""


def build_parser(command: str | None = "") -> argparse.ArgumentParser:
    """The top-level parser: by default with every command's parser; with ``command`` (a word the user typed)
    with that command's module's parsers only, every other command a name and its help; with None, names only.
    """
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
    chosen = COMMANDS[command][0] if command in COMMANDS else None
    added: set[str] = set()
    for name, (module, text) in COMMANDS.items():
        if module in added:
            continue
        if command == "" or module == chosen:
            importlib.import_module(f"arena.cli.{module}").add_parsers(subparsers)
            added.add(module)
        else:
            subparsers.add_parser(name, help=text)  # listed by --help and in a misspelling's error; never run
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    # Before the command's modules load (a second or so for one that rates, on a busy machine): a stop while
    # they load is one line and 128 plus the signal's number too, not a traceback or a bare SIGTERM death.
    stopping.install()
    try:
        return _command(argv)
    except KeyboardInterrupt as interrupt:  # Ctrl-C, SIGTERM or SIGHUP (arena.cli.stopping)
        stopping.say(f"arena: {stopping.describe(interrupt)}")
        return stopping.exit_status(interrupt)


def _command(argv: Sequence[str] | None) -> int:
    """Parse ``argv`` and run its command; a user's error is one line and its exit status."""
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(next((word for word in words if not word.startswith("-")), None))
    args, extras = parser.parse_known_args(argv)
    if extras and not getattr(args, "takes_game_options", False):
        parser.error(f"unrecognized arguments: {' '.join(extras)}")
    args.game_flags = extras  # `arena play GAME --NAME VALUE`: the game's own options, read by the game
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
    except BrokenPipeError:
        # The reader closed the pipe (`arena export ... | head`): normal. Point stdout at /dev/null so that
        # the interpreter's final flush cannot fail and print "Broken pipe" at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as error:  # a file or folder the user's system refuses (permissions, a full disk, ...)
        where = f"{error.filename}: " if error.filename else ""
        print(f"arena: error: {where}{error.strerror or error}", file=sys.stderr)
        return 1
    except Exception as error:
        # A store damaged or altered in a way found only while reading it (StoreError; only a command that
        # opened a store has its module loaded).
        store = sys.modules.get("arena.tournament.store")
        if store is not None and isinstance(error, store.StoreError):
            print(f"arena: error: {error}", file=sys.stderr)
            return common.failure(error).status
        raise


if __name__ == "__main__":
    sys.exit(main())
