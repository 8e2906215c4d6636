"""Helpers shared by the subcommands: errors, plugin loading, argument types."""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from rich.text import Text

from arena.agent import AgentSpec
from arena.cli import stopping
from arena.games.base import Game
from arena.plugin_system.data import printable
from arena.plugin_system.loading import (
    DEFAULT_PLUGINS_DIR,
    PluginManager,
    Registry,
    load_registry,
    load_trusted_registry,
    warn_plugin_errors,
)

if TYPE_CHECKING:  # the publishing module imports the ratings (numpy, scipy): only commands that publish load it
    from arena.leaderboard.publish import Published, RatedConfig


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose usage errors are one line: what was wrong, and where to read more. Options
    are matched whole, never by a prefix: ``--token X`` must not be read as ``--token-file X``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        """Print ``PROG: error: MESSAGE (see 'PROG --help')`` and exit with status 2."""
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


class HelpFormatter(argparse.HelpFormatter):
    """Descriptions wrapped to the terminal; indented lines (examples) kept exactly as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        paragraphs = text.split("\n\n")
        filled = []
        for paragraph in paragraphs:
            if any(line.startswith(" ") for line in paragraph.splitlines()):
                filled.append("\n".join(indent + line for line in paragraph.splitlines()))
            else:
                filled.append(textwrap.fill(" ".join(paragraph.split()), width, initial_indent=indent,
                                            subsequent_indent=indent))
        return "\n\n".join(filled)


class CliError(Exception):
    """A user error: printed as one line, exit status ``status``."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


def failure(error: Exception) -> CliError:
    """``error`` (a store's, a tournament's or a ladder's) as a one-line ``CliError``: status 2 when the request
    was at fault (a name that is not there, a config that differs from the stored one), 1 when the work failed."""
    from arena.tournament.errors import RequestError  # a plain module: no cost to the commands that fail

    return CliError(str(error), status=2 if isinstance(error, RequestError) else 1)


def literal(value: object) -> Text:
    """Plugin-provided text shown exactly as written: no rich markup, control characters and escapes made visible.

    A description like ``[red]x[/]`` or ``[link=...]`` prints as those characters; an ANSI escape or a
    carriage return prints as ``\\x1b`` or ``\\r`` instead of acting on the terminal.
    """
    return Text(printable(str(value)))


def add_plugins_dir(parser: argparse.ArgumentParser) -> None:
    """Add the ``--plugins-dir`` option every command that loads plugins shares."""
    parser.add_argument(
        "--plugins-dir",
        type=Path,
        default=DEFAULT_PLUGINS_DIR,
        metavar="DIR",
        help="folder of drop-in plugin files and packages (default: ./plugins)",
    )


def add_leaderboards_dir(parser: argparse.ArgumentParser) -> None:
    """Add the ``--leaderboards`` option every command that reads or writes a tournament store shares."""
    from arena.tournament.store import DEFAULT_LEADERBOARDS

    parser.add_argument("--leaderboards", type=_folder, default=DEFAULT_LEADERBOARDS, metavar="DIR",
                        help=f"the folder of tournament folders (default: ./{DEFAULT_LEADERBOARDS})")


def _folder(text: str) -> Path:
    """A folder named on the command line: an empty name is refused (it meant the working directory)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty name: give a folder (or leave the option out)")
    return Path(text)


def plugins(args: argparse.Namespace) -> PluginManager:
    """Load every plugin once for this command, printing one line per plugin that was skipped."""
    with stopping.deferred():  # a stop while the plugins load is a stop, never a plugin that failed to load
        manager = load_registry(plugins_dir=getattr(args, "plugins_dir", DEFAULT_PLUGINS_DIR))
    warn_plugin_errors(_install(manager.registry))  # trusted plugins' rating methods and formats, then every problem
    return manager


def trusted_plugins(args: argparse.Namespace) -> Registry:
    """The built-ins and the plugins ``ARENA_PLUGINS_TRUST`` names, their rating methods and formats installed,
    for a command that seats no agent (no plugin is discovered); one line per problem."""
    with stopping.deferred():  # as in plugins()
        manager = load_trusted_registry(plugins_dir=getattr(args, "plugins_dir", DEFAULT_PLUGINS_DIR))
    loaded = _install(manager.registry)
    warn_plugin_errors(loaded)
    return loaded


def _install(registry: Registry) -> Registry:
    """Install what trusted plugins add to the driver (``arena.plugin_system.extensions``), if they add
    anything: the rating methods bring numpy and scipy, which a listing never loads (tests/cli/test_startup.py)."""
    if registry.rating_methods or registry.formats or registry.views:
        from arena.plugin_system.extensions import install

        install(registry)
    return registry


def registry(args: argparse.Namespace) -> Registry:
    """What every plugin registered (``plugins``), for a command that only reads the registry."""
    return plugins(args).registry


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


def check_output_file(path: Path | None, option: str) -> None:
    """Fail before any work if ``path`` cannot be written: ``option`` names the flag in the one-line error."""
    if path is None:
        return
    if path.is_dir():
        raise CliError(f"{option} {path}: is a folder; give a file name")
    folder = path.parent
    if not folder.is_dir():
        file = _file_above(folder)
        if file is not None:
            raise CliError(f"{option} {path}: {file} is a file, not a folder")
        raise CliError(f"{option} {path}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise CliError(f"{option} {path}: not writable")


def check_leaderboards(path: Path) -> None:
    """Fail before any work if the ``--leaderboards`` folder cannot be a folder (it, or a folder above it, is a
    file); a missing folder is made when the first store is."""
    file = _file_above(path)
    if file is not None:
        raise CliError(f"--leaderboards {path}: {file} is a file, not a folder")


def _file_above(path: Path) -> Path | None:
    """The nearest existing path above ``path`` (or ``path`` itself) when it is not a folder, else None."""
    for above in (path, *path.parents):
        if above.exists():
            return None if above.is_dir() else above
    return None


def print_json(data: Any) -> None:
    """Print JSON on stdout."""
    json.dump(data, sys.stdout, indent=2)
    sys.stdout.write("\n")


def add_command(
    subparsers: argparse._SubParsersAction, name: str, *, help: str, description: str, examples: Sequence[str],
    add_help: bool = True,
) -> argparse.ArgumentParser:
    """Register subcommand ``name``: its ``--help`` shows the description wrapped, then the examples (without
    ``add_help`` the command adds its own ``-h``)."""
    if isinstance(examples, str):
        raise TypeError("examples must be a sequence of command lines, not one string")
    return subparsers.add_parser(
        name,
        help=help,
        description=description,
        epilog="examples:\n" + "\n".join(f"  {line}" for line in examples),
        formatter_class=HelpFormatter,
        add_help=add_help,
    )


def site_progress(every: int = 10) -> Callable[[int, int], None]:
    """A ``progress(done, total)`` for a site build: a line on stderr at every tenth of a build of ``every`` or
    more match chunks (a site of 1,000 matches or more), nothing for a small one."""
    shown = [0]

    def report(done: int, total: int) -> None:
        if total >= every and (done == total or done - shown[0] >= total // 10):
            shown[0] = done
            print(f"site: {done}/{total} match chunks written", file=sys.stderr, flush=True)

    return report


def publish_command(args: argparse.Namespace, name: str) -> str:
    """The ``arena publish NAME`` command that writes tournament ``name``'s files as this command would have."""
    return follow_up(args, "publish", name)


def follow_up(args: argparse.Namespace, *words: str, plugins: bool = True) -> str:
    """The ``arena WORDS...`` command a message suggests, with this command's ``--leaderboards`` (and, with
    ``plugins``, ``--plugins-dir``) where they are not the defaults, so that it reads the same tournament."""
    import shlex

    from arena.tournament.store import DEFAULT_LEADERBOARDS

    command = ["arena", *words]
    if args.leaderboards != DEFAULT_LEADERBOARDS:
        command += ["--leaderboards", str(args.leaderboards)]
    if plugins and getattr(args, "plugins_dir", DEFAULT_PLUGINS_DIR) != DEFAULT_PLUGINS_DIR:
        command += ["--plugins-dir", str(args.plugins_dir)]
    return shlex.join(command)


def publish_leaderboard(args: argparse.Namespace, config: RatedConfig, **options: Any) -> Published:
    """Rate the stored results and write the leaderboard files and the site (``publish``), as every command that
    plays or changes a tournament does: the site's match pages replay with the games of ``args.plugins_dir``, its
    progress shows on stderr, and a write that fails is one line.  ``options`` (``methods``, ``bootstrap``) go to
    ``publish``.
    """
    from arena.leaderboard.publish import NothingRated, publish

    try:
        return publish(config, args.leaderboards, plugins_dir=args.plugins_dir, progress=site_progress(), **options)
    except NothingRated as error:  # one line: each failing method and why
        raise CliError(f"{config.name}: {error}", status=1) from None
    except KeyboardInterrupt as interrupt:  # every match is stored already: only the files are left to write
        from arena.cli import stopping

        raise CliError(f"{stopping.describe(interrupt)} while writing the leaderboard files and the site; every "
                       f"match is stored: run '{publish_command(args, config.name)}' to write them",
                       status=stopping.exit_status(interrupt)) from None
    except OSError as error:
        raise CliError(f"{args.leaderboards / config.name}: cannot write the leaderboard files: "
                       f"{error.strerror or error}", status=1) from None
