"""Who is calling: the session cookie's name, and the dependencies that read a caller's token.

Shared by the API (``arena.serve.app``), the pages (``arena.serve.pages``) and the seat logs
(``arena.serve.seat_logs``), which all read the app's state from the request (``request.app.state.arena``), so
none of them imports another for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from fastapi import Depends, HTTPException, Request

from arena.serve.db import User

if TYPE_CHECKING:
    from arena.serve.app import App

SESSION_COOKIE = "arena_session"


def cookie(request: Request, name: str) -> str:
    """The name cookie ``name`` has for ``request``: over TLS, ``__Host-NAME``, which a browser accepts only
    Secure, for this host and path ``/``, so that a neighbouring site under the same parent domain cannot plant
    its own (a session under the attacker's token, a login nonce whose CSRF value it knows)."""
    return f"__Host-{name}" if request.url.scheme == "https" else name


def api_user(request: Request) -> User:
    """The participant whose token the request carries (``Authorization: Bearer TOKEN``); 401 otherwise."""
    state: App = request.app.state.arena
    header = request.headers.get("authorization", "")
    scheme, _space, token = header.partition(" ")
    user = state.user_for(token.strip()) if scheme.lower() == "bearer" else None
    if user is None:
        raise HTTPException(401, "a valid token is needed: send 'Authorization: Bearer TOKEN' (forged, revoked "
                                 "and malformed tokens are refused)", headers={"WWW-Authenticate": "Bearer"})
    return user


ApiUser = Annotated[User, Depends(api_user)]


def optional_user(request: Request) -> User | None:
    """The participant of a valid bearer token or session cookie, or None (a public route that shows its caller
    a little more of their own)."""
    state: App = request.app.state.arena
    scheme, _space, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer":
        return state.user_for(token.strip())
    return state.session_user(request.cookies.get(cookie(request, SESSION_COOKIE)))
