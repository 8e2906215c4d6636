"""The zygote: a pre-loaded server of ONE plugin that forks one fresh process tree per seat per match.

Run as ``python -m arena.referee.zygote --control FD --plugin JSON --require LEVEL --workdir DIR
--lease TOKEN`` by ``arena.referee.host``, never by hand (``--lease`` marks it, and every seat it
forks, as a process of the referee's lease: ``arena.sandbox.lease``).  In this order it imports arena and
the built-in games, confines itself (``arena.referee.confinement.confine_for``:
at ``LEVEL`` ``partial`` or ``full`` the sandbox of ``arena.sandbox``; at
``none`` an address-space bound only).  A built-in plugin is then loaded here;
a third-party plugin is imported in each seat's own process instead, so its
import-time code leaves nothing in the zygote for a later seat to inherit.
Its sources are only compiled here, once (``arena.plugin_system.source_only.precompile``):
seats run them from source, never from a bytecode cache, without each
compiling them again.
It never builds a game state, never sees an observation and never runs an
agent itself, so a process forked from it holds nothing but code.  It is a
subreaper: whatever its plugin starts is killed when it stops.

Requests and replies on the control socket (``SOCK_SEQPACKET``, one JSON object per packet):

* ``{"op": "spawn", "agent", "version", "game", "seat", "players", "seed",
  "options", "memory_mb"}`` with the seat's socket passed as an fd
  (``SCM_RIGHTS``): fork the seat, reply ``{"pid": ..., "box": SeatBox JSON or
  null}`` or ``{"error": "..."}``.  The seat builds the agent and talks to the
  referee directly over that socket (``arena.referee.protocol``).  A second fd,
  if any, is the write end of the pipe on which a sandboxed seat's init
  acknowledges each freeze and thaw (``arena.sandbox.spawn_seat``); the
  zygote keeps no copy of it.
* ``{"op": "reap", "pids": [...]}``: kill each seat's whole process tree, wait
  for it, and reply ``{"statuses": {pid: {"exit": code} or {"signal": number},
  with "maxrss_kb"}}``.

End of file on the control socket (the referee closed it or died) stops the
zygote, which kills every seat it still has.

Sandboxed seats are forked by ``arena.sandbox.spawn_seat`` (own PID namespace,
a nested Landlock domain writable only in a private temporary folder, memory
bounded for the whole tree).  Isolated seats (level ``none``) are forked here:
own process group, dies with the zygote, private temporary folder, an
address-space limit of ``memory_mb`` beyond its size at fork.  Either way stdin
is /dev/null, stdout and stderr the seat's own bounded log (``arena.referee.seat_log``; its path is in the
spawn reply, ``"log"``), every other descriptor is closed, and the global ``random`` is
seeded with the agent's seed before any agent code runs.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import pkgutil
import random
import resource
import signal
import socket
import sys
import tempfile
from typing import Any

from arena.agent import AgentSpec
from arena.games.base import Game
from arena.plugin_system.data import one_line
from arena.plugin_system.provenance import source_root
from arena.plugin_system.registration import Registrar
from arena.plugin_system.registry import PROGRAM, PluginSource
from arena.plugin_system.source_only import precompile
from arena.plugin_system.sources import builtin_sources
from arena.referee import protocol, seat_log
from arena.referee.confinement import confine_for, plugin_read_paths
from arena.referee.faults import is_action_shaped
from arena.sandbox.process import (
    address_space_kb,
    child_hygiene,
    kill_group_or_process,
    make_subreaper,
    reap_descendants,
)
from arena.sandbox.removal import remove_tree

CONTROL_LIMIT = 1 << 16
"""Largest control packet (requests are small JSON objects)."""

MEMORY_EXIT = 86
"""Exit status of a seat that ran out of memory (after telling the referee, if it could)."""

FAILED_EXIT = 87
"""Exit status of a seat whose set-up failed before the agent existed."""

ZYGOTE_MEMORY_MB = 2048
"""Memory a plugin's zygote may use (its imports: models, tables) beyond arena itself."""

PRELOAD_PACKAGE = "arena_agents"
"""The first-party agents import their modules lazily (to keep ``arena agents`` fast); their zygote imports
every module of this package once instead of each seat importing them per match.  Third-party plugins get
the same by importing what they need at module level."""


class Zygote:
    """The server loop; one instance per zygote process, serving one plugin."""

    def __init__(self, control: socket.socket, plugin: PluginSource, require: str, temp_root: str | None,
                 workdir: str | None = None, lease: str = "") -> None:
        self.control = control
        self.lease = lease  # the referee's lease token: an isolated seat's folder is named for it
        self.plugin = plugin
        self.workdir = workdir  # the referee's working directory: never readable, though the zygote runs in /
        self.children: dict[int, Any] = {}  # pid -> SeatBox (sandboxed) or private temporary folder (isolated)
        manager = Registrar()
        for source in builtin_sources():
            if source.builtin and (source.name != "builtin-agents" or plugin.name == "builtin-agents"):
                manager.add(source)  # arena's own games everywhere; the first-party agents only in their own zygote
        if plugin.builtin:
            preload(PRELOAD_PACKAGE)
        gc.collect()
        gc.freeze()  # seats then never touch these objects' pages (cheaper copy-on-write)
        self.level = confine_for(plugin, ZYGOTE_MEMORY_MB, "zygote", require=require, temp_root=temp_root,
                                 workdir=workdir)
        # Said before any plugin code runs: the referee believes this level, not anything said later.
        control.send(json.dumps({"level": self.level}).encode())
        if not plugin.builtin:
            # Compiled here (which runs none of its code), confined, so that no seat compiles its sources again:
            # seats run a plugin's modules from source, never from a bytecode cache (arena.plugin_system.source_only).
            precompile(source_root(plugin))
            gc.freeze()
        # A third-party plugin is never imported here but in each seat's own process (``_load_in_seat``):
        # import-time state left in the zygote (a shared mapping, a thread, a file in its temp root) would be
        # inherited by every later seat, letting rotation 1 of a duplicate block read what rotation 0 saw.
        self.manager = manager
        self.registry = manager.registry
        self.found_read_paths: tuple[str, ...] | None = None  # what a sandboxed seat may read (_spawn_sandboxed)
        self.acknowledge: int | None = None  # the spawn request's acknowledgement pipe, while it is served

    def serve(self) -> None:
        """Answer requests until the referee closes the control socket."""
        hello = {"ready": True, "pid": os.getpid(), "errors": self.registry.errors}
        self.control.send(json.dumps(hello).encode())
        try:
            while True:
                try:
                    data, fds, _flags, _address = socket.recv_fds(self.control, CONTROL_LIMIT, 2)
                except OSError:
                    break
                if not data:
                    break
                request = json.loads(data)
                if request.get("op") == "spawn":
                    self.acknowledge = fds[1] if len(fds) > 1 else None
                    try:
                        reply = self.spawn(request, fds[0] if fds else None)
                    finally:
                        if self.acknowledge is not None:
                            os.close(self.acknowledge)  # the seat's init has its own copy
                        self.acknowledge = None
                else:
                    for fd in fds:
                        os.close(fd)
                    reply = self.reap(request["pids"]) if request.get("op") == "reap" else {"error": "unknown op"}
                self.control.send(json.dumps(reply).encode())
        finally:
            self.reap_all()

    def reap_all(self) -> None:
        """On the way out: kill and wait for every seat, each on its own (a seat frozen in its group dies only
        once the referee, or its lease's janitor if the referee is dead, thaws it; one that stays frozen past
        the wait is left to them), then for everything else this subreaper adopted."""
        for pid in list(self.children):
            try:
                self.reap([pid])
            except Exception:  # arena.sandbox.SandboxError: still frozen; its janitor thaws and kills it
                self.children.pop(pid, None)
        reap_descendants()

    def spawn(self, request: dict[str, Any], fd: int | None) -> dict[str, Any]:
        """Start one seat of one match; the seat never returns here."""
        if fd is None:
            return {"error": "spawn request without a socket"}
        if self.plugin.builtin:
            try:
                self.lookup(request)  # arena's own agents: a wrong name is the referee's error, said at once
            except LookupError as error:
                os.close(fd)
                return {"error": str(error.args[0])}
        try:
            if self.level != "none":
                return self._spawn_sandboxed(request, fd)
            return self._spawn_isolated(request, fd)
        except OSError as error:
            return {"error": f"cannot start a process for agent {request['agent']!r}: {error}"}
        finally:
            os.close(fd)

    def _spawn_sandboxed(self, request: dict[str, Any], fd: int) -> dict[str, Any]:
        from arena.sandbox import Policy, default_read_paths, spawn_seat

        if self.found_read_paths is None:
            # Found once per zygote (1-2 ms of path lookups): this process's own Landlock domain, fixed when it was
            # confined, already bounds what any seat it forks can read, so a path that appears later adds nothing.
            self.found_read_paths = default_read_paths(*plugin_read_paths(self.plugin), workdir=self.workdir)
        policy = Policy(read_paths=self.found_read_paths, memory_mb=request.get("memory_mb"),
                        cpus=float(request.get("cpus", 1.0)), label=f"seat{request['seat']}-{request['agent']}")

        def run() -> int:
            return self._run_seat(fd, request)

        # the referee places it in its groups
        box = spawn_seat(run, policy, [fd], await_placement=True, acknowledge=self.acknowledge,
                         placement=fd)
        self.children[box.pid] = box
        return {"pid": box.pid, "box": box.to_json(), "log": os.path.join(box.temp_dir, seat_log.LOG_NAME)}

    def _spawn_isolated(self, request: dict[str, Any], fd: int) -> dict[str, Any]:
        folder = tempfile.mkdtemp(prefix=f"arena-{self.lease}-agent-" if self.lease else "arena-agent-")
        try:
            pid = os.fork()
        except OSError:
            remove_tree(folder)
            raise
        if pid == 0:  # the seat
            status = FAILED_EXIT
            try:
                child_hygiene(keep=fd)
                os.environ["TMPDIR"] = folder
                memory_mb = request.get("memory_mb")
                if memory_mb:
                    size = address_space_kb() * 1024 + int(memory_mb) * (1 << 20)
                    resource.setrlimit(resource.RLIMIT_AS, (size, size))
                status = self._run_seat(fd, request)
            finally:
                os._exit(status)
        try:
            os.setpgid(pid, pid)  # also done by the seat: whichever runs first makes the group
        except OSError:
            pass
        self.children[pid] = folder
        return {"pid": pid, "box": None, "log": os.path.join(folder, seat_log.LOG_NAME)}

    def _run_seat(self, fd: int, request: dict[str, Any]) -> int:
        """In the seat's process: load a third-party plugin here (see ``_load_in_seat``), then run the seat."""
        seat_log.capture(os.environ.get("TMPDIR") or os.getcwd())  # before any of the plugin's code runs
        if not self.plugin.builtin:
            try:
                spec, game = self._load_in_seat(request)
            except BaseException as error:  # the plugin's import may raise anything, SystemExit included
                message = str(error.args[0]) if isinstance(error, LookupError) else seat_log.described(error)
                try:
                    protocol.send(socket.socket(fileno=fd), protocol.encode({"error": "load",
                                                                             "message": message[:500]}))
                except BaseException:
                    pass
                return FAILED_EXIT
        else:
            spec, game = self.lookup(request)
        return _run_seat(fd, spec, game, request)

    def _load_in_seat(self, request: dict[str, Any]) -> tuple[AgentSpec, Game]:
        """Import the third-party plugin in this seat's process (already confined); its agent and game.

        Each seat pays the plugin's own import (arena's is preloaded by the zygote), and in exchange nothing
        the plugin's code does outlives the seat: it never ran in the zygote.
        """
        self.manager.add(self.plugin)
        return self.lookup(request)

    def lookup(self, request: dict[str, Any]) -> tuple[AgentSpec, Game]:
        """The registered agent and game the request names; ``LookupError`` with a one-line reason."""
        name = request.get("agent")
        spec = self.registry.agents.get(name) if isinstance(name, str) else None
        if spec is None:
            problem = f": {self.registry.errors[0]}" if self.registry.errors else ""
            raise LookupError(f"agent {name!r} is not registered by plugin {self.plugin.name!r} in its own "
                              f"process{problem}")
        if spec.version != request.get("version"):
            raise LookupError(f"agent {name!r} of plugin {self.plugin.name!r} is version {spec.version} in its "
                              f"own process, not the {request.get('version')} seated (was it changed since?)")
        game = self.registry.games.get(request.get("game"))  # type: ignore[arg-type]
        if game is None:
            raise LookupError(f"game {request.get('game')!r} is not available to plugin {self.plugin.name!r} "
                              "(only arena's games and the plugin's own)")
        return spec, game

    def reap(self, pids: list[int]) -> dict[str, Any]:
        """Kill (if still alive) and wait for seats; per pid its exit status and peak memory.

        Every seat is killed before any is waited for, so their teardowns overlap.
        """
        mine = [pid for pid in pids if pid in self.children]
        boxes = {pid: self.children[pid] for pid in mine if not isinstance(self.children[pid], str)}
        for pid in mine:
            if pid not in boxes:
                kill_group_or_process(pid)
        statuses: dict[str, Any] = {str(pid): {"error": f"process {pid} is not a seat of this host"}
                                    for pid in pids if pid not in self.children}
        for pid in mine:
            statuses[str(pid)] = self._reap_box(pid) if pid in boxes else self._wait(pid)
        return {"statuses": statuses}

    def _reap_box(self, pid: int) -> dict[str, Any]:
        from arena.sandbox import reap

        return dict(reap(self.children.pop(pid)))

    def _wait(self, pid: int) -> dict[str, Any]:
        folder = self.children.pop(pid)
        try:
            _pid, status, usage = os.wait4(pid, 0)
        except ChildProcessError:
            return {"exit": None, "maxrss_kb": None}
        finally:
            remove_tree(folder)
        reply: dict[str, Any] = {"maxrss_kb": usage.ru_maxrss}
        if os.WIFSIGNALED(status):
            reply["signal"] = os.WTERMSIG(status)
        else:
            reply["exit"] = os.waitstatus_to_exitcode(status)
        return reply


def _run_seat(fd: int, spec: AgentSpec, game: Game, request: dict[str, Any]) -> int:
    """In the seat's process: seed, build the agent and serve the referee; the exit status."""
    folder = os.environ.get("TMPDIR")
    if folder:
        tempfile.tempdir = folder
    random.seed(request["seed"])
    sock = socket.socket(fileno=fd)
    out_of_memory = protocol.encode({"error": "memory", "message": "MemoryError: out of memory"})
    try:
        return _serve_agent(sock, spec, game, request)
    except MemoryError:
        try:
            protocol.send(sock, out_of_memory)  # send: the reply must carry its request's token
        except (OSError, MemoryError, protocol.ChannelClosed, protocol.ChannelTimeout):
            pass
        return MEMORY_EXIT


def _serve_agent(sock: socket.socket, spec: AgentSpec, game: Game, request: dict[str, Any]) -> int:
    """The seat's loop: build the agent, then answer act/result requests until told the result."""
    try:
        agent = spec.factory(seat=request["seat"], game=game.info, players=request["players"],
                             seed=request["seed"], options=request.get("options") or {})
    except MemoryError:
        raise
    except BaseException as error:  # an agent may raise anything, SystemExit included
        protocol.send(sock, protocol.encode({"error": "exception", "message": seat_log.described(error)}))
        return 0
    protocol.send(sock, protocol.encode({"ready": True}))
    while True:
        try:
            message = protocol.receive_request(sock)
        except (protocol.ChannelClosed, protocol.ProtocolError):
            return 0
        # A notification that raises is the seat's fault: its reply to this request says so, in place of an action
        # or of "done", and the referee stops the seat.
        failed = _notify(agent.on_event, message.get("events", ()), "on_event")
        if message.get("op") == "result":
            if failed is None:
                failed = _notify(agent.on_result, (message["result"],), "on_result")
            protocol.send(sock, protocol.encode(failed or {"done": True}))
            return 0
        if failed is not None:
            protocol.send(sock, protocol.encode(failed))
            continue
        observation = game.observation_from_json(message["observation"])
        try:
            action = agent.act(observation)
        except MemoryError:
            raise
        except BaseException as error:
            reply: bytes | dict[str, Any] = {"error": "exception", "message": seat_log.described(error)}
        else:
            reply = _action_reply(action)
        protocol.send(sock, reply if isinstance(reply, bytes) else protocol.encode(reply))


def _notify(call: Any, items: Any, name: str) -> dict[str, Any] | None:
    """Call a notification (``on_event``, ``on_result``) on each of ``items``; the error reply if it raised."""
    for item in items:
        try:
            call(item)
        except MemoryError:
            raise
        except BaseException as error:  # an agent may raise anything, SystemExit included
            return {"error": "exception", "call": name, "message": seat_log.described(error)}
    return None


def _action_reply(action: Any) -> bytes | dict[str, Any]:
    """The framed reply for what ``act`` returned; anything that is not an action is reported as malformed."""
    if isinstance(action, list):
        action = tuple(action)
    if not is_action_shaped(action):
        try:
            shown = repr(action)[:80]
        except BaseException:
            shown = "?"
        return {"error": "malformed", "message": f"returned {type(action).__name__} {shown}, not an action "
                                                 "(a string, or a tuple of strings such as a keep)"}
    try:
        data = protocol.encode({"action": action})
    except (TypeError, ValueError, UnicodeError) as error:
        return {"error": "malformed", "message": f"returned an action that is not JSON text: {error}"}
    if len(data) > protocol.REPLY_LIMIT:
        return {"error": "malformed", "message": f"returned an action of {len(data)} bytes"}
    return data


def preload(package_name: str) -> None:
    """Import every module of ``package_name``; one that fails shows up when its agent is built instead."""
    try:
        package = importlib.import_module(package_name)
    except Exception:
        return
    for module in pkgutil.iter_modules(getattr(package, "__path__", [])):
        try:
            importlib.import_module(f"{package_name}.{module.name}")
        except Exception:
            pass


def main(argv: list[str] | None = None) -> int:
    """Entry point of the zygote process."""
    parser = argparse.ArgumentParser(prog="python -m arena.referee.zygote")
    parser.add_argument("--control", type=int, required=True, help="fd of the control socket")
    parser.add_argument("--plugin", required=True, help="the plugin's source, as JSON")
    parser.add_argument("--require", choices=("none", "partial", "full"), default="none")
    parser.add_argument("--temp-root", default=None, help="the folder a confined zygote may write in")
    parser.add_argument("--workdir", default=None, help="the referee's working directory (never readable)")
    parser.add_argument("--lease", default="", help="the referee's lease token: names the seats' folders")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the referee's to handle
    make_subreaper()
    control = socket.socket(fileno=args.control)
    plugin = PluginSource.from_json(json.loads(args.plugin))
    try:
        kind: type[Zygote] = Zygote
        if plugin.kind == PROGRAM:  # an agent program: its seats exec it (arena.referee.program_zygote)
            from arena.referee.program_zygote import ProgramZygote

            kind = ProgramZygote
        zygote = kind(control, plugin, args.require, args.temp_root, args.workdir, args.lease)
    except Exception as error:  # arena.sandbox.SandboxError above all: one line for the referee
        control.send(json.dumps({"ready": False, "error": one_line(error)}).encode())
        return 1
    zygote.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
