"""What a game declares about the luck the ``luck`` rating method takes out of its results (``GameInfo.luck``).

Duplicate blocks cancel the deal's luck between agents, but not chance that comes later in a match (Lovat's die):
the rotations of a deal reach it on different paths, so the same faces are worth different amounts to them.  A
game that has such chance names its kinds and their equally likely outcomes, and the agent whose play-outs value
them; ``arena.ratings.luck`` computes each match's correction from its record, and docs/ratings.md ("Luck") says
why it cannot favour an agent.  A game without chance after the deal (Lorum) declares nothing: its correction is
zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class LuckSpec:
    """The chance a game's luck correction values, and how.

    Every outcome of a valued kind must be drawn uniformly from its ``faces``, after every decision before it,
    and at most one per action: then each term of the correction has expectation zero whatever the agents do.
    """

    faces: tuple[tuple[str, tuple[Any, ...]], ...]  # (chance kind, its equally likely outcomes) per valued kind
    reference: str  # the registered agent (arena's own: it runs in arena's process) that plays every play-out seat
    text: str  # what is valued, for every view of the method: "Lovat's die (L-14)"

    def __post_init__(self) -> None:
        if not self.faces or any(len(outcomes) < 2 for _kind, outcomes in self.faces):
            raise ValueError("LuckSpec.faces must name at least one chance kind, each with two or more outcomes")

    def by_kind(self) -> dict[str, tuple[Any, ...]]:
        """The valued kinds with their outcomes, as ``arena.ratings.luck`` takes them."""
        return dict(self.faces)
