"""Time and memory limits for one match, and the per-seat clock that enforces them.

Each seat has a per-move limit plus a per-match time bank (overage, as a
chess clock's increment-less reserve): a decision may take up to
``move_seconds``; anything beyond that is drawn from the bank, and a decision
that would overdraw the bank is a ``timeout`` fault.  Building the agent has
its own limit, ``startup_seconds``, so that loading a model never eats into
the per-move time.  Tournament configs use exactly these field names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

MAX_SECONDS = 86_400.0
"""Longest time limit of any kind (a day): beyond it a limit is a typo, and too long for the clocks (a socket
timeout overflows on ``inf``).  Configs and the command line share it."""
MAX_MEMORY_MB = 1 << 20
"""Largest ``memory_mb`` (1 TiB): beyond it the address-space limit would overflow."""
MAX_CPUS = 64.0
"""Most cores a sandboxed agent may be given."""


@dataclass(frozen=True, slots=True)
class Limits:
    """The limits every seat of a match plays under.

    Isolated agents are stopped (SIGKILL) the moment a limit passes.  Trusted
    agents run in the referee's own process and cannot be pre-empted: their
    time is measured and a decision over the limit becomes a ``timeout`` fault
    after the fact (its action is discarded), and ``memory_mb`` does not apply.
    """

    move_seconds: float = 1.0  # time for one decision before the bank is drawn on
    bank_seconds: float = 10.0  # per-match overage shared by all of one seat's decisions
    startup_seconds: float = 10.0  # time to build the agent (and, if isolated, to start its process)
    memory_mb: int | None = 1024  # what an isolated agent may allocate beyond the preloaded arena; None: no limit
    cpus: float = 1.0  # cores a sandboxed agent may use while it thinks (where cgroups allow)

    def __post_init__(self) -> None:
        for name in ("move_seconds", "bank_seconds", "startup_seconds"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= MAX_SECONDS:
                raise ValueError(f"limit {name} must be a number of seconds from 0 to {MAX_SECONDS:g}, not {value!r}")
        for name in ("move_seconds", "startup_seconds"):  # zero would fail every agent; only the bank may be empty
            if getattr(self, name) <= 0:
                raise ValueError(f"limit {name} must be > 0, not {getattr(self, name)!r}")
        cpus = self.cpus
        if isinstance(cpus, bool) or not isinstance(cpus, (int, float)) or not 0 < cpus <= MAX_CPUS:
            raise ValueError(f"limit cpus must be a number of cores > 0 and <= {MAX_CPUS:g}, not {cpus!r}")
        memory = self.memory_mb
        if memory is not None and (isinstance(memory, bool) or not isinstance(memory, int)
                                   or not 0 < memory <= MAX_MEMORY_MB):
            raise ValueError(f"limit memory_mb must be a whole number of megabytes from 1 to {MAX_MEMORY_MB:,} "
                             f"(or None), not {memory!r}")

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Limits:
        """Limits from a config table; unknown keys are an error naming the known ones."""
        known = [f.name for f in fields(cls)]
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise ValueError(f"unknown limit {unknown[0]!r} (known: {', '.join(known)})")
        return cls(**dict(data))

    def to_json(self) -> dict[str, Any]:
        """The limits as plain JSON data (for records and reports)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def describe(self) -> str:
        """A short phrase for messages, e.g. ``1 s per move plus a 10 s bank``."""
        return f"{self.move_seconds:g} s per move plus a {self.bank_seconds:g} s bank"

    def describe_allowance(self, allowance: float) -> str:
        """What one decision was allowed, e.g. ``0.20 s (0.1 s per move plus 0.10 s left of the 0.5 s bank)``.

        Earlier slow decisions of the match draw on the bank, so a decision may have less than the limits say.
        """
        left = max(0.0, allowance - self.move_seconds)
        return f"{allowance:.2f} s ({self.move_seconds:g} s per move plus {left:.2f} s left of the " \
               f"{self.bank_seconds:g} s bank)"


class Clock:
    """One seat's remaining time: the per-move limit and what is left of the bank."""

    __slots__ = ("move", "bank")

    def __init__(self, limits: Limits) -> None:
        self.move = limits.move_seconds  # allowance of every decision
        self.bank = limits.bank_seconds  # overage left for the rest of the match

    def allowance(self) -> float:
        """The longest the next decision may take."""
        return self.move + self.bank

    def charge(self, elapsed: float) -> bool:
        """Account for a decision that took ``elapsed`` seconds; ``False`` if it overdrew the bank."""
        over = elapsed - self.move
        if over > 0:
            self.bank -= over
        return self.bank >= 0
