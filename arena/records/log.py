"""The readable log of a match record, step by step: what ``arena replay --log`` prints and the site shows.

One walk through a record (``log_steps``) serves both, so the terminal and the tournament site say the same
thing in the same words.  Every line comes from the game (``describe_event``, ``describe_action``,
``describe_hand``): nothing here knows a game's rules.  The record must have been replayed and checked
already (``arena.records.replay``), so every action is legal.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from arena.games.base import Game, log_sentence, seat_label
from arena.records import action_from_json
from arena.referee.faults import END, STARTUP, fault_phase
from arena.seating.substitute import SUBSTITUTE

if TYPE_CHECKING:
    from arena.games.drawing import Table


class LogStep(NamedTuple):
    """One decision of a match and what followed it, or (``move`` None) what happened before the first one.

    A named tuple: a site build makes one per step of every match, and a frozen dataclass takes five times as
    long to make."""

    move: int | None  # index of the decision in the record's actions; None for the opening events
    seat: int | None  # the seat that decided (None for the opening)
    decision: str  # the decision in the game's words ("" for the opening)
    secret: bool  # taken in a simultaneous phase: no public event shows it, so the log states it
    seconds: float | None  # time the seat's own agent took (None: the substitute's move, or not recorded)
    faults: tuple[str, ...]  # fault lines at this move: the substitute plays the seat from here
    events: tuple[str, ...]  # the public events that followed, one sentence each
    hands: tuple[tuple[int, str], ...]  # (seat, hand line) for every hand that changed (with hands=True)
    table: Table | None = None  # the table after the step as a spectator sees it (with tables=True)

    def terminal_lines(self, names: Sequence[str]) -> list[str]:
        """The step as ``arena replay --log`` prints it: faults, a secret decision, events, changed hands."""
        lines = list(self.faults)
        if self.secret and self.seat is not None:
            lines.append(log_sentence(f"{seat_label(self.seat, names)} decides: {self.decision}"))
        lines.extend(self.events)
        lines.extend(f"  {seat_label(seat, names)} hand: {hand}" for seat, hand in self.hands)
        return lines


def printable(text: object) -> str:
    """``text`` with control characters (terminal escapes an agent may have put in a message) shown as '?'."""
    return "".join(char if char.isprintable() else "?" for char in str(text))


def seat_names(record: Mapping[str, Any]) -> list[str]:
    """Each seat's entry name as the log shows it (control characters made harmless)."""
    return [printable(seat.get("agent", SUBSTITUTE)) for seat in record["seats"]]


def header_lines(game: Game, seed: int, names: Sequence[str]) -> list[str]:
    """The log's first lines: the game, its players and seed, then who sits where."""
    lines = [f"{game.info.title}, {len(names)} players, seed {seed}"]
    lines.extend(f"  seat {seat}: {name}" for seat, name in enumerate(names))
    return lines


def fault_when(fault: Mapping[str, Any]) -> str:
    """When a fault happened, in words: ``at start-up``, ``at move N`` or ``at the end`` (by its recorded phase)."""
    phase = fault_phase(fault)
    return "at start-up" if phase == STARTUP else "at the end" if phase == END else f"at move {fault['move']}"


def fault_line(fault: Mapping[str, Any], names: Sequence[str]) -> str:
    """A fault as the log states it, at the move where the substitute took over.

    The seat, kind and phase come first, in the referee's words; the message (partly the agent's) after them.
    A fault at the end (a notification after the seat's last decision) has no move left for the substitute.
    """
    tail = "" if fault_phase(fault) == END else "; the substitute plays this seat from here"
    return printable(log_sentence(f"fault: {seat_label(fault['seat'], names)} {fault['kind']} {fault_when(fault)}: "
                                  f"{fault['message']}{tail}"))


def move_times(record: Mapping[str, Any]) -> list[float | None]:
    """Seconds each recorded action took its seat's agent, from the record's ``move_seconds`` (None if unknown).

    ``move_seconds[seat]`` lists the times of the seat's own agent's decisions in order; the agent decided the
    seat's first ones, until a fault handed the seat to the substitute.
    """
    per_seat = record.get("move_seconds") or []
    taken = [0] * len(per_seat)
    times: list[float | None] = []
    for entry in record["actions"]:
        seat = entry["seat"]
        if 0 <= seat < len(per_seat) and taken[seat] < len(per_seat[seat]):
            times.append(float(per_seat[seat][taken[seat]]))
            taken[seat] += 1
        else:
            times.append(None)
    return times


def log_steps(game: Game, record: Mapping[str, Any], hands: bool = False, tables: bool = False) -> Iterator[LogStep]:
    """The match step by step: the opening events, then one ``LogStep`` per recorded action.

    With ``hands``, each step lists the hands that changed (every seat's at the start).  With ``tables``, each
    step carries the table after it as a spectator sees it with every hand (``Game.table``; None for a game that
    draws nothing).  Faults stand at the move they name; a fault naming a move past the last action is shown
    after it.
    """
    options = game.info.resolve_options(None, record.get("options", {}))
    names = seat_names(record)
    players = options["players"]
    state = game.new_state(record["seed"], options, script=record.get("chance", []))
    faults: dict[int, list[str]] = {}
    for fault in record.get("faults", []):
        faults.setdefault(fault["move"], []).append(fault_line(fault, names))
    shown: list[str | None] = [None] * players
    logged = 0
    drawn = 0  # chance outcomes so far: a new one (a deal) may change every hand
    # Looked up once: a site build walks every step of every match.
    describe_event, describe_hand, observe = game.describe_event, game.describe_seat_hand, state.observation
    draw = game.table if tables else None

    def catch_up(actor: int | None) -> tuple[tuple[str, ...], tuple[tuple[int, str], ...]]:
        nonlocal logged, drawn
        events = state.events(logged)
        logged += len(events)
        changed = []
        if hands and not state.is_over():  # final hands say nothing the log has not
            # A hand changes only by its own seat's decision or by chance (``Game.describe_hand``).
            chance = len(state.chance.log)
            seats = range(players) if actor is None or chance != drawn else (actor,)
            drawn = chance
            for seat in seats:
                hand = describe_hand(state, seat)
                if hand is not None and hand != shown[seat]:
                    changed.append((seat, hand))
                    shown[seat] = hand
        return tuple([describe_event(event, names) for event in events]), tuple(changed)

    events, changed = catch_up(None)
    yield LogStep(None, None, "", False, None, (), events, changed,
                  None if draw is None else draw(state, None, True, names))
    times = move_times(record)
    simultaneous = game.info.simultaneous_phases
    describe_action = game.describe_action
    for move, entry in enumerate(record["actions"]):
        seat, action = entry["seat"], action_from_json(entry["action"])
        observation = observe(seat)
        decision = describe_action(observation, action)
        state.apply(seat, action)
        events, changed = catch_up(seat)
        lines = faults.pop(move, None)
        yield LogStep(move, seat, decision, observation.phase in simultaneous, times[move],
                      () if lines is None else tuple(lines), events, changed,
                      None if draw is None else draw(state, None, True, names))
    late = tuple(line for move in sorted(faults) for line in faults[move])
    if late:
        yield LogStep(None, None, "", False, None, late, (), ())
