"""Fixtures for the served competition: the app on a real uvicorn server on a free port, in this process,
with participants made as ``arena serve users add`` makes them (its database and secret, no workers), and
the agent files a participant would upload; and ``arena serve`` in its own process, as an organiser runs it
(``Served``: its output kept in files the tests read while it runs, its worker processes found in /proc)."""

from __future__ import annotations

import io
import json
import re
import socket
import subprocess
import sys
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

    def session(self, user: str) -> str:
        """A browser session of ``user``, logged in through the front page's form: the session cookie's value."""
        with httpx.Client(base_url=self.url, timeout=30) as browser:
            front = browser.get("/").text
            found = re.search(r'name="csrf" value="([0-9a-f]+)"', front)
            assert found, "no CSRF field on the front page"
            logged = browser.post("/login", data={"token": self.tokens[user], "csrf": found.group(1)})
            assert logged.status_code == 303, logged.text
            return str(browser.cookies["arena_session"])


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


ROOT = Path(__file__).resolve().parents[2]


def arena(*args: str, env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run the ``arena`` command line in a child process."""
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True, timeout=timeout,
                          env=env, cwd=ROOT)


@dataclass
class Served:
    """A competition served by ``arena serve`` in its own process."""

    config: Path
    folder: Path
    port: int
    tokens: dict[str, str]
    process: subprocess.Popen[str] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log(self) -> Path:
        """What the server printed on its standard error, all its starts together."""
        return self.config.with_name("serve.err")

    def start(self) -> None:
        with self.log.open("a") as err, self.config.with_name("serve.out").open("a") as out:
            self.process = subprocess.Popen([sys.executable, "-m", "arena", "serve", str(self.config), "--port",
                                             str(self.port)], cwd=ROOT, stdout=out, stderr=err, text=True)
        deadline = time.monotonic() + 60
        while True:
            assert self.process.poll() is None, self.log.read_text()
            try:
                if httpx.get(f"{self.url}/api/leaderboard", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "arena serve did not answer within 60 s"
            time.sleep(0.2)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=60)

    def api(self, user: str, path: str) -> Any:
        response = httpx.get(self.url + path, headers={"Authorization": f"Bearer {self.tokens[user]}"}, timeout=30)
        assert response.status_code == 200, response.text
        return response.json()

    def wait(self, check: Callable[[], Any], what: str, timeout: float = 180) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = check()
            if value:
                return value
            time.sleep(0.5)
        raise AssertionError(f"not within {timeout} s: {what}")


def competition(base: Path, users: tuple[str, ...] = ("alice", "bob"), **replace: str) -> Served:
    """A competition from ``configs/serve-lovat.toml`` in ``base`` (small batches and checks, roomy upload
    bounds; ``replace`` changes more of its text), its participants added; not started."""
    text = (ROOT / "configs" / "serve-lovat.toml").read_text()
    text = text.replace('folder = "../competitions/serve-lovat"', 'folder = "competition"')
    text = text.replace("check_matches = 2", "check_matches = 1").replace("batch_blocks = 2", "batch_blocks = 1")
    text = text.replace("queued = 3", "queued = 20").replace("uploads_per_hour = 20", "uploads_per_hour = 40")
    for old, new in replace.items():
        text = text.replace(old, new)
    config = base / "serve.toml"
    config.write_text(text)
    tokens = {}
    for name in users:
        added = arena("serve", "users", "add", name, "--config", str(config), "--json")
        assert added.returncode == 0, added.stderr
        tokens[name] = json.loads(added.stdout)["token"]
    return Served(config=config, folder=base / "competition", port=free_port(), tokens=tokens)


def workers_of(config: Path, kind: str | None = None, parent: int | None = None) -> list[int]:
    """The worker processes serving ``config`` (read from /proc: this test's own): of one ``kind`` ("checker",
    "player") and one ``parent`` (the server: a worker's forked helpers share its command line) if given."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                words = (entry / "cmdline").read_bytes().split(b"\0")
                ppid = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if b"arena.serve.worker" in words and str(config).encode() in words and \
                    (kind is None or kind.encode() in words) and (parent is None or ppid == parent):
                found.append(int(entry.name))
    return found


def stored_ids(folder: Path, ladder: str = "serve-lovat") -> list[str]:
    """The ids of the matches the competition's ladder has stored."""
    from arena.tournament.store import Store

    path = folder / "leaderboards" / ladder / "results.sqlite"
    if not path.is_file():
        return []
    with Store.open_readonly(path) as store:
        return [row.id for row in store.rows()]


def stored_agents(folder: Path, ladder: str = "serve-lovat") -> set[str]:
    """Every entry that has a stored match in the competition's ladder."""
    from arena.tournament.store import Store

    path = folder / "leaderboards" / ladder / "results.sqlite"
    if not path.is_file():
        return set()
    with Store.open_readonly(path) as store:
        return {agent for row in store.rows() for agent in row.agents}


def zygotes_of(parent: int) -> list[dict[str, str]]:
    """The plugin (``PluginSource.to_json``) of every zygote process ``parent`` started."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                words = (entry / "cmdline").read_bytes().decode().split("\0")
                ppid = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid == parent and "arena.referee.zygote" in words and "--plugin" in words:
                found.append(json.loads(words[words.index("--plugin") + 1]))
    return found
