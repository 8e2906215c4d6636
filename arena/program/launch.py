"""What a program seat runs: the executable, its arguments and environment, and what the sandbox lets it read.

The first word of a manifest's ``command`` is one of:

* ``python``: the interpreter arena runs on, with arena importable (``arena.program.client``);
* a path with a ``/`` (``./agent``, ``target/release/kit``): a file in the program's run folder (its build
  output, or its own folder when it has no build), which must not lead out of that folder;
* a bare name (``node``, ``java``): a runtime found on the system's ``PATH`` (``SYSTEM_PATH`` only, never the
  user's own ``PATH``), which the sandbox then lets the seat read and execute.

The program starts in its run folder, which it may read but not write; ``TMPDIR`` and ``HOME`` are the seat's
private temporary folder, gone with the seat.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from arena.program import MANIFEST_NAME, PROTOCOL_VERSION
from arena.program.manifest import Manifest, ManifestError, read_manifest

SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
"""Where a bare runtime name (``node``) is looked up, and the ``PATH`` a program gets."""

RUNTIME_READ_PATHS = ("/usr/share/zoneinfo", "/etc/ssl/certs", "/etc/ssl/openssl.cnf")
"""Beyond the system libraries every sandbox reads: what runtimes open at start-up (node reads openssl.cnf
before running any code, and exits without it); never /etc/ssl/private."""


class LaunchError(ValueError):
    """A program that cannot be started as its manifest says; one line."""


def run_folder(manifest: Manifest) -> Path:
    """The folder the program runs from: its build output (``arena.program.build``), else its own folder."""
    if not manifest.build:
        return manifest.folder
    from arena.program.build import output_folder

    return output_folder(manifest)


def executable(manifest: Manifest, folder: Path) -> str:
    """The file to execute for ``manifest``'s command, run from ``folder``; ``LaunchError`` if there is none."""
    first = manifest.command[0]
    if first == "python":
        return sys.executable
    if "/" in first:
        path = (folder / first).resolve()
        if not path.is_relative_to(folder.resolve()):
            raise LaunchError(f"command {first!r} leads out of the program's folder {folder}")
        if not path.is_file():
            built = " (was it built? see 'build' in the manifest)" if manifest.build else ""
            raise LaunchError(f"command {first!r}: {path} is not an executable file{built}")
        if not os.access(path, os.X_OK):
            raise LaunchError(f"command {first!r}: {path} is not executable (chmod +x it)")
        return str(path)
    found = shutil.which(first, path=SYSTEM_PATH)
    if found is None:
        raise LaunchError(f"command {first!r} is not a program on {SYSTEM_PATH} (install it, or name a file in "
                          "the program's folder as ./NAME)")
    return os.path.realpath(found)


def unstartable(manifest: Manifest) -> str | None:
    """Why a program without a build cannot start (its command names no executable), or None.

    Known before any match only when nothing is built: a build's output does not exist until its first
    check or match, which then reports a missing executable as a build or start-up fault.
    """
    if manifest.build:
        return None
    try:
        executable(manifest, manifest.folder)
    except LaunchError as error:
        return f"{manifest.folder / MANIFEST_NAME}: {error}"
    return None


def environment(folder: Path) -> dict[str, str]:
    """The program's whole environment (nothing of the referee's leaks in but arena's import path)."""
    env = {"PATH": SYSTEM_PATH, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "ARENA_PROTOCOL": str(PROTOCOL_VERSION),
           "ARENA_PROGRAM_DIR": str(folder)}
    if "PYTHONPATH" in os.environ:  # the zygote's: arena and its dependencies, for ``python`` programs
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env


def read_paths(folder: Path) -> tuple[str, ...]:
    """What a seat of the program in ``folder`` must read and execute, beyond Python, arena and the system
    libraries: its folder, its build output, its runtime.  Nothing when the manifest is unusable (the seat
    then fails to start, with the manifest's error)."""
    try:
        manifest = read_manifest(folder)
    except ManifestError:
        return (str(folder),)
    run = run_folder(manifest)
    paths = [str(folder), str(run)]
    try:
        runtime = executable(manifest, run)
    except LaunchError:
        runtime = None
    if runtime is not None and not Path(runtime).is_relative_to(run):
        paths.append(runtime)
    if manifest.command[0] == "python":  # a virtual environment's interpreter reads its pyvenv.cfg first
        paths.append(os.path.join(sys.prefix, "pyvenv.cfg"))
    paths += [path for path in RUNTIME_READ_PATHS if os.path.exists(path)]
    return tuple(dict.fromkeys(paths))
