"""Round-robin: every entry is in the pool, and each group of the design is one table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from arena.tournament.designs import COMPLETE
from arena.tournament.formats.base import Format, ScheduleError, Table

if TYPE_CHECKING:
    from arena.tournament.schedule import Design

ROUND_ROBIN = "round-robin"


class RoundRobin(Format):
    """All entries meet at tables of ``seats``: every subset, or a balanced incomplete design."""

    name = ROUND_ROBIN
    member = "entry at"
    unit = "table"

    def check(self, entries: tuple[str, ...], seats: int, candidates: tuple[str, ...]) -> None:
        """Refuse candidates, and fewer entries than seats."""
        if candidates:
            raise ScheduleError("candidates are only used by the gauntlet format")
        if len(entries) < seats:
            raise ScheduleError(
                f"a round-robin at tables of {seats} needs at least {seats} entries, got {len(entries)}: "
                "add entries (the same agent may be entered twice under different names)"
            )

    def pool(self, entries: tuple[str, ...], candidates: tuple[str, ...]) -> tuple[str, ...]:
        """Every entry."""
        return entries

    def group_size(self, seats: int) -> int:
        """A whole table."""
        return seats

    def seats(self, group_size: int) -> int:
        """A group is a table."""
        return group_size

    def copies(self, candidates: int) -> int:
        """One table per group."""
        return 1

    def tables(self, groups: Sequence[tuple[str, ...]], candidates: tuple[str, ...]) -> list[Table]:
        """Table ``g`` is group ``g``."""
        return [Table(index=g, entries=members, group=g) for g, members in enumerate(groups)]

    def describe(self, design: Design, how: str, per: str, pairs: str) -> str:
        """E.g. ``complete round-robin: all 15 tables of 4 from 6 entries``."""
        seats = self.seats(design.group_size)
        if design.kind == COMPLETE:
            if design.tables == 1:  # as many entries as seats: "all 1 tables" read as a slip
                return f"complete round-robin: one table of {seats} entries"
            return f"complete round-robin: all {design.tables} tables of {seats} from {design.pool} entries"
        return (
            f"balanced incomplete round-robin ({how}): {design.tables} tables of {seats} "
            f"from {design.pool} entries; {per}{pairs}"
        )

    def seats_problem(self, entries: int, candidates: int, seats: int, label: str) -> tuple[str, str] | None:
        """Fewer entries than seats."""
        if entries >= seats:
            return None
        return ("agents", f"{label} at tables of {seats} needs at least {seats} entries, got {entries}; add entries "
                          "(the same plugin may be entered again under another name, e.g. name = \"greedy-2\", "
                          "plugin = \"greedy\") or set game_options.players")
