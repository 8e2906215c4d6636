"""The matches of a ladder block: the tournament schedule's ids, seats, rotations and seeds, for a chosen table.

A ladder's table ``t`` is one set of entries; its ``b``-th block is one deal (the tournament's
``deal_seed`` of group ``t`` and block ``b``, keyed by the store's secret unless the config sets a
public ``seed``) played once per rotation of the seats from a seeded base seating, exactly as a
tournament table plays a block (``arena.tournament.schedule``).  Match ids read the same
(``t0003-b05-r1``), and a block's matches are ``seats`` consecutive places of the store.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.tournament.schedule import Match, agent_seed, block_id, deal_seed, match_id, seating_order


def block_matches(table: int, entries: Sequence[str], block: int, first_index: int, seed: int,
                  secret: bytes | None) -> list[Match]:
    """The ``len(entries)`` matches of block ``block`` at ladder table ``table``, from place ``first_index``."""
    seats = len(entries)
    order = seating_order(seed, table, block, seats)
    base = tuple(entries[i] for i in order)
    deal = deal_seed(seed, table, block, secret)
    return [
        Match(
            id=match_id(table, block, rotation),
            index=first_index + rotation,
            table=table,
            block=block,
            block_id=block_id(table, block),
            rotation=rotation,
            # base[i] sits in seat (i + rotation) % seats, as in a tournament block
            seats=tuple(base[(seat - rotation) % seats] for seat in range(seats)),
            deal_seed=deal,
            agent_seeds=tuple(agent_seed(seed, table, block, rotation, seat, secret) for seat in range(seats)),
        )
        for rotation in range(seats)
    ]
