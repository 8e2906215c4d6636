"""Protocol version 1 on the wire: one JSON object per line, both ways (docs/protocol.md).

``encode`` writes a message as one line.  ``LineChannel`` is the referee's reader: it reads whole lines from
a socket before a deadline and within a size bound, whatever the program writes (a flood, half a line, bytes
that are not UTF-8), and raises only the exceptions of ``arena.referee.protocol`` (``ChannelClosed``,
``ChannelTimeout`` or a ``ProtocolError``) -- the same a Python seat's channel raises, so a program is faulted
for the same reasons in the same words.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Mapping
from typing import Any

from arena.inputs import bounded_json
from arena.referee.protocol import ChannelClosed, ChannelTimeout, MalformedMessage, OversizedMessage

LINE_LIMIT = 1 << 16
"""Longest line the referee reads from a program (64 KiB, newline excluded); more is an oversized answer."""

READ_CHUNK = 1 << 16
"""Bytes read from the socket at a time."""


def encode(message: Mapping[str, Any]) -> bytes:
    """One message as one line of ASCII JSON (non-ASCII escaped, so a byte-oriented parser is enough)."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode() + b"\n"


QUOTED_MAX = 60
"""Most characters of a malformed line a fault quotes (a debugging print on standard output shows itself)."""


def decode(line: bytes) -> dict[str, Any]:
    """A line's message: a JSON object with a string ``type``; ``MalformedMessage`` (one line, quoting the start
    of the line) otherwise."""
    try:
        value = bounded_json.loads(line)
    except UnicodeDecodeError as error:
        raise MalformedMessage(f"a line that is not UTF-8 ({error.reason} at byte {error.start}): "
                               f"{_quoted(line)}") from None
    except json.JSONDecodeError as error:
        raise MalformedMessage(f"a line that is not JSON ({error.msg} at character {error.pos}): "
                               f"{_quoted(line)}") from None
    except ValueError as error:  # bounded_json.JSONLimitError
        raise MalformedMessage(f"a line of JSON out of bounds: {error}") from None
    if not isinstance(value, dict) or not isinstance(value.get("type"), str):
        raise MalformedMessage(f"a line that is not a JSON object with a \"type\": {_quoted(line)}")
    return value


def _quoted(line: bytes) -> str:
    """The start of ``line`` as a Python literal, control characters and bytes that are not UTF-8 escaped."""
    text = line[:QUOTED_MAX * 4].decode(errors="backslashreplace")
    shown = repr(text[:QUOTED_MAX])
    return shown + ("..." if len(text) > QUOTED_MAX else "")


class LineChannel:
    """Lines over one stream socket, each read before a deadline (``time.monotonic()``) and within a bound."""

    def __init__(self, sock: socket.socket, limit: int = LINE_LIMIT) -> None:
        self.sock = sock
        self.limit = limit
        self.buffer = bytearray()  # bytes received after the last whole line taken

    def send(self, data: bytes, deadline: float) -> None:
        """Write ``data`` (whole lines); ``ChannelTimeout`` if the program does not read it in time."""
        try:
            self.sock.settimeout(max(deadline - time.monotonic(), 0.0))
            self.sock.sendall(data)
        except (TimeoutError, BlockingIOError):
            raise ChannelTimeout("timed out sending") from None
        except (BrokenPipeError, ConnectionResetError):
            raise ChannelClosed("the program closed its standard input") from None

    def receive(self, deadline: float) -> dict[str, Any]:
        """The next line's message (see ``decode``)."""
        return decode(self.receive_line(deadline))

    def receive_line(self, deadline: float) -> bytes:
        """The next whole line, without its newline."""
        while True:
            end = self.buffer.find(b"\n", 0, self.limit + 1)
            if end >= 0:
                line = bytes(self.buffer[:end])
                del self.buffer[:end + 1]
                return line.removesuffix(b"\r")
            if len(self.buffer) > self.limit:
                raise OversizedMessage(f"a line over {self.limit} bytes")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ChannelTimeout("timed out waiting for a line")
            try:
                self.sock.settimeout(remaining)
                chunk = self.sock.recv(READ_CHUNK)
            except (TimeoutError, BlockingIOError):
                raise ChannelTimeout("timed out waiting for a line") from None
            except ConnectionResetError:
                raise ChannelClosed("the connection was reset") from None
            if not chunk:
                raise ChannelClosed("end of file" + (" in the middle of a line" if self.buffer else ""))
            self.buffer += chunk
