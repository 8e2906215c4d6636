"""Helpers shared by the subcommands: errors, plugin loading, argument types."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.agent import AgentSpec
from arena.games.base import Game
from arena.plugins import DEFAULT_PLUGINS_DIR, Registry, load_registry, warn_plugin_errors


class CliError(Exception):
    """A user error: printed as one line, exit status ``status``."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


def add_plugins_dir(parser: argparse.ArgumentParser) -> None:
    """Add the ``--plugins-dir`` option every command that loads plugins shares."""
    parser.add_argument(
        "--plugins-dir",
        type=Path,
        default=DEFAULT_PLUGINS_DIR,
        metavar="DIR",
        help="folder of drop-in plugin files and packages (default: ./plugins)",
    )


def registry(args: argparse.Namespace) -> Registry:
    """Load every plugin, printing one line per plugin that was skipped."""
    loaded = load_registry(plugins_dir=getattr(args, "plugins_dir", DEFAULT_PLUGINS_DIR)).registry
    warn_plugin_errors(loaded)
    return loaded


def game_named(loaded: Registry, name: str) -> Game:
    """The installed game ``name``, or a ``CliError`` listing the installed ones."""
    try:
        return loaded.game(name)
    except KeyError as error:
        raise CliError(error.args[0]) from None


def agent_for_game(loaded: Registry, name: str, game: Game) -> AgentSpec:
    """The installed agent ``name`` that plays ``game``, or a ``CliError`` saying why not."""
    try:
        spec = loaded.agent(name)
    except KeyError as error:
        raise CliError(error.args[0]) from None
    if not spec.plays(game.info.name):
        raise CliError(f"agent {name!r} does not play {game.info.name} (it plays {', '.join(spec.games)})")
    return spec


def print_json(data: Any) -> None:
    """Print JSON on stdout."""
    json.dump(data, sys.stdout, indent=2)
    sys.stdout.write("\n")


def add_command(
    subparsers: argparse._SubParsersAction, name: str, *, help: str, description: str, examples: Sequence[str]
) -> argparse.ArgumentParser:
    """Register subcommand ``name``: its ``--help`` shows the description as written, then the examples."""
    if isinstance(examples, str):
        raise TypeError("examples must be a sequence of command lines, not one string")
    return subparsers.add_parser(
        name,
        help=help,
        description=description,
        epilog="examples:\n" + "\n".join(f"  {line}" for line in examples),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
