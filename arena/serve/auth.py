"""Tokens and the server's secret: a token is shown once and stored only as an HMAC-SHA256 under the secret.

A token is ``NAME.RANDOM`` (32 random bytes, URL-safe): the name lets the server find the participant in
one look-up, and the comparison of HMACs is constant-time.  Someone who reads the database learns no
token; someone who also steals the secret still cannot reverse an HMAC of 256 random bits.  Form posts
carry a CSRF value, the HMAC of the session's token hash under the secret, which another site cannot
know (docs/serve.md, docs/security.md).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from pathlib import Path

SECRET_FILE = "secret.key"
USER_NAME = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
"""Participant names: lower-case letters, digits and '_', starting with a letter, at most 32 characters
(they become part of ladder entry names and URLs)."""

TOKEN_MAX = 200
"""Longest token read from a request; anything longer is refused before hashing."""


class AuthError(Exception):
    """A name or token that cannot be used; one-line message."""


def load_secret(folder: Path) -> bytes:
    """The server's secret (32 bytes), made once with mode 0600 in ``folder``; never printed or served.

    ``folder`` (the competition's) is made private to this user (0700), whoever made it: its files hold the
    ladder's deal key, every check report, every seat's output and every upload's code, which anyone with an
    account on the machine could otherwise read (the files are made with the usual 0644)."""
    path = folder / SECRET_FILE
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    folder.chmod(0o700)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        data = path.read_bytes()
        if len(data) != 32:
            raise AuthError(f"{path}: the server's secret is damaged (expected 32 bytes); restore it, or remove it "
                            "and add every participant again") from None
        return data
    data = secrets.token_bytes(32)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    return data


def check_name(name: str) -> str:
    """``name`` if it is a valid participant name; ``AuthError`` saying what is allowed otherwise."""
    if not USER_NAME.fullmatch(name):
        raise AuthError(f"participant name {name[:40]!r}: expected lower-case letters, digits and '_', starting "
                        "with a letter, at most 32 characters")
    return name


def new_token(name: str) -> str:
    """A fresh token for participant ``name``."""
    return f"{name}.{secrets.token_urlsafe(32)}"


def token_hash(secret: bytes, token: str) -> str:
    """What the database keeps of a token: its HMAC-SHA256 under the server's secret, in hex."""
    return hmac.new(secret, token.encode(), hashlib.sha256).hexdigest()


def new_session() -> str:
    """A fresh browser session id: what the session cookie holds instead of the token."""
    return secrets.token_urlsafe(32)


def session_hash(secret: bytes, session: str) -> str:
    """What the database keeps of a session id: its HMAC-SHA256 under the server's secret, in hex."""
    return hmac.new(secret, b"session:" + session.encode(), hashlib.sha256).hexdigest()


def token_name(token: str) -> str | None:
    """The participant a well-formed token names, or None for anything else (never raises)."""
    if not token or len(token) > TOKEN_MAX or not token.isascii():
        return None
    name, dot, _rest = token.partition(".")
    return name if dot and USER_NAME.fullmatch(name) else None


def same(a: str, b: str) -> bool:
    """Constant-time comparison of two hex digests."""
    return hmac.compare_digest(a.encode(), b.encode())


def csrf_value(secret: bytes, stored_hash: str) -> str:
    """The value a form of this session must post back: bound to the token, unknowable to another site."""
    return hmac.new(secret, b"csrf:" + stored_hash.encode(), hashlib.sha256).hexdigest()


def login_csrf(secret: bytes, nonce: str) -> str:
    """The value the login and register forms must post back: bound to the browser's pre-session nonce (a
    ``SameSite=Strict`` cookie another site's form post does not carry), so another site cannot log a visitor
    in under its own token (and collect what they then upload) or register in their name."""
    return hmac.new(secret, b"login:" + nonce.encode(), hashlib.sha256).hexdigest()
