"""The web app, built by a factory from ``AppSettings``: the JSON API (``/api``), the pages and the live site.

Authentication is one dependency per kind of caller: ``api_user`` reads ``Authorization: Bearer TOKEN``,
``page_user`` the HttpOnly session cookie a login sets (a random session id, stored only as an HMAC, ended
at logout; never the token, never readable by a script);
every protected route declares one, and a route about an upload takes only the caller's own (another
participant's upload is "not found", which says nothing about whether it exists).  The request records
intent only: an upload is checked for size and names, stored and queued; the checker and the player do
the work (arena.serve.checker, arena.serve.player).  The API's OpenAPI description is ``/api/openapi.json``; the
interactive pages FastAPI would add (``/api/docs``, ``/api/redoc``) are off: they load scripts from a CDN and
run an inline one, which the Content-Security-Policy refuses (and a third party's script has no place here).
"""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request, UploadFile
from fastapi.responses import FileResponse, Response
from pydantic import BaseModel, Field

from arena.serve import auth
from arena.serve.archives import UploadError, kind_of, read_upload, safe_filename
from arena.serve.config import ServeLimits
from arena.serve.db import ACCEPTED, Bounds, LimitError, ServeDB, Upload, User
from arena.serve.errors import add_error_handlers
from arena.serve.guards import SITE_CSP, BodyLimit, RateLimit, SecurityHeaders, client_key
from arena.serve.pages import add_pages, standings  # the pages share this app's state and dependencies
from arena.serve.results import Results, row_json
from arena.serve.seat_logs import add_seat_log_routes  # each seat's output, to its owner only
from arena.serve.session import ApiUser, optional_user
from arena.serve.site_filter import SiteFilter, is_match_chunk
from arena.serve.storage import blob_path, store_blob

SITE_TYPES = {".html": "text/html; charset=utf-8", ".css": "text/css", ".js": "text/javascript",
              ".json": "application/json", ".png": "image/png", ".svg": "image/svg+xml", ".csv": "text/csv",
              ".md": "text/markdown; charset=utf-8"}
"""What the live site may serve from the ladder's folder, by ending: never its store or lock files."""
SITE_ASSETS = Path(__file__).resolve().parent.parent / "site" / "assets"
PUBLIC_CHUNKS = "public-chunks"
"""The competition's folder of the site's match chunks without the faults' messages (arena.serve.site_filter)."""
FORM_OVERHEAD = 64 * 1024
"""Bytes a multipart form adds around its file (boundaries, headers, the CSRF field)."""
SESSION_SECONDS = 14 * 24 * 3600
"""How long a browser session lasts after its login."""
REGISTRATIONS = 5
"""Self-registrations an hour from one client address."""
REGISTRATIONS_ALL = 50
"""Self-registrations an hour from all addresses together: someone with many addresses (an IPv6 block) cannot
make accounts without end, each with its own upload quota on the server's disk."""


@dataclass(frozen=True, slots=True)
class AppSettings:
    """What the app needs: the competition's folder, its ladder's name and game, the limits, the secret."""

    folder: Path  # the competition's folder (serve.sqlite, blobs/, leaderboards/)
    ladder: str  # the ladder's name (leaderboards/<ladder>/)
    game: str  # the game played
    limits: ServeLimits  # bounds on every participant's input
    secret: bytes  # the server's secret (arena.serve.auth)
    self_registration: bool = False  # whether anyone may add themselves (POST /api/register)


EPOCH = "when, in seconds since 1970-01-01 00:00 UTC (the Unix epoch), as every time the API gives"


class UploadOut(BaseModel):
    """An upload as its owner sees it."""

    id: int
    user: str
    filename: str
    kind: str
    sha256: str
    size: int
    created: float = Field(description=EPOCH)
    state: str
    reason: str | None
    agent: str | None
    version: int | None
    entry: str | None
    joined: float | None = Field(description=EPOCH)
    retired: float | None = Field(description=EPOCH)
    retire_asked: float | None = Field(description=EPOCH)
    report: str | None = None


class Registration(BaseModel):
    """A participant's wished name (self-registration)."""

    name: str


class Registered(BaseModel):
    """A new participant and their token, shown only in this answer."""

    name: str
    token: str


class Me(BaseModel):
    """The caller and their uploads."""

    user: str
    uploads: list[UploadOut]


class App:
    """State shared by the routes of one app: a database connection per thread, the results, the settings."""

    def __init__(self, settings: AppSettings) -> None:
        self.settings = settings
        self.results = Results(settings.folder / "leaderboards", settings.ladder)
        self._local = threading.local()
        self._registrations: dict[str, list[float]] = {}  # client address -> when it registered someone
        self._registering = threading.Lock()
        ServeDB(settings.folder).close()  # the schema exists before the first request

    @property
    def db(self) -> ServeDB:
        """This thread's connection (FastAPI runs plain route functions in a thread pool)."""
        db = getattr(self._local, "db", None)
        if db is None:
            db = self._local.db = ServeDB(self.settings.folder)
        return db

    def user_for(self, token: str | None) -> User | None:
        """The live participant ``token`` belongs to, or None (forged, revoked, malformed)."""
        name = auth.token_name(token or "")
        if name is None or token is None:
            return None
        user = self.db.user(name)
        # The HMAC and its comparison are done for an unknown or revoked name too: the answer's time does not
        # tell which participant names exist.
        stored = user.token_hash if user is not None else "0" * 64
        matches = auth.same(stored, auth.token_hash(self.settings.secret, token))
        return user if matches and user is not None and user.revoked is None else None

    def start_session(self, user: User) -> str:
        """A new browser session of ``user``, lasting ``SESSION_SECONDS``; its id, for the cookie only."""
        session = auth.new_session()
        self.db.add_session(auth.session_hash(self.settings.secret, session), user.name, time.time() + SESSION_SECONDS)
        return session

    def session_user(self, session: str | None) -> User | None:
        """The live participant of browser session ``session``, or None (unknown, expired, ended, revoked)."""
        if not session or len(session) > auth.TOKEN_MAX or not session.isascii():
            return None
        name = self.db.session_user(auth.session_hash(self.settings.secret, session))
        user = self.db.user(name) if name is not None else None
        return user if user is not None and user.revoked is None else None

    def end_session(self, session: str | None) -> None:
        """End browser session ``session`` (logout), if it is one."""
        if session and len(session) <= auth.TOKEN_MAX and session.isascii():
            self.db.end_session(auth.session_hash(self.settings.secret, session))

    def own_upload(self, user: User, upload_id: int) -> Upload:
        """``user``'s upload ``upload_id``; 404 for another's as for none."""
        upload = self.db.upload(upload_id) if 0 < upload_id < 2**63 else None  # SQLite's integers are 64-bit
        if upload is None or upload.user != user.name:
            raise HTTPException(404, f"you have no upload {upload_id}")
        return upload

    def accept(self, user: User, filename: str, data: bytes) -> Upload:
        """Check an upload's limits and contents' names and sizes, store it and queue it; HTTPException if refused."""
        limits = self.settings.limits
        bounds = Bounds(per_hour=limits.uploads_per_hour, queued=limits.queued, stored_bytes=limits.stored_bytes)
        db = self.db
        try:
            with db.transaction():  # refuse early, before the work of reading and storing the upload
                db.check_bounds(user.name, len(data), bounds)
            kind = kind_of(filename)
            read_upload(filename, data, limits)  # sizes, counts and names, before anything is stored
        except LimitError as error:
            raise HTTPException(error.status, str(error)) from None
        except UploadError as error:
            raise HTTPException(400, str(error)) from None
        same = db.same_upload(user.name, hashlib.sha256(data).hexdigest())
        if same is not None:  # the same bytes would be the same agent again, under a new version number
            where = f"plays as {same.entry}" if same.entry is not None else f"is {same.state}"
            if same.state == ACCEPTED and same.entry is None:
                where = "is accepted and joins the ladder between two runs"
            raise HTTPException(409, f"this file is your upload {same.id} ({same.filename}), which {where}; change "
                                     "the agent to send a new version")
        digest = store_blob(self.settings.folder, data)
        try:  # again, with the insert: two uploads at once cannot both take the last place
            return db.add_upload(user.name, safe_filename(filename), kind, digest, len(data), bounds)
        except LimitError as error:
            # Its file stays: another upload of the same bytes may be recording it at this moment. Only a race
            # past the check above leaves such a file, so at most one per concurrent request.
            raise HTTPException(error.status, str(error)) from None

    def register(self, name: str, address: str) -> Registered:
        """Add participant ``name`` (self-registration); their token. 404 when it is off, 400 for a bad name,
        409 for a taken one, 429 past ``REGISTRATIONS`` an hour from one address."""
        if not self.settings.self_registration:
            raise HTTPException(404, "self-registration is off: ask the organiser for a token")
        try:
            auth.check_name(name)
        except auth.AuthError as error:
            raise HTTPException(400, str(error)) from None
        with self._registering:  # requests run on several threads: two at once cannot both take the last place
            now = time.monotonic()
            self._registrations = {key: kept for key, times in self._registrations.items()
                                   if (kept := [when for when in times if now - when < 3600])}
            recent = self._registrations.get(address, [])
            if len(recent) >= REGISTRATIONS:
                raise HTTPException(429, f"at most {REGISTRATIONS} registrations an hour from one address")
            if sum(map(len, self._registrations.values())) >= REGISTRATIONS_ALL:
                raise HTTPException(429, f"at most {REGISTRATIONS_ALL} registrations an hour in all; retry later, "
                                         "or ask the organiser for a token")
            token = auth.new_token(name)
            try:
                self.db.add_user(name, auth.token_hash(self.settings.secret, token))
            except ValueError:
                raise HTTPException(409, f"the name {name!r} is taken; choose another") from None
            self._registrations[address] = [*recent, now]
        return Registered(name=name, token=token)

    def retire(self, user: User, upload_id: int) -> Upload:
        """Ask to retire ``user``'s accepted upload ``upload_id``; 404 for another's, 409 for one not accepted."""
        upload = self.own_upload(user, upload_id)
        if upload.state != ACCEPTED:
            raise HTTPException(409, f"upload {upload_id} is {upload.state}: only an accepted upload plays, and can "
                                     "be retired")
        if upload.retired is None:
            self.db.ask_retire(upload_id)
        return self.own_upload(user, upload_id)

    def entries_of(self, user: User) -> set[str]:
        """The ladder entries of ``user``'s uploads."""
        return {upload.entry for upload in self.db.uploads(user=user.name) if upload.entry is not None}


def out(upload: Upload) -> UploadOut:
    """An upload for its owner."""
    return UploadOut(**upload.to_json(owner=True))


def create_app(settings: AppSettings) -> FastAPI:
    """The web app of one competition."""
    state = App(settings)
    app = FastAPI(title=f"arena serve: {settings.ladder}", docs_url=None, redoc_url=None,
                  openapi_url="/api/openapi.json")
    app.state.arena = state
    add_error_handlers(app, settings.ladder, settings.game)

    @app.post("/api/register", status_code=201, response_model=Registered)
    def register(request: Request, wish: Registration) -> Registered:
        """Add yourself as a participant, where the competition allows it; the token is shown only here."""
        client = client_key(request.client.host) if request.client else "unknown"
        return state.register(wish.name[:100], client)

    @app.get("/api/me", response_model=Me)
    def me(user: ApiUser) -> Me:
        """The caller and every upload they made."""
        return Me(user=user.name, uploads=[out(upload) for upload in state.db.uploads(user=user.name)])

    @app.post("/api/uploads", status_code=202, response_model=UploadOut)
    async def upload(user: ApiUser, file: UploadFile) -> UploadOut:
        """Submit an agent (a .py drop-in, a wheel, a .zip or a .tar.gz): stored and queued for its check."""
        data = await file.read(settings.limits.upload_bytes + 1)
        accepted = await _in_thread(state.accept, user, file.filename or "", data)
        return out(accepted)

    @app.get("/api/uploads", response_model=list[UploadOut])
    def uploads(user: ApiUser) -> list[UploadOut]:
        """The caller's uploads, oldest first."""
        return [out(upload) for upload in state.db.uploads(user=user.name)]

    @app.get("/api/uploads/{upload_id}", response_model=UploadOut)
    def one_upload(user: ApiUser, upload_id: int) -> UploadOut:
        """One of the caller's uploads, with its check's report."""
        return out(state.own_upload(user, upload_id))

    @app.get("/api/uploads/{upload_id}/file")
    def upload_file(user: ApiUser, upload_id: int) -> FileResponse:
        """The file the caller uploaded, as sent."""
        found = state.own_upload(user, upload_id)
        return FileResponse(blob_path(settings.folder, found.sha256), media_type="application/octet-stream",
                            filename=found.filename)

    @app.post("/api/uploads/{upload_id}/retire", status_code=202, response_model=UploadOut)
    def retire(user: ApiUser, upload_id: int) -> UploadOut:
        """Stop scheduling one of the caller's accepted uploads (its matches and history stay); done between
        two runs of the ladder."""
        return out(state.retire(user, upload_id))

    @app.get("/api/leaderboard")
    def leaderboard() -> dict[str, Any]:
        """The leaderboard as last published (each entry's rating and interval, its faults, its version): ``rows``
        the playing entries, ranked among themselves; ``retired`` the retired ones, which hold no rank."""
        board = state.results.leaderboard()
        playing, retired = standings(board, state.db.retired_entries())
        return {**board, "rows": playing, "retired": [{**row, "rank": None} for row in retired]}

    @app.get("/api/matches")
    def matches(entry: str | None = None, offset: int = 0, limit: int = 100) -> dict[str, Any]:
        """Stored matches, newest first, optionally only those of one entry; a page at a time (limit <= 500)."""
        if not 0 <= offset <= 10**9 or not 1 <= limit <= 500:
            raise HTTPException(400, "offset must be 0 or more and limit from 1 to 500")
        rows = state.results.snapshot().rows
        chosen = [row for row in reversed(rows) if entry is None or entry in row.agents]
        shown = state.results.viewable()
        return {"total": len(chosen), "matches": [row_json(row, viewable=shown(row))
                                                  for row in chosen[offset:offset + limit]]}

    @app.get("/api/my/matches")
    def my_matches(user: ApiUser, offset: int = 0, limit: int = 100) -> dict[str, Any]:
        """The caller's agents' matches, newest first, with the faults of their own seats."""
        if not 0 <= offset <= 10**9 or not 1 <= limit <= 500:
            raise HTTPException(400, "offset must be 0 or more and limit from 1 to 500")
        mine = state.entries_of(user)
        chosen = [row for row in reversed(state.results.snapshot().rows) if mine & set(row.agents)]
        shown = state.results.viewable()
        return {"total": len(chosen), "matches": [row_json(row, mine, shown(row))
                                                  for row in chosen[offset:offset + limit]]}

    @app.get("/api/matches/{match_id}")
    def match(request: Request, match_id: str) -> dict[str, Any]:
        """One published match's full record (a match appears once its batch is published: the other rotations
        of its deal are played by then); the faults' messages only of the caller's own seats (with a token)."""
        if len(match_id) > 100:
            raise HTTPException(404, "no such match")
        caller = optional_user(request)
        record = state.results.record(match_id, state.entries_of(caller) if caller is not None else set())
        if record is None:
            raise HTTPException(404, f"no published match {match_id[:100]!r} (a match is shown once the batch it "
                                     "was played in is published)")
        return record

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> Response:
        """No icon (and no 404 in every browser's console)."""
        return Response(status_code=204)

    @app.get("/assets/site.css", include_in_schema=False)
    def stylesheet() -> FileResponse:
        """The site's stylesheet, from arena's own files (the pages need it before the first publish)."""
        return FileResponse(SITE_ASSETS / "site.css", media_type="text/css")

    public_site = SiteFilter(settings.folder / PUBLIC_CHUNKS)

    @app.get("/site/{path:path}")
    def site(path: str) -> Response:
        """The ladder's site (leaderboard, matches, viewer), rewritten by the player after every run; the match
        pages' data without the faults' messages (arena.serve.site_filter)."""
        return _site_file(settings, path, public_site)


    add_pages(app, state)

    add_seat_log_routes(app, state)
    # The last added runs first: the rate limit, then the body bound, then the headers on every answer.
    app.add_middleware(SecurityHeaders)
    app.add_middleware(BodyLimit, limit=settings.limits.upload_bytes + FORM_OVERHEAD)
    app.add_middleware(RateLimit, rate=settings.limits.requests_per_second)
    return app


async def _in_thread(function: Any, *args: Any) -> Any:
    from starlette.concurrency import run_in_threadpool

    return await run_in_threadpool(function, *args)


def _site_file(settings: AppSettings, path: str, public: SiteFilter) -> Response:
    """A file of the site, by a relative path inside the ladder's folder; 404 for anything else."""
    root = (settings.folder / "leaderboards" / settings.ladder).resolve()
    parts = [part for part in path.split("/") if part]
    if not parts:
        parts = ["index.html"]
    if any(part.startswith(".") or "\\" in part or not part.isprintable() for part in parts) or len(path) > 300:
        raise HTTPException(404, "no such page")  # a NUL byte, say, which no file name holds
    try:
        target = root.joinpath(*parts).resolve()
        found = target.is_file()
    except (OSError, ValueError):
        raise HTTPException(404, "no such page") from None
    suffix = target.suffix.lower()
    if not target.is_relative_to(root) or suffix not in SITE_TYPES or not found:
        raise HTTPException(404, "no such page (the site appears after the first matches are played)")
    headers = {"cache-control": "no-cache", "content-security-policy": SITE_CSP}
    if is_match_chunk(parts):
        try:
            target = public.chunk(target)
        except OSError:
            raise HTTPException(404, "no such page") from None
    return FileResponse(target, media_type=SITE_TYPES[suffix], headers=headers)
