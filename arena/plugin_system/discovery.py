"""Discovering third-party plugins without running their code in this process.

``discover(sources)`` starts one fresh interpreter (``python -m arena.plugin_system.discovery``,
which holds nothing but arena's code), and that process forks one child per
plugin.  Each child confines itself (``arena.sandbox.confine``: no writes, no
network, reads only Python, arena and the plugin's own files) before it
imports its plugin, calls the plugin's registration hooks, and reports what
the plugin registered as JSON on a pipe: agents with every ``AgentSpec`` field
but the factory, the names of its games, and one line per problem.  A child
that dies, hangs past ``DISCOVERY_SECONDS`` or floods its pipe is that
plugin's problem, reported in one line.  The discovery process makes itself
the subreaper of everything its children start, and kills it all before it
answers, so no plugin process outlives discovery.

What a child reports was written by a process that ran the plugin's code, so
``arena.plugins`` checks it as untrusted input (types, names, lengths) and
attributes it only to the plugin that child was started for.  Results are
cached per process (keyed by the sources and their files' modification
times), so a command that loads the registry twice pays once.
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.plugin_system.data import one_line, spec_to_json
from arena.plugin_system.registration import Registrar
from arena.plugin_system.registry import PluginSource
from arena.referee.confinement import confine_for, plugin_environment, sandbox_level
from arena.referee.zygote import PRELOAD_PACKAGE, preload
from arena.sandbox import lease
from arena.sandbox.process import child_hygiene, kill_group_or_process, make_subreaper, reap_descendants
from arena.sandbox.removal import remove_tree

DISCOVERY_SECONDS = 30.0
"""How long all plugins together may take to import and register."""

REPORT_LIMIT = 1 << 20
"""Largest report one plugin's child may write (1 MiB); more is that plugin's error."""

DISCOVERY_MEMORY_MB = 1024
"""Memory a plugin may use while it is imported and registers."""

_cache: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
_cache_lock = threading.Lock()


def discover(sources: Sequence[PluginSource]) -> list[dict[str, Any]]:
    """One report per source, in order: ``{"agents", "games", "errors", "failed"}`` or ``{"error": line}``."""
    if not sources:
        return []
    key = tuple((source, _stamp(source)) for source in sources)
    with _cache_lock:
        if key not in _cache:
            _cache[key] = _run(list(sources))
        return [dict(report) for report in _cache[key]]


def _stamp(source: PluginSource) -> tuple[float, ...]:
    """Modification times of a drop-in plugin's files, so that an edited plugin is discovered again."""
    if source.kind != "file":
        return ()
    path = Path(source.target)
    try:
        if path.is_dir():
            return tuple(sorted(child.stat().st_mtime for child in path.rglob("*.py")))
        return (path.stat().st_mtime,)
    except OSError:
        return ()


def _run(sources: list[PluginSource]) -> list[dict[str, Any]]:
    """Run the discovery process for ``sources`` and read its answer."""
    path = [entry or os.getcwd() for entry in sys.path]
    env = plugin_environment(os.pathsep.join(path))
    request = json.dumps([source.to_json() for source in sources])
    failed = {"error": "discovery failed: the discovery process did not answer"}
    try:
        # Marked with this process's lease: should this process die meanwhile, its janitor ends discovery too.
        done = subprocess.run([sys.executable, "-m", "arena.plugin_system.discovery", *lease.current().mark],
                              input=request.encode(), env=env, capture_output=True,
                              timeout=DISCOVERY_SECONDS + 10, start_new_session=True)
    except subprocess.TimeoutExpired:
        return [failed] * len(sources)
    try:
        reports = json.loads(done.stdout)
    except (ValueError, RecursionError):
        tail = done.stderr.decode(errors="replace").strip().splitlines()
        return [{"error": f"discovery failed: {tail[-1][:300] if tail else 'no answer'}"}] * len(sources)
    if not isinstance(reports, list) or len(reports) != len(sources):
        return [failed] * len(sources)
    return [report if isinstance(report, dict) else failed for report in reports]


# -- the discovery process ------------------------------------------------------------------------------


def _serve(sources: list[PluginSource], temp_root: str) -> list[dict[str, Any]]:
    """Fork a confined child per plugin (each writing only in its own folder inside ``temp_root``), collect
    each report, kill everything the plugins started."""
    make_subreaper()
    sandbox_level()  # probed once here, so that every child inherits the answer instead of probing again
    preload(PRELOAD_PACKAGE)  # arena's own agents, which plugins often build on: imported once, not per child
    selector = selectors.DefaultSelector()
    buffers: dict[int, bytearray] = {}
    reports: list[dict[str, Any]] = [{"error": "discovery failed"}] * len(sources)
    pids: list[int] = []
    for index, source in enumerate(sources):
        read_end, write_end = os.pipe()
        folder = tempfile.mkdtemp(dir=temp_root)  # one per child: plugins share no folder
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            status = 1
            try:
                status = _child(source, write_end, folder)
            finally:
                os._exit(status)
        os.close(write_end)
        pids.append(pid)
        buffers[index] = bytearray()
        os.set_blocking(read_end, False)
        selector.register(read_end, selectors.EVENT_READ, index)
    deadline = time.monotonic() + DISCOVERY_SECONDS
    waiting = dict(enumerate(pids))  # index -> pid of the children whose report is not final yet
    while waiting and time.monotonic() < deadline:
        for key, _events in selector.select(0.05):
            if not _take(key.fd, buffers, reports, key.data):
                selector.unregister(key.fd)
                os.close(key.fd)
                _finish(key.data, buffers, reports)
                waiting.pop(key.data, None)
        # A child that exited has said all it will, even if something it started still holds the pipe open.
        for index, pid in list(waiting.items()):
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                fd = next(key.fd for key in selector.get_map().values() if key.data == index)
                while _take(fd, buffers, reports, index):
                    pass
                selector.unregister(fd)
                os.close(fd)
                _finish(index, buffers, reports)
                del waiting[index]
    for key in list(selector.get_map().values()):
        reports[key.data] = {"error": f"did not register within {DISCOVERY_SECONDS:g} s"}
        os.close(key.fd)
    for pid in pids:
        kill_group_or_process(pid)
    reap_descendants()
    return reports


def _take(fd: int, buffers: dict[int, bytearray], reports: list[dict[str, Any]], index: int) -> bool:
    """Read what is there from a child's pipe; False at end of file, at nothing more to read, or past the limit."""
    try:
        chunk = os.read(fd, 1 << 16)
    except BlockingIOError:
        return False
    if not chunk:
        return False
    if len(buffers[index]) + len(chunk) > REPORT_LIMIT:
        reports[index] = {"error": f"reported more than {REPORT_LIMIT} bytes"}
        buffers[index] = bytearray()
        return False
    buffers[index] += chunk
    return True


def _finish(index: int, buffers: dict[int, bytearray], reports: list[dict[str, Any]]) -> None:
    """The report of child ``index`` from what it wrote (unless it already broke a limit)."""
    if "reported more" in str(reports[index].get("error", "")):
        return
    data = bytes(buffers[index])
    reports[index] = _parse(data) if data else {"error": "the plugin's discovery process died without reporting"}


def _parse(data: bytes) -> dict[str, Any]:
    try:
        report = json.loads(data)
    except (ValueError, RecursionError):
        return {"error": "reported something that is not JSON"}
    return report if isinstance(report, dict) else {"error": "reported something that is not a JSON object"}


def _child(source: PluginSource, out: int, temp_root: str) -> int:
    """In the forked child: confine, import the plugin, register, write the report."""
    child_hygiene(keep=out)
    try:
        confine_for(source, DISCOVERY_MEMORY_MB, "discover", temp_root=temp_root)
    except Exception as error:
        _write(out, {"error": f"cannot be sandboxed: {one_line(error)}"})
        return 0
    registrar = Registrar()
    registrar.add(source)
    registry = registrar.registry
    report: dict[str, Any] = {"errors": list(registry.errors), "failed": source.name not in registry.sources,
                              "games": sorted(registry.games), "agents": [],
                              "reporter": registrar.has_reporters(),
                              "rating_methods": sorted(registry.rating_methods), "formats": sorted(registry.formats),
                              "views": sorted(registry.views)}
    for spec in registry.agents.values():
        try:
            report["agents"].append(spec_to_json(spec))
        except TypeError as error:
            report["errors"].append(f"agent not registered: agent {spec.name!r}: {error}")
    _write(out, report)
    return 0


def _write(out: int, report: dict[str, Any]) -> None:
    data = json.dumps(report).encode()
    view = memoryview(data)
    while view:
        view = view[os.write(out, view):]
    os.close(out)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the discovery process: sources as JSON on stdin, reports as JSON on stdout."""
    parser = argparse.ArgumentParser(prog="python -m arena.plugin_system.discovery")
    parser.add_argument("--lease", default="", help="the caller's lease token (marks this process as its own)")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driver's to handle
    sources = [PluginSource.from_json(item) for item in json.load(sys.stdin)]
    # The children's one writable folder, removed here once every process they started is dead: a janitor of
    # their own would be one of those processes (this is their subreaper) and die before removing it.
    temp_root = tempfile.mkdtemp(prefix=f"arena-{args.lease}-discovery-" if args.lease else "arena-discovery-")
    try:
        reports = _serve(sources, temp_root)
    finally:
        remove_tree(temp_root)
    sys.stdout.write(json.dumps(reports))
    return 0


if __name__ == "__main__":
    sys.exit(main())
