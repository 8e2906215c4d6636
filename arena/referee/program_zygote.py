"""The zygote of an agent program: forks seats exactly as a Python plugin's zygote does, then execs the program.

``arena.referee.zygote.main`` makes one of these for a plugin of kind ``PROGRAM`` (a folder with an
``arena-agent.toml``).  Everything a Python seat gets, the program gets: the seat is forked by
``arena.sandbox.spawn_seat`` (own PID namespace, a nested Landlock domain, no capabilities, seccomp, its
groups made by the referee, frozen between turns), and only inside that process does it exec the program, so
the program and everything it starts are in the seat's sandbox from their first instruction.  Its standard
input and output are the seat's socket to the referee (docs/protocol.md), its standard error a file in the
seat's private folder that the referee reads a bounded tail of.

Memory: runtimes that reserve large address spaces at start-up (node, the JVM) do not start under an
address-space limit near their real needs, so where the referee puts the seat in a memory group (which bounds
the whole tree by what it really uses) the seat gets no ``RLIMIT_AS``; only without a memory group is the
address space bounded, as for a Python seat (docs/protocol.md says what then runs).
"""

from __future__ import annotations

import os
import resource
import signal
import socket
import sys
from typing import Any

from arena.plugin_system.registry import PluginSource
from arena.program.launch import LaunchError, environment, executable, run_folder
from arena.program.manifest import ManifestError, read_manifest
from arena.referee.confinement import plugin_read_paths
from arena.referee.seat_log import FILE_BYTES_MAX, LOG_NAME
from arena.referee.zygote import FAILED_EXIT, Zygote


class ProgramZygote(Zygote):
    """A zygote whose seats exec one agent program instead of importing a plugin."""

    def __init__(self, control: socket.socket, plugin: PluginSource, require: str, temp_root: str | None,
                 workdir: str | None = None, lease: str = "") -> None:
        try:
            self.manifest = read_manifest(plugin.target)
        except ManifestError as error:
            raise RuntimeError(str(error)) from None
        # Asked before confinement (a confined process cannot see the cgroup file system), as the referee,
        # which makes the seats' groups, sees it.
        from arena.sandbox import cgroups

        self.memory_group = require != "none" and "memory" in cgroups.find().bases
        # Once, here: both hash the program's files when it has a build (arena.program.build).
        self.run_folder = run_folder(self.manifest)
        self.seat_read_paths = plugin_read_paths(plugin)
        super().__init__(control, plugin, require, temp_root, workdir, lease)

    def _spawn_sandboxed(self, request: dict[str, Any], fd: int) -> dict[str, Any]:
        from arena.sandbox import Policy, default_read_paths, spawn_seat

        # With a memory group the tree is bounded by the group alone (see the module's docstring).
        memory_mb = None if self.memory_group else request.get("memory_mb")
        policy = Policy(read_paths=default_read_paths(*self.seat_read_paths, workdir=self.workdir),
                        memory_mb=memory_mb, cpus=float(request.get("cpus", 1.0)),
                        label=f"seat{request['seat']}-{request['agent']}")

        def run() -> int:
            return self._run_seat(fd, request)

        box = spawn_seat(run, policy, [fd], await_placement=True, acknowledge=self.acknowledge,
                         placement=fd)
        self.children[box.pid] = box
        return {"pid": box.pid, "box": box.to_json(), "log": os.path.join(box.temp_dir, LOG_NAME)}

    def _run_seat(self, fd: int, request: dict[str, Any]) -> int:
        """In the seat's process (confined, in its groups): become the program; returns only on failure."""
        folder = os.environ.get("TMPDIR") or os.getcwd()
        log = os.open(os.path.join(folder, LOG_NAME), os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        run = self.run_folder
        try:
            path = executable(self.manifest, run)
        except (LaunchError, OSError) as error:
            os.write(log, f"arena: cannot start the program: {error}\n".encode())
            return FAILED_EXIT
        # Every file it writes, its standard error included, is bounded; past the bound a write fails (EFBIG)
        # instead of killing it (SIGXFSZ ignored, which exec keeps).
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_BYTES_MAX, FILE_BYTES_MAX))
        os.dup2(fd, 0)
        os.dup2(fd, 1)
        os.dup2(log, 2)
        for extra in {fd, log} - {0, 1, 2}:
            os.close(extra)
        env = environment(run)
        env.update({"TMPDIR": folder, "HOME": folder})
        os.chdir(run)
        argv = [path if self.manifest.command[0] == "python" else self.manifest.command[0], *self.manifest.command[1:]]
        # A virtual environment's `python` is a link, and where the environment lies under a folder the sandbox
        # hides (/tmp), only the link's target was bound back in (read paths are resolved): run the target,
        # with argv[0] still naming the link, from which Python finds the environment's pyvenv.cfg and
        # site-packages. The target is known from start-up (sys._base_executable): it cannot be resolved here.
        target = os.path.realpath(getattr(sys, "_base_executable", path)) if path == sys.executable else path
        try:
            os.execve(target, argv, env)
        except OSError as error:
            os.write(2, f"arena: cannot execute {target}: {error.strerror}\n".encode())
        return FAILED_EXIT
