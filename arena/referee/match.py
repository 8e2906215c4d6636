"""Play one match: build the game, create fresh agents, ask each for its decisions, record it all.

Agents only ever receive observations, public events and the final result.
In a simultaneous phase (Lovat's keep) every deciding seat's observation is
taken before any of their actions is applied, so no seat can see another's
choice.  A seat that faults (raises, or returns an illegal or malformed
action) is recorded and played from then on by the substitute policy, a
uniformly random legal action; an illegal action is never "fixed".
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.agent import Agent, AgentSpec
from arena.games.base import Action, ChanceOutcome, Game, GameState
from arena.records import make_record


@dataclass(frozen=True, slots=True)
class SeatPlan:
    """Who sits in one seat of a match."""

    name: str  # the entry name shown in results (e.g. "greedy" or "greedy-2")
    spec: AgentSpec  # the registered agent
    options: Mapping[str, Any] = field(default_factory=dict)  # per-agent options from the config
    seed: int = 0  # the agent's own seed for this match


@dataclass(slots=True)
class MatchResult:
    """A finished match: its record, final state and per-seat timing."""

    record: dict[str, Any]  # the JSON match record (docs/records.md)
    state: GameState  # the final state
    think_seconds: list[float]  # per seat: total time spent in act()
    decisions: list[int]  # per seat: number of decisions asked


class _Fault(Exception):
    """An agent misbehaved; ``kind`` is one of the recorded fault kinds."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


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
) -> MatchResult:
    """Play one match to the end and return its record.

    ``options`` must be resolved (``GameInfo.resolve_options``) and name as many
    players as there are ``seats``.  ``on_event`` receives each public event as
    it happens (for live logs).  ``prefix`` holds already-checked actions (from
    a record) applied before any agent is asked.
    """
    players = options["players"]
    if len(seats) != players:
        raise ValueError(f"{len(seats)} seats given for a {players}-player game")
    state = game.new_state(seed, options, script=script)
    agents: list[Agent] = [
        plan.spec.factory(seat=seat, game=game.info, players=players, seed=plan.seed, options=plan.options)
        for seat, plan in enumerate(seats)
    ]
    substitutes: dict[int, Agent] = {}
    actions: list[tuple[int, Action]] = []
    faults: list[dict[str, Any]] = []
    think = [0.0] * players
    asked = [0] * players
    seen_events = 0
    for seat, action in prefix:
        state.apply(seat, action)
        actions.append((seat, action))

    def publish() -> None:
        nonlocal seen_events
        events = state.events()
        for event in events[seen_events:]:
            if on_event is not None:
                on_event(event)
            for seat, agent in enumerate(agents):
                if seat not in substitutes:
                    _quietly(agent.on_event, event)
        seen_events = len(events)

    publish()
    while not state.is_over():
        deciding = state.to_move()
        # Every observation of a simultaneous phase is taken before any action is applied.
        observations = {seat: state.observation(seat) for seat in deciding}
        decisions: list[tuple[int, Action]] = []
        for seat in deciding:
            observation = observations[seat]
            if seat not in substitutes:
                started = time.perf_counter()
                try:
                    action = _ask(agents[seat], observation, game)
                except _Fault as fault:
                    faults.append({"seat": seat, "kind": fault.kind, "move": len(actions) + len(decisions),
                                   "message": str(fault)})
                    substitutes[seat] = substitute.factory(
                        seat=seat, game=game.info, players=players, seed=seats[seat].seed, options={}
                    )
                finally:
                    think[seat] += time.perf_counter() - started
                    asked[seat] += 1
            if seat in substitutes:
                action = substitutes[seat].act(observation)
            decisions.append((seat, action))
        for seat, action in decisions:
            state.apply(seat, action)
            actions.append((seat, action))
        publish()

    seat_entries = [
        {"seat": seat, "agent": plan.name, "plugin": plan.spec.name, "version": plan.spec.version}
        for seat, plan in enumerate(seats)
    ]
    record = make_record(game, options, seed, seat_entries, state, actions, faults, match_id=match_id)
    for seat, agent in enumerate(agents):
        if seat not in substitutes:
            _quietly(agent.on_result, record["result"])
    return MatchResult(record=record, state=state, think_seconds=think, decisions=asked)


def _ask(agent: Agent, observation: Any, game: Game) -> Action:
    """Ask one agent for an action and check it; raise ``_Fault`` on any misbehaviour."""
    try:
        action = agent.act(observation)
    except Exception as error:
        raise _Fault("exception", f"{type(error).__name__}: {error}") from None
    if isinstance(action, list):
        action = tuple(action)
    if not _is_action_shaped(action):
        raise _Fault("illegal", f"returned {type(action).__name__} {action!r:.80}, not an action")
    problem = game.action_error(observation, action)
    if problem is not None:
        raise _Fault("illegal", f"illegal action {action!r:.80}: {problem}")
    return action


def _is_action_shaped(action: Any) -> bool:
    return isinstance(action, str) or (isinstance(action, tuple) and all(isinstance(item, str) for item in action))


def _quietly(callback: Callable[[Any], None], argument: Any) -> None:
    """Notify an agent; a failing notification must not stop the match."""
    try:
        callback(argument)
    except Exception:
        pass
