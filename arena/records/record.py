"""Match records: everything needed to replay a match exactly, as JSON.

The format is specified in ``docs/records.md``.  A record holds the game id and
options, the seats and their agents, the seed, every chance outcome in order
(the dealer, the deal, redeals, die rolls...), every action in order with its
seat, the faults, and the result.  Replaying feeds the chance outcomes back to
the engine as a script, so a record replays without trusting the seed, and a
hand-written record can set up any situation with an explicit deal.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.games.base import Action, Game, GameError, GameState, InvalidSetup, Result, to_json
from arena.games.scripted import shown
from arena.inputs import bounded_json
from arena.inputs.suggest import closest

MAX_RECORD_BYTES = 64 << 20
"""Largest record file read (64 MiB; a long Slovak Lorum session's record is well under a megabyte)."""

RECORD_FORMAT = "arena-record-1"
"""Value of a record's ``format`` key; bumped on any incompatible change."""


class RecordError(Exception):
    """A record that cannot be read or does not replay; the message is one line."""


def action_from_json(value: Any) -> Action:
    """A JSON action (string, or list of strings) as the engine expects it."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(value)
    raise RecordError(f"an action must be a string or a list of strings, not {json.dumps(value)}")


def make_record(
    game: Game,
    options: Mapping[str, Any],
    seed: int,
    seats: Sequence[Mapping[str, Any]],
    state: GameState,
    actions: Sequence[tuple[int, Action]],
    faults: Sequence[Mapping[str, Any]] = (),
    match_id: str | None = None,
) -> dict[str, Any]:
    """Build the record of a finished (or abandoned) match."""
    record: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "game": game.info.id,
        "options": dict(options),
        "seed": seed,
        "seats": [dict(seat) for seat in seats],
        "chance": list(state.chance.log),
        "actions": [{"seat": seat, "action": to_json(action)} for seat, action in actions],
        "faults": [dict(fault) for fault in faults],
    }
    if match_id is not None:
        record["match"] = match_id
    if state.is_over():
        record["result"] = state.result().to_json()
    return record


def load_record(path: Path | str) -> dict[str, Any]:
    """Read and structurally check a record file; ``RecordError`` names the problem (not the path: callers do)."""
    try:
        text = bounded_json.read_file(Path(path), MAX_RECORD_BYTES,
                                      f"larger than {MAX_RECORD_BYTES >> 20} MiB: not a match record")
        data = bounded_json.loads(text.removeprefix(b"\xef\xbb\xbf"))  # a byte-order mark, as some editors save
    except FileNotFoundError:
        raise RecordError("no such file") from None
    except OSError as error:  # a directory, no permission...
        raise RecordError(f"cannot read the file: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise RecordError(f"the file is not UTF-8 text ({error.reason})") from None
    except json.JSONDecodeError as error:
        raise RecordError(f"not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})") from None
    except ValueError as error:  # over a bound: size, nesting, numbers
        raise RecordError(str(error)) from None
    check_structure(data, where=None)
    return data


JSON_KINDS = {str: "a string", int: "an integer", list: "a list", dict: "an object"}
"""How a record's error messages name the JSON type a key must have."""

RECORD_KEYS = ("format", "game", "options", "seed", "seats", "chance", "actions", "faults", "result", "match",
               "move_seconds", "deals")
"""Every key a record may hold (docs/records.md): any other is refused, so a misspelt ``result`` is not
silently left unchecked."""

ACTION_KEYS = ("seat", "action")
CHANCE_KEYS = ("kind", "value")
SEAT_KEYS = ("seat", "agent", "plugin", "version", "isolation", "sandbox", "faulted")
"""The keys of an action, a chance outcome and a seat entry."""


def check_structure(data: Any, where: str | None = "record") -> None:
    """Check the keys and types a record must have; raise ``RecordError`` on the first problem.

    ``where`` prefixes each message (``None``: no prefix, for callers that name the file themselves).
    """
    prefix = "" if where is None else f"{where}: "
    if not isinstance(data, dict):
        raise RecordError(f"{prefix}a record is a JSON object")
    _no_unknown_keys(data, RECORD_KEYS, prefix)
    required = {"game": str, "seed": int, "actions": list}
    for key, kind in required.items():
        if key not in data:
            raise RecordError(f"{prefix}missing key {key!r}")
        if not isinstance(data[key], kind) or isinstance(data[key], bool):
            raise RecordError(f"{prefix}{key!r} must be {JSON_KINDS[kind]}")
    if data.get("format", RECORD_FORMAT) != RECORD_FORMAT:
        raise RecordError(f"{prefix}format {data['format']!r} is not {RECORD_FORMAT!r}")
    for key, kind in (("options", dict), ("chance", list), ("seats", list), ("faults", list), ("result", dict)):
        if key in data and not isinstance(data[key], kind):
            raise RecordError(f"{prefix}{key!r} must be {JSON_KINDS[kind]}")
    for index, entry in enumerate(data["actions"]):
        if not isinstance(entry, dict):
            raise RecordError(f"{prefix}action {index} must be an object with 'seat' and 'action'")
        _no_unknown_keys(entry, ACTION_KEYS, f"{prefix}action {index}: ")  # first: a misspelt key is named
        if "seat" not in entry or "action" not in entry:
            raise RecordError(f"{prefix}action {index} must be an object with 'seat' and 'action'")
        seat = entry["seat"]
        if isinstance(seat, bool) or not isinstance(seat, int):  # true must not pass for seat 1, nor "0" for 0
            raise RecordError(f"{prefix}action {index}: 'seat' must be a seat number, not {json.dumps(seat)}")
    for index, entry in enumerate(data.get("chance", [])):
        if isinstance(entry, dict):  # its kind and value are checked by the game that takes it
            _no_unknown_keys(entry, CHANCE_KEYS, f"{prefix}chance outcome {index}: ")
    for index, seat in enumerate(data.get("seats", [])):
        if not isinstance(seat, dict):
            raise RecordError(f"{prefix}seat {index} must be an object, e.g. {{\"agent\": \"greedy\"}}")
        _no_unknown_keys(seat, SEAT_KEYS, f"{prefix}seat {index}: ")
        for key in ("agent", "plugin"):
            if key in seat and not isinstance(seat[key], str):
                raise RecordError(f"{prefix}seat {index}: {key!r} must be a string")


def _no_unknown_keys(entry: Mapping[str, Any], known: Sequence[str], prefix: str) -> None:
    """``RecordError`` naming the first key of ``entry`` not in ``known``, with the closest known one."""
    for key in entry:
        if key not in known:
            close = closest(key, known)
            hint = f"; did you mean {close!r}?" if close else f" (known: {', '.join(known)})"
            raise RecordError(f"{prefix}unknown key {json.dumps(key)}{hint}")


def game_for_record(data: Mapping[str, Any], games: Mapping[str, Game]) -> Game:
    """The installed game whose versioned id the record names."""
    for game in games.values():
        if game.info.id == data["game"]:
            return game
    ids = sorted(game.info.id for game in games.values())
    by_name = [game.info.id for game in games.values() if game.info.name == data["game"]]
    if by_name:  # a game's name where its versioned id belongs ("lorum" for "lorum-v1")
        raise RecordError(f"record's \"game\" is {data['game']!r}: a record names the game's versioned id; did you "
                          f"mean {by_name[0]!r}?")
    close = closest(str(data["game"]), ids)
    hint = f"did you mean {close!r}?" if close else f"installed: {', '.join(ids)}"
    raise RecordError(f"record is for game {data['game']!r}, which is not installed ({hint})")


@dataclass(slots=True)
class Replay:
    """A record re-run through the engine."""

    state: GameState  # the state after the last recorded action
    actions: list[tuple[int, Action]]  # the recorded actions, decoded


def replay(data: Mapping[str, Any], game: Game) -> Replay:
    """Re-run ``data`` through ``game``'s engine, checking every action.

    Raises ``RecordError`` naming the action's index and the reason on an
    illegal action, and naming the first unused chance outcome when the actions
    end the game before the record's chance list is used up.
    Stops after the last recorded action; the caller may play on if the game
    is not over (a hand-written record without a result).
    """
    try:
        options = game.info.resolve_options(None, data.get("options", {}))
        state = game.new_state(data["seed"], options, script=data.get("chance", []))
    except GameError as error:
        raise RecordError(f"record setup: {error}{_players_hint(data, game)}") from None
    actions: list[tuple[int, Action]] = []
    for index, entry in enumerate(data["actions"]):
        seat = entry["seat"]
        try:
            action = action_from_json(entry["action"])
        except RecordError as error:
            raise _at(index, entry, error) from None
        if state.is_over():
            raise _at(index, entry, "the game is already over")
        # bool is an int subclass: a seat written `true` must not pass for seat 1
        if isinstance(seat, bool) or not isinstance(seat, int) or seat not in state.to_move():
            raise _at(index, entry, _not_to_move(seat, state, options["players"]))
        try:
            state.apply(seat, action)
        except InvalidSetup as error:  # a scripted chance outcome this action reached (a die, a redeal) is wrong
            raise RecordError(chance_error(error, state, data.get("chance", []), index, seat, entry["action"])
                              ) from None
        except GameError as error:
            raise _at(index, entry, error) from None
        actions.append((seat, action))
    if state.is_over():
        check_chance_used(data.get("chance", []), state.chance.log)
    return Replay(state=state, actions=actions)


def _not_to_move(seat: Any, state: GameState, players: int) -> str:
    """Why ``seat`` may not act now: no such seat, or whose decision (and in which phase) it is."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        return f"there is no seat {json.dumps(seat)} (seats are 0 to {players - 1})"
    waiting = state.to_move()
    phase = state.observation(waiting[0]).phase if waiting else "over"
    forced = ""
    if len(waiting) == 1:  # most often a forced decision left out: the record lists those too
        legal = state.observation(waiting[0]).legal
        if len(legal) == 1:
            forced = (f"; seat {waiting[0]}'s only legal action is {json.dumps(to_json(legal[0]))}, and a record "
                      "lists forced actions too")
    return (f"not this seat's decision (waiting for seat {', '.join(map(str, waiting))}, phase {phase!r})"
            f"{forced}")


def _at(index: int, entry: Mapping[str, Any], problem: object) -> RecordError:
    """The error for action ``index`` of a record, naming its seat and action as written (made only on failure)."""
    return RecordError(f"{_action_words(index, entry['seat'], entry['action'])}: {problem}")


def _action_words(index: int, seat: Any, action: Any) -> str:
    """``action 30 (seat 0, "L1-06")``: an action of a record as messages name it, its values as JSON."""
    return f"action {index} (seat {json.dumps(seat)}, {json.dumps(to_json(action))})"


def chance_error(problem: InvalidSetup, state: GameState, script: Sequence[Any], index: int, seat: int,
                 action: Any) -> str:
    """The message for a scripted chance outcome found wrong when action ``index`` (``seat``'s ``action``) reached
    it, while replaying a record or playing one out: the outcome named first, with its value, unless the check's
    own words name it already.  The engine logs an outcome once it has checked it, so the one that failed is the
    next after ``state``'s chance log."""
    number, text, words = len(state.chance.log), str(problem), _action_words(index, seat, action)
    if text.startswith(f"chance outcome {number} "):  # Chance.scripted's kind check names the outcome itself
        return f"{text}; {words} reached it"
    value = f" ({shown(script[number])})" if number < len(script) else ""
    return f"chance outcome {number}{value}, reached by {words}: {text}"


def _players_hint(data: Mapping[str, Any], game: Game) -> str:
    """Why a scripted deal may hold the wrong number of hands: the record sets no ``players``, so the game's
    default applies (Lovat's is 4, and a hand-written 3-player deal is then one hand short)."""
    options = data.get("options", {})
    if not isinstance(options, Mapping) or "players" in options:
        return ""
    players = game.info.resolve_options(None, {})["players"]
    deals = [outcome.get("value") for outcome in data.get("chance", [])
             if isinstance(outcome, Mapping) and outcome.get("kind") == "deal"]
    if any(isinstance(deal, list) and len(deal) != players for deal in deals):
        return (f" (the record's \"options\" set no \"players\", so the game's default of {players} applies: "
                f"add \"options\": {{\"players\": N}})")
    return ""


def check_chance_used(script: Sequence[Any], log: Sequence[Any]) -> None:
    """A finished game must have used every scripted chance outcome: ``RecordError`` names the first unused one.

    ``log`` is the finished game's chance log.  The engine takes scripted outcomes
    first and in order, and logs each, so while any are left the log holds only
    scripted ones and ``script[len(log)]`` is the first the game never asked for:
    a mis-scripted record (a die for a void turn, a deal too many) is an error,
    not silently ignored.
    """
    if len(script) > len(log):
        first = json.dumps(script[len(log)])
        if len(first) > 80:  # a whole deal would make a very long line
            first = first[:76] + " ..."
        raise RecordError(
            f"chance outcome {len(log)} ({first}) is never used: the game is over after {len(log)} chance "
            f"outcome{'s' if len(log) != 1 else ''}, and the record lists {len(script) - len(log)} more"
        )


RESULT_KEYS = ("scores", "ranks", "details")
"""The keys of a record's ``result``; ``details`` (the game's own breakdown) is kept but not compared."""


def check_result(data: Mapping[str, Any], result: Result) -> None:
    """Compare a recorded result with the replayed one; ``RecordError`` on any difference."""
    recorded = data.get("result")
    if recorded is None:
        return
    _no_unknown_keys(recorded, RESULT_KEYS, "result: ")  # an object: checked with the record's shape
    for key in ("scores", "ranks"):
        if key not in recorded:
            raise RecordError(f"result: missing key {key!r} (a result states both scores and ranks; leave the "
                              "result out to have the replay give it)")
    replayed = result.to_json()
    for key in ("scores", "ranks"):
        if recorded.get(key) != replayed[key]:
            raise RecordError(f"result: recorded {key} {recorded.get(key)} but the replay gives {replayed[key]}")


def save_record(record: Mapping[str, Any], path: Path | str) -> None:
    """Write a record as indented JSON."""
    Path(path).write_text(json.dumps(record, indent=1) + "\n")
