"""One write transaction on an SQLite connection, shared by every store of arena (results, ladder, served
competition)."""

from __future__ import annotations

import sqlite3


class WriteTransaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (or ``ROLLBACK`` on error) on an autocommit connection: all of it is
    stored, or none; taken at once, so that two writers never deadlock upgrading a read to a write. Every
    SQLite store of arena (results, ladder, served competition) writes through it."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")
