"""How a request that cannot be taken is answered: under ``/api/``, one line of JSON (``{"detail": "..."}``), never
FastAPI's list of validation errors; anywhere else (the pages, a browser's), an HTML page with that line.

An upload sent under another form field than ``file`` (``curl -F agent=@x.py``) is told the field to use.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.exceptions import HTTPException

from arena.serve.pages import TEMPLATES

UPLOAD_FIELD = "file"
"""The multipart form field an upload travels in (``POST /api/uploads``, the upload form)."""
NO_FILE = (f"no file in the form field {UPLOAD_FIELD!r}: send the agent as multipart/form-data in a field named "
           f"{UPLOAD_FIELD!r} (curl -F {UPLOAD_FIELD}=@my_agent.py)")


def one_line(errors: Sequence[Any]) -> str:
    """FastAPI's validation errors in one line: where each was, and what was wrong."""
    parts = []
    for error in errors[:5]:
        loc = [str(part) for part in error.get("loc", ())]
        if loc[:2] == ["body", UPLOAD_FIELD]:
            return NO_FILE
        where = " ".join(loc) or "request"
        parts.append(f"{where}: {error.get('msg', 'invalid')}"[:200])
    return "; ".join(parts) or "invalid request"


def is_api(request: Request) -> bool:
    """Whether ``request`` is the API's (answered in JSON) rather than a page's (answered in HTML)."""
    return request.url.path.startswith("/api/")


def add_error_handlers(app: FastAPI, ladder: str, game: str) -> None:
    """Answer refusals in one line: JSON under ``/api/`` (``400`` for an upload without its file, ``422`` for
    another malformed request), an HTML page elsewhere, with the status and headers (``Retry-After``) either way."""

    def page(status: int, message: str, headers: dict[str, str] | None = None) -> HTMLResponse:
        text = TEMPLATES.get_template("message.html").render(ladder=ladder, game=game, title=ladder, message=message)
        return HTMLResponse(text, status_code=status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> Response:
        detail = one_line(error.errors())
        status = 400 if detail == NO_FILE else 422
        return JSONResponse({"detail": detail}, status_code=status) if is_api(request) else page(status, detail)

    @app.exception_handler(HTTPException)
    async def refused(request: Request, error: HTTPException) -> Response:
        if is_api(request):
            return await http_exception_handler(request, error)
        return page(error.status_code, str(error.detail), dict(error.headers or {}))
