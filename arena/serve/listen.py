"""The listening socket and the HTTP server of ``arena serve``.

The socket is bound before the server says it serves, so that a port in use or a host that is not this
machine's is one line and nothing else (``bind``); uvicorn then serves on that socket.  Kept apart from
``arena.serve.server`` so that the workers, which read the config through that module, never import the
web server.
"""

from __future__ import annotations

import errno
import socket
from collections.abc import Callable
from types import FrameType

import uvicorn

BACKLOG = 2048
"""Connections the kernel queues before the server accepts them (uvicorn's default)."""


class BindError(Exception):
    """The address cannot be served on; one line."""


def bind(host: str, port: int, host_from: str, port_from: str) -> socket.socket:
    """A TCP socket bound to ``host``:``port`` and listening; ``BindError`` saying which setting is wrong and
    why (``host_from`` and ``port_from`` name where each came from: ``--port``, ``CONFIG: [serve] port``).

    An IPv4 address is preferred where a name has both (as uvicorn binds a name)."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as error:
        reason = error.strerror if isinstance(error, socket.gaierror) else "not a host name"
        raise BindError(f"{host_from} {host!r}: no address of that name ({reason}); use an address of this machine "
                        "such as 127.0.0.1") from None
    family, kind, protocol, _name, address = sorted(found, key=lambda info: info[0] != socket.AF_INET)[0]
    listener = socket.socket(family, kind, protocol)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a restart binds while old connections close
        listener.bind(address)
        listener.listen(BACKLOG)
    except OSError as error:
        listener.close()
        raise BindError(_why(error, host, port, host_from, port_from)) from None
    return listener


def _why(error: OSError, host: str, port: int, host_from: str, port_from: str) -> str:
    if error.errno == errno.EADDRINUSE:
        return (f"{port_from} {port}: the port is in use on {host} (another 'arena serve', or another program); "
                "stop it or choose another port with --port")
    if error.errno == errno.EADDRNOTAVAIL:
        return f"{host_from} {host!r}: not an address of this machine"
    if error.errno == errno.EACCES:
        return f"{port_from} {port}: binding it needs privileges (ports below 1024); choose another with --port"
    return f"cannot listen on {host}:{port} ({host_from}, {port_from}): {error.strerror or error}"


def url(listener: socket.socket, host: str) -> str:
    """The address a browser opens for ``listener`` (its real port, when 0 asked the kernel for one)."""
    port = listener.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


class Server(uvicorn.Server):
    """A uvicorn server that calls ``on_exit`` when a signal (Ctrl-C, SIGTERM) asks it to stop, before it starts
    to: the supervisor then restarts no worker that the same Ctrl-C stopped."""

    def __init__(self, config: uvicorn.Config, on_exit: Callable[[], None]) -> None:
        super().__init__(config)
        self.on_exit = on_exit

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        """Tell ``on_exit``, then stop as uvicorn does."""
        self.on_exit()
        super().handle_exit(sig, frame)
