"""``AgentHost``: the referee's handle on its zygotes, one pre-loaded server per plugin that forks its agents.

A zygote (``arena.referee.zygote``) is started as a fresh interpreter (never
forked from the referee, so it holds no game state and no secret of the
driver), imports arena and confines itself in the sandbox asked for; a
third-party plugin is imported only in each seat it forks (``arena.referee.zygote``).  It is reused across
matches.  For each seat of each match the referee makes a socket pair and passes one end to the zygote of
that seat's plugin, which forks the seat with it; the seat builds the agent and
talks to the referee directly.  Forking from a loaded process keeps start-up
cheap (a few milliseconds, no imports) and gives every match fresh agents in
fresh processes, so nothing an agent remembers survives the match.

There is one zygote per (plugin, sandbox level): a zygote shared by two plugins
would let one plugin's import-time code reach the other's agents.

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
from typing import Any

from arena.plugin_system.registry import PluginSource
from arena.referee import affinity
from arena.referee.confinement import plugin_environment
from arena.referee.faults import RefereeError
from arena.sandbox import lease
from arena.sandbox.removal import remove_tree

START_SECONDS = 60.0
"""How long a zygote may take to import arena, confine itself and load its plugin."""

REQUEST_SECONDS = 30.0
"""How long one control request (fork, or kill-and-wait) may take."""

CONTROL_LIMIT = 1 << 20
"""Largest control reply read from a zygote."""


class Zygote:
    """One zygote process (one plugin, one sandbox level) and the control channel to it.  Thread-safe."""

    def __init__(self, plugin: PluginSource, require: str) -> None:
        self.plugin = plugin
        self.require = require  # "none" (isolated: rlimits only), "partial" or "full"
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._control: socket.socket | None = None
        self._owner = 0  # pid of the process that started the zygote (a forked copy must not use it)
        self._stderr: Any = None
        self.errors: list[str] = []  # plugin problems the zygote met while loading
        self.level = "none"  # the sandbox level the zygote achieved, as it said before it ran plugin code
        self.temp_root: str | None = None  # the only folder a confined zygote may write in (its seats' folders)

    @property
    def pid(self) -> int | None:
        """The zygote's process id, or None when it is not running."""
        return self._process.pid if self._process is not None and self._running() else None

    def spawn(self, request: dict[str, Any], channel: socket.socket, acknowledge: int | None = None) -> dict[str, Any]:
        """Fork a seat that talks over ``channel``'s peer; the zygote's reply (``pid``, ``box`` or ``error``).

        ``acknowledge``, the write end of a pipe, goes to the seat's init (``arena.sandbox.spawn_seat``)."""
        with self._lock:
            for attempt in (1, 2):  # a zygote that died since the last request is restarted once
                self._start()
                assert self._control is not None
                try:
                    socket.send_fds(self._control, [json.dumps(request).encode()],
                                   [channel.fileno()] + ([acknowledge] if acknowledge is not None else []))
                    return self._reply()
                except (OSError, RefereeError, ValueError) as error:
                    self._stop()
                    if attempt == 2:
                        raise RefereeError(f"the host of plugin {self.plugin.name!r} failed: {error}") from None
            raise AssertionError("unreachable")

    def reap(self, pids: list[int]) -> dict[int, dict[str, Any]]:
        """Kill seats (their whole process trees) and wait for them; per pid its exit status and peak memory."""
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
            except (OSError, RefereeError, KeyError, ValueError, TypeError):
                self._stop()
                return unknown
        return {pid: statuses.get(str(pid), unknown[pid]) for pid in pids}

    def start(self) -> None:
        """Start the zygote if it is not running."""
        with self._lock:
            self._start()

    def close(self) -> None:
        """Stop the zygote; it kills every seat it still has."""
        with self._lock:
            self._stop()

    def _running(self) -> bool:
        return self._process is not None and self._owner == os.getpid() and self._process.poll() is None

    def _start(self) -> None:
        if self._running():
            return
        self._stop()
        owner = lease.current()  # whatever this process ends of, the zygote, its seats and folder end with it
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        command = [sys.executable, "-m", "arena.referee.zygote", "--control", str(theirs.fileno()),
                   "--plugin", json.dumps(self.plugin.to_json()), "--require", self.require,
                   "--workdir", os.getcwd(), *owner.mark]  # the zygote runs in /: its read paths must still avoid this
        if self.require != "none":
            self.temp_root = os.path.realpath(owner.temp_folder("zygote"))
            command += ["--temp-root", self.temp_root]
        # The zygote sees the modules (and entry points) this process sees.
        path = [entry or os.getcwd() for entry in sys.path]
        env = plugin_environment(os.pathsep.join(path))
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (kept for the zygote's life, closed in close())
        try:
            self._process = subprocess.Popen(
                command, pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=self._stderr, env=env, start_new_session=True, cwd="/",
            )
        finally:
            theirs.close()
        affinity.unpin(self._process.pid)  # it outlives the match that started it
        self._owner = os.getpid()
        self._control = ours
        try:
            ours.settimeout(START_SECONDS)
            # Two messages: the level, sent before the plugin's code ran (so the plugin cannot forge it), and
            # once the plugin is loaded, the hello.
            confined = json.loads(ours.recv(CONTROL_LIMIT) or b"null")
            hello = json.loads(ours.recv(CONTROL_LIMIT) or b"null") if isinstance(confined, dict) and \
                "level" in confined else confined
            ours.settimeout(REQUEST_SECONDS)
        except (OSError, ValueError, RecursionError):
            confined = hello = None
        if not isinstance(hello, dict) or not hello.get("ready"):
            detail = hello.get("error") if isinstance(hello, dict) and hello.get("error") else self._stderr_tail()
            self._stop()
            raise RefereeError(f"the host of plugin {self.plugin.name!r} did not start"
                               f"{': ' + str(detail)[:300] if detail else ''}")
        errors = hello.get("errors")
        self.errors = [str(line)[:300] for line in errors][:20] if isinstance(errors, list) else []
        level = confined.get("level") if isinstance(confined, dict) else None
        self.level = level if level in ("none", "partial", "full") else "none"

    def _reply(self) -> dict[str, Any]:
        assert self._control is not None
        data = self._control.recv(CONTROL_LIMIT)
        if not data:
            detail = self._stderr_tail()
            raise RefereeError(f"it stopped{': ' + detail if detail else ''}")
        reply = json.loads(data)
        if not isinstance(reply, dict):
            raise RefereeError("it sent a malformed reply")
        return reply

    def _stop(self) -> None:
        if self._control is not None:
            self._control.close()  # end of file: the zygote kills its seats and exits
            self._control = None
        if self._process is not None and self._owner == os.getpid():
            try:
                self._process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._process = None
        if self.temp_root is not None:
            remove_tree(self.temp_root)
            self.temp_root = None
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


class AgentHost:
    """The zygotes of one referee: one per (plugin, sandbox level), started on first use.  Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._zygotes: dict[tuple[PluginSource, str], Zygote] = {}
        self._owner = os.getpid()

    def zygote(self, plugin: PluginSource, require: str) -> Zygote:
        """The zygote for ``plugin`` at sandbox level ``require`` (``none``, ``partial`` or ``full``)."""
        with self._lock:
            key = (plugin, require)
            if key not in self._zygotes:
                self._zygotes[key] = Zygote(plugin, require)
            return self._zygotes[key]

    @property
    def pids(self) -> list[int]:
        """Process ids of the zygotes running now."""
        with self._lock:
            zygotes = list(self._zygotes.values())
        return [pid for pid in (zygote.pid for zygote in zygotes) if pid is not None]

    def close(self) -> None:
        """Stop every zygote; each kills every seat it still has."""
        with self._lock:
            zygotes = list(self._zygotes.values())
        for zygote in zygotes:
            zygote.close()

    def __enter__(self) -> AgentHost:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_default: AgentHost | None = None
_default_lock = threading.Lock()


def default_host() -> AgentHost:
    """The process-wide host, its zygotes started lazily, stopped at exit."""
    global _default
    with _default_lock:
        if _default is None or _default._owner != os.getpid():
            _default = AgentHost()
            atexit.register(_default.close)
        return _default
