"""Deterministic seed derivation: one seed (or one secret key) in, independent seeds out.

Seeds are derived by hashing, never with Python's ``hash()`` (which is salted
per process), so they are the same on every machine, serially or on Ray.

``derive_seed`` hashes a public seed with BLAKE2b: anyone who knows the seed
can compute the result (``arena play --seed``, a config with ``seed``).
``secret_seed`` is HMAC-SHA256 keyed by a secret (a tournament store's key,
``new_secret``): without the key, no seed tells anything about another,
so an agent that knows its own seed learns nothing about the deal or the
other seats.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

MAX_SEED = 2**63 - 1
"""Largest seed a user gives (``arena play --seed``, a config's ``seed``): the store's 64-bit integers, and the
range every derived seed falls in."""
SECRET_BYTES = 32
"""Length of a secret key (256 bits, the size of an HMAC-SHA256 block's output)."""


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from any sequence of ints and strings, e.g. ``derive_seed(seed, "agent", seat)``."""
    text = "\x1f".join(str(part) for part in parts).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1


def secret_seed(key: bytes, *parts: object) -> int:
    """A 63-bit seed that only the holder of ``key`` can compute: HMAC-SHA256 of the parts, as ``derive_seed``
    joins them."""
    text = "\x1f".join(str(part) for part in parts).encode()
    return int.from_bytes(hmac.new(key, text, hashlib.sha256).digest()[:8], "big") >> 1


def new_secret() -> bytes:
    """A fresh random key for ``secret_seed`` (from the operating system's CSPRNG)."""
    return secrets.token_bytes(SECRET_BYTES)
