"""What every tournament format provides to the schedule, and the types it hands back."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from arena.tournament.schedule import Design


class ScheduleError(ValueError):
    """Inputs from which no schedule can be built (too few entries, bad counts...)."""


@dataclass(frozen=True, slots=True)
class Table:
    """One table: a set of entries that play ``blocks`` duplicate blocks together."""

    index: int  # position in the schedule's table order, from 0; the "t0007" of match ids
    entries: tuple[str, ...]  # the entries, in entry order (a gauntlet's candidate first)
    group: int  # the design group; tables sharing it share deal seeds (gauntlet candidates)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {"index": self.index, "entries": list(self.entries), "group": self.group}


class Format(ABC):
    """A tournament format: which entries form the design's pool, and how its groups become tables."""

    name: ClassVar[str]
    """The format's name in configs and ``Design.format``."""

    member: ClassVar[str]
    """How ``Design.describe`` names a pool entry and its groups: ``"entry at", "table"``."""
    unit: ClassVar[str]

    @abstractmethod
    def check(self, entries: tuple[str, ...], seats: int, candidates: tuple[str, ...]) -> None:
        """Raise ``ScheduleError`` naming the fix when the entries cannot make this format's tables."""

    @abstractmethod
    def pool(self, entries: tuple[str, ...], candidates: tuple[str, ...]) -> tuple[str, ...]:
        """The entries the design chooses groups from, in entry order."""

    @abstractmethod
    def group_size(self, seats: int) -> int:
        """Pool entries at each table."""

    @abstractmethod
    def seats(self, group_size: int) -> int:
        """Seats at each table (the inverse of ``group_size``)."""

    @abstractmethod
    def copies(self, candidates: int) -> int:
        """Tables made from each group."""

    @abstractmethod
    def tables(self, groups: Sequence[tuple[str, ...]], candidates: tuple[str, ...]) -> list[Table]:
        """The tables, in schedule order, from the groups (each a tuple of pool entries in entry order)."""

    @abstractmethod
    def describe(self, design: Design, how: str, per: str, pairs: str) -> str:
        """One line for the CLI, from the parts ``Design.describe`` worked out (see there)."""

    def candidate_count(self, candidates: tuple[str, ...]) -> int:
        """``Design.candidates``: candidates that each play every group (none but in a gauntlet)."""
        return 0

    table: ClassVar[str | None] = None
    """The config table of this format's own keys (``[gauntlet]``), or None when it has none."""

    uses_candidates: ClassVar[bool] = False
    """Whether the schedule keeps the config's candidates (entries that each play the whole pool)."""

    def pool_size(self, entries: int, candidates: int) -> int:
        """How many entries ``pool`` keeps, from the counts alone."""
        return entries

    def config_json(self, candidates: tuple[str, ...]) -> dict[str, Any]:
        """This format's own keys of ``TournamentConfig.to_json`` (none by default)."""
        return {}

    def seats_problem(self, entries: int, candidates: int, seats: int, label: str) -> tuple[str, str] | None:
        """``(key, message)`` when ``entries`` (``candidates`` of them candidates) cannot fill tables of ``seats``
        in a config (``label`` names it, e.g. "a round-robin"); None when they can."""
        return None
