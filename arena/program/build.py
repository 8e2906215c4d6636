"""Build an agent program once per content hash, in a confined process without network; cache the output.

``ensure_built(manifest)`` returns the folder the program runs from.  For a manifest with a ``build``
command, that is ``<cache>/<name>-<key>``, where the key hashes the program folder's files (every byte:
``arena.plugin_system.provenance.files_hash``), its version and the build command, so an edit or a new version builds
again and nothing else does.  The build itself runs in ``python -m arena.program.build`` (a fresh process):

* it enters cgroups the referee made for it (``BUILD_MEMORY_MB`` of memory, its files included, and
  ``BUILD_PROCESSES_MAX`` processes), where there are any;
* it confines itself as a zygote does (``arena.sandbox.confine``: user, mount, network, IPC and UTS
  namespaces, so no network at all; Landlock: read the program folder, the system's libraries and
  toolchains, write only its own bounded temporary folder; seccomp);
* copies the program folder there and runs the build command in the copy, beneath the init of a PID namespace
  of its own (whatever the command leaves running dies with that init), with ``build_seconds`` to do it, its
  files bounded by ``RLIMIT_FSIZE``;
* writes the built copy to its standard output as a tar stream, which this process unpacks (data only: no
  links out, no devices; within ``OUTPUT_BYTES_MAX`` and ``OUTPUT_FILES_MAX``, or not at all) into the cache,
  atomically (a rename), under a lock so two referees build once.

The build process carries this process's lease (``--lease TOKEN``, ``arena.sandbox.lease``), so a killed run's
janitor ends it.  Its standard error is kept within bounds (``arena.program.build_log``); a failure is one
line quoting the compiler's first error, and the whole log is kept beside the cache entry.  The cache bounds
itself (``arena.program.cache``).

A program brings its dependencies with it (vendored crates, bundled node modules): there is no network.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

from arena.program.build_log import OWN_PREFIX, BuildLog
from arena.program.launch import SYSTEM_PATH
from arena.program.manifest import Manifest, ManifestError, read_manifest

BUILD_MEMORY_MB = 2048
"""Memory (and temporary space) a build may use."""

BUILD_PROCESSES_MAX = 256
"""Processes a build may run at once (a parallel compiler's jobs; not a fork bomb)."""

OUTPUT_BYTES_MAX = BUILD_MEMORY_MB << 20
"""Most bytes a build's output may hold (what its bounded folder holds; a sparse file would be far more)."""

OUTPUT_FILES_MAX = 200_000
"""Most files and folders a build's output may hold."""

CACHE_ENV = "ARENA_BUILD_CACHE"
"""Environment variable naming the build cache folder (default ``~/.cache/arena/builds``)."""

TOOLCHAIN_READ_PATHS = ("/usr/bin", "/bin", "/usr/libexec", "/usr/include", "/usr/local", "/usr/share")
"""What a compiler may read besides the system libraries: the tools and headers."""

BUILD_ETC_READ_PATHS = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/ld.so.preload",
                        "/etc/alternatives", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/localtime",
                        "/etc/timezone", "/etc/os-release", "/etc/gitconfig", "/etc/rustup", "/etc/ssl/certs",
                        "/etc/ssl/openssl.cnf")
"""Of /etc, what toolchains read (the dynamic linker's files, the compiler alternatives, user and time zone
lookups, git's and rustup's settings, the public certificates), never the whole folder: a build runs as the
server's user, and as root it could read /etc/shadow or a TLS key and quote it back in its error."""


class BuildError(Exception):
    """A build that failed, timed out or could not run; one line naming the program and the cause."""


def cache_root() -> Path:
    """The build cache folder (``ARENA_BUILD_CACHE``, else ``$XDG_CACHE_HOME/arena/builds``)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "arena" / "builds"


def build_key(manifest: Manifest) -> str:
    """The content hash a build is cached under: the folder's files, the version and the build command."""
    from arena.plugin_system.provenance import ProvenanceError, files_hash

    try:
        files = files_hash(manifest.folder)
    except ProvenanceError as error:
        raise BuildError(f"program {manifest.name!r}: {error}") from None
    text = json.dumps([files, manifest.version, list(manifest.build)])
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def output_folder(manifest: Manifest) -> Path:
    """Where the build of ``manifest`` (as its files are now) is, or will be, cached."""
    return cache_root() / f"{manifest.name}-{build_key(manifest)}"


def ensure_built(manifest: Manifest) -> Path:
    """The folder the program runs from, building it first if this content was never built."""
    if not manifest.build:
        return manifest.folder
    from arena.program import cache

    stamp = (manifest, _stamp(manifest.folder))
    known = _known.get(stamp)
    if known is not None and known.is_dir():  # seen this very content in this process: no hashing again
        cache.touch(known)
        return known
    output = output_folder(manifest)
    if output.is_dir():
        _known[stamp] = output
        cache.touch(output)
        return output
    if output in _failed:  # said once per process, not once per seat
        raise BuildError(_failed[output])
    output.parent.mkdir(parents=True, exist_ok=True)
    with open(output.with_name(output.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second referee waits here, then finds the output
        if not output.is_dir():
            try:
                _build(manifest, output)
            except BuildError as error:
                _failed[output] = str(error)
                raise
            cache.touch(output)  # its time was the archive's
            cache.prune(output.parent)  # the new build is in use: never the one removed
    return output


_failed: dict[Path, str] = {}  # build output folder -> why its build failed, in this process
_known: dict[tuple[Manifest, tuple[tuple[str, int, int], ...]], Path] = {}  # (manifest, stamp) -> its output


def _stamp(folder: Path) -> tuple[tuple[str, int, int], ...]:
    """Every file's path, size and modification time: what changes when the content does (a seat's launch
    checks its build with this rather than reading every byte again)."""
    found = []
    for root, _dirs, files in os.walk(folder):
        for name in files:
            path = os.path.join(root, name)
            try:
                status = os.lstat(path)
            except OSError:
                continue
            found.append((os.path.relpath(path, folder), status.st_size, status.st_mtime_ns))
    return tuple(sorted(found))


def _build(manifest: Manifest, output: Path) -> None:
    from arena.sandbox import lease
    from arena.sandbox.removal import remove_tree

    staging = Path(tempfile.mkdtemp(prefix=output.name + ".", suffix=".partial", dir=output.parent))
    log_path = output.with_name(output.name + ".log")
    groups = _build_groups(manifest.name)
    # The build's one writable folder, made and removed here: a folder the build made for itself was left
    # behind when its janitor, in the build's group, was killed with the group.
    temp_root = lease.current().temp_folder("build")
    try:
        # Marked with this process's lease: should this process die meanwhile, its janitor (or the next
        # sweep) kills the build, and the build's namespace with it, and removes its groups.
        process = subprocess.Popen(
            [sys.executable, "-m", "arena.program.build", *lease.current().mark, "--groups",
             os.pathsep.join(groups), "--temp", temp_root, str(manifest.folder)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True,
            cwd="/")
        assert process.stdout is not None and process.stderr is not None
        log = BuildLog(process.stderr)
        refused = None
        try:
            _unpack(process.stdout, staging)
        except _Refused as error:
            refused = str(error)
            process.kill()  # it may still be writing (a sparse file of terabytes reads as terabytes of zeros)
        except (tarfile.TarError, OSError):
            pass  # a failed build writes no archive: its standard error says why
        try:
            status = process.wait(timeout=manifest.build_seconds + 30)
        except subprocess.TimeoutExpired:
            process.kill()
            status = process.wait()
        log.wait(5.0)
        if groups and _ran_out_of_memory(groups):
            log.save(log_path)
            raise BuildError(f"program {manifest.name!r}: the build ran out of memory: it may use "
                             f"{BUILD_MEMORY_MB} MB, its files included (its log: {log_path})")
        if refused is not None:
            raise BuildError(f"program {manifest.name!r}: the build's output was refused: {refused}")
        if status != 0:
            log.save(log_path)
            raise BuildError(f"program {manifest.name!r}: the build failed: {log.reason()} (its log: {log_path})")
        if not (staging / "src").is_dir():
            raise BuildError(f"program {manifest.name!r}: the build's output was cut short (no archive)")
        os.rename(staging / "src", output)
        try:
            os.unlink(log_path)  # an earlier failure's
        except OSError:
            pass
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        remove_tree(temp_root)  # empty where the build had its own tmpfs over it; its files where it had none
        if groups:
            from arena.sandbox import cgroups

            for pid in cgroups.processes(groups):  # what left its namespace's or its group's reach (none should)
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            cgroups.remove(groups)


def _build_groups(name: str) -> list[str]:
    """Cgroups bounding a build's memory (``BUILD_MEMORY_MB``, its files in its memory-backed folder included)
    and processes, named for this process's lease (which removes them should it die); none where the referee
    cannot make groups (the build is then bounded by its folder's size and its time only: docs/security.md)."""
    from arena.sandbox import cgroups, lease

    try:
        bases = cgroups.find().bases
        if "memory" not in bases:
            return []
        owner = lease.current()
        for base in dict.fromkeys(bases.values()):
            owner.note("groups", base)
        return cgroups.create(owner.prefix, f"build-{name}", BUILD_MEMORY_MB, float(os.cpu_count() or 1),
                              BUILD_PROCESSES_MAX)
    except OSError:
        return []


def _ran_out_of_memory(groups: list[str]) -> bool:
    from arena.sandbox import cgroups

    return bool(cgroups.memory_report(groups).get("memory_exceeded"))


class _Refused(Exception):
    """A build output that breaks a bound or holds what the cache never takes (a link out, a device)."""


def _unpack(stream: IO[bytes], staging: Path) -> None:
    """Unpack the build's tar stream into ``staging``: data only (``filter="data"``: no link out of it, no
    device, no absolute path) and within ``OUTPUT_BYTES_MAX`` and ``OUTPUT_FILES_MAX``; ``_Refused`` otherwise
    (an error half-way must not leave a partial copy that would be taken for the build)."""
    total = files = 0
    with tarfile.open(fileobj=stream, mode="r|") as archive:
        for member in archive:
            total += member.size
            files += 1
            if total > OUTPUT_BYTES_MAX:
                raise _Refused(f"it holds more than {OUTPUT_BYTES_MAX >> 20} MiB")
            if files > OUTPUT_FILES_MAX:
                raise _Refused(f"it holds more than {OUTPUT_FILES_MAX} files")
            try:
                archive.extract(member, staging, filter="data")
            except tarfile.FilterError as error:
                # Named as in the program's folder (the archive's names start with src/).
                raise _Refused(str(error).replace(str(staging) + os.sep, "").replace("'src/", "'")) from None


# -- the confined build process ----------------------------------------------------------------------------


def toolchain_read_paths(command: str) -> list[str]:
    """What a build needs to read to run ``command``: the system's toolchains, and a rustup or cargo home."""
    paths = list(TOOLCHAIN_READ_PATHS) + list(BUILD_ETC_READ_PATHS)
    found = shutil.which(command)
    if found:
        paths.append(os.path.dirname(os.path.realpath(found)))
    home = os.path.expanduser("~")
    paths.append(os.environ.get("RUSTUP_HOME") or os.path.join(home, ".rustup"))
    # Of a cargo home, only its tools (rustup's proxies): it also holds the user's registry tokens
    # (credentials.toml) and configuration, which a build has no business reading.
    paths.append(os.path.join(os.environ.get("CARGO_HOME") or os.path.join(home, ".cargo"), "bin"))
    return [path for path in paths if os.path.exists(path)]


def _run_build(folder: Path, groups: list[str], temp_root: str) -> int:
    """In the build process: enter the build's ``groups``, confine (writing only beneath ``temp_root``), copy,
    build, write the copy as a tar stream on stdout."""
    from arena.sandbox import Policy, cgroups, confine, default_read_paths, probe

    if groups:  # before anything of the program runs, and while this process may still write the groups
        cgroups.move(groups, os.getpid())

    manifest = read_manifest(folder)
    tool = manifest.build[0]
    tool_path = shutil.which(tool, path=os.pathsep.join([SYSTEM_PATH, os.environ.get("PATH", "")]))
    rustup_home = os.environ.get("RUSTUP_HOME") or os.path.join(os.path.expanduser("~"), ".rustup")
    level = probe().level
    if level != "none":
        policy = Policy(read_paths=default_read_paths(str(folder), *toolchain_read_paths(tool)),
                        memory_mb=BUILD_MEMORY_MB, label=f"build-{manifest.name}", max_processes=BUILD_PROCESSES_MAX,
                        run_own_files=True)
        confine(policy, require=level, temp_root=temp_root)
    from arena.sandbox import confinement

    # The one folder a confined process may write (bounded, private); wherever it is, without a sandbox.
    temp = tempfile.mkdtemp(prefix="build-", dir=confinement.current.temp_root if confinement.current else temp_root)
    source = os.path.join(temp, "src")
    _copy_tree(folder, Path(source))
    path = SYSTEM_PATH if tool_path is None else os.pathsep.join([os.path.dirname(tool_path), SYSTEM_PATH])
    env = {"PATH": path, "HOME": temp, "TMPDIR": temp, "LANG": "C.UTF-8", "RUSTUP_HOME": rustup_home,
           "CARGO_HOME": os.path.join(temp, ".cargo"), "CARGO_NET_OFFLINE": "true"}
    if confinement.current is not None and confinement.current.namespaces:
        status = _run_contained(list(manifest.build), source, env, manifest.build_seconds)
    else:
        status = _run_grouped(list(manifest.build), source, env, manifest.build_seconds)
    if status == _CANNOT_RUN:
        return 1
    if status is None:
        print(f"{OWN_PREFIX}it took longer than build_seconds = {manifest.build_seconds:g}",
              file=sys.stderr)
        return 1
    if status != 0:  # its own error is on standard error, which the referee quotes
        return 1
    with tarfile.open(fileobj=sys.stdout.buffer, mode="w|") as archive:
        archive.add(source, arcname="src", filter=_executable_bits(temp))
    return 0


_CANNOT_RUN = -1000
"""The status of a build command that could not be started at all (its error is already on standard error)."""


def _start(argv: list[str], cwd: str, env: dict[str, str]) -> subprocess.Popen[bytes] | None:
    """Start the build command (its output on our standard error), its files bounded like its output."""

    def bounded() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (OUTPUT_BYTES_MAX, OUTPUT_BYTES_MAX))

    try:
        return subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=sys.stderr,
                                stderr=sys.stderr, start_new_session=True, preexec_fn=bounded)
    except OSError as error:
        print(f"{OWN_PREFIX}cannot run {argv[0]!r}: {error.strerror}", file=sys.stderr)
        return None


def _run_contained(argv: list[str], cwd: str, env: dict[str, str], seconds: float) -> int | None:
    """Run the build command beneath the init of a PID namespace of its own; its exit status, ``None`` past
    ``seconds``.  Whatever it leaves running (a daemon, a ``setsid`` double fork) dies with that init: the
    kernel kills every process of a namespace whose init ends, and the init ends with the build command, when
    this process kills it, or when this process dies (``PR_SET_PDEATHSIG``)."""
    from arena.sandbox import kernel

    sys.stderr.flush()
    init = kernel.clone(kernel.CLONE_NEWPID)
    if init == 0:
        code = 1
        try:
            kernel.prctl(kernel.PR_SET_PDEATHSIG, signal.SIGKILL)
            process = _start(argv, cwd, env)
            if process is None:
                os._exit(2)
            # Bounded here too: a parent that died before the line above sent no death signal.
            code = 3 if process.wait(timeout=seconds + 1) else 0
        except subprocess.TimeoutExpired:
            code = 4
        finally:
            os._exit(code)
    deadline = time.monotonic() + seconds
    handle = os.pidfd_open(init)  # readable once the init has ended: a wait with a timeout, no polling
    try:
        while True:
            pid, status = os.waitpid(init, os.WNOHANG)
            if pid:
                code = os.waitstatus_to_exitcode(status)
                return _CANNOT_RUN if code == 2 else code
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                os.kill(init, signal.SIGKILL)
                os.waitpid(init, 0)
                return None
            select.select([handle], [], [], remaining)
    finally:
        os.close(handle)


def _run_grouped(argv: list[str], cwd: str, env: dict[str, str], seconds: float) -> int | None:
    """Without namespaces: run the build command in a process group of its own, killed when it ends (what
    leaves the group, ``setsid``, is not; docs/security.md)."""
    process = _start(argv, cwd, env)
    if process is None:
        return _CANNOT_RUN
    try:
        status: int | None = process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        status = None
    try:
        os.killpg(process.pid, signal.SIGKILL)  # whatever the build left running in its group, too
    except OSError:
        pass
    if status is None:
        process.wait()
    return status


def _executable_bits(temp: str) -> Callable[[tarfile.TarInfo], tarfile.TarInfo]:
    """A tar filter marking programs executable: the sandbox refuses the ``chmod`` a linker makes, so a freshly
    linked binary (ELF) or a script (``#!``) would otherwise come out without its executable bit."""

    def mark(member: tarfile.TarInfo) -> tarfile.TarInfo:
        if member.isfile():
            with open(os.path.join(temp, member.name), "rb") as handle:
                head = handle.read(4)
            if head == b"\x7fELF" or head.startswith(b"#!"):
                member.mode |= 0o111
        return member

    return mark


def _copy_tree(folder: Path, target: Path) -> None:
    """Copy contents, links and executable bits only: the sandbox refuses calls that set other file metadata
    (``shutil.copytree`` copies times and modes)."""
    target.mkdir()
    for item in sorted(folder.iterdir()):
        copy = target / item.name
        if item.is_symlink():
            os.symlink(os.readlink(item), copy)
        elif item.is_dir():
            _copy_tree(item, copy)
        elif item.is_file():
            # The mode is given as the copy is made: the sandbox refuses chmod (a program folder holding an
            # executable configure script could not be built).
            mode = 0o755 if os.access(item, os.X_OK) else 0o644
            with open(item, "rb") as original, open(os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode),
                                                    "wb") as made:
                shutil.copyfileobj(original, made)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the build process: ``python -m arena.program.build FOLDER``."""
    parser = argparse.ArgumentParser(prog="python -m arena.program.build",
                                     description="Build one agent program, confined; the result as tar on stdout.")
    parser.add_argument("--lease", default="", help="the caller's lease token (marks this process as its own)")
    parser.add_argument("--groups", default="", help="the cgroups to run in (os.pathsep-separated folders)")
    parser.add_argument("--temp", required=True, help="the folder the build may write beneath (the caller's)")
    parser.add_argument("folder", help="the program's folder (holding arena-agent.toml)")
    args = parser.parse_args(argv)
    try:
        return _run_build(Path(args.folder).resolve(), [group for group in args.groups.split(os.pathsep) if group],
                          args.temp)
    except (ManifestError, OSError) as error:
        print(f"{OWN_PREFIX}cannot build: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
