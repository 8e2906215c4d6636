"""The pages: the leaderboard, a page per agent, login, and each participant's own page (uploads, reports,
matches and faults of their own seats), rendered by Jinja2 with escaping on; the site's match viewer is
linked, not copied (``/site/``).  A form post carries the session's CSRF value and the cookie is
``SameSite=Strict``: another site can make a browser neither log in silently nor upload.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import FastAPI, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from arena.serve import auth
from arena.serve.db import User
from arena.serve.guards import client_key
from arena.serve.results import row_json
from arena.serve.session import SESSION_COOKIE, cookie

if TYPE_CHECKING:
    from arena.serve.app import App

TEMPLATES = Environment(loader=FileSystemLoader(Path(__file__).parent / "templates"),
                        autoescape=select_autoescape(default=True, default_for_string=True))
COOKIE_AGE = 14 * 24 * 3600
"""How long a browser keeps the session cookie (the session itself ends as long after its login)."""
LOGIN_COOKIE = "arena_login"
"""The pre-session nonce the login and register forms are bound to (auth.login_csrf)."""
MATCHES_SHOWN = 200
"""Matches a page lists at once, the latest first, older ones a link away (each made into a row only if shown:
an anchor plays in every match)."""
Offset = Annotated[int, Query(ge=0, le=10**9)]
"""``?offset=N``: a page's list of matches starts at its Nth newest (0: the newest)."""
FORM_EXPIRED = "this form has expired or came from another site; reload the page and retry"


def standings(board: dict[str, Any], retired: set[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The leaderboard's rows split into the playing ones, ranked among themselves (ties kept), and the retired
    ones, which play no more and hold no rank: those the published board lists apart (its ``retired``) and those
    retired (``retired``) since it was published."""
    rows = [*board.get("rows", []), *board.get("retired", [])]
    retired = retired | {row.get("agent") for row in board.get("retired", [])}
    playing = [row for row in rows if row.get("agent") not in retired]
    ranks = [row.get("rank") or 0 for row in playing]
    ranked = [{**row, "rank": 1 + sum(other < rank for other in ranks)} for row, rank in zip(playing, ranks)]
    return ranked, [row for row in rows if row.get("agent") in retired]


def add_pages(app: FastAPI, state: App) -> None:
    """Register the pages on ``app``."""

    def render(template: str, status: int = 200, **values: Any) -> HTMLResponse:
        values.setdefault("title", state.settings.ladder)
        return HTMLResponse(TEMPLATES.get_template(template).render(ladder=state.settings.ladder,
                                                                game=state.settings.game, **values),
                            status_code=status)

    def viewer(request: Request) -> User | None:
        return state.session_user(request.cookies.get(cookie(request, SESSION_COOKIE)))

    def csrf(user: User) -> str:
        return auth.csrf_value(state.settings.secret, user.token_hash)

    def check_csrf(user: User, posted: object) -> None:
        if not isinstance(posted, str) or not auth.same(posted, csrf(user)):
            raise HTTPException(403, FORM_EXPIRED)

    def check_login_csrf(request: Request, posted: object) -> None:
        nonce = request.cookies.get(cookie(request, LOGIN_COOKIE))
        if not nonce or len(nonce) > 100 or not isinstance(posted, str) or \
                not auth.same(posted, auth.login_csrf(state.settings.secret, nonce)):
            raise HTTPException(403, FORM_EXPIRED)

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def home(request: Request) -> HTMLResponse:
        board = state.results.leaderboard()
        owners = state.db.entry_owners()
        nonce = request.cookies.get(cookie(request, LOGIN_COOKIE))
        fresh = not nonce or len(nonce) > 100
        if fresh:
            nonce = secrets.token_urlsafe(24)
        assert nonce is not None
        playing, retired = standings(board, state.db.retired_entries())
        page = render("home.html", playing=playing, retired=retired, owners=owners, user=viewer(request),
                      matches=board.get("matches", 0),
                      open_door=state.settings.self_registration,
                      login_csrf=auth.login_csrf(state.settings.secret, nonce))
        if fresh:
            page.set_cookie(cookie(request, LOGIN_COOKIE), nonce, httponly=True, samesite="strict",
                            secure=request.url.scheme == "https", path="/")
        return page

    @app.post("/register", include_in_schema=False)
    async def register(request: Request) -> Response:
        form = await request.form(max_files=0, max_fields=3)
        check_login_csrf(request, form.get("csrf"))
        name = form.get("name")
        client = client_key(request.client.host) if request.client else "unknown"
        try:
            added = await run_in_threadpool(state.register, name[:100] if isinstance(name, str) else "", client)
        except HTTPException as error:
            return render("message.html", error.status_code, message=str(error.detail))
        return render("registered.html", 201, name=added.name, token=added.token)

    @app.post("/login", include_in_schema=False)
    async def login(request: Request) -> Response:
        form = await request.form(max_files=0, max_fields=3)
        check_login_csrf(request, form.get("csrf"))
        token = form.get("token")
        user = state.user_for(token.strip()) if isinstance(token, str) else None
        if user is None or not isinstance(token, str):
            return render("message.html", 401, message="That token is not valid (or was revoked). Ask the organiser "
                                                       "for a new one.")
        session = await run_in_threadpool(state.start_session, user)
        response = RedirectResponse("/me", status_code=303)
        response.set_cookie(cookie(request, SESSION_COOKIE), session, max_age=COOKIE_AGE, httponly=True,
                            samesite="strict", secure=request.url.scheme == "https", path="/")
        return response

    @app.post("/logout", include_in_schema=False)
    async def logout(request: Request) -> Response:
        user = viewer(request)
        if user is not None:
            form = await request.form(max_files=0, max_fields=2)
            check_csrf(user, form.get("csrf"))
            # Ended here, not only forgotten by this browser: a copy of the cookie is refused from now on too.
            await run_in_threadpool(state.end_session, request.cookies.get(cookie(request, SESSION_COOKIE)))
        response = RedirectResponse("/", status_code=303)
        response.delete_cookie(cookie(request, SESSION_COOKIE), path="/", secure=request.url.scheme == "https")
        return response

    def my_page(request: Request, user: User, status: int = 200, error: str | None = None,
                offset: int = 0) -> HTMLResponse:
        mine = state.entries_of(user)
        shown = state.results.viewable()
        chosen = [row for row in reversed(state.results.snapshot().rows) if mine & set(row.agents)]
        rows = [row_json(row, mine, shown(row)) for row in chosen[offset:offset + MATCHES_SHOWN]]
        return render("me.html", status, user=user, uploads=list(reversed(state.db.uploads(user=user.name))),
                      csrf=csrf(user), matches=rows, total=len(chosen), offset=offset, size=MATCHES_SHOWN, mine=mine,
                      error=error, limits=state.settings.limits)

    @app.get("/me", response_class=HTMLResponse, include_in_schema=False)
    def me(request: Request, offset: Offset = 0) -> Response:
        user = viewer(request)
        if user is None:
            return RedirectResponse("/", status_code=303)
        return my_page(request, user, offset=offset)

    @app.post("/me/uploads", include_in_schema=False)
    async def upload(request: Request) -> Response:
        user = viewer(request)
        if user is None:
            raise HTTPException(401, "log in first")
        form = await request.form(max_files=1, max_fields=2)
        check_csrf(user, form.get("csrf"))
        file = form.get("file")
        if not isinstance(file, UploadFile):
            return await run_in_threadpool(my_page, request, user, 400, "choose a file to upload")
        data = await file.read(state.settings.limits.upload_bytes + 1)
        try:
            await run_in_threadpool(state.accept, user, file.filename or "", data)
        except HTTPException as error:
            return await run_in_threadpool(my_page, request, user, error.status_code, str(error.detail))
        return RedirectResponse("/me", status_code=303)

    @app.get("/me/uploads/{upload_id}", response_class=HTMLResponse, include_in_schema=False)
    def report(request: Request, upload_id: int) -> Response:
        user = viewer(request)
        if user is None:
            return RedirectResponse("/", status_code=303)
        return render("upload.html", user=user, upload=state.own_upload(user, upload_id), csrf=csrf(user))

    @app.post("/me/uploads/{upload_id}/retire", include_in_schema=False)
    async def retire(request: Request, upload_id: int) -> Response:
        user = viewer(request)
        if user is None:
            raise HTTPException(401, "log in first")
        form = await request.form(max_files=0, max_fields=2)
        check_csrf(user, form.get("csrf"))
        await run_in_threadpool(state.retire, user, upload_id)
        return RedirectResponse(f"/me/uploads/{upload_id}", status_code=303)

    @app.get("/agents/{entry}", response_class=HTMLResponse, include_in_schema=False)
    def agent(request: Request, entry: str, offset: Offset = 0) -> HTMLResponse:
        playing, retired = standings(state.results.leaderboard(), state.db.retired_entries())
        row = next((row for row in playing + retired if row.get("agent") == entry), None)
        shown = state.results.viewable()
        chosen = [match for match in reversed(state.results.snapshot().rows) if entry in match.agents]
        rows = [row_json(match, viewable=shown(match)) for match in chosen[offset:offset + MATCHES_SHOWN]]
        if row is None and not rows and entry not in state.db.entry_owners():
            raise HTTPException(404, "no such agent")
        owner = state.db.entry_owners().get(entry)
        versions = []
        if owner is not None:  # every version of this agent by its owner (each its own entry)
            agent_name = next(upload.agent for upload in state.db.uploads(user=owner) if upload.entry == entry)
            versions = [upload for upload in state.db.uploads(user=owner)
                        if upload.agent == agent_name and upload.entry is not None]
        history = state.results.ladder_entry(entry)
        return render("agent.html", entry=entry, row=row, retired=row in retired, matches=rows, total=len(chosen),
                      offset=offset, size=MATCHES_SHOWN, owner=owner, versions=versions, history=history,
                      user=viewer(request))
