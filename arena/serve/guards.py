"""ASGI middleware every request passes: a bound on the body, a rate limit per client, security headers.

They wrap the app as plain ASGI (no request parsing of their own): the body bound counts bytes as they
arrive, so a request without a ``Content-Length`` is stopped at the limit too, before it is spooled.
"""

from __future__ import annotations

import ipaddress
import json
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; "
       "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
"""No inline script, nothing from another origin, no framing (docs/serve.md)."""

SITE_CSP = CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")
"""The site's pages draw their charts as inline SVG, styled by attributes: styles inline, scripts still never."""

HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    # Nothing is kept by a browser's or a proxy's cache unless the route says otherwise (the site's files): a
    # page may hold a token (registration), an owner's report or their own seats' faults.
    (b"cache-control", b"no-store"),
]


async def _refuse(send: Send, status: int, detail: str, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            *HEADERS, *(extra or [])]})
    await send({"type": "http.response.body", "body": body})


class _TooLarge(Exception):
    pass


class BodyLimit:
    """Refuse (413) a request whose body is larger than ``limit`` bytes, by its header or as it arrives."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        detail = f"request body larger than {self.limit} bytes (the competition's upload limit)"
        for key, value in scope.get("headers", ()):
            if key == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    await _refuse(send, 400, "malformed Content-Length")
                    return
                if declared > self.limit:
                    await _refuse(send, 413, detail)
                    return
        seen = 0
        started = tripped = False

        async def counted() -> Message:
            nonlocal seen, tripped
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    tripped = True
                    raise _TooLarge
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            if tripped:  # the app turned the stopped read into an answer of its own (a 400): say why instead
                return
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except _TooLarge:
            pass
        if tripped and not started:
            await _refuse(send, 413, detail)


BUCKETS_MAX = 100_000
"""Clients whose rate the limit keeps (the most recently seen): bounded memory, and constant work a request."""


def client_key(address: str) -> str:
    """What one client is, for the limits: an IPv4 address, or an IPv6 address's /64 network (one host's usual
    share: counted by address, it would have 2**64 limits of its own)."""
    try:
        found = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(found, ipaddress.IPv6Address):
        if found.ipv4_mapped is not None:
            return str(found.ipv4_mapped)
        return str(ipaddress.IPv6Network((found, 64), strict=False))
    return address


class RateLimit:
    """A token bucket per client (``client_key``): ``rate`` requests a second, bursts of ``2 * rate``; else 429.
    The latest ``buckets`` clients are kept (one unseen since is forgotten, and comes back with a full bucket)."""

    def __init__(self, app: ASGIApp, rate: float, clock: Callable[[], float] = time.monotonic,
                 buckets: int = BUCKETS_MAX) -> None:
        self.app = app
        self.rate = rate
        self.burst = max(1.0, 2 * rate)
        self.clock = clock
        self.most = buckets
        self.buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # client -> (tokens, when), oldest first

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        address = client[0] if client else "unknown"
        key = client_key(address)
        now = self.clock()
        tokens, when = self.buckets.pop(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - when) * self.rate)
        allowed = tokens >= 1
        self.buckets[key] = (tokens - 1 if allowed else tokens, now)  # the most recently seen, last
        while len(self.buckets) > self.most:
            self.buckets.popitem(last=False)
        if not allowed:
            wait = max(1, int((1 - tokens) / self.rate + 0.999))
            await _refuse(send, 429, f"too many requests from {key}: at most {self.rate:g} a second; retry in "
                                     f"{wait} s", [(b"retry-after", str(wait).encode())])
            return
        await self.app(scope, receive, send)


class SecurityHeaders:
    """Add the Content-Security-Policy and its companions to every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {key.lower() for key, _value in message.get("headers", ())}
                message["headers"] = [*message.get("headers", ()), *(h for h in HEADERS if h[0] not in names)]
            await send(message)

        await self.app(scope, receive, with_headers)
