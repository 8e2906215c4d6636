"""``arena replay``: re-run a match record through the engine and check it."""

from __future__ import annotations

import argparse
from pathlib import Path

from arena.cli.common import CliError, add_command, add_plugins_dir, check_output_file, print_json, registry
from arena.cli.play import result_json
from arena.games.base import InvalidSetup
from arena.records import (RecordError, check_chance_used, check_result, game_for_record, load_record, replay,
                           save_record)
from arena.referee import RefereeError, SeatPlan, play_match
from arena.seeding import derive_seed


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    """Register ``arena replay``."""
    parser = add_command(
        subparsers,
        "replay",
        help="re-run a match record and check it",
        description=(
            "Re-run a match record through the engine, check that every action is legal and that the result "
            "matches, and print the result. A hand-written record without a result is played out by the agents "
            "it names (random where none is named) and scored."
        ),
        examples=("arena replay game.json", "arena replay my-deal.json --json --save played.json"),
    )
    parser.add_argument("file", type=Path, help="the record (JSON, see docs/records.md)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--save", type=Path, metavar="FILE", help="save the completed record to FILE")
    add_plugins_dir(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Replay the record; exit 1 with one line on any inconsistency."""
    check_output_file(args.save, "--save")
    loaded = registry(args)
    try:
        data = load_record(args.file)
        game = game_for_record(data, loaded.games)
        replayed = replay(data, game)
        if replayed.state.is_over():
            check_result(data, replayed.state.result())
        elif "result" in data:
            raise RecordError("the record has a result but its actions stop before the game is over")
    except RecordError as error:
        raise CliError(f"{args.file}: {error}", status=1) from None
    options = game.info.resolve_options(None, data.get("options", {}))
    # Play on from the recorded prefix (no-op when the record is complete): the
    # agents named in the record take the remaining decisions.
    names = [seat.get("agent", "random") for seat in data.get("seats", [])] or ["random"] * options["players"]
    if len(names) != options["players"]:
        raise CliError(f"{args.file}: 'seats' lists {len(names)} seats for a {options['players']}-player game", 1)
    # A seat names its entry ("greedy-2") and the plugin behind it ("greedy"); a hand-written one may name
    # only an agent.
    plugins = [seat.get("plugin") or seat.get("agent", "random") for seat in data.get("seats", [])] or names
    seats = []
    for seat, (name, plugin) in enumerate(zip(names, plugins)):
        if plugin not in loaded.agents and not replayed.state.is_over():
            try:
                loaded.agent(plugin)
            except KeyError as error:
                raise CliError(f"{args.file}: seat {seat}: {error.args[0]}; it must play the rest of the record",
                               status=1) from None
        # In a complete record nobody decides anything, so an agent that is not installed does no harm.
        spec = loaded.agents.get(plugin) or loaded.agent("random")
        seats.append(SeatPlan(name=name, spec=spec, seed=derive_seed(data["seed"], "agent", seat)))
    try:
        match = play_match(game, options, data["seed"], seats, substitute=loaded.agent("random"),
                           script=data.get("chance", []), prefix=replayed.actions)
        check_chance_used(data.get("chance", []), match.record["chance"])  # a played-out game used them all
    except (RefereeError, RecordError) as error:
        raise CliError(f"{args.file}: {error}", status=1) from None
    except InvalidSetup as error:  # a scripted chance outcome that only the play-out reached is wrong
        raise CliError(f"{args.file}: playing the record out: {error}", status=1) from None
    if args.save is not None:
        try:
            save_record(match.record, args.save)
        except OSError as error:
            raise CliError(f"--save {args.save}: {error.strerror or error}", status=1) from None
    if args.json:
        print_json(result_json(game, match))
    else:
        count = len(data["actions"])
        played_on = len(match.record["actions"]) - count
        tail = f"; {played_on} more played out by the seats' agents" if played_on else ""
        print(f"{args.file}: {count} recorded action{'s' if count != 1 else ''} legal{tail}")
        result = match.record["result"]
        for seat, entry in enumerate(match.record["seats"]):
            print(f"  seat {seat} ({entry['agent']}): score {result['scores'][seat]}, rank {result['ranks'][seat]}")
    return 0
