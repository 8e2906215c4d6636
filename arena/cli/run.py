"""``arena run``: play a tournament from a TOML config, store every match, and show the leaderboard."""

from __future__ import annotations

import argparse
import shlex
import time
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TaskID, TextColumn, TimeRemainingColumn

from arena.cli import stopping
from arena.cli.addresses import cluster_address
from arena.cli.common import (
    CliError,
    add_command,
    add_leaderboards_dir,
    add_plugins_dir,
    check_leaderboards,
    failure,
    plugins,
    print_json,
    publish_leaderboard,
)
from arena.cli.console import output_console
from arena.cli.numbers import MAX_WORKERS, integer
from arena.cli.progress import LazyProgress
from arena.leaderboard.publish import summary_json
from arena.plugin_system.loading import DEFAULT_PLUGINS_DIR, PluginManager, Registry
from arena.tournament.config import ConfigError, TournamentConfig
from arena.tournament.config_loading import load_config
from arena.tournament.runner import RAY_WORTH_SECONDS, TournamentError, run_tournament
from arena.tournament.runner import Progress as RunProgress
from arena.tournament.store import DEFAULT_LEADERBOARDS, StoreError


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    """Register ``arena run``."""
    parser = add_command(
        subparsers,
        "run",
        help="run a tournament from a TOML config",
        description=(
            "Play every match of a tournament config (configs/*.toml), store each result in "
            "leaderboards/<name>/results.sqlite, then rate the agents and write the leaderboard files. By default "
            "play starts at once in this process, and a local Ray over all cores is started alongside only when "
            f"the matches left would take {RAY_WORTH_SECONDS:g} s or more; it takes over the rest when it is up. "
            "--workers N plays on "
            "a local Ray of N cores, --address on a Ray cluster. Interrupted? Run it again with --resume to play "
            "only what is missing."
        ),
        examples=(
            "arena run configs/quickstart-lovat.toml",
            "arena run configs/quickstart-lorum.toml --workers 1      # serially, no Ray",
            "arena run configs/quickstart-lovat.toml --workers 2      # on a local Ray of 2 workers, however short",
            "arena run configs/big.toml --address ray://head:10001    # on a Ray cluster",
            "arena run configs/quickstart-lovat.toml --resume",
        ),
    )
    parser.add_argument("config", type=Path, help="the tournament config (TOML, see docs/configs.md)")
    parser.add_argument("--address", type=cluster_address,
                        help="join this Ray cluster (default: $RAY_ADDRESS, else start a local Ray)")
    parser.add_argument("--workers", type=integer(1, MAX_WORKERS, "workers"),
                        help="play on a local Ray of this many workers (1: serially, without Ray; default: start "
                             "serially and bring in a local Ray over all cores for a long run)")
    parser.add_argument("--resume", action="store_true",
                        help="continue a stored tournament, playing only what is missing (also after raising 'blocks')")
    parser.add_argument("--json", action="store_true", help="print a JSON summary instead of the live display")
    add_leaderboards_dir(parser)
    add_plugins_dir(parser)
    parser.set_defaults(run=run)


def load_tournament(path: Path, loaded: Registry) -> TournamentConfig:
    """Read and validate a config against what is installed; one line per problem."""
    known_agents = {name: set(spec.games) for name, spec in loaded.agents.items()}
    known_games = {name: game.info for name, game in loaded.games.items()}
    agent_options = {name: spec.options for name, spec in loaded.agents.items()}
    try:
        return load_config(path, known_games, known_agents, agent_options=agent_options)
    except ConfigError as error:
        raise CliError(str(error)) from None


def run(args: argparse.Namespace) -> int:
    """Run the tournament with a live display, then publish the leaderboard."""
    check_leaderboards(args.leaderboards)
    manager = plugins(args)  # loaded once: the tournament plays with this very registry
    config = load_tournament(args.config, manager.registry)
    console = output_console(stderr=args.json)
    schedule = config.schedule()
    if not args.json:
        console.print(f"[bold]{config.name}[/]: {config.game}, {schedule.design.describe()}, "
                      f"{config.blocks} duplicate blocks per table, {schedule.match_count} matches")
    seen: list[RunProgress] = []
    try:
        summary = _run_with_display(config, args, console, manager, quiet=args.json, seen=seen)
    except (StoreError, TournamentError) as error:
        raise failure(error) from None
    except KeyboardInterrupt as interrupt:  # Ctrl-C, SIGTERM or SIGHUP: the run's clean-up has run
        stored = f"{seen[-1].done} of {seen[-1].total} matches are stored" if seen else "nothing new was stored"
        raise CliError(f"{stopping.describe(interrupt)}: {stored}; run '{resume_command(args)}' to play the rest",
                       status=stopping.exit_status(interrupt)) from None
    board = publish_leaderboard(args, config)
    if args.json:
        print_json(summary_json(config, summary, board))
        return 0
    console.print(f"{summary.played} matches played in {summary.seconds:.1f} s "
                  f"({summary.backend}, {summary.workers} worker{'s' if summary.workers != 1 else ''}); "
                  f"{summary.total} stored in {summary.store}")
    for name, changes in summary.changed.items():  # a complete tournament re-run after an agent was edited
        console.print(f"note: entry {name!r} changed since its matches were stored ({'; '.join(changes)}); "
                      "this tournament is complete and rates the stored version: to rate the new one, add it as a "
                      "new entry in a tournament with a new name")
    board.print(console)
    return 0


def resume_command(args: argparse.Namespace) -> str:
    """The ``arena run ... --resume`` command that continues this run: the same config, store, plugins and Ray."""
    words = ["arena", "run", str(args.config)]
    if args.leaderboards != DEFAULT_LEADERBOARDS:
        words += ["--leaderboards", str(args.leaderboards)]
    if args.plugins_dir != DEFAULT_PLUGINS_DIR:
        words += ["--plugins-dir", str(args.plugins_dir)]
    if args.address:
        words += ["--address", args.address]
    if args.workers is not None:
        words += ["--workers", str(args.workers)]
    return shlex.join([*words, "--resume"])


def _run_with_display(config: TournamentConfig, args: argparse.Namespace, console: Console,
                      manager: PluginManager, quiet: bool, seen: list[RunProgress]):
    """Run the tournament under a live progress bar; ``seen`` holds the latest progress report."""
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[status]}"),
    )
    with LazyProgress(*columns, console=console, disable=quiet, transient=False) as progress:
        tasks: list[TaskID] = []  # the bar appears with the first report: a refused run shows none
        started = time.perf_counter()

        def update(state: RunProgress) -> None:
            seen[:] = [state]
            if not tasks:
                tasks.append(progress.add_task("matches", total=None, rate="", status=""))
            task = tasks[0]
            elapsed = time.perf_counter() - started
            rate = f"{state.played_now / elapsed:.1f}/s" if state.played_now and elapsed > 0 else ""
            leader = f" · leader {state.leader}" if state.leader else ""
            progress.update(task, total=state.total, completed=state.done, rate=rate,
                            status=f"faults {state.faults}{leader}")

        return run_tournament(
            config, leaderboards=args.leaderboards, plugins_dir=args.plugins_dir, workers=args.workers,
            address=args.address, resume=args.resume, on_progress=update, plugins=manager,
        )
