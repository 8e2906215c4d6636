"""``argparse`` types for the numeric options: each refuses what a config refuses, with the config's words.

A value out of bounds is a usage error (one line, exit status 2) before any work starts: ``--move-seconds
inf`` would otherwise reach a socket timeout and overflow there.  The limits' bounds are the referee's own
(``arena.referee.limits``), the seeds' ``arena.records.seeding``'s, so the command line, a tournament config and
``Limits`` itself accept the same values.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from arena.records.seeding import MAX_SEED
from arena.referee.limits import MAX_MEMORY_MB, MAX_SECONDS

MAX_CHECK_MATCHES = 10_000
"""Most matches per player count for ``arena check-agent``: more says nothing new about an agent."""
MAX_WORKERS = 4_096
"""Most local Ray workers: each is a process, far beyond any machine's cores."""
MAX_BOOTSTRAP = 100_000
"""Most bootstrap replicates: each refits every rating."""


def integer(minimum: int, maximum: int, unit: str) -> Callable[[str], int]:
    """A type for a whole number from ``minimum`` to ``maximum``; ``unit`` names what it counts in errors."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(f"expected an integer from {minimum:,} to {maximum:,} ({unit}), "
                                             f"got {text!r}")
        return value

    return parse


def seconds(positive: bool) -> Callable[[str], float]:
    """A type for a time limit: a finite number of seconds up to ``MAX_SECONDS``, above 0 when ``positive``."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and 0 <= value <= MAX_SECONDS) or (positive and value == 0):
            what = "a positive number" if positive else "a number >= 0"
            raise argparse.ArgumentTypeError(f"expected {what} up to {MAX_SECONDS:g} (seconds), got {text!r}")
        return value

    return parse


def seed_value(text: str) -> int:
    """A type for a seed: a whole number from 0 to ``MAX_SEED`` (2**63 - 1), as tournament configs accept."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"{value} is outside 0..2**63-1")
    return value


megabytes = integer(1, MAX_MEMORY_MB, "megabytes")
"""A type for ``--memory-mb``: as a config's ``limits.memory_mb``."""
