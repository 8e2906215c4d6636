"""A trusted seat: the agent runs in the referee's own process.

Only for arena's own agents (under ``auto``) or an agent the user seated
``trusted`` by name: nothing separates it from the referee, the game state or
the other trusted seats.  Per decision the overhead is one ``perf_counter``
pair and the legality check.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from arena.agent import Agent
from arena.games.base import Action, Game, Observation
from arena.plugin_system.registration import in_process_spec
from arena.plugin_system.registry import PluginCodeRefused
from arena.referee.faults import EXCEPTION, MEMORY, TIMEOUT, Fault, check_action, describe_exception
from arena.referee.limits import Clock, Limits
from arena.referee.seats import TRUSTED

if TYPE_CHECKING:
    from arena.referee.match import SeatPlan


class TrustedSeat:
    """An agent in the referee's process: fast, but it cannot be pre-empted or memory-limited.

    A decision over the time limit is a ``timeout`` fault after the fact (its
    action is discarded).  Whatever the agent raises is its fault, ``SystemExit``
    included; only ``KeyboardInterrupt`` passes (it is the user's Ctrl-C as far
    as an in-process agent can tell, and stops the arena with a non-zero status).
    """

    mode = TRUSTED
    level = "none"

    def __init__(self, plan: SeatPlan, game: Game, seat: int, players: int, limits: Limits) -> None:
        self.plan = plan
        self.game = game
        self.seat = seat
        self.players = players
        self.limits = limits
        self.clock = Clock(limits)
        self.agent: Agent | None = None
        self.timed = True
        self.peak_memory_mb: float | None = None
        self.listens = True
        self.pending_fault: Fault | None = None  # what a notification raised, reported at the next call

    def launch(self) -> None:
        """Nothing to do ahead of ``start`` for an in-process agent."""

    def start(self) -> None:
        """Build the agent; a factory that raises or takes longer than ``startup_seconds`` is a fault."""
        started = time.perf_counter()
        try:
            spec = in_process_spec(self.plan.spec)  # imports a third-party plugin seated trusted by name
        except PluginCodeRefused as error:  # arena's refusal, in arena's words (not the agent's: see below)
            raise Fault(EXCEPTION, str(error)) from None
        try:
            self.agent = spec.factory(seat=self.seat, game=self.game.info, players=self.players,
                                      seed=self.plan.seed, options=self.plan.options)
        except MemoryError:
            raise Fault(MEMORY, "raised MemoryError") from None
        except KeyboardInterrupt:
            raise
        except BaseException as error:
            raise Fault(EXCEPTION, f"raised {describe_exception(error)}") from None
        elapsed = time.perf_counter() - started
        # A person at the terminal is never timed (arena play --human).
        self.timed = not _is_person(self.agent)
        # An agent that keeps Agent's own (empty) on_event is not told events: skipping the call changes
        # nothing it could see, and saves a call per event and seat (most first-party agents ignore events).
        self.listens = type(self.agent).on_event is not Agent.on_event
        if self.timed and elapsed > self.limits.startup_seconds:
            raise Fault(TIMEOUT, f"took {elapsed:.2f} s to start, over the {self.limits.startup_seconds:g} s start-up "
                                 "limit")

    def act(self, observation: Observation) -> tuple[Action, float]:
        """One decision and the seconds it took."""
        agent = self.agent
        assert agent is not None
        if self.pending_fault is not None:  # its on_event raised since its last decision
            raise self.pending_fault
        started = time.perf_counter()
        try:
            action = agent.act(observation)
        except MemoryError:
            raise Fault(MEMORY, "raised MemoryError", time.perf_counter() - started) from None
        except KeyboardInterrupt:
            raise
        except BaseException as error:
            raise Fault(EXCEPTION, f"raised {describe_exception(error)}", time.perf_counter() - started) from None
        elapsed = time.perf_counter() - started
        allowance = self.clock.allowance()
        if self.timed and not self.clock.charge(elapsed):
            # Trusted agents cannot be pre-empted: the late action is discarded, not played.
            raise Fault(TIMEOUT, f"took {elapsed:.2f} s, more than all this decision had: "
                                 f"{self.limits.describe_allowance(allowance)}; the late action was discarded", elapsed)
        return check_action(self.game, observation, action), elapsed

    def event(self, event: Mapping[str, Any]) -> None:
        """Tell the agent a public event; what ``on_event`` raises is the seat's fault at its next call.

        The fault waits for the seat's next decision (or the result) as it does in a process seat, which
        learns of it with its next request: the record is the same in every mode.
        """
        if self.pending_fault is None:
            self.pending_fault = _notify(self.agent.on_event, event, "on_event")  # type: ignore[union-attr]

    def finish(self, result: Mapping[str, Any]) -> None:
        """Tell the agent the result; raises the seat's ``Fault`` if ``on_result`` (or an earlier ``on_event``)
        raised."""
        fault = self.pending_fault or _notify(self.agent.on_result, result, "on_result")  # type: ignore[union-attr]
        self.pending_fault = None
        if fault is not None:
            raise fault

    def collect(self) -> None:
        """Nothing to wait for."""

    def close(self) -> None:
        """Drop the agent."""
        self.agent = None


def _notify(call: Any, data: Mapping[str, Any], name: str) -> Fault | None:
    """Call a notification (``on_event``, ``on_result``); the fault if it raised, else None."""
    try:
        call(data)
    except MemoryError:
        return Fault(MEMORY, f"{name} raised MemoryError")
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # SystemExit included, as in act
        return Fault(EXCEPTION, f"{name} raised {describe_exception(error)}")
    return None


def _is_person(agent: Agent) -> bool:
    human = sys.modules.get("arena.cli.human")
    return human is not None and isinstance(agent, human.HumanAgent)
