"""The referee: plays one match between agents and records everything.

* ``play_match``: one match, trusted or isolated seats, limits and faults (``match.py``);
* ``SeatPlan``, ``MatchResult``: who sits where, and what came out;
* ``Limits``: per-move time, time bank, start-up time and memory (``limits.py``);
* ``AgentHost``, ``default_host``: the zygote that forks isolated agents (``host.py``, ``zygote.py``);
* ``FAULT_KINDS``, ``Fault``, ``RefereeError``, ``check_action`` (``faults.py``).
"""

from arena.referee.faults import FAULT_KINDS, Fault, RefereeError, check_action
from arena.referee.host import AgentHost, default_host
from arena.referee.limits import Limits
from arena.referee.match import MatchResult, SeatPlan, play_match
from arena.referee.seats import AUTO, ISOLATED, ISOLATION_MODES, TRUSTED

__all__ = [
    "AUTO",
    "FAULT_KINDS",
    "ISOLATED",
    "ISOLATION_MODES",
    "TRUSTED",
    "AgentHost",
    "Fault",
    "Limits",
    "MatchResult",
    "RefereeError",
    "SeatPlan",
    "check_action",
    "default_host",
    "play_match",
]
