"""The competition's own database (``serve.sqlite``): participants, and every upload with its check and entry.

Matches live in the ladder's results store (``arena.ladder``), as for any ladder; this file holds only
what the ladder does not know: who may submit, what each participant sent and where it stands.  Every
write is one transaction in a write-ahead log with ``synchronous=FULL``, so an upload answered "queued"
survives ``kill -9`` of the server and of the machine's power alike.  Each process opens its own
connection (the web app, the checker and the player share the file).
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.tournament.transactions import WriteTransaction

DB_FILE = "serve.sqlite"

QUEUED, CHECKING, ACCEPTED, REJECTED = "queued", "checking", "accepted", "rejected"
STATES = (QUEUED, CHECKING, ACCEPTED, REJECTED)
"""An upload's states: waiting for its check, being checked, passed (it plays), failed (the reason says why)."""

SESSIONS_MAX = 20
"""Browser sessions one participant keeps (the latest logins): a participant logging in again and again, within
the rate limit, would otherwise add a row to the database at each login, kept for 14 days."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    name TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL,
    created REAL NOT NULL,
    revoked REAL
);
CREATE TABLE IF NOT EXISTS uploads (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user TEXT NOT NULL REFERENCES users(name),
    filename TEXT NOT NULL,
    kind TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    size INTEGER NOT NULL,
    created REAL NOT NULL,
    state TEXT NOT NULL,
    reason TEXT,
    report TEXT,
    agent TEXT,
    version INTEGER,
    entry TEXT,
    joined REAL,
    retired REAL,
    retire_asked REAL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    id_hash TEXT PRIMARY KEY,
    user TEXT NOT NULL REFERENCES users(name),
    expires REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS uploads_user ON uploads (user, created);
CREATE INDEX IF NOT EXISTS uploads_state ON uploads (state);
"""


@dataclass(frozen=True, slots=True)
class Bounds:
    """What one participant may hold: uploads in any hour, uploads waiting for their check, bytes stored."""

    per_hour: int
    queued: int
    stored_bytes: int


class LimitError(Exception):
    """An upload over one of its participant's bounds: the HTTP status to answer and one line."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True, slots=True)
class User:
    """A participant."""

    name: str  # lower-case name (arena.serve.auth.USER_NAME)
    token_hash: str  # HMAC-SHA256 of the token under the server's secret
    created: float  # when added (Unix time)
    revoked: float | None  # when the token was revoked, if it was


@dataclass(frozen=True, slots=True)
class Upload:
    """One upload and where it stands."""

    id: int  # upload number, in order of arrival
    user: str  # its owner
    filename: str  # the name it was sent under (shown escaped, never used as a path)
    kind: str  # "file" (a .py drop-in), "zip", "wheel" or "tar"
    sha256: str  # content hash: its stored file is blobs/<sha256>
    size: int  # bytes sent
    created: float  # when it arrived
    state: str  # one of STATES
    reason: str | None  # one line: why it was rejected, or what the check said
    report: str | None  # the check's full report (text), for its owner only
    agent: str | None  # the agent it registers (known after its check)
    version: int | None  # its version among its owner's uploads of that agent (1, 2, ...)
    entry: str | None  # its ladder entry, once it has joined
    joined: float | None  # when it joined the ladder
    retired: float | None  # when it stopped playing (a newer version replaced it, or its owner retired it)
    retire_asked: float | None  # when its owner asked to retire it
    updated: float  # last change

    def to_json(self, owner: bool) -> dict[str, Any]:
        """Plain JSON; the check report only for its ``owner``."""
        data = {"id": self.id, "user": self.user, "filename": self.filename, "kind": self.kind,
                "sha256": self.sha256, "size": self.size, "created": self.created, "state": self.state,
                "reason": self.reason, "agent": self.agent, "version": self.version, "entry": self.entry,
                "joined": self.joined, "retired": self.retired, "retire_asked": self.retire_asked}
        if owner:
            data["report"] = self.report
        return data


class ServeDB:
    """An open connection to the competition's database."""

    def __init__(self, folder: Path) -> None:
        """Open (creating if needed) ``folder/serve.sqlite``."""
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / DB_FILE
        self.db = sqlite3.connect(self.path, isolation_level=None, timeout=30, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")  # an answered upload is on disk, not only in the log's cache
        self.db.execute("PRAGMA foreign_keys=ON")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        """Close the connection."""
        self.db.close()

    def __enter__(self) -> ServeDB:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def transaction(self) -> WriteTransaction:
        """One write transaction (taken at once, so two writers never deadlock on an upgrade)."""
        return WriteTransaction(self.db)

    # -- users ---------------------------------------------------------------------------------

    def add_user(self, name: str, token_hash: str) -> None:
        """Add participant ``name``; ``ValueError`` if the name is taken (a revoked one too: history stays)."""
        try:
            with self.transaction():
                self.db.execute("INSERT INTO users (name, token_hash, created) VALUES (?, ?, ?)",
                                (name, token_hash, time.time()))
        except sqlite3.IntegrityError:
            raise ValueError(f"participant {name!r} exists already; revoke and choose another name, or keep "
                             "their token") from None

    def user(self, name: str) -> User | None:
        """Participant ``name``, if any."""
        row = self.db.execute("SELECT name, token_hash, created, revoked FROM users WHERE name = ?", (name,)).fetchone()
        return None if row is None else User(*row)

    def users(self) -> list[User]:
        """Every participant, by name."""
        return [User(*row) for row in self.db.execute("SELECT name, token_hash, created, revoked FROM users "
                                                      "ORDER BY name")]

    def revoke(self, name: str) -> None:
        """Revoke ``name``'s token; ``ValueError`` for an unknown or already revoked participant."""
        with self.transaction():
            found = self.db.execute("UPDATE users SET revoked = ? WHERE name = ? AND revoked IS NULL",
                                    (time.time(), name)).rowcount
        if not found:
            raise ValueError(f"no participant {name!r} with a live token (see 'arena serve users list')")

    # -- browser sessions ----------------------------------------------------------------------

    def add_session(self, id_hash: str, user: str, expires: float) -> None:
        """Record a browser session (by its id's HMAC, never the id) of ``user`` until ``expires``; expired
        sessions go at the same time, and so do ``user``'s beyond the latest ``SESSIONS_MAX``."""
        with self.transaction():
            self.db.execute("DELETE FROM sessions WHERE expires < ?", (time.time(),))
            self.db.execute("INSERT INTO sessions (id_hash, user, expires) VALUES (?, ?, ?)", (id_hash, user, expires))
            self.db.execute("DELETE FROM sessions WHERE user = ? AND id_hash NOT IN (SELECT id_hash FROM sessions "
                            "WHERE user = ? ORDER BY expires DESC LIMIT ?)", (user, user, SESSIONS_MAX))

    def session_user(self, id_hash: str) -> str | None:
        """The participant of the live session ``id_hash``, or None (unknown, expired or ended)."""
        row = self.db.execute("SELECT user FROM sessions WHERE id_hash = ? AND expires > ?",
                              (id_hash, time.time())).fetchone()
        return None if row is None else str(row[0])

    def end_session(self, id_hash: str) -> None:
        """End a session (logout): its cookie is refused from now on, wherever it was copied to."""
        with self.transaction():
            self.db.execute("DELETE FROM sessions WHERE id_hash = ?", (id_hash,))

    # -- uploads -------------------------------------------------------------------------------

    _COLUMNS = ("id, user, filename, kind, sha256, size, created, state, reason, report, agent, version, entry, "
                "joined, retired, retire_asked, updated")

    def add_upload(self, user: str, filename: str, kind: str, sha256: str, size: int,
                   bounds: Bounds | None = None) -> Upload:
        """Record an upload (its file already stored) as queued for its check.

        With ``bounds``, they are checked in the same transaction as the insert (so two uploads at once cannot
        both take the last place): ``LimitError`` if one is exceeded, and nothing is recorded.
        """
        now = time.time()
        with self.transaction():
            if bounds is not None:
                self.check_bounds(user, size, bounds)
            cursor = self.db.execute(
                "INSERT INTO uploads (user, filename, kind, sha256, size, created, state, updated) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (user, filename, kind, sha256, size, now, QUEUED, now))
        upload = self.upload(int(cursor.lastrowid or 0))
        assert upload is not None
        return upload

    def check_bounds(self, user: str, size: int, bounds: Bounds) -> None:
        """``LimitError`` if one more upload of ``size`` bytes would exceed ``user``'s ``bounds``."""
        if self.recent_count(user, 3600.0) >= bounds.per_hour:
            raise LimitError(429, f"at most {bounds.per_hour} uploads an hour; try again later")
        if self.waiting(user) >= bounds.queued:
            raise LimitError(429, f"{bounds.queued} of your uploads are waiting for their check already; send this "
                                  "one when one is done")
        if self.stored_bytes(user) + size > bounds.stored_bytes:
            raise LimitError(413, f"your uploads would hold more than {bounds.stored_bytes} bytes (the competition's "
                                  "limit per participant)")

    def same_upload(self, user: str, sha256: str) -> Upload | None:
        """``user``'s upload of these bytes that is waiting for its check, being checked, or accepted and not
        retired (another of the same bytes would only be that agent again), if any."""
        row = self.db.execute(
            f"SELECT {self._COLUMNS} FROM uploads WHERE user = ? AND sha256 = ? AND state IN (?, ?, ?) "
            "AND retired IS NULL AND retire_asked IS NULL ORDER BY id LIMIT 1",
            (user, sha256, QUEUED, CHECKING, ACCEPTED)).fetchone()
        return None if row is None else Upload(*row)

    def upload(self, upload_id: int) -> Upload | None:
        """Upload ``upload_id``, if any."""
        row = self.db.execute(f"SELECT {self._COLUMNS} FROM uploads WHERE id = ?", (upload_id,)).fetchone()
        return None if row is None else Upload(*row)

    def uploads(self, user: str | None = None, state: str | None = None) -> list[Upload]:
        """Uploads, oldest first: all, one participant's, or those in one state."""
        where, values = [], []
        if user is not None:
            where.append("user = ?")
            values.append(user)
        if state is not None:
            where.append("state = ?")
            values.append(state)
        clause = f" WHERE {' AND '.join(where)}" if where else ""
        return [Upload(*row) for row in self.db.execute(f"SELECT {self._COLUMNS} FROM uploads{clause} ORDER BY id",
                                                        values)]

    def recent_count(self, user: str, seconds: float) -> int:
        """Uploads ``user`` made in the last ``seconds``."""
        return int(self.db.execute("SELECT COUNT(*) FROM uploads WHERE user = ? AND created > ?",
                                   (user, time.time() - seconds)).fetchone()[0])

    def stored_bytes(self, user: str) -> int:
        """Bytes of every upload ``user`` made."""
        return int(self.db.execute("SELECT COALESCE(SUM(size), 0) FROM uploads WHERE user = ?", (user,)).fetchone()[0])

    def waiting(self, user: str) -> int:
        """``user``'s uploads queued or being checked."""
        return int(self.db.execute("SELECT COUNT(*) FROM uploads WHERE user = ? AND state IN (?, ?)",
                                   (user, QUEUED, CHECKING)).fetchone()[0])

    def next_queued(self) -> Upload | None:
        """Claim the next queued upload for checking: the oldest of the participant whose uploads of the last hour
        were checked the fewest times, so that one participant's stream of slow uploads cannot hold everyone
        else's behind it (an upload left ``checking`` by a killed checker is put back in the queue by
        ``requeue_checking`` at start-up)."""
        with self.transaction():
            row = self.db.execute(
                f"SELECT {self._COLUMNS} FROM uploads AS queued WHERE state = ? ORDER BY "
                "(SELECT COUNT(*) FROM uploads AS done WHERE done.user = queued.user AND done.state IN (?, ?) "
                "AND done.created > ?), id LIMIT 1",
                (QUEUED, ACCEPTED, REJECTED, time.time() - 3600)).fetchone()
            if row is None:
                return None
            self.db.execute("UPDATE uploads SET state = ?, updated = ? WHERE id = ?", (CHECKING, time.time(), row[0]))
        return self.upload(row[0])

    def requeue_checking(self) -> int:
        """Put back in the queue the uploads whose check a stopped checker left unfinished; how many."""
        with self.transaction():
            return self.db.execute("UPDATE uploads SET state = ?, updated = ? WHERE state = ?",
                                   (QUEUED, time.time(), CHECKING)).rowcount

    def finish_check(self, upload_id: int, state: str, reason: str, report: str, agent: str | None) -> None:
        """Record a check's outcome: ``accepted`` (with its agent and next version number) or ``rejected``."""
        with self.transaction():
            version = None
            if state == ACCEPTED:
                user = self.db.execute("SELECT user FROM uploads WHERE id = ?", (upload_id,)).fetchone()[0]
                version = 1 + int(self.db.execute(
                    "SELECT COALESCE(MAX(version), 0) FROM uploads WHERE user = ? AND agent = ? AND state = ?",
                    (user, agent, ACCEPTED)).fetchone()[0])
            self.db.execute("UPDATE uploads SET state = ?, reason = ?, report = ?, agent = ?, version = ?, updated = ? "
                            "WHERE id = ?", (state, reason, report, agent, version, time.time(), upload_id))

    def agent_owner(self, agent: str) -> str | None:
        """The participant whose accepted uploads register ``agent``, if any."""
        row = self.db.execute("SELECT user FROM uploads WHERE agent = ? AND state = ? LIMIT 1",
                              (agent, ACCEPTED)).fetchone()
        return None if row is None else str(row[0])

    def waiting_to_join(self) -> list[Upload]:
        """Accepted uploads that have not joined the ladder yet (nor been retired by their owner), oldest first."""
        return [Upload(*row) for row in self.db.execute(
            f"SELECT {self._COLUMNS} FROM uploads WHERE state = ? AND entry IS NULL AND retired IS NULL "
            "AND retire_asked IS NULL ORDER BY id",
            (ACCEPTED,))]

    def joined(self, upload_id: int, entry: str) -> None:
        """Record that ``upload_id`` joined the ladder as ``entry``."""
        with self.transaction():
            self.db.execute("UPDATE uploads SET entry = ?, joined = ?, updated = ? WHERE id = ?",
                            (entry, time.time(), time.time(), upload_id))

    def retire(self, upload_id: int) -> None:
        """Record that a newer version replaced ``upload_id``."""
        with self.transaction():
            self.db.execute("UPDATE uploads SET retired = ?, updated = ? WHERE id = ?",
                            (time.time(), time.time(), upload_id))

    def drop(self, upload_id: int, reason: str) -> None:
        """Record that the server took ``upload_id`` out of the ladder, and why (one line, for its owner)."""
        with self.transaction():
            self.db.execute("UPDATE uploads SET retired = ?, reason = ?, updated = ? WHERE id = ?",
                            (time.time(), reason[:300], time.time(), upload_id))

    def ask_retire(self, upload_id: int) -> None:
        """Record its owner's wish that accepted upload ``upload_id`` play no more (the player retires it)."""
        with self.transaction():
            self.db.execute("UPDATE uploads SET retire_asked = ?, updated = ? WHERE id = ? AND retire_asked IS NULL",
                            (time.time(), time.time(), upload_id))

    def retire_all(self, user: str) -> int:
        """Ask to retire every accepted upload of ``user`` not retired yet (their token was revoked); how many."""
        with self.transaction():
            return self.db.execute(
                "UPDATE uploads SET retire_asked = ?, updated = ? WHERE user = ? AND state = ? AND retired IS NULL "
                "AND retire_asked IS NULL", (time.time(), time.time(), user, ACCEPTED)).rowcount

    def retire_asked(self) -> list[Upload]:
        """Accepted uploads whose owner asked to retire them and that are not retired yet."""
        return [Upload(*row) for row in self.db.execute(
            f"SELECT {self._COLUMNS} FROM uploads WHERE retire_asked IS NOT NULL AND retired IS NULL ORDER BY id")]

    def retired_entries(self) -> set[str]:
        """The ladder entries that play no more (replaced, retired by their owner, or removed by the server)."""
        return {str(entry) for (entry,) in
                self.db.execute("SELECT entry FROM uploads WHERE entry IS NOT NULL AND retired IS NOT NULL")}

    def entry_owners(self) -> dict[str, str]:
        """Ladder entry → its owner, for every upload that joined."""
        return {str(entry): str(user) for entry, user in
                self.db.execute("SELECT entry, user FROM uploads WHERE entry IS NOT NULL")}

