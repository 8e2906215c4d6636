"""Match ids and seeds of a schedule: stable names, and every seed derived from the tournament's.

Nothing here uses Python's ``hash()`` or global randomness; every seed comes
from ``arena.records.seeding``.  Deal and agent seeds come from the tournament's secret
key when there is one (HMAC-SHA256, so no agent can compute a deal), else from
the public seed (BLAKE2b); seatings always come from the public seed.
"""

from __future__ import annotations

import random

from arena.records.seeding import derive_seed, secret_seed

SEED_TAG = "schedule-v1"
"""Mixed into every derived seed; bump it if the derivation ever changes."""


def table_id(table: int) -> str:
    """The table part of match ids: ``t0007``."""
    return f"t{table:04d}"


def block_id(table: int, block: int) -> str:
    """The id of one duplicate block: ``t0007-b02``."""
    return f"t{table:04d}-b{block:02d}"


def match_id(table: int, block: int, rotation: int) -> str:
    """The stable id of one match: ``t0007-b02-r1``."""
    return f"t{table:04d}-b{block:02d}-r{rotation}"


def deal_seed(seed: int, group: int, block: int, secret: bytes | None = None) -> int:
    """The game seed of one block: a 63-bit hash of the table's group and the block, keyed by ``secret``
    (HMAC) or, without one, of the public tournament seed too."""
    if secret is not None:
        return secret_seed(secret, SEED_TAG, "deal", group, block)
    return derive_seed(SEED_TAG, seed, "deal", group, block)


def agent_seed(seed: int, group: int, block: int, rotation: int, seat: int, secret: bytes | None = None) -> int:
    """The seed handed to the agent in ``seat`` of one match (keyed like ``deal_seed``, on its own parts)."""
    if secret is not None:
        return secret_seed(secret, SEED_TAG, "agent", group, block, rotation, seat)
    return derive_seed(SEED_TAG, seed, "agent", group, block, rotation, seat)


def seating_order(seed: int, group: int, block: int, seats: int) -> tuple[int, ...]:
    """The block's base seating: table entry ``order[i]`` sits in seat ``(i + rotation) % seats``.

    Cyclic rotations keep who-follows-whom fixed within a block, so the base
    order is shuffled per block (seeded) to vary neighbours between blocks.
    """
    order = list(range(seats))
    random.Random(derive_seed(SEED_TAG, seed, "seating", group, block)).shuffle(order)
    return tuple(order)


def design_seed(seed: int, format: str, pool: int, group_size: int, max_groups: int) -> int:
    """The seed of a schedule's design (which groups meet), from the public seed and the design's inputs."""
    return derive_seed(SEED_TAG, seed, "design", format, pool, group_size, max_groups)
