"""``arena play``: play one game among installed agents and print a readable log."""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.agent import AgentSpec
from arena.cli.common import (
    CliError,
    add_command,
    add_plugins_dir,
    agent_for_game,
    check_output_file,
    game_named,
    print_json,
    registry,
)
from arena.cli.human import HumanAgent, InputEnded
from arena.cli.numbers import seed_value
from arena.games.base import Game, GameError
from arena.plugin_system.loading import Registry
from arena.records import save_record
from arena.records.log import fault_line, fault_when, header_lines
from arena.records.seeding import derive_seed
from arena.referee import MatchResult, RefereeError, SeatPlan, play_match
from arena.seating.options import OptionError, parse_assignments
from arena.seating.substitute import SUBSTITUTE

DEFAULT_AGENTS = ("greedy", SUBSTITUTE)
"""Seats cycle through these when --agents is not given (those that play the game; at least the random agent)."""

HUMAN = "human"
"""The seat name, in ``--agents``, of the seat a person plays (as ``--human SEAT`` does)."""


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    """Register ``arena play``."""
    parser = add_command(
        subparsers,
        "play",
        help="play one game and print a readable log",
        description=(
            "Play one game among installed agents and print a readable log, then the result.  A game's own "
            "options (see 'arena games') are set with --game-option NAME=VALUE, or as --NAME VALUE after the "
            "game's name."
        ),
        examples=(
            "arena play lovat --players 5 --seed 42",
            "arena play lovat --players 3 --agents greedy,random,random --record game.json",
            "arena play lorum --deals 8 --json",
            "arena play lorum --game-option deals=2",
            "arena play lovat --human 0        # you play seat 0 in the terminal",
            "arena play lorum --agents human,greedy,search,random",
            "arena play lorum --agents search,greedy,random,random --option search.iterations=80",
        ),
    )
    parser.add_argument("game", help="game name (see 'arena games')")
    parser.add_argument("--players", type=int, help="number of players (default: the game's; see 'arena games')")
    parser.add_argument("--game-option", action="append", metavar="NAME=VALUE", dest="game_option",
                        help="one of the game's options (repeatable; also --NAME VALUE; see 'arena games')")
    parser.add_argument("--seed", type=seed_value,
                        help="seed for the deal and every chance outcome, 0 to 2**63-1 (default: random, printed)")
    parser.add_argument("--agents", help="comma-separated agent per seat, or one name for every seat; 'human' is a "
                        "seat you play (default: greedy and random alternating)")
    parser.add_argument("--record", type=Path, metavar="FILE", help="save the match record (JSON) to FILE")
    parser.add_argument("--json", action="store_true", help="print the result as JSON instead of the log")
    parser.add_argument("--seat-logs", type=Path, metavar="DIR",
                        help="save what each agent in a process of its own printed (its standard output and error, "
                             "the last 64 KiB) to DIR/seatN.log; made if missing")
    parser.add_argument("--human", type=int, metavar="SEAT", help="play SEAT yourself in the terminal")
    parser.add_argument("--option", action="append", metavar="AGENT.KEY=VALUE",
                        help="an option for every seat of AGENT (repeatable; see 'arena agents AGENT')")
    add_plugins_dir(parser)
    parser.set_defaults(run=run, takes_game_options=True)


def run(args: argparse.Namespace) -> int:
    """Play the game and report it."""
    check_output_file(args.record, "--record")  # before the game, not after it
    _seat_logs_folder(args.seat_logs)
    loaded = registry(args)
    game = game_named(loaded, args.game)
    options = _options(game, args)
    players = options["players"]
    # A secret seed as wide as a config's: 32 bits let an agent search for it from its own seat's seed.
    seed = args.seed if args.seed is not None else secrets.randbits(63)
    names = _agent_names(args.agents, players, loaded, game)
    human = _human_seat(args.human, names, players)
    if human is not None:
        names[human] = HUMAN
    specs = {name: agent_for_game(loaded, name, game) for name in names if name != HUMAN}
    agent_options = _agent_options(args.option, specs, game)
    seats = [
        SeatPlan(name=HUMAN, spec=_human_spec(game, players, names), seed=0) if name == HUMAN else
        SeatPlan(name=name, spec=specs[name], options=agent_options.get(name, {}),
                 seed=derive_seed(seed, "agent", seat))
        for seat, name in enumerate(names)
    ]
    log = None if args.json else (lambda event: print_event(game, event, names))
    if log is not None:
        print_header(game, seed, names)
    try:
        match = play_match(game, options, seed, seats, on_event=log,
                           on_fault=None if log is None else (lambda fault: print(wrapped(fault_line(fault, names)))))
    except InputEnded as ended:
        raise CliError(f"{ended}; game abandoned", status=1) from None
    except RefereeError as error:
        raise CliError(str(error), status=1) from None
    loaded.match_finished(match.record)
    if args.record is not None:
        try:
            save_record(match.record, args.record)
        except OSError as error:
            raise CliError(f"--record {args.record}: {error.strerror}") from None
    saved = _save_seat_logs(args.seat_logs, match) if args.seat_logs is not None else []
    if args.json:
        print_json(result_json(game, match))
    else:
        _print_result(game, match)
        if args.record is not None:
            print(f"record saved to {args.record}")
        for seat, path in saved:
            print(f"output of seat {seat} ({names[seat]}) saved to {path}")
    return 0


def _seat_logs_folder(folder: Path | None) -> None:
    """Make ``--seat-logs`` 's folder before the game; a one-line error when it cannot be one."""
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise CliError(f"--seat-logs {folder}: is a file, not a folder") from None
    except OSError as error:
        raise CliError(f"--seat-logs {folder}: cannot make the folder: {error.strerror or error}") from None
    if not os.access(folder, os.W_OK):
        raise CliError(f"--seat-logs {folder}: not writable")


def _save_seat_logs(folder: Path, match: MatchResult) -> list[tuple[int, Path]]:
    """Write each seat's kept output that is not empty to ``folder``/seatN.log (an agent in the referee's own
    process has none: its prints went to this terminal); the seats and files written."""
    saved = []
    for seat, text in enumerate(match.logs):
        if text:
            path = folder / f"seat{seat}.log"
            try:
                path.write_text(text, encoding="utf-8")
            except OSError as error:
                raise CliError(f"--seat-logs {path}: {error.strerror or error}") from None
            saved.append((seat, path))
    return saved


def print_header(game: Game, seed: int, names: list[str]) -> None:
    """The log's first lines (as ``arena replay --log`` prints them): the game, its seed, who sits where."""
    for line in header_lines(game, seed, names):
        print(line)


def print_event(game: Game, event: Mapping[str, Any], names: list[str]) -> None:
    """One public event as a log line, its seats named (``arena replay --log`` prints the same lines)."""
    print(wrapped(game.describe_event(event, names)))


def wrapped(text: str) -> str:
    """A log line folded to the terminal's width, continuation lines indented (card ids never split).

    Output to a file or a pipe is left unfolded, one event per line, for grep.
    """
    if not sys.stdout.isatty():
        return text
    width = shutil.get_terminal_size().columns
    return "\n".join(textwrap.fill(line, width=width, subsequent_indent="    ", break_long_words=False,
                                    break_on_hyphens=False) for line in text.splitlines())


def _options(game: Game, args: argparse.Namespace) -> dict[str, Any]:
    """The game's options from ``--game-option NAME=VALUE`` and ``--NAME VALUE``, read and checked by the game."""
    try:
        flags = game_option_flags(getattr(args, "game_flags", []))
        example = next((f"{spec.name}={spec.default}" for spec in game.info.options),
                       f"players={game.info.player_counts[0]}")
        pairs = parse_assignments(args.game_option, "--game-option", example) + flags
    except OptionError as error:
        raise CliError(str(error)) from None
    declared = {spec.name: spec for spec in game.info.options}
    given: dict[str, Any] = {}
    try:
        for name, text in pairs:
            if name in given or (name == "players" and args.players is not None):
                raise CliError(f"game option {name!r} is given twice (as --{name} and --game-option {name}=..., "
                               "or twice over): give it once")
            if name == "players":  # --game-option players=N, as a config's [game_options] may say
                given[name] = _whole_number(text, "players")
            else:
                given[name] = declared[name].parse(text) if name in declared else text
        return game.info.resolve_options(args.players, given)
    except GameError as error:
        raise CliError(str(error)) from None


def _whole_number(text: str, name: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise CliError(f"{name} must be a whole number, not {text!r}") from None


def game_option_flags(words: list[str]) -> list[tuple[str, str]]:
    """``--NAME VALUE`` or ``--NAME=VALUE`` words the parser did not know, as (NAME, VALUE) game options."""
    pairs = []
    rest = list(words)
    while rest:
        word = rest.pop(0)
        if not word.startswith("--") or len(word) == 2:
            raise OptionError(f"unrecognized argument {word!r} (a game option is --NAME VALUE)")
        name, equals, value = word[2:].partition("=")
        if not equals:
            if not rest or rest[0].startswith("--"):
                raise OptionError(f"{word} needs a value (a game option: {word} VALUE)")
            value = rest.pop(0)
        pairs.append((name.replace("-", "_"), value))
    return pairs


def _agent_options(pairs: list[str] | None, specs: dict[str, AgentSpec], game: Game) -> dict[str, dict[str, Any]]:
    """``--option AGENT.KEY=VALUE`` values by agent, each checked against the agent's declared options."""
    chosen: dict[str, dict[str, Any]] = {}
    try:
        for target, text in parse_assignments(pairs, "--option"):
            agent, dot, key = target.rpartition(".")
            if not dot or not agent:
                raise OptionError(f"--option {target}={text}: expected AGENT.KEY=VALUE, e.g. search.iterations=80")
            if agent not in specs:
                raise OptionError(f"--option {target}={text}: no seat plays {agent!r} (seats: {', '.join(specs)})")
            options = specs[agent].options
            chosen.setdefault(agent, {})[key] = options.parse(key, text, game.info.name)
        for agent, given in chosen.items():
            specs[agent].options.check(given, agent, game.info.name)
    except OptionError as error:
        raise CliError(str(error)) from None
    return chosen


def _human_seat(flag: int | None, names: list[str], players: int) -> int | None:
    """The seat a person plays: ``--human SEAT`` or the word ``human`` in ``--agents`` (one seat at most)."""
    if flag is not None and not 0 <= flag < players:
        raise CliError(f"--human {flag}: seats are 0 to {players - 1}")
    seats = {seat for seat, name in enumerate(names) if name == HUMAN} | ({flag} if flag is not None else set())
    if len(seats) > 1:
        shown = ", ".join(map(str, sorted(seats)))
        raise CliError(f"one person can play one seat, not seats {shown} (--agents 'human' and --human)")
    return seats.pop() if seats else None


def _agent_names(value: str | None, players: int, loaded: Registry, game: Game) -> list[str]:
    if value is None:
        cycle = [name for name in DEFAULT_AGENTS if name in loaded.agents and loaded.agents[name].plays(game.info.name)]
        cycle = cycle or [SUBSTITUTE]
        return [cycle[seat % len(cycle)] for seat in range(players)]
    names = [name.strip() for name in value.split(",")]
    if any(not name for name in names):
        raise CliError(f"--agents {value!r}: an agent name is empty")
    if len(names) == 1 and names[0] != HUMAN:
        return names * players
    if len(names) != players:
        raise CliError(f"--agents names {len(names)} agents for {players} seats; give {players} or one")
    return names


def _human_spec(game: Game, players: int, names: list[str]) -> AgentSpec:
    def factory(seat: int, **_: Any) -> HumanAgent:
        labels = ["you" if index == seat else name for index, name in enumerate(names)]
        return HumanAgent(seat=seat, game=game, players=players, read=input, out=sys.stdout, names=labels)

    return AgentSpec(name="human", games=(game.info.name,), factory=factory, description="a person", version="-")


def result_json(game: Game, match: MatchResult) -> dict[str, Any]:
    """The ``--json`` shape: game, seed, per-seat results, then game details and faults."""
    record = match.record
    result = record["result"]
    players = [
        {"seat": seat["seat"], "agent": seat["agent"], "score": result["scores"][index], "rank": result["ranks"][index]}
        for index, seat in enumerate(record["seats"])
    ]
    return {"game": game.info.id, "seed": record["seed"], "options": record["options"], "players": players,
            **result["details"], "faults": record["faults"]}


def _print_result(game: Game, match: MatchResult) -> None:
    result = match.record["result"]
    print()
    print("Result:")
    order = sorted(range(len(result["ranks"])), key=lambda seat: (result["ranks"][seat], seat))
    for seat in order:
        agent = match.record["seats"][seat]["agent"]
        print(f"  {result['ranks'][seat]}. seat {seat} ({agent}): {result['scores'][seat]}")
    for fault in match.record["faults"]:
        print(f"  fault: seat {fault['seat']} {fault['kind']} {fault_when(fault)}: {fault['message']}")
