"""The matches of a ladder block: the tournament schedule's ids, seats, rotations and seeds, for a chosen table.

A ladder's table ``t`` is one set of entries; its ``b``-th block is one deal (the tournament's
``deal_seed`` of group ``t`` and block ``b``, keyed by the store's secret unless the config sets a
public ``seed``) played once per rotation of the seats from a seeded base seating, exactly as a
tournament table plays a block (``arena.tournament.schedule.block_matches`` builds both).  Match ids
read the same (``t0003-b05-r1``), and a block's matches are ``seats`` consecutive places of the store.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.tournament.schedule import Match
from arena.tournament.schedule import block_matches as schedule_block_matches


def block_matches(table: int, entries: Sequence[str], block: int, first_index: int, seed: int,
                  secret: bytes | None) -> list[Match]:
    """The ``len(entries)`` matches of block ``block`` at ladder table ``table``, from place ``first_index``."""
    # A ladder table is its own group: its number keys the seating and seeds as well as naming its ids.
    return schedule_block_matches(seed, table, table, entries, block, first_index, secret)
