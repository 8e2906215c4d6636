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

Bodies are written by orjson (``json`` where orjson cannot) and the agent's side
reads the referee's requests with orjson; the referee reads agents' replies
with ``arena.inputs.bounded_json``.  Under a deadline the referee's socket is
non-blocking and waited on with ``poll``, and a read takes what is there, up
to ``CHUNK`` bytes past the message, keeping the surplus for the next read: a
request and its reply cost three system calls here, not nine.

Tokens are why a stale message is never taken for an answer: ``send`` stamps
every message with a fresh token and the token of the last message received
on that socket, and ``receive`` accepts only a message that answers the last
one this side sent.  An early reply, a second reply to one request or a flood
cannot name a request's token before that request was sent, so it raises
``UnsolicitedMessage``.  Both ends keep this per socket inside this module;
callers only ``send`` and ``receive``.  Whatever the bytes, ``receive`` raises
only ``ChannelClosed``, ``ChannelTimeout`` or a ``ProtocolError`` (JSON is
decoded by ``arena.inputs.bounded_json``: bounded nesting and number length, no NaN,
no lone surrogates) and never waits past its deadline.
"""

from __future__ import annotations

import dataclasses
import json
import math
import secrets
import select
import socket
import struct
import time
import weakref
from typing import Any

import orjson

from arena.games.base import Observation
from arena.inputs import bounded_json

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
    """A message body that is not UTF-8 JSON within the bounds of ``arena.inputs.bounded_json``."""


class UnsolicitedMessage(ProtocolError):
    """A message that does not answer the last one sent: a flood, an early reply or a second reply."""


@dataclasses.dataclass(slots=True)
class _Channel:
    """What this module keeps per socket: the tokens, and bytes read past the last message (at most ``CHUNK``)."""

    sent: int = 0  # token of the last message sent on the socket; a reply must name it
    received: int = 0  # token of the last message received; the next message sent names it
    buffer: bytearray = dataclasses.field(default_factory=bytearray)
    scratch: memoryview | None = None  # CHUNK bytes each read lands in, made once per socket
    poller: Any = None  # a select.poll() on the socket, once it is read or written with a deadline
    blocking: bool | None = None  # the socket's mode as this module last set it (setting it is a system call)


CHUNK = 1 << 16
"""Most bytes read past what a message needs: a reply usually arrives with its header in one read."""

_CHANNELS: weakref.WeakKeyDictionary[socket.socket, _Channel] = weakref.WeakKeyDictionary()


def _channel(sock: socket.socket) -> _Channel:
    channel = _CHANNELS.get(sock)
    if channel is None:
        channel = _CHANNELS[sock] = _Channel()
    return channel


def encode(message: Any) -> bytes:
    """One framed message (``send`` fills in its tokens).

    The body is compact JSON, UTF-8 without escapes: orjson's where it can write the value (ten times
    ``json.dumps`` 's speed), else ``json.dumps`` (integers past 64 bits, keys that are not strings),
    which then raises for what is not JSON data.
    """
    try:
        body = orjson.dumps(message)
    except TypeError:
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
    channel = _channel(sock)
    channel.sent = secrets.randbits(63) | 1  # never 0, which means "answers nothing"
    framed = bytearray(data)
    HEADER.pack_into(framed, 0, len(data) - HEADER.size, channel.sent, channel.received)
    try:
        _set_blocking(sock, channel, deadline is None)
        if deadline is None:
            sock.sendall(framed)
            return
        view = memoryview(framed)
        while view:
            try:
                view = view[sock.send(view):]
            except BlockingIOError:
                _wait(sock, channel, select.POLLOUT, deadline, "timed out sending")
    except (BrokenPipeError, ConnectionResetError):
        raise ChannelClosed("the other end closed the connection") from None


def receive(sock: socket.socket, deadline: float | None = None, limit: int = REPLY_LIMIT) -> Any:
    """Read one framed message and decode its JSON within ``arena.inputs.bounded_json`` 's bounds.

    Raises ``ChannelTimeout`` past ``deadline`` (however slowly the bytes
    trickle in), ``ChannelClosed`` on end of file, ``UnsolicitedMessage`` for
    a message that does not answer the last one sent on ``sock`` (it was sent
    before that one, see the module's docstring), ``OversizedMessage`` for a
    length over ``limit`` bytes and ``MalformedMessage`` for a body that is not
    bounded UTF-8 JSON (see ``arena.inputs.bounded_json``).
    """
    token, body = _receive_body(sock, deadline, limit)
    value = decode(body)
    _channel(sock).received = token
    return value


def receive_request(sock: socket.socket) -> Any:
    """The agent's side: wait for the referee's next message and decode it (``receive`` 's errors).

    The referee is arena's own code, so its JSON is read by orjson without ``receive`` 's bounds on nesting and
    numbers (about 15 µs less a decision); what orjson refuses is a ``MalformedMessage`` all the same.
    """
    token, body = _receive_body(sock, None, REQUEST_LIMIT)
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError as error:
        raise MalformedMessage(f"not JSON ({error})") from None
    _channel(sock).received = token
    return value


def _receive_body(sock: socket.socket, deadline: float | None, limit: int) -> tuple[int, bytes]:
    """The next message's token and body, after checking that it answers the last message sent."""
    channel = _channel(sock)
    buffer = channel.buffer
    _fill(sock, channel, HEADER.size, deadline)
    size, token, answers = HEADER.unpack_from(buffer)
    if answers != channel.sent:
        raise UnsolicitedMessage("sent a message that answers no request of ours: early, extra or flooded replies")
    if size > limit:
        raise OversizedMessage(f"a message of {size} bytes is over the {limit}-byte limit")
    end = HEADER.size + size
    _fill(sock, channel, end, deadline)
    body = bytes(buffer[HEADER.size:end])
    del buffer[:end]
    return token, body


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


def _fill(sock: socket.socket, channel: _Channel, size: int, deadline: float | None) -> None:
    """Read until the channel's buffer holds ``size`` bytes (a message needs no more than ``CHUNK`` past them),
    each read into the channel's one scratch buffer: a sender that trickles a large message costs no
    allocation per byte.

    With a deadline the socket is non-blocking and waited on by ``poll``: one system call a wait, where a
    timeout set on the socket costs three (it sets the socket's mode each time).
    """
    buffer = channel.buffer
    if len(buffer) >= size:
        return
    _set_blocking(sock, channel, deadline is None)
    if channel.scratch is None:
        channel.scratch = memoryview(bytearray(CHUNK))
    scratch = channel.scratch
    while len(buffer) < size:
        if deadline is not None:
            _wait(sock, channel, select.POLLIN, deadline, "timed out waiting for a reply")
        try:
            count = sock.recv_into(scratch)
        except BlockingIOError:
            continue  # woken with nothing to read: wait again
        except ConnectionResetError:
            raise ChannelClosed("the connection was reset") from None
        if not count:
            raise ChannelClosed("end of file")
        buffer += scratch[:count]


def _set_blocking(sock: socket.socket, channel: _Channel, blocking: bool) -> None:
    if channel.blocking is not blocking:
        sock.setblocking(blocking)
        channel.blocking = blocking


def _wait(sock: socket.socket, channel: _Channel, event: int, deadline: float, message: str) -> None:
    """Wait until ``sock`` is ready for ``event`` (or has failed), or raise ``ChannelTimeout`` at ``deadline``."""
    if channel.poller is None:
        channel.poller = select.poll()
        channel.poller.register(sock, select.POLLIN | select.POLLOUT)
    channel.poller.modify(sock, event)
    remaining = deadline - time.monotonic()
    if remaining <= 0 or not channel.poller.poll(math.ceil(remaining * 1000)):
        if time.monotonic() >= deadline:
            raise ChannelTimeout(message)
