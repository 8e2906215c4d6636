"""``arena ladder``: run a ladder, add a checked entry to it, retire one, show its history (docs/ladder.md)."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import Any

from rich import box
from rich.progress import BarColumn, MofNCompleteColumn, TaskID, TextColumn
from rich.table import Table

from arena.cli import stopping
from arena.cli.addresses import cluster_address
from arena.cli.common import (
    CliError,
    add_command,
    add_leaderboards_dir,
    add_plugins_dir,
    agent_for_game,
    failure,
    follow_up,
    game_named,
    literal,
    print_json,
    publish_leaderboard,
    registry,
)
from arena.cli.console import output_console
from arena.cli.numbers import MAX_CHECK_MATCHES, MAX_WORKERS, integer
from arena.cli.progress import LazyProgress
from arena.conformance.agents import DEFAULT_MATCHES, check_agent
from arena.ladder.config import is_ladder_file, load_ladder_config
from arena.ladder.field import (
    LadderError,
    add_entry,
    check_entry_name,
    open_ladder,
    read_ladder,
    retire_entry,
    same_agent,
)
from arena.ladder.history import ladder_history, rating_text, write_history
from arena.ladder.runner import SETTLED, LadderProgress, LadderRunSummary, run_ladder, summary_json
from arena.ladder.standing import DELTA, Standing
from arena.plugin_system.data import VERSION_MAX, printable
from arena.referee import ISOLATION_MODES, RefereeError
from arena.seating.options import OptionError, parse_assignments
from arena.site.build import PAGES
from arena.tournament.config import MAX_MATCHES, AgentEntry, ConfigError
from arena.tournament.runner import TournamentError, entry_versions
from arena.tournament.store import StoreError


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    """Register ``arena ladder`` and its commands."""
    ladder = add_command(
        subparsers, "ladder", help="a living ladder: add agents over time, rated without replaying the field",
        description=(
            "A ladder is a standing field that entries join and leave. Each run chooses duplicate blocks where "
            "they tell the most about the ranks still open (newcomers first), stores every match in "
            "leaderboards/<name>/results.sqlite, and records every entry's rating after each batch. "
            "'arena leaderboard NAME' reads a ladder as a tournament. See docs/ladder.md."
        ),
        examples=(
            "arena ladder run configs/ladder-lovat.toml --matches 200",
            "arena ladder add ladder-lovat search-80 --plugin search --option iterations=80",
            "arena ladder run ladder-lovat --until settled",
            "arena ladder retire ladder-lovat search-20",
            "arena ladder history ladder-lovat --entry search-80",
        ),
    )
    commands = ladder.add_subparsers(dest="ladder_command", metavar="COMMAND", required=True)
    _add_run(commands)
    _add_add(commands)
    _add_retire(commands)
    _add_history(commands)


def _add_run(commands: argparse._SubParsersAction) -> None:
    parser = add_command(
        commands, "run", help="play a ladder: a number of matches, or until every rank is settled",
        description=(
            "Play ladder CONFIG (a config with format = \"ladder\", which starts the ladder the first time) or "
            "NAME (a ladder already started). Batches of duplicate blocks are chosen from a fit of every stored "
            "match, played (in this process, or on Ray as 'arena run' does), stored and rated; newcomers and "
            "open ranks first, every active entry keeping a fair share. --matches N plays N matches (whole "
            "blocks); --until settled stops once every active entry's test against each neighbour has a verdict "
            f"(ahead or behind, or level: neither ahead by {DELTA:g} Elo; a sequential test at the config's level "
            "that may be checked after every batch), within --matches or the config's budget. Killed? Run it "
            "again with --resume: the chosen blocks are finished, nothing is played twice."
        ),
        examples=(
            "arena ladder run configs/ladder-lovat.toml --matches 80",
            "arena ladder run ladder-lovat --until settled",
            "arena ladder run ladder-lovat --until settled --matches 400   # stop at 400 if not settled",
            "arena ladder run ladder-lovat --resume",
            "arena ladder run ladder-lovat --matches 2000 --workers 2      # on a local Ray of 2 workers",
        ),
    )
    parser.add_argument("ladder", metavar="CONFIG|NAME", help="a ladder config file, or a started ladder's name")
    parser.add_argument("--matches", type=integer(1, MAX_MATCHES, "matches"), metavar="N",
                        help="play at most N matches (whole blocks)")
    parser.add_argument("--until", choices=(SETTLED,), help="stop once every active entry's rank is settled")
    parser.add_argument("--resume", action="store_true", help="finish an interrupted run as it was asked")
    parser.add_argument("--workers", type=integer(1, MAX_WORKERS, "workers"),
                        help="play on a local Ray of this many workers (1: serially)")
    parser.add_argument("--address", type=cluster_address, help="join this Ray cluster (default: $RAY_ADDRESS)")
    parser.add_argument("--json", action="store_true", help="print a JSON summary instead of the live display")
    add_leaderboards_dir(parser)
    add_plugins_dir(parser)
    parser.set_defaults(run=run_run)


def _add_add(commands: argparse._SubParsersAction) -> None:
    parser = add_command(
        commands, "add", help="check an agent (the full check-agent, sandboxed) and add it to a ladder",
        description=(
            "Run the full 'arena check-agent' on agent PLUGIN at the ladder's table size (sandboxed where this "
            "machine has a sandbox, as check-agent runs it), and if it passes, add it to ladder NAME as entry "
            "ENTRY. Entries are versioned: a new version of an agent joins as a new entry under a new name "
            "(retire the old one if it should stop playing). The next 'arena ladder run' puts it first."
        ),
        examples=(
            "arena ladder add ladder-lovat search-80 --plugin search --option iterations=80",
            "arena ladder add ladder-lovat mine-1.0 --plugin mine --check-matches 5",
            "arena ladder add ladder-lovat mine-1.1 --plugin mine --plugins-dir my_plugins",
        ),
    )
    parser.add_argument("name", metavar="NAME", help="the ladder")
    parser.add_argument("entry", metavar="ENTRY", help="the new entry's name (letters, digits, _ . + -)")
    parser.add_argument("--plugin", required=True, metavar="AGENT", help="the registered agent (see 'arena agents')")
    parser.add_argument("--option", action="append", metavar="KEY=VALUE",
                        help="an option for the agent (repeatable; see 'arena agents AGENT')")
    parser.add_argument("--isolation", choices=ISOLATION_MODES,
                        help="where the entry runs in matches (default: the ladder's isolation)")
    parser.add_argument("--check-matches", type=integer(1, MAX_CHECK_MATCHES, "matches"), default=DEFAULT_MATCHES,
                        metavar="N",
                        help=f"check-agent matches per case (default {DEFAULT_MATCHES})")
    parser.add_argument("--json", action="store_true", help="print the check report and the entry as JSON")
    add_leaderboards_dir(parser)
    add_plugins_dir(parser)
    parser.set_defaults(run=run_add)


def _add_retire(commands: argparse._SubParsersAction) -> None:
    parser = add_command(
        commands, "retire", help="stop scheduling an entry; its matches and history stay",
        description=("Retire ENTRY from ladder NAME: no new block seats it; its stored matches keep counting in "
                     "every rating, and its history stays."),
        examples=("arena ladder retire ladder-lovat search-20",
                  "arena ladder retire ladder-lovat mine-1.0 --plugins-dir my_plugins   # its site replays my game"),
    )
    parser.add_argument("name", metavar="NAME", help="the ladder")
    parser.add_argument("entry", metavar="ENTRY", help="the entry to retire")
    add_leaderboards_dir(parser)
    add_plugins_dir(parser)
    parser.set_defaults(run=run_retire)


def _add_history(commands: argparse._SubParsersAction) -> None:
    parser = add_command(
        commands, "history", help="each entry's rating over time, and a newcomer's path to settled",
        description=("Print ladder NAME's entries (when each joined, left and settled) or, with --entry, one "
                     "entry's rating, interval, rank and status after every batch since it joined. A query: it "
                     "writes nothing; --json prints the whole story (runs keep the recent one in "
                     "leaderboards/NAME/ladder.json)."),
        examples=("arena ladder history ladder-lovat", "arena ladder history ladder-lovat --entry search-80",
                  "arena ladder history ladder-lovat --json"),
    )
    parser.add_argument("name", metavar="NAME", help="the ladder")
    parser.add_argument("--entry", metavar="ENTRY", help="one entry's path")
    parser.add_argument("--json", action="store_true", help="print the whole history as JSON")
    add_leaderboards_dir(parser)
    parser.set_defaults(run=run_history)


def run_run(args: argparse.Namespace) -> int:
    """Play the ladder, then write its leaderboard files and print where it stands."""
    target: Any = args.ladder
    if is_ladder_file(Path(args.ladder)):
        loaded = registry(args)
        try:
            target = load_ladder_config(
                args.ladder, {name: game.info for name, game in loaded.games.items()},
                {name: set(spec.games) for name, spec in loaded.agents.items()},
                agent_options={name: spec.options for name, spec in loaded.agents.items()})
        except ConfigError as error:
            raise CliError(str(error)) from None
    console = output_console(stderr=args.json)
    try:
        with LazyProgress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TextColumn("{task.fields[status]}"), console=console, disable=args.json) as progress:
            tasks: list[TaskID] = []

            def update(state: LadderProgress) -> None:
                if not tasks:
                    tasks.append(progress.add_task("matches", total=state.limit, status=""))
                leader = f" · leader {state.leader}" if state.leader else ""
                progress.update(tasks[0], completed=state.played, total=state.limit,
                                status=f"batch {state.batch} · settled {state.settled}/{state.active}{leader}")

            summary = run_ladder(target, leaderboards=args.leaderboards, plugins_dir=args.plugins_dir,
                                 matches=args.matches, until=args.until, resume=args.resume, workers=args.workers,
                                 address=args.address, on_progress=update)
    except (LadderError, StoreError, TournamentError) as error:
        raise failure(error) from None
    except KeyboardInterrupt as interrupt:  # Ctrl-C, SIGTERM or SIGHUP: the run's clean-up has run
        resume = follow_up(args, "ladder", "run", _name(target), "--resume")
        raise CliError(f"{stopping.describe(interrupt)}; run '{resume}' to finish the run",
                       status=stopping.exit_status(interrupt)) from None
    published = publish_leaderboard(args, summary.ladder.config.tournament)
    if args.json:
        print_json({**summary_json(summary), "files": {name: str(path) for name, path in published.files.items()}})
        return 0
    console.print(f"run {summary.run}: {summary.played} matches ({OUTCOME_WORDS[summary.outcome]}) in "
                  f"{summary.seconds:.1f} s; {summary.stored} stored in {args.leaderboards / summary.name}")
    console.print(standing_table(summary))
    console.print(f"leaderboard: {follow_up(args, 'leaderboard', summary.name, plugins=False)}; "
                  f"history: {follow_up(args, 'ladder', 'history', summary.name, plugins=False)}")
    return 0


OUTCOME_WORDS = {"settled": "every rank settled", "matches": "as many as asked", "budget": "the budget spent, "
                 "ranks still open"}
"""How a run's outcome (``LadderRunSummary.outcome``, a word in the JSON) reads in the summary line."""


def _refresh_files(args: argparse.Namespace, config: Any) -> None:
    """After an add or a retire, rebuild the site (with ``ladder.json``) if a run has built one, else write
    ``ladder.json`` alone (no site before any match is played)."""
    if (args.leaderboards / config.name / PAGES[0]).exists():
        publish_leaderboard(args, config)
    else:
        write_history(args.leaderboards, args.name)


def _name(target: Any) -> str:
    return target if isinstance(target, str) else target.name


def _against_next(standing: Standing, name: str, below: str, level: float) -> str:
    """The verdict of ``name``'s test against the entry below it, or how near the open test is to one."""
    verdict = standing.verdict(name, below, level)
    return verdict if verdict is not None else f"open ({standing.progress(name, below, level):.2f})"


def standing_table(summary: LadderRunSummary) -> Table:
    """The active field after a run: rank, entry, rating and interval, blocks, P against the next, status."""
    settings = summary.ladder.settings
    standing = summary.standing
    # "level" is both the config key (the test's confidence) and a verdict: say each in its own words.
    table = Table(title=f"{summary.name}: {settings.method}, settled when the test with each neighbour (confidence "
                        f"{settings.level:g}) has a verdict (ahead, behind, or level: neither {DELTA:g} Elo "
                        f"ahead) and {settings.min_blocks}+ blocks",
                  box=box.SIMPLE_HEAD)
    for column in ("rank", "entry", "rating", "interval", "blocks", "vs next", "status"):
        table.add_column(column, justify="left" if column in ("entry", "status") else "right")
    order = standing.order()
    for rank, name in enumerate(order, start=1):
        rating = standing.ratings.get(name)
        low, high = standing.bounds.get(name, (None, None))
        after = _against_next(standing, name, order[rank], settings.level) if rank < len(order) else None
        table.add_row(str(rank), name, "-" if rating is None else f"{rating:.0f}",
                      "-" if low is None or high is None else f"[{low:.0f}, {high:.0f}]",
                      str(standing.blocks.get(name, 0)), "-" if after is None else after,
                      standing.status(name, settings.level, settings.min_blocks))
    return table


def run_add(args: argparse.Namespace) -> int:
    """Check the agent, then add the entry."""
    try:
        store = open_ladder(args.leaderboards, args.name)
    except (LadderError, StoreError) as error:
        raise failure(error) from None
    with store:
        try:
            ladder = read_ladder(store)
            check_entry_name(ladder, args.entry)
        except LadderError as error:
            raise CliError(str(error)) from None
        config = ladder.config.tournament
        loaded = registry(args)
        game = game_named(loaded, config.game)
        spec = agent_for_game(loaded, args.plugin, game)
        try:
            options = {key: spec.options.parse(key, text, game.info.name)
                       for key, text in parse_assignments(args.option, "--option")}
            entry = AgentEntry(name=args.entry, plugin=spec.name, options=options, isolation=args.isolation)
            version = entry_versions(_with(config, entry), loaded)[entry.name]
        except (OptionError, TournamentError) as error:
            raise CliError(str(error)) from None
        twin = same_agent(ladder, store.store.versions(), entry, version)
        shown = printable(version["version"], VERSION_MAX)  # the plugin's text: control characters escaped
        if twin is not None:
            raise CliError(f"entry {twin!r} of ladder {ladder.name!r} is already {spec.name} {shown} "
                           "with these options and files; a new entry needs a new version or other options")
        try:
            report = check_agent(spec, game, matches=args.check_matches, seed=0, player_counts=[config.seats],
                                 limits=config.limits, registry=loaded, plugins_dir=args.plugins_dir, options=options)
        except (ValueError, RefereeError) as error:
            raise CliError(str(error)) from None
        if not report.passed:
            if not args.json:
                print(report.summary())
            raise CliError(f"{spec.name} failed its check (see above), so {args.entry!r} was not added; fix it, "
                           f"then add it again (try 'arena check-agent {spec.name} --game {config.game}')", status=1)
        add_entry(store, entry, version, {"check": "passed", "version": version["version"],
                                          "files": version["files"], "isolation": report.isolation,
                                          "matches": len(report.matches)})
        active = len(read_ladder(store).active)
    _refresh_files(args, config)
    if args.json:
        print_json({"ladder": args.name, "entry": entry.to_json(), "version": version, "active": active,
                    "check": report.to_json()})
    else:
        print(f"{args.entry} ({spec.name} {shown}) passed its check ({len(report.matches)} matches, "
              f"{report.isolation}) and joined ladder {args.name} ({active} active entries); "
              f"'{follow_up(args, 'ladder', 'run', args.name, '--until', 'settled')}' rates it")
    return 0


def _with(config: Any, entry: AgentEntry) -> Any:
    """``config`` with ``entry`` as its only agent (to read the entry's version as a run will)."""
    return dataclasses.replace(config, agents=(entry,))


def run_retire(args: argparse.Namespace) -> int:
    """Retire the entry."""
    try:
        with open_ladder(args.leaderboards, args.name) as store:
            ladder = read_ladder(store)
            retire_entry(store, ladder, args.entry)
            active = len(ladder.active) - 1
            seats = ladder.config.seats
    except (LadderError, StoreError) as error:
        raise failure(error) from None
    _refresh_files(args, ladder.config.tournament)
    note = "" if active >= seats else f"; tables of {seats} need {seats}: add entries before the next run"
    print(f"{args.entry} retired from ladder {args.name}: its matches and history stay ({active} active{note})")
    return 0


def run_history(args: argparse.Namespace) -> int:
    """Print the history."""
    try:
        history = ladder_history(args.leaderboards, args.name)
    except (LadderError, StoreError) as error:
        raise failure(error) from None
    entries = history["entries"]
    if args.entry is not None:
        found = [entry for entry in entries if entry["name"] == args.entry]
        if not found:
            known = ", ".join(entry["name"] for entry in entries)
            raise CliError(f"ladder {args.name!r} has no entry {args.entry!r} (entries: {known})")
        entries = found
    if args.json:
        print_json(history if args.entry is None else entries[0])
        return 0
    console = output_console()
    if args.entry is None:
        table = Table(title=f"{args.name}: entries", box=box.SIMPLE_HEAD)
        for column in ("entry", "agent", "joined after", "left after", "settled after", "status", "rating"):
            table.add_column(column)
        for entry in entries:
            table.add_row(entry["name"], literal(f"{entry['plugin']} {entry['version'] or ''}".strip()),
                          f"{entry['added_after']} matches", _matches(entry["retired_after"]),
                          _matches(entry["settled_after"]), entry["status"], rating_text(entry))
        console.print(table)
        return 0
    entry = entries[0]
    table = Table(title=f"{args.name}: {entry['name']} (joined after {entry['added_after']} matches)",
                  box=box.SIMPLE_HEAD)
    for column in ("batch", "matches", "rating", "interval", "rank", "blocks", "status"):
        table.add_column(column, justify="left" if column == "status" else "right")
    for point in entry["path"]:
        rating = point["rating"]
        table.add_row(str(point["batch"]), str(point["matches"]), "-" if rating is None else f"{rating:.0f}",
                      "-" if rating is None else f"[{point['lower']:.0f}, {point['upper']:.0f}]",
                      "-" if point["rank"] is None else str(point["rank"]), str(point["blocks"]), point["status"])
    console.print(table)
    return 0


def _matches(value: int | None) -> str:
    return "-" if value is None else f"{value} matches"

