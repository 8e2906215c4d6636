"""The zygote: a pre-loaded server that forks one fresh process per isolated agent per match.

Run as ``python -m arena.referee.zygote --control FD`` by ``arena.referee.host.AgentHost``,
never by hand.  It imports arena, loads the plugins once, and then waits for
requests on its control socket (``SOCK_SEQPACKET``, one JSON request per
packet).  It never builds a game state, never sees an observation and never
runs an agent itself, so a process forked from it holds nothing but code.

Requests and replies:

* ``{"op": "spawn", "agent", "version", "factory", "plugins_dir", "game", "seat",
  "players", "seed", "options", "memory_mb"}`` with the agent's socket passed
  as an fd (``SCM_RIGHTS``): look the agent up, fork, reply
  ``{"pid": ...}`` or ``{"error": "..."}``.  The child builds the agent
  and talks to the referee directly over that socket (``arena.referee.protocol``).
* ``{"op": "reap", "pids": [...]}``: kill each child's process group (SIGKILL;
  a child that already exited keeps its own exit status), wait for them and
  reply ``{"statuses": {pid: {"exit": code} or {"signal": number}, with "maxrss_kb"}}``.

End of file on the control socket (the referee closed it or died) stops the
zygote, which kills every child it still has.

A forked child, before it runs any agent code: moves to its own process
group; dies with the zygote (``PR_SET_PDEATHSIG``); points stdin, stdout and
stderr at /dev/null (an agent's prints go nowhere); closes every other file
descriptor (the control socket, other agents' sockets); gets a private,
deleted-after temporary folder (``TMPDIR``); reseeds the global ``random``
with the agent's seed; and caps its address space (``RLIMIT_AS``) at its size
at fork plus ``memory_mb``.
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
import shutil
import signal
import socket
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.agent import AgentSpec
from arena.games.base import Game
from arena.plugins import Registry, load_registry
from arena.referee import protocol
from arena.referee.faults import describe_exception, is_action_shaped

CONTROL_LIMIT = 1 << 20
"""Largest control packet (requests are small JSON objects)."""

MEMORY_EXIT = 86
"""Exit status of a child that ran out of memory (after telling the referee, if it could)."""

FAILED_EXIT = 87
"""Exit status of a child whose set-up failed before the agent existed."""

PRELOAD_PACKAGE = "arena_agents"
"""The first-party agents import their modules lazily (to keep ``arena agents`` fast); the zygote imports
every module of this package once instead of each child importing them per match.  Third-party plugins get
the same by importing what they need at module level."""


def factory_id(factory: Any) -> str:
    """``module:qualname`` of an agent factory: how the referee and the zygote agree it is the same agent."""
    target = getattr(factory, "func", factory)  # functools.partial
    module = getattr(target, "__module__", None) or "?"
    name = getattr(target, "__qualname__", None) or type(target).__qualname__
    return f"{module}:{name}"


class Zygote:
    """The server loop; one instance per zygote process."""

    def __init__(self, control: socket.socket, plugins_dir: str | None, entry_points: bool) -> None:
        self.control = control
        self.default_dir = plugins_dir
        self.entry_points = entry_points
        self.registries: dict[str | None, Registry] = {}
        self.children: dict[int, str] = {}  # pid -> private temporary folder
        self.die_with_parent = _parent_death_setter()
        self.registry(plugins_dir)

    def registry(self, plugins_dir: str | None) -> Registry:
        """The plugins as loaded with ``plugins_dir`` (loaded once, on first use)."""
        if plugins_dir not in self.registries:
            loaded = load_registry(plugins_dir=plugins_dir, entry_points=self.entry_points)
            self.registries[plugins_dir] = loaded.registry
            _preload(PRELOAD_PACKAGE)
            gc.collect()
            gc.freeze()  # children then never touch these objects' pages (cheaper copy-on-write)
        return self.registries[plugins_dir]

    def serve(self) -> None:
        """Answer requests until the referee closes the control socket."""
        errors = self.registries[self.default_dir].errors
        self.control.send(json.dumps({"ready": True, "pid": os.getpid(), "errors": errors}).encode())
        try:
            while True:
                try:
                    data, fds, _flags, _address = socket.recv_fds(self.control, CONTROL_LIMIT, 1)
                except OSError:
                    break
                if not data:
                    break
                request = json.loads(data)
                if request.get("op") == "spawn":
                    reply = self.spawn(request, fds[0] if fds else None)
                else:
                    for fd in fds:
                        os.close(fd)
                    reply = self.reap(request["pids"]) if request.get("op") == "reap" else {"error": "unknown op"}
                self.control.send(json.dumps(reply).encode())
        finally:
            self.reap(list(self.children))

    def spawn(self, request: dict[str, Any], fd: int | None) -> dict[str, Any]:
        """Fork a child for one agent of one match; the child never returns here."""
        if fd is None:
            return {"error": "spawn request without a socket"}
        try:
            spec, game = self.lookup(request)
        except LookupError as error:
            os.close(fd)
            return {"error": str(error.args[0])}
        try:
            folder = tempfile.mkdtemp(prefix="arena-agent-")
        except OSError as error:
            os.close(fd)
            return {"error": f"cannot make a temporary folder for agent {request['agent']!r}: {error}"}
        try:
            pid = os.fork()
        except OSError as error:
            os.close(fd)
            shutil.rmtree(folder, ignore_errors=True)
            return {"error": f"cannot start a process for agent {request['agent']!r}: {error}"}
        if pid == 0:  # the child
            status = FAILED_EXIT
            try:
                status = _child(fd, spec, game, request, folder, self.die_with_parent)
            finally:
                os._exit(status)
        try:
            os.setpgid(pid, pid)  # also done by the child: whichever runs first makes the group
        except OSError:
            pass
        os.close(fd)
        self.children[pid] = folder
        return {"pid": pid}

    def lookup(self, request: dict[str, Any]) -> tuple[AgentSpec, Game]:
        """The registered agent and game the request names; ``LookupError`` with a one-line reason."""
        plugins_dir = request.get("plugins_dir") or self.default_dir
        registry = self.registry(plugins_dir)
        name = request["agent"]
        spec = registry.agents.get(name)
        where = f"plugins folder {plugins_dir}" if plugins_dir else "no plugins folder"
        where += ", entry points" if self.entry_points else ", no entry points"
        if spec is None:
            raise LookupError(
                f"agent {name!r} cannot run isolated: no plugin the isolated host loads ({where}) registers it; "
                "register it through a plugin (entry point or plugins folder) or seat it with isolation='trusted'"
            )
        if spec.version != request.get("version") or factory_id(spec.factory) != request.get("factory"):
            raise LookupError(
                f"agent {name!r} in the isolated host ({where}) is not the one seated "
                f"(version {spec.version}, factory {factory_id(spec.factory)}; seated: version "
                f"{request.get('version')}, factory {request.get('factory')}); load the same plugins in both"
            )
        game = registry.games.get(request["game"])
        if game is None:
            raise LookupError(f"game {request['game']!r} is not installed in the isolated host ({where})")
        return spec, game

    def reap(self, pids: list[int]) -> dict[str, Any]:
        """Kill (if still alive) and wait for children; per pid its exit status and peak memory.

        Every process is killed before any is waited for, so their teardowns overlap.
        """
        mine = [pid for pid in pids if pid in self.children]
        for pid in mine:
            for kill in (os.killpg, os.kill):
                try:
                    kill(pid, signal.SIGKILL)
                    break
                except OSError:
                    continue
        statuses: dict[str, Any] = {str(pid): {"error": f"process {pid} is not an agent of this host"}
                                    for pid in pids if pid not in self.children}
        for pid in mine:
            statuses[str(pid)] = self._wait(pid)
        return {"statuses": statuses}

    def _wait(self, pid: int) -> dict[str, Any]:
        folder = self.children.pop(pid)
        try:
            _pid, status, usage = os.wait4(pid, 0)
        except ChildProcessError:
            return {"exit": None, "maxrss_kb": None}
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        reply: dict[str, Any] = {"maxrss_kb": usage.ru_maxrss}
        if os.WIFSIGNALED(status):
            reply["signal"] = os.WTERMSIG(status)
        else:
            reply["exit"] = os.waitstatus_to_exitcode(status)
        return reply


def _child(fd: int, spec: AgentSpec, game: Game, request: dict[str, Any], folder: str,
           die_with_parent: Callable[[], None]) -> int:
    """Set up the sandbox, build the agent and serve the referee's requests; return the exit status."""
    zygote = os.getppid()
    try:
        os.setpgid(0, 0)
    except OSError:
        pass
    die_with_parent()
    if os.getppid() != zygote:  # the zygote died before we could ask to die with it
        return FAILED_EXIT
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    devnull = os.open(os.devnull, os.O_RDWR)
    for target in (0, 1, 2):
        os.dup2(devnull, target)
    # Keep only stdio and our own socket: not the control socket, nor any other agent's.
    os.closerange(3, fd)
    os.closerange(fd + 1, _max_fd())
    os.environ["TMPDIR"] = folder
    tempfile.tempdir = folder
    random.seed(request["seed"])
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    sock = socket.socket(fileno=fd)
    out_of_memory = protocol.encode({"error": "memory", "message": "MemoryError: out of memory"})
    memory_mb = request.get("memory_mb")
    if memory_mb:
        size = _address_space_kb() * 1024 + int(memory_mb) * (1 << 20)
        resource.setrlimit(resource.RLIMIT_AS, (size, size))
    try:
        return _serve_agent(sock, spec, game, request)
    except MemoryError:
        try:
            protocol.send(sock, out_of_memory)  # send: the reply must carry its request's token
        except (OSError, MemoryError, protocol.ChannelClosed, protocol.ChannelTimeout):
            pass
        return MEMORY_EXIT


def _serve_agent(sock: socket.socket, spec: AgentSpec, game: Game, request: dict[str, Any]) -> int:
    """The child's loop: build the agent, then answer act/result requests until told the result."""
    try:
        agent = spec.factory(seat=request["seat"], game=game.info, players=request["players"],
                             seed=request["seed"], options=request.get("options") or {})
    except MemoryError:
        raise
    except BaseException as error:  # an agent may raise anything, SystemExit included
        protocol.send(sock, protocol.encode({"error": "exception", "message": describe_exception(error)}))
        return 0
    protocol.send(sock, protocol.encode({"ready": True}))
    while True:
        try:
            message = protocol.receive(sock, None, protocol.REQUEST_LIMIT)
        except (protocol.ChannelClosed, protocol.ProtocolError):
            return 0
        for event in message.get("events", ()):
            try:
                agent.on_event(event)
            except MemoryError:
                raise
            except Exception:
                pass
        if message.get("op") == "result":
            try:
                agent.on_result(message["result"])
            except MemoryError:
                raise
            except Exception:
                pass
            protocol.send(sock, protocol.encode({"done": True}))
            return 0
        observation = game.observation_from_json(message["observation"])
        try:
            action = agent.act(observation)
        except MemoryError:
            raise
        except BaseException as error:
            reply = {"error": "exception", "message": describe_exception(error)}
        else:
            reply = _action_reply(action)
        protocol.send(sock, reply if isinstance(reply, bytes) else protocol.encode(reply))


def _action_reply(action: Any) -> bytes | dict[str, Any]:
    """The framed reply for what ``act`` returned; anything that is not an action is reported as malformed."""
    if isinstance(action, list):
        action = tuple(action)
    if not is_action_shaped(action):
        try:
            shown = repr(action)[:80]
        except Exception:
            shown = "?"
        return {"error": "malformed", "message": f"returned {type(action).__name__} {shown}, not an action "
                                                 "(a string, or a tuple of strings for a Lovat keep)"}
    try:
        data = protocol.encode({"action": action})
    except (TypeError, ValueError, UnicodeError) as error:
        return {"error": "malformed", "message": f"returned an action that is not JSON text: {error}"}
    if len(data) > protocol.REPLY_LIMIT:
        return {"error": "malformed", "message": f"returned an action of {len(data)} bytes"}
    return data


def _preload(package_name: str) -> None:
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


def _address_space_kb() -> int:
    """The size of this process's address space, in KiB (0 if unknown)."""
    try:
        with open("/proc/self/statm") as statm:
            size = int(statm.read().split()[0])
        return size * (os.sysconf("SC_PAGE_SIZE") // 1024)
    except (OSError, ValueError):
        return 0


def _max_fd() -> int:
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft if 0 < soft < (1 << 20) else 4096


def _parent_death_setter() -> Callable[[], None]:
    """A function that makes the calling process get SIGKILL when its parent dies (Linux), else a no-op.

    Prepared in the zygote so that the child does not import ctypes.
    """
    if not sys.platform.startswith("linux"):
        return lambda: None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return lambda: None
    pr_set_pdeathsig = 1

    def die_with_parent() -> None:
        prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)

    return die_with_parent


def main(argv: list[str] | None = None) -> int:
    """Entry point of the zygote process."""
    parser = argparse.ArgumentParser(prog="python -m arena.referee.zygote")
    parser.add_argument("--control", type=int, required=True, help="fd of the control socket")
    parser.add_argument("--plugins-dir", default=None)
    parser.add_argument("--no-entry-points", action="store_true")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the referee's to handle
    control = socket.socket(fileno=args.control)
    plugins_dir = str(Path(args.plugins_dir).resolve()) if args.plugins_dir else None
    Zygote(control, plugins_dir, entry_points=not args.no_entry_points).serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
