"""``arena replay``: re-run a match record through the engine, check it, and optionally print its log."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.cli.common import (
    CliError,
    add_command,
    add_leaderboards_dir,
    add_plugins_dir,
    check_output_file,
    print_json,
    registry,
)
from arena.cli.play import result_json, wrapped
from arena.cli.results import stored_record
from arena.games.base import Game, InvalidSetup, to_json
from arena.records import (
    RecordError,
    check_chance_used,
    check_result,
    game_for_record,
    load_record,
    replay,
    save_record,
)
from arena.records.log import header_lines, log_steps, seat_names
from arena.records.seeding import derive_seed
from arena.referee import MOVE, PHASES, RefereeError, SeatPlan, play_match
from arena.seating.substitute import SUBSTITUTE


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    """Register ``arena replay``."""
    parser = add_command(
        subparsers,
        "replay",
        help="re-run a match record and check it; print its log",
        description=(
            "Re-run a match record through the engine, check that every action is legal and that the result "
            "matches, and print the result. A hand-written record without a result is played out by the agents "
            "it names (random where none is named) and scored. With --log, print the match step by step as "
            "'arena play' does (with --hands, every seat's hand at the start and as it changes). With --match, "
            "the argument is a tournament NAME and the record is that match from its store."
        ),
        examples=(
            "arena replay game.json",
            "arena replay my-deal.json --json --save played.json",
            "arena replay game.json --log --hands",
            "arena replay quickstart-lorum --match t0000-b00-r1 --log",
            "arena replay game.json --picture table.svg --at 20",
            "arena replay game.json --svg --seat 1 > seat1.svg",
            "arena replay my-deal.json --legal --at 12",
        ),
    )
    parser.add_argument("source", metavar="FILE|NAME",
                        help="the record (JSON, see docs/records.md), or with --match a tournament name")
    parser.add_argument("--match", metavar="ID",
                        help="replay match ID of tournament NAME (ids: 'arena export NAME' lists them)")
    parser.add_argument("--log", action="store_true", help="print the match step by step before the result")
    parser.add_argument("--hands", action="store_true",
                        help="with --log: show every seat's hand at the start and whenever it changes")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--save", type=Path, metavar="FILE", help="save the completed record to FILE")
    parser.add_argument("--svg", action="store_true",
                        help="print the table as an SVG picture instead of the result (every hand shown)")
    parser.add_argument("--picture", type=Path, metavar="FILE", help="also write the table's SVG picture to FILE")
    parser.add_argument("--legal", action="store_true",
                        help="print whose decision it is and its legal actions, as a record writes them, instead "
                             "of playing on (after the record's actions, or with --at after the first MOVE)")
    parser.add_argument("--at", type=int, metavar="MOVE",
                        help="with --svg, --picture or --legal: the table after the first MOVE actions (default: "
                             "the end)")
    parser.add_argument("--seat", type=int, metavar="SEAT",
                        help="with --svg or --picture: as SEAT sees it (its own hand only), not as a spectator")
    add_leaderboards_dir(parser)
    add_plugins_dir(parser)
    parser.set_defaults(run=run)


def _load(args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    """The record and how errors name it: the file, or ``NAME match ID``."""
    if args.match is not None:
        return stored_record(args.leaderboards, args.source, args.match), f"{args.source} match {args.match}"
    path = Path(args.source)
    try:
        return load_record(path), args.source
    except RecordError as error:
        # No file to read is a wrong request, as for a missing config; a file that is no good record is a failure.
        raise CliError(f"{args.source}: {error}", status=1 if path.is_file() else 2) from None


def run(args: argparse.Namespace) -> int:
    """Replay the record; exit 1 with one line on any inconsistency."""
    check_output_file(args.save, "--save")
    if args.hands and not args.log:
        raise CliError("--hands shows hands in the log: add --log")
    if args.log and args.json:
        raise CliError("--log prints a readable log and --json a JSON result: choose one")
    if args.svg and (args.log or args.json):
        raise CliError("--svg prints a picture instead of the result: leave out --log and --json")
    if args.legal and (args.log or args.svg or args.picture or args.save):
        raise CliError("--legal prints the decision at one point instead of playing on: leave out --log, --svg, "
                       "--picture and --save")
    if args.seat is not None and not (args.svg or args.picture):
        raise CliError("--seat chooses what the picture shows: add --svg or --picture FILE")
    if args.at is not None and not (args.svg or args.picture or args.legal):
        raise CliError("--at chooses the point shown: add --svg, --picture FILE or --legal")
    check_output_file(args.picture, "--picture")
    if args.picture is not None and args.picture.suffix.lower() != ".svg":  # x.png would hold SVG no viewer opens
        raise CliError(f"--picture {args.picture}: the picture is SVG: name the file .svg")
    data, where = _load(args)
    _check_faults(data.get("faults", []), where)  # with or without --log: a record that holds together
    loaded = registry(args)
    try:
        game = game_for_record(data, loaded.games)
        replayed = replay(data, game)
        if replayed.state.is_over():
            check_result(data, replayed.state.result())
        elif "result" in data:
            raise RecordError("the record has a result but its actions stop before the game is over")
    except RecordError as error:
        raise CliError(f"{where}: {error}", status=1) from None
    if args.legal:
        decision = decision_at(game, data, args.at)
        if args.json:
            print_json(decision)
        else:
            print_decision(where, decision)
        return 0
    options = game.info.resolve_options(None, data.get("options", {}))
    # Play on from the recorded prefix (no-op when the record is complete): the
    # agents named in the record take the remaining decisions.
    names = [seat.get("agent", SUBSTITUTE) for seat in data.get("seats", [])] or [SUBSTITUTE] * options["players"]
    if len(names) != options["players"]:
        raise CliError(f"{where}: 'seats' lists {len(names)} seats for a {options['players']}-player game", 1)
    # A seat names its entry ("greedy-2") and the plugin behind it ("greedy"); a hand-written one may name
    # only an agent.
    plugins = [seat.get("plugin") or seat.get("agent", SUBSTITUTE) for seat in data.get("seats", [])] or names
    seats = []
    for seat, (name, plugin) in enumerate(zip(names, plugins)):
        if plugin not in loaded.agents and not replayed.state.is_over():
            try:
                loaded.agent(plugin)
            except KeyError as error:
                raise CliError(f"{where}: seat {seat}: {error.args[0]}; it must play the rest of the record",
                               status=1) from None
        # In a complete record nobody decides anything, so an agent that is not installed does no harm.
        spec = loaded.agents.get(plugin) or loaded.agent(SUBSTITUTE)
        seats.append(SeatPlan(name=name, spec=spec, seed=derive_seed(data["seed"], "agent", seat)))
    try:
        match = play_match(game, options, data["seed"], seats, script=data.get("chance", []), prefix=replayed.actions)
        check_chance_used(data.get("chance", []), match.record["chance"])  # a played-out game used them all
    except (RefereeError, RecordError) as error:
        raise CliError(f"{where}: {error}", status=1) from None
    except InvalidSetup as error:  # a scripted chance outcome that only the play-out reached is wrong
        raise CliError(f"{where}: playing the record out: {error}", status=1) from None
    if args.save is not None:
        try:
            save_record(match.record, args.save)
        except OSError as error:
            raise CliError(f"--save {args.save}: {error.strerror or error}", status=1) from None
    if args.svg or args.picture:
        picture = table_picture(game, match.record, args.at, args.seat)
        if args.svg:
            print(picture)
            return 0
        try:
            args.picture.write_text(picture + "\n", encoding="utf-8")
        except OSError as error:
            raise CliError(f"--picture {args.picture}: {error.strerror or error}", status=1) from None
    if args.log:
        # The recorded faults stand at the recorded moves; a play-out adds its own after them.
        faults = [*data.get("faults", []), *match.record["faults"]]
        print_log(game, {**match.record, "faults": faults}, hands=args.hands)
        print()
    if args.json:
        print_json(result_json(game, match))
    else:
        count = len(data["actions"])
        played_on = len(match.record["actions"]) - count
        tail = f"; {played_on} more played out by the seats' agents" if played_on else ""
        print(f"{where}: {count} recorded action{'s' if count != 1 else ''} legal{tail}")
        result = match.record["result"]
        for seat, entry in enumerate(match.record["seats"]):
            print(f"  seat {seat} ({entry['agent']}): score {result['scores'][seat]}, rank {result['ranks'][seat]}")
        for what, path in (("record", args.save), ("picture", args.picture)):
            if path is not None:  # as 'arena play --record' says: what was written, and where
                print(f"{what} saved to {path}")
    return 0


def _check_faults(faults: list[Any], where: str) -> None:
    """Check the record's faults are what the log prints: a ``CliError`` names the first bad one."""
    for index, fault in enumerate(faults):
        if not (isinstance(fault, dict) and all(type(fault.get(key)) is int for key in ("seat", "move"))
                and all(isinstance(fault.get(key), str) for key in ("kind", "message"))):
            raise CliError(f"{where}: fault {index} must be an object with integer 'seat' and 'move' and string "
                           "'kind' and 'message'", status=1)
        if fault.get("phase", MOVE) not in PHASES:  # a record from before phases has none: read the old way
            raise CliError(f"{where}: fault {index}: 'phase' must be one of {', '.join(PHASES)}", status=1)


LEGAL_SHOWN = 24
"""Most legal actions ``--legal`` prints per seat (``--json`` gives every one)."""


def decision_at(game: Game, record: Mapping[str, Any], at: int | None) -> dict[str, Any]:
    """The decision after the first ``at`` actions of a checked ``record`` (all of them if None), as JSON data:
    ``actions`` (how many were applied), ``over``, and per seat to move its ``phase``, ``legal`` actions as a
    record writes them, ``hand``, and where the game describes the legal set by a rule instead of listing it
    (Lovat's keep) ``told``: what the seat is told, as a person playing it reads it (the rule's numbers)."""
    actions = len(record["actions"])
    if at is not None and not 0 <= at <= actions:
        raise CliError(f"--at {at}: the record has {actions} action{'s' if actions != 1 else ''}: choose 0 to "
                       f"{actions}")
    applied = actions if at is None else at
    state = replay({**record, "actions": record["actions"][:applied]}, game).state
    seats = []
    for seat in state.to_move():
        observation = state.observation(seat)
        entry = {"seat": seat, "phase": observation.phase, "legal": [to_json(action) for action in observation.legal],
                 "hand": game.describe_hand(observation)}
        if not observation.legal:
            entry["told"] = game.describe_observation(observation)
        seats.append(entry)
    return {"actions": applied, "over": state.is_over(), "to_move": seats}


def print_decision(where: str, decision: Mapping[str, Any]) -> None:
    """``decision_at``'s decision as lines: who decides, in which phase, and what they may write."""
    applied = decision["actions"]
    point = f"after {applied} action{'s' if applied != 1 else ''}"
    if decision["over"]:
        print(f"{where}: {point} the game is over")
        return
    for entry in decision["to_move"]:
        print(f"{where}: {point}, seat {entry['seat']} decides ({entry['phase']} phase)")
        if entry["hand"]:
            print(f"  hand: {entry['hand']}")
        legal = [json.dumps(action) for action in entry["legal"]]
        if not legal:
            print("  legal: described by a rule, not listed (docs/rules/); what the seat is told:")
            for line in entry.get("told", ()):
                print(f"    {line}")
            continue
        more = f", ... ({len(legal)} in all; --json lists every one)" if len(legal) > LEGAL_SHOWN else ""
        print(f"  legal: {', '.join(legal[:LEGAL_SHOWN])}{more}")


def table_picture(game: Game, record: Mapping[str, Any], at: int | None, seat: int | None) -> str:
    """The SVG of the table after the first ``at`` actions of ``record`` (all of them if None), as ``seat`` sees
    it or (None) as a spectator seeing every hand; a ``CliError`` for a move or seat out of range, or a game
    that draws nothing."""
    actions = len(record["actions"])
    if at is not None and not 0 <= at <= actions:
        raise CliError(f"--at {at}: the match has moves 0 to {actions}")
    players = len(record["seats"])
    if seat is not None and not 0 <= seat < players:
        raise CliError(f"--seat {seat}: seats are 0 to {players - 1}")
    state = replay({**record, "actions": record["actions"][:actions if at is None else at]}, game).state
    where = "the end" if at is None or at == actions else f"move {at}"
    who = "every hand" if seat is None else f"as seat {seat} sees it"
    picture = game.draw(state, seat, True, seat_names(record), title=f"{game.info.title}, {where} ({who})")
    if picture is None:
        raise CliError(f"{game.info.title} draws no pictures of its table")
    return picture


def print_log(game: Game, record: Mapping[str, Any], hands: bool) -> None:
    """The match step by step (``arena.records.log``), as ``arena play`` prints it, plus each seat's decisions
    that no public event shows (Lovat's secret keep), each fault at the move where the substitute took over,
    and with ``hands`` every seat's hand at the start and whenever it changes.

    ``record`` has been replayed and checked already, so every action here is legal.
    """
    names = seat_names(record)
    for line in header_lines(game, record["seed"], names):
        print(line)
    for step in log_steps(game, record, hands=hands):
        for line in step.terminal_lines(names):
            print(wrapped(line))
