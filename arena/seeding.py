"""Seed derivation under its documented name: ``arena.seeding.derive_seed`` (docs/python-api.md).

It lives in ``arena.records.seeding``, with the match records it makes reproducible.
"""

from arena.records.seeding import MAX_SEED, SECRET_BYTES, derive_seed, new_secret, secret_seed

__all__ = ["MAX_SEED", "SECRET_BYTES", "derive_seed", "new_secret", "secret_seed"]
