"""``arena check-agent``: the conformance kit on the command line (``arena.conformance``)."""

from __future__ import annotations

import argparse
import secrets

from rich.console import Console

from arena.cli.common import CliError, add_command, add_plugins_dir, agent_for_game, game_named, print_json, registry
from arena.cli.numbers import MAX_CHECK_MATCHES, MAX_SECONDS, integer, megabytes, seconds, seed_value
from arena.conformance.agents import CHECK_MODES, DEFAULT_MATCHES, check_agent
from arena.conformance.report import count_of
from arena.referee import Limits, RefereeError
from arena.seating.options import parse_assignments


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    """Register ``arena check-agent``."""
    parser = add_command(
        subparsers,
        "check-agent",
        help="check that an agent plays legally, in time and reproducibly",
        description=(
            "Play an agent at every supported player count against random opponents (or --opponents),\n"
            "then through every phase and case of the game (scripted deals and forced bidding reach the\n"
            "rare ones), under the tournament referee, print a coverage table, and report illegal or malformed "
            "actions, exceptions, timeouts,\n"
            "crashes, memory exhaustion, time per move (median and max), peak memory, and whether\n"
            "the same seed twice gives the same actions. A case the agent never decided in is a failure.\n"
            "Each problem says what to fix and how to reproduce it.\n\n"
            "Exit status: 0 if the agent passes, 1 if it fails."
        ),
        examples=(
            "arena check-agent greedy --game lovat",
            "arena check-agent my-agent --game lorum --matches 5 --seed 7",
            "arena check-agent my-agent --game lovat --plugins-dir my_plugins --json",
            "arena check-agent my-agent --game lovat --move-seconds 0.2   # a tighter limit",
            "arena check-agent my-agent --game lovat --players 4          # one player count",
            "arena check-agent search --game lorum --option iterations=40 --opponents greedy,random,greedy",
        ),
    )
    parser.add_argument("agent", metavar="NAME", help="the agent's registered name (see 'arena agents')")
    parser.add_argument("--game", required=True, help="game name (see 'arena games')")
    parser.add_argument("--matches", type=integer(1, MAX_CHECK_MATCHES, "matches"), default=DEFAULT_MATCHES,
                        help=f"matches per player count (default {DEFAULT_MATCHES})")
    parser.add_argument("--players", type=int, metavar="N",
                        help="check only this player count (default: every count the game allows)")
    parser.add_argument("--seed", type=seed_value, default=None,
                        help="seed the matches derive from, 0 to 2**63-1 (default: a fresh secret one, shown in "
                             "the report, so that an agent cannot tell a check's deals ahead)")
    parser.add_argument("--isolation", choices=CHECK_MODES, default=None,
                        help="run the agent in its own process with rlimits, in the full sandbox, or in-process "
                             "(default: as tournaments run it: sandboxed where 'arena doctor' reports a sandbox, "
                             "else isolated)")
    defaults = Limits()
    # The same bounds as a config's [limits] (arena.cli.numbers): a value out of them is a usage error.
    parser.add_argument("--move-seconds", type=seconds(positive=True), default=defaults.move_seconds, metavar="S",
                        help=f"per-move time limit, up to {MAX_SECONDS:g} (default {defaults.move_seconds:g})")
    parser.add_argument("--bank-seconds", type=seconds(positive=False), default=defaults.bank_seconds, metavar="S",
                        help=f"per-match time bank, 0 to {MAX_SECONDS:g} (default {defaults.bank_seconds:g})")
    parser.add_argument("--startup-seconds", type=seconds(positive=True), default=defaults.startup_seconds,
                        metavar="S", help=f"time to build the agent, up to {MAX_SECONDS:g} "
                                          f"(default {defaults.startup_seconds:g})")
    parser.add_argument("--memory-mb", type=megabytes, default=defaults.memory_mb, metavar="MB",
                        help=f"memory an isolated agent may allocate (default {defaults.memory_mb})")
    parser.add_argument("--option", action="append", metavar="KEY=VALUE",
                        help="an option for the checked agent (repeatable; see 'arena agents NAME')")
    parser.add_argument("--opponents", metavar="A,B,C",
                        help="agents for the other seats, in turn (default: random)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    add_plugins_dir(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run the checks; exit 0 on pass, 1 on fail."""
    try:
        limits = Limits(move_seconds=args.move_seconds, bank_seconds=args.bank_seconds,
                        startup_seconds=args.startup_seconds, memory_mb=args.memory_mb)
    except ValueError as error:
        raise CliError(str(error)) from None
    loaded = registry(args)
    game = game_named(loaded, args.game)
    spec = agent_for_game(loaded, args.agent, game)
    player_counts = None if args.players is None else [args.players]
    opponents = None
    if args.opponents is not None:
        opponents = [name.strip() for name in args.opponents.split(",")]
        if not all(opponents):
            raise CliError(f"--opponents {args.opponents!r}: an agent name is empty")
    try:
        options = {key: spec.options.parse(key, text, game.info.name)
                   for key, text in parse_assignments(args.option, "--option")}
        seed = args.seed if args.seed is not None else secrets.randbits(63)
        # A check takes seconds to minutes: a terminal sees it going (a pipe or a file gets only the report).
        with Console(stderr=True).status(f"checking {spec.name} on {game.info.name}") as status:
            def progress(played: int) -> None:
                status.update(f"checking {spec.name} on {game.info.name}: {count_of(played, 'match', 'matches')} "
                              "played")

            report = check_agent(spec, game, matches=args.matches, seed=seed, player_counts=player_counts,
                                 limits=limits, isolation=args.isolation, registry=loaded,
                                 plugins_dir=args.plugins_dir, options=options, opponents=opponents,
                                 on_match=progress)
    except (ValueError, RefereeError) as error:
        raise CliError(str(error)) from None
    if args.json:
        print_json(report.to_json())
    else:
        print(report.summary())
    return 0 if report.passed else 1
