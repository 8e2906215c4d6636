"""What every process that runs third-party code does first, and how its leftovers are cleaned up.

Shared by plugin discovery (``arena.discovery``) and the per-plugin zygotes
(``arena.referee.zygote``): the process hygiene of a forked child (own process
group, dies with its parent, stdio on /dev/null, no inherited descriptors),
confinement in the strongest sandbox this machine offers (``arena.sandbox``),
and the subreaper that collects whatever a plugin's processes started.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import sys
import tempfile
from typing import TYPE_CHECKING

from arena.sandbox.policy import limit_open_files

if TYPE_CHECKING:
    from arena.plugins import PluginSource

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


PLUGIN_ENVIRONMENT = ("PATH", "LANG", "TZ", "LD_LIBRARY_PATH", "VIRTUAL_ENV", "OMP_NUM_THREADS",
                      "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
"""Environment variables a process that runs plugin code keeps (with every ``PYTHON*`` and ``LC_*`` one)."""


def plugin_environment(pythonpath: str) -> dict[str, str]:
    """The environment of a process that runs plugin code (discovery, a zygote and so its seats).

    Only what Python and native libraries need to run: the user's other variables (tokens, a Ray cluster's
    credentials, anything in a shell's environment) would be plugin code's to read, and a plugin can publish
    what it reads in a fault message or a description.
    """
    env = {name: value for name, value in os.environ.items()
           if name in PLUGIN_ENVIRONMENT or name.startswith(("PYTHON", "LC_"))}
    env["PYTHONPATH"] = pythonpath
    # This process's temporary folder, where its lease (arena.sandbox.lease) looks for the folders the process
    # makes there (a sandboxed seat's own TMPDIR is set in the seat).
    env["TMPDIR"] = tempfile.gettempdir()
    from arena.program.build import CACHE_ENV, cache_root  # a program's zygote runs its build from there

    env[CACHE_ENV] = str(cache_root().resolve())
    return env


def _prctl(option: int, value: int) -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def die_with_parent() -> None:
    """Get SIGKILL when the parent process dies (Linux)."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def make_subreaper() -> None:
    """Adopt every orphaned descendant (a plugin's double-forked daemon included), so ``reap_descendants`` finds it."""
    _prctl(PR_SET_CHILD_SUBREAPER, 1)


def reap_descendants() -> None:
    """SIGKILL and wait for every child of this process until none is left (adopted orphans included)."""
    while True:
        children = _children()
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            pid, _status = os.waitpid(-1, 0 if children else os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0 and not children:
            return


def _children() -> list[int]:
    """This process's children, from /proc (every thread's list)."""
    found: list[int] = []
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/self/task/{task}/children") as listing:
                found += [int(pid) for pid in listing.read().split()]
        except (OSError, ValueError):
            continue
    return found


def child_hygiene(keep: int) -> None:
    """In a freshly forked child: own process group, die with the parent, stdio on /dev/null, only ``keep`` open."""
    parent = os.getppid()
    try:
        os.setpgid(0, 0)
    except OSError:
        pass
    die_with_parent()
    if os.getppid() != parent:  # the parent died before we could ask to die with it
        os._exit(1)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    devnull = os.open(os.devnull, os.O_RDWR)
    for target in (0, 1, 2):
        os.dup2(devnull, target)
    os.closerange(3, keep)
    os.closerange(keep + 1, max_fd())
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    limit_open_files()


def max_fd() -> int:
    """One past the highest descriptor number that may be open."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft if 0 < soft < (1 << 20) else 4096


def sandbox_level() -> str:
    """The strongest sandbox this machine offers: ``"full"``, ``"partial"`` or ``"none"``."""
    from arena.sandbox import probe

    return probe().level


def confine_for(source: PluginSource, memory_mb: int | None, purpose: str, require: str | None = None,
                temp_root: str | None = None, workdir: str | None = None) -> str:
    """Confine this (fresh, single-threaded) process for running ``source``'s code; the level achieved.

    ``require`` is the least acceptable level (default: what the machine offers);
    ``"none"`` or a machine without a sandbox only bounds the address space.
    ``temp_root`` is the one folder it may write in (made by whoever started
    the process, who removes it).  ``workdir`` is the user's working directory
    (kept out of the read paths; default this process's).  Raises ``arena.sandbox.SandboxError`` (one
    line, naming ``arena doctor``) below ``require``.
    """
    wanted = require if require is not None else sandbox_level()
    if wanted == "none":
        if memory_mb:
            size = address_space_kb() * 1024 + memory_mb * (1 << 20)
            resource.setrlimit(resource.RLIMIT_AS, (size, size))
        return "none"
    from arena.sandbox import Policy, confine, default_read_paths

    policy = Policy(read_paths=default_read_paths(*source.read_paths(), workdir=workdir), memory_mb=memory_mb,
                    label=f"{purpose}-{source.name}")
    return confine(policy, require=wanted, temp_root=temp_root)


def address_space_kb() -> int:
    """The size of this process's address space, in KiB (0 if unknown)."""
    try:
        with open("/proc/self/statm") as statm:
            size = int(statm.read().split()[0])
        return size * (os.sysconf("SC_PAGE_SIZE") // 1024)
    except (OSError, ValueError):
        return 0
