"""``AgentHost``: the referee's handle on a zygote, the pre-loaded server that forks isolated agents.

The zygote (``arena.referee.zygote``) is started once, as a fresh interpreter
(never forked from the referee, so it holds no game state of any earlier
match), imports arena and loads the plugins, and is reused across matches.
For each isolated seat of each match the referee makes a socket pair, passes
one end to the zygote, which forks a child with it; the child builds the agent
and talks to the referee directly.  Forking from a loaded process keeps
start-up cheap (a few milliseconds, no imports) and gives every match fresh
agents in fresh processes, so nothing an agent remembers survives the match.

A process-wide host (``default_host()``) is started on first use and stopped
at exit; tournaments and the conformance kit may make their own.
"""

from __future__ import annotations

import atexit
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from arena.plugins import DEFAULT_PLUGINS_DIR
from arena.referee.faults import RefereeError

START_SECONDS = 60.0
"""How long the zygote may take to import arena and load the plugins."""

REQUEST_SECONDS = 30.0
"""How long one control request (fork, or kill-and-wait) may take."""


class AgentHost:
    """A zygote process and the control channel to it.  Thread-safe; restarts the zygote if it died."""

    def __init__(self, plugins_dir: Path | str | None = DEFAULT_PLUGINS_DIR, entry_points: bool = True) -> None:
        # The folder is resolved now: the zygote is started later, maybe from another working directory.
        self.plugins_dir = None if plugins_dir is None else Path(plugins_dir).resolve()
        self.entry_points = entry_points
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._control: socket.socket | None = None
        self._owner = 0  # pid of the process that started the zygote (a forked copy must not use it)
        self._stderr: Any = None
        self.errors: list[str] = []  # plugin problems the zygote met while loading

    @property
    def pid(self) -> int | None:
        """The zygote's process id, or None when it is not running."""
        return self._process.pid if self._running() else None

    def start(self) -> None:
        """Start the zygote if it is not running (it is also started on first use)."""
        with self._lock:
            self._start()

    def spawn(self, request: dict[str, Any], channel: socket.socket) -> dict[str, Any]:
        """Fork an agent process that talks over ``channel``'s peer; the zygote's reply (``pid`` or ``error``)."""
        with self._lock:
            for attempt in (1, 2):  # a zygote that died since the last request is restarted once
                self._start()
                assert self._control is not None
                try:
                    socket.send_fds(self._control, [json.dumps(request).encode()], [channel.fileno()])
                    return self._reply()
                except (OSError, RefereeError) as error:
                    self._stop()
                    if attempt == 2:
                        raise RefereeError(f"the isolated-agent host failed: {error}") from None
            raise AssertionError("unreachable")

    def reap(self, pids: list[int]) -> dict[int, dict[str, Any]]:
        """Kill agent processes (SIGKILL to each process group) and wait for them.

        Returns per pid its exit status and peak memory (``{"exit": code}`` or ``{"signal": n}``, ``"maxrss_kb"``).
        """
        unknown = {pid: {"exit": None, "maxrss_kb": None} for pid in pids}
        if not pids:
            return {}
        with self._lock:
            if not self._running():
                return unknown
            assert self._control is not None
            try:
                self._control.send(json.dumps({"op": "reap", "pids": pids}).encode())
                statuses = self._reply()["statuses"]
            except (OSError, RefereeError, KeyError):
                self._stop()
                return unknown
        return {pid: statuses.get(str(pid), unknown[pid]) for pid in pids}

    def close(self) -> None:
        """Stop the zygote; it kills any agent process still running."""
        with self._lock:
            self._stop()

    def __enter__(self) -> AgentHost:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals -------------------------------------------------------------------------------

    def _running(self) -> bool:
        return self._process is not None and self._owner == os.getpid() and self._process.poll() is None

    def _start(self) -> None:
        if self._running():
            return
        self._stop()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        command = [sys.executable, "-m", "arena.referee.zygote", "--control", str(theirs.fileno())]
        if self.plugins_dir is not None:
            command += ["--plugins-dir", str(self.plugins_dir)]
        if not self.entry_points:
            command.append("--no-entry-points")
        # The zygote sees the modules (and entry points) this process sees.
        path = [entry or os.getcwd() for entry in sys.path]
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(path))
        self._stderr = tempfile.TemporaryFile()
        try:
            self._process = subprocess.Popen(
                command, pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=self._stderr, env=env, start_new_session=True,
            )
        finally:
            theirs.close()
        self._owner = os.getpid()
        self._control = ours
        try:
            ours.settimeout(START_SECONDS)
            hello = json.loads(ours.recv(1 << 20) or b"null")
            ours.settimeout(REQUEST_SECONDS)
        except (OSError, ValueError):
            hello = None
        if not isinstance(hello, dict) or not hello.get("ready"):
            detail = self._stderr_tail()
            self._stop()
            raise RefereeError(f"the isolated-agent host did not start{': ' + detail if detail else ''}")
        self.errors = list(hello.get("errors", []))

    def _reply(self) -> dict[str, Any]:
        assert self._control is not None
        data = self._control.recv(1 << 20)
        if not data:
            detail = self._stderr_tail()
            raise RefereeError(f"the isolated-agent host stopped{': ' + detail if detail else ''}")
        return json.loads(data)

    def _stop(self) -> None:
        if self._control is not None:
            self._control.close()  # end of file: the zygote kills its children and exits
            self._control = None
        if self._process is not None and self._owner == os.getpid():
            try:
                self._process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._process = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        try:
            self._stderr.seek(0)
            lines = self._stderr.read()[-2000:].decode(errors="replace").strip().splitlines()
        except OSError:
            return ""
        return lines[-1] if lines else ""


_default: AgentHost | None = None
_default_lock = threading.Lock()


def default_host() -> AgentHost:
    """The process-wide host (plugins folder ``./plugins``, entry points on), started lazily, stopped at exit."""
    global _default
    with _default_lock:
        if _default is None or _default._owner not in (0, os.getpid()):
            _default = AgentHost()
            atexit.register(_default.close)
        return _default
