"""A tournament store's file: made whole or not at all, claimed by one writing run, its errors in one line.

``create_store`` builds a new store (schema, format version, secret key) under a temporary name and links it
into place; ``claim_store`` holds the lock file beside it for the one run that writes it; ``explain_error``
turns an SQLite error on opening into the line the user reads.  ``arena.tournament.store`` opens and queries
the store.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import sqlite3
from pathlib import Path

from arena.records.seeding import new_secret
from arena.tournament.errors import StoreError

SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS matches (
    idx INTEGER PRIMARY KEY,          -- position in schedule order
    id TEXT NOT NULL UNIQUE,          -- stable match id, e.g. t0007-b02-r1
    block_id TEXT NOT NULL,           -- duplicate block: the unit of statistics
    table_idx INTEGER NOT NULL,
    block INTEGER NOT NULL,
    rotation INTEGER NOT NULL,
    deal_seed INTEGER NOT NULL,
    agents TEXT NOT NULL,             -- JSON list: entry name per seat
    scores TEXT NOT NULL,             -- JSON list per seat
    ranks TEXT NOT NULL,              -- JSON list per seat, 1 = best
    faults TEXT NOT NULL,             -- JSON list of {seat, kind, move, message}
    think_seconds TEXT NOT NULL,      -- JSON list per seat: time spent deciding
    wall_seconds REAL NOT NULL,       -- time to play the whole match
    record BLOB NOT NULL              -- zlib-compressed JSON match record
);
CREATE INDEX IF NOT EXISTS matches_block ON matches (block_id);
CREATE TABLE IF NOT EXISTS seat_logs (   -- private to each seat's owner: never in the record, never exported
    match_id TEXT NOT NULL,           -- the match's id
    seat INTEGER NOT NULL,            -- 0-based seat
    log BLOB NOT NULL,                -- zlib-compressed UTF-8: the kept end of what the seat's agent printed
    PRIMARY KEY (match_id, seat)
);
CREATE TABLE IF NOT EXISTS luck (       -- each match's luck correction, where a rating method needs it
    match_id TEXT PRIMARY KEY,        -- the match's id
    seats TEXT NOT NULL               -- JSON list per seat: seats beaten that chance after the deal was worth
);
CREATE TABLE IF NOT EXISTS entries (
    name TEXT PRIMARY KEY,            -- entry name, as in the config
    agent TEXT NOT NULL,              -- the registered agent it seats
    plugin TEXT NOT NULL,             -- the plugin that registered the agent
    version TEXT NOT NULL,            -- the agent's version when its first match was stored
    files TEXT NOT NULL               -- SHA-256 of the plugin's files then (arena.plugin_system.provenance)
);
"""


LOCK_SUFFIX = "-lock"
"""The lock file beside a store (``results.sqlite-lock``): held by the one process that writes the store."""


def claim_store(path: Path) -> int:
    """Hold the store's write lock for this process (a descriptor to keep open), or ``StoreError`` in one line.

    SQLite serialises single writes, not runs: two runs of one tournament at once would each play the
    matches missing when it started, and the second to store a match would fail on the duplicate.
    """
    try:
        fd = os.open(path.with_name(path.name + LOCK_SUFFIX), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as error:
        if not os.access(path, os.W_OK) or not os.access(path.parent, os.W_OK):
            raise StoreError(read_only_message(path)) from None
        raise StoreError(f"{path}: cannot make the store's lock file: {error.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as error:
        if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            os.close(fd)
            raise StoreError(in_use_message(path)) from None
        # A file system without flock (some network and FUSE mounts): SQLite's own locks still keep the store
        # whole; only two runs at once are no longer refused up front.
    return fd


def create_store(path: Path) -> None:
    """Make a new store at ``path`` whole: schema, format and secret key, under a temporary name, then linked
    into place (so a run killed meanwhile leaves no half-made store, and an existing one is never replaced)."""
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StoreError(f"{folder}: cannot make the tournament folder: {error.strerror or error}") from None
    temporary = folder / f".{path.name}.{os.getpid()}.new"
    try:
        # Readable by its owner alone: the store holds the secret key of every deal (SQLite gives its -wal and
        # -shm files the database's own mode), so another account on the machine cannot compute the hands.
        os.close(os.open(temporary, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, 0o600))
        db = sqlite3.connect(temporary, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(SCHEMA)
            db.executemany("INSERT INTO meta (key, value) VALUES (?, ?)",
                           [("schema", json.dumps(SCHEMA_VERSION)), ("secret", json.dumps(new_secret().hex()))])
        finally:
            db.close()
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass  # another run made it meanwhile: use that one
        except OSError:  # a file system without hard links: a rename, which cannot refuse to replace
            if not os.path.lexists(path):
                os.replace(temporary, path)
    except (OSError, sqlite3.Error) as error:
        reason = getattr(error, "strerror", None) or error
        raise StoreError(f"{folder}: cannot create the results store there: {reason}") from None
    finally:
        for leftover in (temporary, Path(f"{temporary}-wal"), Path(f"{temporary}-shm")):
            try:
                leftover.unlink()
            except OSError:
                pass


def read_only_message(path: Path) -> str:
    """The line for a store this process cannot write."""
    return f"{path}: the results store is read-only; make it writable or copy it elsewhere"


def in_use_message(path: Path) -> str:
    """The line for a store another run is writing."""
    return f"{path}: the results store is in use by another run; wait for it or stop it"


def explain_error(path: Path, error: sqlite3.Error) -> str:
    """One line for an SQLite error on opening ``path``."""
    text = str(error)
    if "readonly" in text or "read-only" in text:
        return read_only_message(path)
    if "locked" in text or "busy" in text:
        return in_use_message(path)
    if isinstance(error, sqlite3.DatabaseError) and not isinstance(error, sqlite3.OperationalError):
        return f"{path}: not a readable arena results store ({text}); move it away or give the tournament another name"
    return f"{path}: cannot use the results store: {text}"
