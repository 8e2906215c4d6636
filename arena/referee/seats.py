"""How the referee talks to one seat: the ``Seat`` protocol, the isolation modes, and which mode a seat gets.

A seat runs ``trusted`` (in the referee's process: ``arena.referee.trusted``),
``isolated`` (its own process forked from its plugin's zygote, bounded by
rlimits) or ``sandboxed`` (its own process tree in the full sandbox of
``arena.sandbox``); the last two share ``arena.referee.sandboxed``.  Every kind
offers the same calls, each raising ``Fault`` when the agent misbehaves.

Which mode a seat gets is decided by where its agent comes from, never by
anything the agent's plugin says (``resolve_mode``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from arena.agent import AgentSpec
from arena.games.base import Action, Observation
from arena.plugin_system.origin import is_builtin
from arena.referee.confinement import sandbox_level
from arena.referee.faults import RefereeError

TRUSTED, ISOLATED, SANDBOXED, AUTO = "trusted", "isolated", "sandboxed", "auto"
ISOLATION_MODES: tuple[str, ...] = (AUTO, TRUSTED, ISOLATED, SANDBOXED)
"""``auto``: arena's own agents in-process, every other agent in the strongest sandbox this machine offers."""

LEVELS: tuple[str, ...] = ("none", "partial", "full")
"""Sandbox levels, weakest first: what ``arena doctor`` reports and every match record names per seat."""


class Seat(Protocol):
    """One seat of one match, whatever runs it."""

    mode: str  # TRUSTED, ISOLATED or SANDBOXED
    level: str  # the sandbox level the seat ran under ("none" unless sandboxed)
    peak_memory_mb: float | None  # peak resident memory of its process, when it has one
    listens: bool  # whether public events are worth sending to it

    def launch(self) -> None:
        """Start building the agent without waiting (process seats build in parallel)."""

    def start(self) -> None:
        """Wait until the agent is built; ``Fault`` if building it failed or took too long."""

    def act(self, observation: Observation) -> tuple[Action, float]:
        """One decision: the checked action and the seconds it took; ``Fault`` on misbehaviour."""

    def event(self, event: Mapping[str, Any]) -> None:
        """A public event; if the agent's ``on_event`` raises, its next ``act`` or ``finish`` raises the ``Fault``."""

    def finish(self, result: Mapping[str, Any]) -> None:
        """The final result; raises ``Fault`` when the agent's ``on_result`` (or a pending ``on_event``) raised."""

    def collect(self) -> None:
        """Give the agent a moment to take the result; raises ``Fault`` when its process reports that a
        notification raised."""

    def close(self) -> object:
        """Stop the seat; after this it holds no process and no agent.  What it returns is the seat's own
        business (a process seat's exit status); callers may ignore it."""


def resolve_mode(requested: str, spec: AgentSpec) -> tuple[str, str]:
    """The mode and least sandbox level for a seat of ``spec`` when ``requested`` is asked for.

    ``auto`` runs arena's own agents (``arena.plugins.is_builtin``: decided by
    origin, not by ``AgentSpec.trusted`` or module names) in-process, and every
    other agent at the strongest level the machine offers: ``sandboxed`` when
    ``arena.sandbox`` offers a level, else ``isolated``.  ``sandboxed`` refuses
    (``RefereeError``, one line naming ``arena doctor``) without the full sandbox.
    """
    if requested not in ISOLATION_MODES:
        raise RefereeError(f"isolation {requested!r} must be one of {', '.join(ISOLATION_MODES)}")
    if requested == TRUSTED or (requested == AUTO and is_builtin(spec)):
        return TRUSTED, "none"
    if requested == ISOLATED:
        return ISOLATED, "none"
    level = sandbox_level()
    if requested == SANDBOXED and level != "full":
        raise RefereeError(f"isolation 'sandboxed' needs the full sandbox, and this machine offers "
                           f"{'only a partial one' if level == 'partial' else 'none'}; run 'arena doctor' to see "
                           "what is missing")
    return (ISOLATED, "none") if level == "none" else (SANDBOXED, level)


def launch_all(seats: Sequence[Seat]) -> None:
    """Launch every seat; process seats are forked together, then placed together (``sandboxed.launch_all``)."""
    from arena.referee.sandboxed import ProcessSeat
    from arena.referee.sandboxed import launch_all as launch_processes

    launch_processes([seat for seat in seats if isinstance(seat, ProcessSeat)])
    for seat in seats:
        if not isinstance(seat, ProcessSeat):
            seat.launch()


def close_all(seats: Sequence[Seat]) -> None:
    """Stop every seat; process seats are killed at once and reaped together, per zygote."""
    from arena.referee.sandboxed import ProcessSeat, reap_all

    reap_all([seat for seat in seats if isinstance(seat, ProcessSeat)])
    for seat in seats:
        seat.close()
