"""Fixtures for the served competition: the app on a real uvicorn server on a free port, in this process,
with participants made as ``arena serve users add`` makes them (its database and secret, no workers), and
the agent files a participant would upload."""

from __future__ import annotations

import io
import socket
import threading
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed: pip install -e '.[serve]'")
import httpx
import uvicorn

from arena.serve import auth
from arena.serve.app import AppSettings, create_app
from arena.serve.config import ServeLimits
from arena.serve.db import ServeDB

AGENT = b'''
import random

from arena import hookimpl
from arena.agent import Agent, AgentSpec


class Mine(Agent):
    def act(self, observation):
        return self.game.random_action(observation, random.Random(self.seed))


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="NAME", games=("lovat", "lorum"), factory=Mine, description="random", version="1.0"))
'''


def agent_source(name: str = "mine") -> bytes:
    """A small valid drop-in registering agent ``name``."""
    return AGENT.replace(b"NAME", name.encode())


def zip_of(files: dict[str, bytes]) -> bytes:
    """A zip archive of ``files`` (path -> bytes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def free_port() -> int:
    """A TCP port free on the loopback now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Live:
    """A running app: its address, folder and the participants' tokens."""

    url: str
    folder: Path
    tokens: dict[str, str]

    def client(self, user: str | None = None, **headers: str) -> httpx.Client:
        """An HTTP client, with ``user``'s token as a bearer if given."""
        if user is not None:
            headers["Authorization"] = f"Bearer {self.tokens[user]}"
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)


def add_user(folder: Path, name: str) -> str:
    """Add participant ``name`` as ``arena serve users add`` does; their token."""
    secret = auth.load_secret(folder)
    token = auth.new_token(name)
    with ServeDB(folder) as db:
        db.add_user(name, auth.token_hash(secret, token))
    return token


@pytest.fixture(scope="module")
def serve_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., Live]]:
    """``serve_app(**limits)``: a fresh competition served by uvicorn on a free port, with participants alice,
    bob and carol (carol's token revoked), and ``self_registration`` if given; every server is stopped at the
    end of the module."""
    servers: list[tuple[uvicorn.Server, threading.Thread]] = []

    def start(**limits: Any) -> Live:
        folder = tmp_path_factory.mktemp("competition")
        tokens = {name: add_user(folder, name) for name in ("alice", "bob", "carol")}
        with ServeDB(folder) as db:
            db.revoke("carol")
        open_door = bool(limits.pop("self_registration", False))
        values = {"upload_bytes": 20_000, "files": 20, "unpacked_bytes": 200_000, "uploads_per_hour": 50,
                  "queued": 50, "requests_per_second": 1000.0, **limits}
        settings = AppSettings(folder=folder, ladder="serve-test", game="lovat", limits=ServeLimits(**values),
                               secret=auth.load_secret(folder), self_registration=open_door)
        port = free_port()
        server = uvicorn.Server(uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="warning"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 20
        while not server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.02)
        servers.append((server, thread))
        return Live(url=f"http://127.0.0.1:{port}", folder=folder, tokens=tokens)

    yield start
    for server, thread in servers:
        server.should_exit = True
        thread.join(timeout=10)
