"""How a process that runs a plugin's code is confined: its environment and its sandbox.

Shared by plugin discovery (``arena.plugin_system.discovery``) and the per-plugin zygotes
(``arena.referee.zygote``): the environment such a process keeps, and its
confinement in the strongest sandbox this machine offers (``arena.sandbox``).
The process hygiene of a forked child and the subreaper that collects whatever
a plugin's processes started are ``arena.sandbox.process``'s.
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
from pathlib import Path

from arena.plugin_system.registry import BUILTIN, FILE, PROGRAM, PluginSource
from arena.program.build import CACHE_ENV, cache_root
from arena.program.launch import read_paths as program_read_paths
from arena.sandbox.process import address_space_kb, bound_address_space

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
    env[CACHE_ENV] = str(cache_root().resolve())
    return env


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
            bound_address_space(address_space_kb(), memory_mb)
        return "none"
    from arena.sandbox import Policy, confine, default_read_paths

    policy = Policy(read_paths=default_read_paths(*plugin_read_paths(source), workdir=workdir), memory_mb=memory_mb,
                    label=f"{purpose}-{source.name}")
    return confine(policy, require=wanted, temp_root=temp_root)



def plugin_read_paths(source: PluginSource) -> tuple[str, ...]:
    """The files a sandbox must be able to read to import ``source``'s plugin, beyond Python and arena.

    Found without running the plugin's code: a drop-in's own file or folder; for an entry point the
    location of its top-level package (``find_spec`` of a top-level name imports nothing).
    """
    if source.kind == FILE:
        return (source.target,)
    if source.kind == PROGRAM:
        return program_read_paths(Path(source.target))
    if source.kind == BUILTIN:
        return ()
    top = source.target.split(":")[0].split(".")[0].strip()
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return ()
    if spec is None:
        return ()
    paths = list(spec.submodule_search_locations or ())
    if not paths and spec.origin and os.path.isabs(spec.origin):
        paths.append(spec.origin)
    # The folder on sys.path that holds the package too: Python lists it to find the package at all (a
    # package installed with ``pip --target`` outside site-packages). Folders holding the working
    # directory or inside the leaderboards folder are dropped again by the sandbox's policy.
    paths += [os.path.dirname(str(path)) for path in paths]
    return tuple(dict.fromkeys(str(path) for path in paths))
