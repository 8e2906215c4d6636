"""``arena luck NAME``: compute the luck correction of a stored tournament's matches that lack one.

A run computes each match's correction as it plays it only when its config lists a method that subtracts it
(``luck``); for the matches stored without one, this command computes it from their stored records, so that
``arena leaderboard NAME --method luck`` can rate them (docs/ratings.md, "Luck").
"""

from __future__ import annotations

import argparse
import os
import time

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TaskID, TextColumn, TimeRemainingColumn

from arena.cli.common import (
    CliError,
    add_command,
    add_leaderboards_dir,
    add_plugins_dir,
    failure,
    follow_up,
    game_named,
    trusted_plugins,
)
from arena.cli.numbers import MAX_WORKERS, integer
from arena.cli.progress import LazyProgress
from arena.tournament.errors import StoreError, TournamentError
from arena.tournament.luck import fill_luck
from arena.tournament.store import Store, store_path


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    """Register ``arena luck``."""
    parser = add_command(
        subparsers,
        "luck",
        help="compute the luck correction of a stored tournament's matches that lack it",
        description=(
            "Compute, from their stored records, the luck correction of every match of tournament NAME stored "
            "without one (its run's config listed no method that subtracts it), so that the luck method can rate "
            "them: the game's chance after the deal (Lovat's die) valued by its reference agent's play-outs. It "
            "costs about 10 ms of CPU per 3-player Lovat match, 80 ms with 4 players and 0.7 s with 5, spread over "
            "--workers processes; what it computed is kept if it is stopped, and running it again computes the "
            "rest."
        ),
        examples=(
            "arena luck quickstart-lovat",
            "arena luck quickstart-lovat --workers 1      # in this process alone",
            "arena leaderboard quickstart-lovat --method luck",
        ),
    )
    parser.add_argument("name", help="tournament name (its folder under --leaderboards)")
    parser.add_argument("--workers", type=integer(1, MAX_WORKERS, "workers"),
                        help="processes that compute the corrections (default: one per core this process may use; "
                             "the result is the same for any number)")
    add_leaderboards_dir(parser)
    add_plugins_dir(parser)
    parser.set_defaults(run=run_luck)


def run_luck(args: argparse.Namespace) -> int:
    """Compute the missing corrections, storing them as they come; say how many and how to rate with them."""
    loaded = trusted_plugins(args)
    path = store_path(args.leaderboards, args.name)
    if not path.is_file():
        raise CliError(f"{path}: no tournament results there (run 'arena run CONFIG' first)", status=2)
    started = time.perf_counter()
    workers = args.workers or len(os.sched_getaffinity(0))
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    display = LazyProgress(*columns, console=Console(stderr=True), transient=True)
    tasks: list[TaskID] = []  # the bar appears with the first batch stored

    def progress(done: int, total: int) -> None:
        if not tasks:
            tasks.append(display.add_task("luck corrections", total=total))
        display.update(tasks[0], completed=done)

    try:
        with display, Store(path) as store:
            config = store.meta("config")
            if not isinstance(config, dict) or not isinstance(config.get("game"), str):
                raise CliError(f"{path}: the stored tournament config is missing or damaged (no game)", status=1)
            game = game_named(loaded, config["game"])
            if game.info.luck is None:
                print(f"{args.name}: {game.info.title} declares no chance after the deal to value: there is nothing "
                      "to compute, and the luck method rates the raw seats beaten")
                return 0
            computed = fill_luck(store, loaded, game, progress, workers)
    except (StoreError, TournamentError) as error:
        raise failure(error) from None
    done = (f"computed the luck correction of {computed} matches in {time.perf_counter() - started:.1f} s" if computed
            else "every stored match has its luck correction already")
    print(f"{args.name}: {done}; rate with them: "
          f"{follow_up(args, 'leaderboard', args.name, '--method', 'luck', plugins=False)}")
    return 0
