"""The wire format between the referee and an isolated agent: framed JSON over a socket.

Each message is a 20-byte header, then that many bytes of UTF-8 JSON.  The
header holds three big-endian numbers: the length of the body, the message's
own token (random, 63 bits) and the token of the message it answers (0 when
it answers nothing yet).  Only plain data crosses: observations
(``Observation.to_json()``), public events, actions and the result.  The
referee reads with a deadline and a size cap, so an agent can neither stall it
nor flood its memory.

Referee to agent: ``{"op": "act", "events": [...], "observation": {...}}`` and
``{"op": "result", "events": [...], "result": {...}}``.  Agent to referee:
``{"ready": true}``, ``{"action": ...}``, ``{"done": true}``, or
``{"error": "exception" | "memory" | "malformed", "message": ...}``.

Tokens are why a stale message is never taken for an answer: ``send`` stamps
every message with a fresh token and the token of the last message received
on that socket, and ``receive`` accepts only a message that answers the last
one this side sent.  An early reply, a second reply to one request or a flood
cannot name a request's token before that request was sent, so it raises
``UnsolicitedMessage``.  Both ends keep this per socket inside this module;
callers only ``send`` and ``receive``.  Whatever the bytes, ``receive`` raises
only ``ChannelClosed``, ``ChannelTimeout`` or a ``ProtocolError`` (JSON is
decoded by ``arena.bounded_json``: bounded nesting and number length, no NaN,
no lone surrogates) and never waits past its deadline.
"""

from __future__ import annotations

import dataclasses
import json
import secrets
import socket
import struct
import time
import weakref
from typing import Any

from arena import bounded_json
from arena.games.base import Observation

HEADER = struct.Struct(">IQQ")
"""Every message's header: body length, the message's token, the token of the message it answers."""

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


class OversizedMessage(ProtocolError):
    """A length prefix over the receiver's limit."""


class MalformedMessage(ProtocolError):
    """A message body that is not UTF-8 JSON within the bounds of ``arena.bounded_json``."""


class UnsolicitedMessage(ProtocolError):
    """A message that does not answer the last one sent: a flood, an early reply or a second reply."""


@dataclasses.dataclass(slots=True)
class _Tokens:
    sent: int = 0  # token of the last message sent on the socket; a reply must name it
    received: int = 0  # token of the last message received; the next message sent names it


_TOKENS: weakref.WeakKeyDictionary[socket.socket, _Tokens] = weakref.WeakKeyDictionary()


def _tokens(sock: socket.socket) -> _Tokens:
    tokens = _TOKENS.get(sock)
    if tokens is None:
        tokens = _TOKENS[sock] = _Tokens()
    return tokens


def encode(message: Any) -> bytes:
    """One framed message (``send`` fills in its tokens)."""
    body = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()
    return HEADER.pack(len(body), 0, 0) + body


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
    """Send a framed message (from ``encode``); ``ChannelTimeout`` past ``deadline`` (a ``time.monotonic()`` value).

    The message gets a fresh token and answers the last message received on ``sock``.
    """
    tokens = _tokens(sock)
    tokens.sent = secrets.randbits(63) | 1  # never 0, which means "answers nothing"
    framed = bytearray(data)
    HEADER.pack_into(framed, 0, len(data) - HEADER.size, tokens.sent, tokens.received)
    try:
        if deadline is not None:
            sock.settimeout(max(deadline - time.monotonic(), 0.0))
        sock.sendall(framed)
    except (TimeoutError, BlockingIOError):
        raise ChannelTimeout("timed out sending") from None
    except (BrokenPipeError, ConnectionResetError):
        raise ChannelClosed("the other end closed the connection") from None


def receive(sock: socket.socket, deadline: float | None = None, limit: int = REPLY_LIMIT) -> Any:
    """Read one framed message and decode its JSON.

    Raises ``ChannelTimeout`` past ``deadline`` (however slowly the bytes
    trickle in), ``ChannelClosed`` on end of file, ``UnsolicitedMessage`` for
    a message that does not answer the last one sent on ``sock`` (it was sent
    before that one, see the module's docstring), ``OversizedMessage`` for a
    length over ``limit`` bytes and ``MalformedMessage`` for a body that is not
    bounded UTF-8 JSON (see ``arena.bounded_json``).
    """
    size, token, answers = HEADER.unpack(_read(sock, HEADER.size, deadline))
    tokens = _tokens(sock)
    if answers != tokens.sent:
        raise UnsolicitedMessage("sent a message that answers no request of ours: early, extra or flooded replies")
    if size > limit:
        raise OversizedMessage(f"a message of {size} bytes is over the {limit}-byte limit")
    value = decode(_read(sock, size, deadline))
    tokens.received = token
    return value


def decode(body: bytes) -> Any:
    """The JSON value of a message body; ``MalformedMessage`` (one line) for anything else."""
    try:
        return bounded_json.loads(body)
    except UnicodeDecodeError as error:
        raise MalformedMessage(f"not UTF-8 ({error.reason} at byte {error.start})") from None
    except json.JSONDecodeError as error:
        raise MalformedMessage(f"not JSON ({error.msg} at character {error.pos})") from None
    except ValueError as error:  # bounded_json.JSONLimitError
        raise MalformedMessage(f"JSON out of bounds: {error}") from None


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
