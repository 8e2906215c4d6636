"""The wire format between the referee and an isolated agent: length-prefixed JSON over a socket.

Each message is a 4-byte big-endian length followed by that many bytes of
UTF-8 JSON.  Only plain data crosses: observations (``Observation.to_json()``),
public events, actions and the result.  The referee reads with a deadline and
a size cap, so an agent can neither stall it nor flood its memory.

Referee to agent: ``{"op": "act", "events": [...], "observation": {...}}`` and
``{"op": "result", "events": [...], "result": {...}}``.  Agent to referee:
``{"ready": true}``, ``{"action": ...}``, ``{"done": true}``, or
``{"error": "exception" | "memory" | "malformed", "message": ...}``.
"""

from __future__ import annotations

import dataclasses
import json
import socket
import struct
import time
from typing import Any

from arena.games.base import Observation

HEADER = struct.Struct(">I")
"""The length prefix of every message."""

REPLY_LIMIT = 1 << 20
"""Largest message the referee accepts from an agent (1 MiB); more is a malformed reply."""

REQUEST_LIMIT = 64 << 20
"""Largest message an agent process accepts from the referee."""


class ChannelClosed(Exception):
    """The other end closed the connection (the agent's process died or exited)."""


class ChannelTimeout(Exception):
    """The deadline passed before a whole message arrived."""


class ProtocolError(Exception):
    """The other end sent something that is not a message of this protocol."""


def encode(message: Any) -> bytes:
    """One framed message."""
    body = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()
    return HEADER.pack(len(body)) + body


def encode_act(events: list[Any], observation: Observation) -> bytes:
    """The framed ``act`` request: pending public events and the observation as ``Observation.to_json()`` gives it.

    For observations that keep the base ``to_json`` and hold only JSON types
    (as the design requires), ``json.dumps`` of the raw fields gives the same
    text as ``json.dumps(observation.to_json())`` at a fraction of the cost
    (tuples encode as lists); anything else takes ``to_json()``.
    """
    kind = type(observation)
    if kind.to_json is Observation.to_json:
        names = _FIELDS.get(kind)
        if names is None:
            names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(kind))
        try:
            return encode({"op": "act", "events": events,
                           "observation": {name: getattr(observation, name) for name in names}})
        except (TypeError, ValueError):
            pass
    return encode({"op": "act", "events": events, "observation": observation.to_json()})


_FIELDS: dict[type, tuple[str, ...]] = {}


def send(sock: socket.socket, data: bytes, deadline: float | None = None) -> None:
    """Send a framed message; ``ChannelTimeout`` past ``deadline`` (a ``time.monotonic()`` value)."""
    try:
        if deadline is not None:
            sock.settimeout(max(deadline - time.monotonic(), 0.0))
        sock.sendall(data)
    except (TimeoutError, BlockingIOError):
        raise ChannelTimeout("timed out sending") from None
    except (BrokenPipeError, ConnectionResetError):
        raise ChannelClosed("the other end closed the connection") from None


def receive(sock: socket.socket, deadline: float | None = None, limit: int = REPLY_LIMIT) -> Any:
    """Read one framed message and decode its JSON.

    Raises ``ChannelTimeout`` past ``deadline``, ``ChannelClosed`` on end of
    file, and ``ProtocolError`` for a message over ``limit`` bytes or not JSON.
    """
    (size,) = HEADER.unpack(_read(sock, HEADER.size, deadline))
    if size > limit:
        raise ProtocolError(f"a message of {size} bytes is over the {limit}-byte limit")
    body = _read(sock, size, deadline)
    try:
        return json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ProtocolError(f"not JSON: {error}") from None


def _read(sock: socket.socket, size: int, deadline: float | None) -> bytes:
    buffer = bytearray(size)
    view = memoryview(buffer)
    got = 0
    while got < size:
        try:
            if deadline is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise ChannelTimeout("timed out waiting for a reply")
                sock.settimeout(remaining)
            count = sock.recv_into(view[got:])
        except (TimeoutError, BlockingIOError):
            raise ChannelTimeout("timed out waiting for a reply") from None
        except ConnectionResetError:
            raise ChannelClosed("the connection was reset") from None
        if count == 0:
            raise ChannelClosed("end of file")
        got += count
    return bytes(buffer)
