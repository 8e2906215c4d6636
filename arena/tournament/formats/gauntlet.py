"""Gauntlet: candidates each play the same field tables, on the same deals.

Every table is one candidate and ``seats - 1`` field entries, the field groups
being chosen exactly as in round-robin (all (k-1)-subsets of the field, or a
balanced design when candidates * C(F, k-1) exceeds ``max_tables``).  The tables
of different candidates against the same field group share their design group,
hence their deal seeds, seatings and agent seeds, so candidates are compared on
identical deals.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from arena.tournament.designs import COMPLETE
from arena.tournament.formats.base import Format, ScheduleError, Table

if TYPE_CHECKING:
    from arena.tournament.schedule import Design

GAUNTLET = "gauntlet"


class Gauntlet(Format):
    """Candidates against a field: the pool is the entries that are not candidates."""

    name = GAUNTLET
    member = "field entry in"
    unit = "group"

    def check(self, entries: tuple[str, ...], seats: int, candidates: tuple[str, ...]) -> None:
        """At least one candidate, unique, all entries, and a field that fills the other seats."""
        if not candidates:
            raise ScheduleError("a gauntlet needs at least one candidate")
        if len(set(candidates)) < len(candidates):
            raise ScheduleError("gauntlet candidates must be unique")
        missing = [name for name in candidates if name not in entries]
        if missing:
            raise ScheduleError(f"gauntlet candidates are not entries: {', '.join(missing)}")
        field = len(entries) - len(candidates)
        if field < seats - 1:
            raise ScheduleError(
                f"a gauntlet at tables of {seats} needs at least {seats - 1} field entries besides the "
                f"candidates, got {field}"
            )

    def pool(self, entries: tuple[str, ...], candidates: tuple[str, ...]) -> tuple[str, ...]:
        """The field: every entry that is not a candidate."""
        return tuple(name for name in entries if name not in set(candidates))

    def group_size(self, seats: int) -> int:
        """Every seat but the candidate's."""
        return seats - 1

    def seats(self, group_size: int) -> int:
        """The group and the candidate."""
        return group_size + 1

    def copies(self, candidates: int) -> int:
        """One table per candidate and group."""
        return candidates

    def tables(self, groups: Sequence[tuple[str, ...]], candidates: tuple[str, ...]) -> list[Table]:
        """Per group, one table for each candidate (candidate first), sharing the group."""
        tables: list[Table] = []
        for g, members in enumerate(groups):
            for candidate in candidates:
                tables.append(Table(index=len(tables), entries=(candidate, *members), group=g))
        return tables

    def describe(self, design: Design, how: str, per: str, pairs: str) -> str:
        """E.g. ``complete gauntlet: 2 candidate(s) x all 10 groups of 3 from 5 field entries (...)``."""
        seats = self.seats(design.group_size)
        if design.kind == COMPLETE:
            return (
                f"complete gauntlet: {design.candidates} candidate(s) x all {design.groups} groups of "
                f"{design.group_size} from {design.pool} field entries ({design.tables} tables of {seats})"
            )
        return (
            f"balanced incomplete gauntlet ({how}): {design.candidates} candidate(s) x {design.groups} groups of "
            f"{design.group_size} from {design.pool} field entries ({design.tables} tables of {seats}); "
            f"{per}{pairs}"
        )

    def candidate_count(self, candidates: tuple[str, ...]) -> int:
        """Every candidate plays every group."""
        return len(candidates)

    table = GAUNTLET
    uses_candidates = True

    def pool_size(self, entries: int, candidates: int) -> int:
        """The field."""
        return entries - candidates

    def config_json(self, candidates: tuple[str, ...]) -> dict[str, Any]:
        """The ``[gauntlet]`` table with its candidates."""
        return {GAUNTLET: {"candidates": list(candidates)}}

    def seats_problem(self, entries: int, candidates: int, seats: int, label: str) -> tuple[str, str] | None:
        """A field too small to fill the seats besides the candidate (once candidates are named)."""
        field_size = entries - candidates
        if not candidates or field_size >= seats - 1:
            return None
        return ("gauntlet.candidates", f"leaves {field_size} field entries, but tables of {seats} need at least "
                                       f"{seats - 1} besides the candidate; add field entries")
