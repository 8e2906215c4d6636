"""How the API answers a request it cannot take: one line of JSON (``{"detail": "..."}``), never FastAPI's list of
validation errors.

An upload sent under another form field than ``file`` (``curl -F agent=@x.py``) is told the field to use.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response

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


def add_api_errors(app: FastAPI) -> None:
    """Answer validation errors in one line: ``400`` for an upload without its file, ``422`` otherwise."""

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> Response:
        detail = one_line(error.errors())
        return JSONResponse({"detail": detail}, status_code=400 if detail == NO_FILE else 422)
