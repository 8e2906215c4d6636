"""Deterministic seed derivation: one seed in, independent seeds out.

Seeds are derived by hashing (BLAKE2b), never with Python's ``hash()``
(which is salted per process), so a seed gives the same results on every
machine, serially or on Ray.
"""

from __future__ import annotations

import hashlib


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from any sequence of ints and strings, e.g. ``derive_seed(seed, "agent", seat)``."""
    text = "\x1f".join(str(part) for part in parts).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1
