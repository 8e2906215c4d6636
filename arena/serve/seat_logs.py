"""Each seat's output, shown to the seat's owner only: a page (``/me/matches/{id}``) and the JSON API
(``/api/my/matches/{id}/logs``).

The referee keeps the end of what each seat printed (``arena.referee.seat_log``) with the match in the
results store, apart from the public record.  Here a participant reads the logs of their own seats of a
stored match, and nothing else: another participant's seats in the same match are left out, a match in
which the caller has no seat is a 404 as a match that does not exist, and so is a match not yet published
(what a seat printed, its hand say, is dealt again in the other rotations of its deal, which may still be
being played).  The text was escaped of control characters when it was kept, and the page renders it with
Jinja2's escaping (under the app's Content-Security-Policy).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from arena.serve.db import User
from arena.serve.pages import TEMPLATES
from arena.serve.session import SESSION_COOKIE, ApiUser, cookie  # ApiUser: read by FastAPI from an annotation
from arena.tournament.store import Store, StoreError

if TYPE_CHECKING:
    from arena.serve.app import App

MATCH_ID_MAX = 100
"""Longest match id looked up (longer ones are no match)."""


def own_logs(state: App, user: User, match_id: str) -> list[dict[str, Any]]:
    """``user``'s seats of stored match ``match_id``, each ``{"seat", "agent", "kept", "log"}`` (``kept``: false
    when the match is older than the latest ``seat_log_matches``, whose output alone is kept); 404 when there is no
    such match or the user has no seat in it (the same answer: the one says nothing about the other)."""
    row = state.results.snapshot().by_id.get(match_id) if len(match_id) <= MATCH_ID_MAX else None
    mine = state.entries_of(user) if row is not None else set()
    seats = [seat for seat, agent in enumerate(row.agents) if agent in mine] if row is not None else []
    if row is None or not seats:
        raise HTTPException(404, f"you have no seat in a stored match {match_id[:MATCH_ID_MAX]!r}")
    if not state.results.viewable()(row):  # what a seat printed (its hand, say) is dealt again in the other
        # rotations of its deal, which may still be being played
        raise HTTPException(404, f"match {match_id[:MATCH_ID_MAX]!r} is not published yet: its seats' output is "
                                 "shown once the batch it was played in is published")
    snapshot = state.results.snapshot()
    # Only the latest matches' output is kept (``seat_log_matches``): an older one says so, not "nothing".
    kept = len(snapshot.rows) - snapshot.position[match_id] <= state.settings.limits.seat_log_matches
    try:
        with Store.open_readonly(state.results.path) as store:
            return [{"seat": seat, "agent": row.agents[seat], "kept": kept,
                     "log": store.seat_log(match_id, seat) if kept else ""} for seat in seats]
    except StoreError:
        raise HTTPException(503, "the results store cannot be read just now; retry in a moment") from None


def add_seat_log_routes(app: FastAPI, state: App) -> None:
    """Register the page and the API route on ``app``."""
    @app.get("/api/my/matches/{match_id}/logs")
    def my_logs(user: ApiUser, match_id: str) -> dict[str, Any]:
        """What the caller's own seats of one stored match printed (the last 64 KiB of each: standard output
        and error, logging, tracebacks); 404 for a match without a seat of theirs."""
        return {"match": match_id, "seats": own_logs(state, user, match_id)}

    @app.get("/me/matches/{match_id}", response_class=HTMLResponse, include_in_schema=False)
    def my_logs_page(request: Request, match_id: str) -> Response:
        user = state.session_user(request.cookies.get(cookie(request, SESSION_COOKIE)))
        if user is None:
            return RedirectResponse("/", status_code=303)
        seats = own_logs(state, user, match_id)
        page = TEMPLATES.get_template("seat_logs.html").render(
            ladder=state.settings.ladder, game=state.settings.game, title=state.settings.ladder, user=user,
            match_id=match_id, seats=seats, keep=f"{state.settings.limits.seat_log_matches:,}")
        return HTMLResponse(page)
