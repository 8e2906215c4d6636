"""Play one match: build the game, create fresh agents, ask each for its decisions, record it all.

Agents only ever receive observations, public events and the final result.
In a simultaneous phase (Lovat's keep) every deciding seat's observation is
taken before any of their actions is applied, so no seat can see another's
choice.

Each seat runs ``trusted`` (in the referee's process: fastest, for first-party
agents) or ``isolated`` (in its own process forked from the zygote, reached
only through JSON; see ``arena.referee.host``).  Every match gets fresh agents,
and isolated agents fresh processes, so nothing survives from one match of a
duplicate block to the next.

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
from arena.games.base import Action, ChanceOutcome, Game, GameState, IllegalAction
from arena.records import make_record
from arena.referee.faults import ILLEGAL, Fault
from arena.referee.host import AgentHost, default_host
from arena.referee.limits import Limits
from arena.referee.seats import (
    AUTO,
    ISOLATED,
    ISOLATION_MODES,
    IsolatedSeat,
    TrustedSeat,
    close_all,
    plugin_folder,
    resolve_mode,
)


@dataclass(frozen=True, slots=True)
class SeatPlan:
    """Who sits in one seat of a match."""

    name: str  # the entry name shown in results (e.g. "greedy" or "greedy-2")
    spec: AgentSpec  # the registered agent
    options: Mapping[str, Any] = field(default_factory=dict)  # per-agent options from the config (JSON)
    seed: int = 0  # the agent's own seed for this match
    isolation: str = AUTO  # "auto" (the match's mode), "trusted" or "isolated": per-agent override

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
    peak_memory_mb: list[float | None] = field(default_factory=list)  # per seat: peak resident MB (isolated only)
    isolation: list[str] = field(default_factory=list)  # per seat: "trusted" or "isolated"


def play_match(
    game: Game,
    options: Mapping[str, Any],
    seed: int,
    seats: Sequence[SeatPlan],
    substitute: AgentSpec,
    script: Sequence[ChanceOutcome] = (),
    match_id: str | None = None,
    on_event: Callable[[Mapping[str, Any]], None] | None = None,
    prefix: Sequence[tuple[int, Action]] = (),
    *,
    limits: Limits | None = None,
    isolation: str = AUTO,
    host: AgentHost | None = None,
) -> MatchResult:
    """Play one match to the end and return its record.

    ``options`` must be resolved (``GameInfo.resolve_options``) and name as many
    players as there are ``seats``.  ``on_event`` receives each public event as
    it happens (for live logs).  ``prefix`` holds already-checked actions (from
    a record) applied before any agent is asked.

    ``limits`` apply to every seat (default ``Limits()``).  ``isolation`` is the
    match's mode, ``"auto"`` (trusted agents and arena's own code in-process,
    every other agent isolated), ``"trusted"`` or ``"isolated"``; a seat's
    ``SeatPlan.isolation`` overrides it.  Isolated agents are forked by
    ``host`` (default: the process-wide ``default_host()``).  ``substitute``
    (normally the registry's ``random``) plays a seat from its first fault on.

    Raises ``RefereeError`` when an agent cannot be seated as asked (e.g. an
    agent no plugin registers, seated isolated); agents' misbehaviour is never
    raised, it is recorded.
    """
    players = options["players"]
    if len(seats) != players:
        raise ValueError(f"{len(seats)} seats given for a {players}-player game")
    limits = limits if limits is not None else Limits()
    modes = [
        resolve_mode(plan.isolation if plan.isolation != AUTO else isolation, plan.spec.trusted, plan.spec.factory)
        for plan in seats
    ]
    if ISOLATED in modes and host is None:
        host = default_host()
    runners: list[TrustedSeat | IsolatedSeat] = [
        IsolatedSeat(plan, game, seat, players, limits, host, plugin_folder(plan.spec.factory))  # type: ignore[arg-type]
        if mode == ISOLATED
        else TrustedSeat(plan, game, seat, players, limits)
        for seat, (plan, mode) in enumerate(zip(seats, modes, strict=True))
    ]
    try:
        return _play(game, options, seed, seats, substitute, script, match_id, on_event, prefix, runners)
    finally:
        close_all(runners)


@functools.cache
def _events_take_start(events: Callable[..., Any]) -> bool:
    """Whether a state class's ``events`` function takes the ``start`` index (a game plugin written before does not).

    Asked once per function, not per match: ``inspect.signature`` costs more than a short match's events.
    """
    return len(inspect.signature(events).parameters) > 1  # self, start


def _play(
    game: Game,
    options: Mapping[str, Any],
    seed: int,
    seats: Sequence[SeatPlan],
    substitute: AgentSpec,
    script: Sequence[ChanceOutcome],
    match_id: str | None,
    on_event: Callable[[Mapping[str, Any]], None] | None,
    prefix: Sequence[tuple[int, Action]],
    runners: list[TrustedSeat | IsolatedSeat],
) -> MatchResult:
    players = len(seats)
    substitutes: dict[int, Agent] = {}
    late: dict[int, Fault] = {}  # start-up faults, recorded at the seat's first decision
    actions: list[tuple[int, Action]] = []
    faults: list[dict[str, Any]] = []
    think = [0.0] * players
    asked = [0] * players
    times: list[list[float]] = [[] for _ in range(players)]

    def replace(seat: int) -> None:
        substitutes[seat] = substitute.factory(seat=seat, game=game.info, players=players, seed=seats[seat].seed,
                                               options={})

    def record_fault(seat: int, fault: Fault, move: int) -> None:
        faults.append({"seat": seat, "kind": fault.kind, "move": move, "message": str(fault)})

    # Isolated agents are forked first so that they all build at once, then each start-up is awaited.
    for runner in runners:
        runner.launch()
    for seat, runner in enumerate(runners):
        try:
            runner.start()
        except Fault as fault:
            late[seat] = fault
            replace(seat)

    state = game.new_state(seed, options, script=script)
    seen_events = 0
    for seat, action in prefix:
        state.apply(seat, action)
        actions.append((seat, action))

    # A trusted agent that keeps Agent's own (empty) on_event is not told events: skipping the call changes
    # nothing it could see, and saves a call per event and seat (most first-party agents ignore events).
    listening = [
        not (isinstance(runner, TrustedSeat) and runner.agent is not None
             and type(runner.agent).on_event is Agent.on_event)
        for runner in runners
    ]

    takes_start = _events_take_start(type(state).events)

    def publish() -> None:
        nonlocal seen_events
        events = state.events(seen_events) if takes_start else state.events()[seen_events:]
        if not events:
            return
        listeners = [runner for seat, runner in enumerate(runners) if listening[seat] and seat not in substitutes]
        for event in events:
            if on_event is not None:
                on_event(event)
            for runner in listeners:
                runner.event(event)
        seen_events += len(events)

    publish()
    while not state.is_over():
        deciding = state.to_move()
        # Every observation of a simultaneous phase is taken before any action is applied.
        observations = {seat: state.observation(seat) for seat in deciding}
        decisions: list[tuple[int, Action]] = []
        for seat in deciding:
            observation = observations[seat]
            move = len(actions) + len(decisions)
            if seat not in substitutes:
                asked[seat] += 1
                try:
                    action, elapsed = runners[seat].act(observation)
                except Fault as fault:
                    think[seat] += fault.elapsed
                    record_fault(seat, fault, move)
                    replace(seat)
                else:
                    think[seat] += elapsed
                    times[seat].append(elapsed)
            if seat in substitutes:
                if seat in late:
                    record_fault(seat, late.pop(seat), move)
                action = substitutes[seat].act(observation)
            decisions.append((seat, action))
        for seat, action in decisions:
            try:
                state.apply(seat, action)
            except IllegalAction as error:
                if seat in substitutes:
                    raise  # the substitute chose from the legal actions: an engine bug, not a fault
                # The observation-based check passed but the engine refused: still the agent's illegal action.
                record_fault(seat, Fault(ILLEGAL, f"illegal action {action!r:.80}: {error}"), len(actions))
                replace(seat)
                action = substitutes[seat].act(observations[seat])
                state.apply(seat, action)
            actions.append((seat, action))
        publish()

    for seat, fault in late.items():
        record_fault(seat, fault, len(actions))
    faulted = {fault["seat"] for fault in faults}
    seat_entries = []
    for seat, plan in enumerate(seats):
        entry: dict[str, Any] = {"seat": seat, "agent": plan.name, "plugin": plan.spec.name,
                                 "version": plan.spec.version}
        if seat in faulted:
            entry["faulted"] = True
        seat_entries.append(entry)
    record = make_record(game, options, seed, seat_entries, state, actions, faults, match_id=match_id)
    for seat, runner in enumerate(runners):
        if seat not in substitutes:
            runner.finish(record["result"])
    for seat, runner in enumerate(runners):
        if seat not in substitutes:
            runner.collect()
    close_all(runners)
    return MatchResult(
        record=record, state=state, think_seconds=think, decisions=asked, move_seconds=times,
        peak_memory_mb=[runner.peak_memory_mb for runner in runners], isolation=[runner.mode for runner in runners],
    )

