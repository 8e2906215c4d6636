"""Play one match: build the game, seat fresh agents, ask each for its decisions, record it all.

Agents only ever receive observations, public events and the final result.
In a simultaneous phase (such as a keep) every deciding seat's observation is
taken before any of their actions is applied, so no seat can see another's
choice.

Each seat runs ``trusted`` (in the referee's process: arena's own agents, or
one the user seated ``trusted``), ``isolated`` or ``sandboxed`` (in its own
process forked from its plugin's zygote, reached only through JSON; see
``arena.referee.seats``).  Every match gets fresh agents, and process seats
fresh processes, so nothing survives from one match of a duplicate block to
the next.

A seat that faults (raises, returns an illegal or malformed action, runs out
of time or memory, or whose process dies) is recorded and played from then on
by the substitute policy, a uniformly random legal action; an illegal action
is never "fixed".
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.agent import Agent, AgentSpec
from arena.games.base import Action, ChanceOutcome, Game, GameState, IllegalAction, InvalidSetup
from arena.plugin_system.data import printable
from arena.records import chance_error, make_record
from arena.referee import affinity
from arena.referee.faults import END, ILLEGAL, MESSAGE_LIMIT, MOVE, STARTUP, Fault
from arena.referee.host import AgentHost, default_host
from arena.referee.limits import Limits
from arena.referee.program_seat import ProgramSeat, is_program, program_mode
from arena.referee.sandboxed import ProcessSeat
from arena.referee.seats import AUTO, ISOLATION_MODES, TRUSTED, Seat, close_all, launch_all, resolve_mode
from arena.referee.trusted import TrustedSeat
from arena.seating.substitute import RANDOM


@dataclass(frozen=True, slots=True)
class SeatPlan:
    """Who sits in one seat of a match."""

    name: str  # the entry name shown in results (e.g. "greedy" or "greedy-2")
    spec: AgentSpec  # the registered agent
    options: Mapping[str, Any] = field(default_factory=dict)  # per-agent options from the config (JSON)
    seed: int = 0  # the agent's own seed for this match
    isolation: str = AUTO  # "auto" (the match's mode), "trusted", "isolated" or "sandboxed": per-agent override

    def __post_init__(self) -> None:
        if self.isolation not in ISOLATION_MODES:
            raise ValueError(f"seat {self.name!r}: isolation must be one of {', '.join(ISOLATION_MODES)}, "
                             f"not {self.isolation!r}")


@dataclass(slots=True)
class MatchResult:
    """A finished match: its record, final state and per-seat timing."""

    record: dict[str, Any]  # the JSON match record (docs/records.md)
    state: GameState  # the final state
    think_seconds: list[float]  # per seat: total time spent in act()
    decisions: list[int]  # per seat: number of decisions asked of the agent itself
    move_seconds: list[list[float]] = field(default_factory=list)  # per seat: seconds of each decision it made
    peak_memory_mb: list[float | None] = field(default_factory=list)  # per seat: peak resident MB (process seats)
    isolation: list[str] = field(default_factory=list)  # per seat: "trusted", "isolated" or "sandboxed"
    sandbox: list[str] = field(default_factory=list)  # per seat: sandbox level "none", "partial" or "full"
    # Per seat: the kept end of what its agent printed (arena.referee.seat_log; "" for a trusted seat, which has
    # no log of its own).  Private to the seat's owner: never in the record, never sent to another seat.
    logs: list[str] = field(default_factory=list)


def play_match(
    game: Game,
    options: Mapping[str, Any],
    seed: int,
    seats: Sequence[SeatPlan],
    substitute: AgentSpec = RANDOM,
    script: Sequence[ChanceOutcome] = (),
    match_id: str | None = None,
    on_event: Callable[[Mapping[str, Any]], None] | None = None,
    prefix: Sequence[tuple[int, Action]] = (),
    *,
    limits: Limits | None = None,
    isolation: str = AUTO,
    host: AgentHost | None = None,
    on_fault: Callable[[Mapping[str, Any]], None] | None = None,
) -> MatchResult:
    """Play one match to the end and return its record.

    ``options`` must be resolved (``GameInfo.resolve_options``) and name as many
    players as there are ``seats``.  ``on_event`` receives each public event as
    it happens (for live logs), ``on_fault`` each fault as the record has it, when
    the substitute takes over (before that move's events).  ``prefix`` holds already-checked actions (from
    a record) applied before any agent is asked.

    ``limits`` apply to every seat (default ``Limits()``).  ``isolation`` is the
    match's mode (``arena.referee.seats.ISOLATION_MODES``; ``"auto"``: arena's own
    agents in-process, every other agent in the strongest sandbox available); a
    seat's ``SeatPlan.isolation`` overrides it.  Process seats are forked by
    ``host`` (default: the process-wide ``default_host()``).  ``substitute``
    (by default the agent ``random``, the game's own random policy: ``arena.seating.substitute``) plays a seat
    from its first fault on.

    Raises ``RefereeError`` when an agent cannot be seated as asked (e.g. an
    agent no plugin registers, seated isolated, or ``sandboxed`` on a machine
    without the full sandbox); agents' misbehaviour is never raised, it is recorded.
    """
    players = options["players"]
    if len(seats) != players:
        raise ValueError(f"{len(seats)} seats given for a {players}-player game")
    limits = limits if limits is not None else Limits()
    programs = [is_program(plan.spec) for plan in seats]
    modes = [program_mode(resolve_mode(plan.isolation if plan.isolation != AUTO else isolation, plan.spec))
             if program else resolve_mode(plan.isolation if plan.isolation != AUTO else isolation, plan.spec)
             for plan, program in zip(seats, programs, strict=True)]
    if any(mode != TRUSTED for mode, _level in modes) and host is None:
        host = default_host()
    runners: list[Seat] = []
    for seat, (plan, (mode, level)) in enumerate(zip(seats, modes, strict=True)):
        if mode == TRUSTED:
            runners.append(TrustedSeat(plan, game, seat, players, limits))
        elif programs[seat]:
            runners.append(ProgramSeat(plan, game, seat, players, limits, host, mode, level))  # type: ignore[arg-type]
        else:
            runners.append(ProcessSeat(plan, game, seat, players, limits, host, mode, level))  # type: ignore[arg-type]
    processes = [runner for runner in runners if isinstance(runner, ProcessSeat)]
    with affinity.one_core(bool(processes) and limits.cpus <= 1) as core:
        for runner in processes:
            runner.core = core
        try:
            match = Match(game, options, seed, seats, substitute, runners, match_id, on_event, on_fault)
            return match.play(script, prefix)
        finally:
            close_all(runners)


@functools.cache
def _events_take_start(events: Callable[..., Any]) -> bool:
    """Whether a state class's ``events`` function takes the ``start`` index (a game plugin written before does not).

    Asked once per function, not per match: ``inspect.signature`` costs more than a short match's events.
    """
    return len(inspect.signature(events).parameters) > 1  # self, start


class Match:
    """One match in progress: the state, the seats, and what has been recorded so far."""

    def __init__(self, game: Game, options: Mapping[str, Any], seed: int, plans: Sequence[SeatPlan],
                 substitute: AgentSpec, seats: Sequence[Seat], match_id: str | None = None,
                 on_event: Callable[[Mapping[str, Any]], None] | None = None,
                 on_fault: Callable[[Mapping[str, Any]], None] | None = None) -> None:
        self.game = game
        self.options = options
        self.seed = seed
        self.plans = plans
        self.substitute = substitute
        self.seats = seats
        self.match_id = match_id
        self.on_event = on_event
        self.on_fault = on_fault
        players = len(plans)
        self.substitutes: dict[int, Agent] = {}  # seat -> the substitute playing it since its fault
        self.late: dict[int, Fault] = {}  # start-up faults, recorded at the seat's first decision
        self.actions: list[tuple[int, Action]] = []
        self.faults: list[dict[str, Any]] = []
        self.think = [0.0] * players
        self.asked = [0] * players
        self.times: list[list[float]] = [[] for _ in range(players)]
        self.state: GameState | None = None
        self.script: Sequence[ChanceOutcome] = ()  # a record's chance outcomes, when a record is played out
        self.seen_events = 0
        self.takes_start = True

    def play(self, script: Sequence[ChanceOutcome] = (), prefix: Sequence[tuple[int, Action]] = ()) -> MatchResult:
        """Seat the agents, play to the end, tell them the result, and return the match's record."""
        self.start_seats()
        state = self.state = self.game.new_state(self.seed, self.options, script=script)
        self.script = script
        self.takes_start = _events_take_start(type(state).events)
        for seat, action in prefix:
            state.apply(seat, action)
            self.actions.append((seat, action))
        self.publish()
        while not state.is_over():
            self.turn()
            self.publish()
        for seat, fault in self.late.items():
            self.record_fault(seat, fault, len(self.actions), STARTUP)
        record = self.record()
        if self.finish(record["result"]):
            record = self.record()  # with the faults of notifications at the end
        return MatchResult(
            record=record, state=state, think_seconds=self.think, decisions=self.asked, move_seconds=self.times,
            peak_memory_mb=[seat.peak_memory_mb for seat in self.seats],
            isolation=[seat.mode for seat in self.seats], sandbox=[seat.level for seat in self.seats],
            logs=[getattr(seat, "output", "") for seat in self.seats],
        )

    def start_seats(self) -> None:
        """Launch every seat first (process seats build at once), then wait for each start-up."""
        launch_all(self.seats)
        for index, seat in enumerate(self.seats):
            try:
                seat.start()
            except Fault as fault:
                self.late[index] = fault
                self.replace(index)

    def turn(self) -> None:
        """Ask every seat to move of the current decision, then apply the actions."""
        state = self.state
        assert state is not None
        deciding = state.to_move()
        # Every observation of a simultaneous phase is taken before any action is applied.
        observations = {seat: state.observation(seat) for seat in deciding}
        decisions = [(seat, self.decide(seat, observations[seat], len(self.actions) + index))
                     for index, seat in enumerate(deciding)]
        for seat, action in decisions:
            try:
                state.apply(seat, action)
            except InvalidSetup as error:  # a record played out reached a scripted outcome that is wrong
                raise InvalidSetup(chance_error(error, state, self.script, len(self.actions), seat, action)) from None
            except IllegalAction as error:
                if seat in self.substitutes:
                    raise  # the substitute chose from the legal actions: an engine bug, not a fault
                # The observation-based check passed but the engine refused: still the agent's illegal action.
                self.record_fault(seat, Fault(ILLEGAL, f"illegal action {action!r:.80}: {error}"), len(self.actions),
                                  MOVE)
                self.replace(seat)
                action = self.substitutes[seat].act(observations[seat])
                state.apply(seat, action)
            self.actions.append((seat, action))

    def decide(self, seat: int, observation: Any, move: int) -> Action:
        """One seat's action: its agent's, or the substitute's once it has faulted."""
        if seat not in self.substitutes:
            self.asked[seat] += 1
            try:
                action, elapsed = self.seats[seat].act(observation)
            except Fault as fault:
                self.think[seat] += fault.elapsed
                self.record_fault(seat, fault, move, MOVE)
                self.replace(seat)
            else:
                self.think[seat] += elapsed
                self.times[seat].append(elapsed)
                return action
        if seat in self.late:
            self.record_fault(seat, self.late.pop(seat), move, STARTUP)
        return self.substitutes[seat].act(observation)

    def publish(self) -> None:
        """Send the public events since the last call to the live log and to every listening seat."""
        state = self.state
        assert state is not None
        events = state.events(self.seen_events) if self.takes_start else state.events()[self.seen_events:]
        if not events:
            return
        listeners = [runner for seat, runner in enumerate(self.seats)
                     if runner.listens and seat not in self.substitutes]
        for event in events:
            if self.on_event is not None:
                self.on_event(event)
            for runner in listeners:
                runner.event(event)
        self.seen_events += len(events)

    def replace(self, seat: int) -> None:
        """From now on ``seat`` is played by the substitute."""
        self.substitutes[seat] = self.substitute.factory(seat=seat, game=self.game.info, players=len(self.plans),
                                                         seed=self.plans[seat].seed, options={})

    def record_fault(self, seat: int, fault: Fault, move: int, phase: str) -> None:
        """Record ``fault`` on ``seat`` at decision ``move``, in ``phase`` (``STARTUP``, ``MOVE`` or ``END``).

        The phase is the referee's: it says which call failed (``start_seats`` or a decision), never read from
        the fault's text.  The message is made one line of printable characters here, whoever wrote it.
        """
        self.faults.append({"seat": seat, "kind": fault.kind, "phase": phase, "move": move,
                            "message": printable(str(fault), MESSAGE_LIMIT)})
        if self.on_fault is not None:
            self.on_fault(self.faults[-1])

    def record(self) -> dict[str, Any]:
        """The match record; each seat names its agent, version, isolation mode and sandbox level."""
        assert self.state is not None
        faulted = {fault["seat"] for fault in self.faults}
        entries = []
        for seat, plan in enumerate(self.plans):
            entry: dict[str, Any] = {"seat": seat, "agent": plan.name, "plugin": plan.spec.name,
                                     "version": plan.spec.version, "isolation": self.seats[seat].mode,
                                     "sandbox": self.seats[seat].level}
            if seat in faulted:
                entry["faulted"] = True
            entries.append(entry)
        return make_record(self.game, self.options, self.seed, entries, self.state, self.actions, self.faults,
                           match_id=self.match_id)

    def finish(self, result: Mapping[str, Any]) -> bool:
        """Tell every seat still playing the result, give them a moment, then stop them all.

        What a seat's ``on_result`` (or an ``on_event`` since its last decision) raised is its fault, in
        phase ``END``; whether any was recorded.
        """
        playing = [(index, seat) for index, seat in enumerate(self.seats) if index not in self.substitutes]
        before = len(self.faults)
        try:
            for index, seat in playing:
                try:
                    seat.finish(result)
                except Fault as fault:
                    self.record_fault(index, fault, len(self.actions), END)
            for index, seat in playing:
                try:
                    seat.collect()
                except Fault as fault:
                    self.record_fault(index, fault, len(self.actions), END)
        finally:
            close_all(self.seats)
        return len(self.faults) > before
