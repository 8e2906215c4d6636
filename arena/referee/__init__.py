"""The referee: plays one match between agents and records everything.

* ``play_match``, ``Match``: one match, its seats, limits and faults (``match.py``);
* ``SeatPlan``, ``MatchResult``: who sits where, and what came out;
* ``Seat``, the isolation modes and ``resolve_mode`` (``seats.py``); trusted seats in the referee's
  process (``trusted.py``); isolated and sandboxed seats in their own processes (``sandboxed.py``);
* ``Limits``: per-move time, time bank, start-up time and memory (``limits.py``);
* ``AgentHost``, ``default_host``: the per-plugin zygotes that fork process seats (``host.py``, ``zygote.py``,
  confined by ``confinement.py``, with the process hygiene of ``arena.sandbox.process``);
* ``FAULT_KINDS``, ``PHASES``, ``fault_phase``, ``Fault``, ``RefereeError``, ``check_action`` (``faults.py``).
"""

from arena.referee.faults import END, FAULT_KINDS, MOVE, PHASES, STARTUP, Fault, RefereeError, check_action, fault_phase
from arena.referee.host import AgentHost, default_host
from arena.referee.limits import Limits
from arena.referee.match import Match, MatchResult, SeatPlan, play_match
from arena.referee.seats import AUTO, ISOLATED, ISOLATION_MODES, SANDBOXED, TRUSTED, Seat

__all__ = [
    "AUTO",
    "END",
    "FAULT_KINDS",
    "ISOLATED",
    "ISOLATION_MODES",
    "MOVE",
    "PHASES",
    "SANDBOXED",
    "STARTUP",
    "TRUSTED",
    "AgentHost",
    "Fault",
    "Limits",
    "Match",
    "MatchResult",
    "RefereeError",
    "Seat",
    "SeatPlan",
    "check_action",
    "default_host",
    "fault_phase",
    "play_match",
]
