"""The HTTP server of ``arena serve``: uvicorn, told when a signal asks it to stop.

Kept apart from ``arena.serve.server`` so that the workers, which read the config through that module,
never import the web server.
"""

from __future__ import annotations

from collections.abc import Callable
from types import FrameType

import uvicorn


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
