"""``confine``: lock the calling process (a per-plugin zygote, a discovery child) into the sandbox for good."""

from __future__ import annotations

import os
import resource
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from arena.sandbox import kernel, mounts, process, seccomp
from arena.sandbox.capabilities import SandboxError, probe, require_level
from arena.sandbox.policy import Policy
from arena.sandbox.removal import remove_tree

READ = kernel.ACCESS_FS_READ_FILE | kernel.ACCESS_FS_READ_DIR | kernel.ACCESS_FS_EXECUTE
"""Rights on a readable folder (a file gets the file rights among them)."""

WRITE = (kernel.ACCESS_FS_READ_FILE | kernel.ACCESS_FS_READ_DIR | kernel.ACCESS_FS_WRITE_FILE
         | kernel.ACCESS_FS_TRUNCATE | kernel.ACCESS_FS_REMOVE_DIR | kernel.ACCESS_FS_REMOVE_FILE
         | kernel.ACCESS_FS_MAKE_DIR | kernel.ACCESS_FS_MAKE_REG | kernel.ACCESS_FS_MAKE_SYM | kernel.ACCESS_FS_REFER)
"""Rights in a private temporary folder: everything but sockets, FIFOs and device nodes (no rendezvous points)."""

DEVICES = {"/dev/null": kernel.ACCESS_FS_READ_FILE | kernel.ACCESS_FS_WRITE_FILE,
           "/dev/zero": kernel.ACCESS_FS_READ_FILE, "/dev/urandom": kernel.ACCESS_FS_READ_FILE,
           "/dev/random": kernel.ACCESS_FS_READ_FILE,
           **{f"/sys/devices/system/cpu/{name}": kernel.ACCESS_FS_READ_FILE
              for name in ("online", "possible", "present")}}
"""What the interpreter and common libraries read besides code (``os.cpu_count`` reads the cpus online).  Only
those three files of the cpu folder: the rest holds host-wide counters another seat moves (cpuidle's)."""

HIDDEN = ("/tmp", "/var/tmp", "/run", "/dev/shm")
"""Shared folders where other programs keep unix sockets and files (Ray's under /tmp/ray, D-Bus's under /run):
Landlock cannot stop a connect to a socket in the file system, so the sandbox sees an empty file system
there instead, with only its own read paths and temp_root bound back at the same paths."""

NAMESPACES = kernel.CLONE_NEWUSER | kernel.CLONE_NEWNS | kernel.CLONE_NEWNET | kernel.CLONE_NEWIPC | kernel.CLONE_NEWUTS
"""The namespaces ``confine`` moves the process into (a PID namespace is per seat: see ``spawn_seat``)."""


@dataclass(slots=True)
class Confinement:
    """What ``confine`` did to this process (one per process; ``spawn_seat`` reads it)."""

    level: str  # the level achieved
    landlock_abi: int  # the Landlock ABI used (0: none)
    namespaces: bool  # whether the process is in its own user, mount, network, IPC and UTS namespaces
    temp_root: str  # the folder seats' temporary folders are made in
    read_only: bool = False  # whether every mount it sees but temp_root's is read-only (no access times move)


current: Confinement | None = None
"""This process's confinement, once ``confine`` has run."""


@contextmanager
def opened(paths: Iterable[str]) -> Iterator[list[tuple[str, int]]]:
    """``O_PATH`` descriptors of the paths that exist and can be reached (others are skipped), closed after."""
    fds: list[tuple[str, int]] = []
    try:
        for path in dict.fromkeys(paths):
            try:
                fds.append((path, os.open(path, os.O_PATH | os.O_CLOEXEC)))
            except OSError:
                continue
        yield fds
    finally:
        for _path, fd in fds:
            os.close(fd)


def rules(fds: list[tuple[str, int]], access: int) -> list[tuple[int, int]]:
    """Landlock rules granting ``access`` beneath each folder (only the file rights on a file)."""
    granted = []
    for path, fd in fds:
        is_dir = os.path.isdir(path)
        granted.append((fd, access if is_dir else access & kernel.FILE_ACCESS))
    return granted


def single_threaded() -> bool:
    """Whether the calling process has one thread (namespaces and Landlock apply per thread)."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return True  # no /proc to ask: the caller's promise stands


def confine(policy: Policy, *, require: str = "partial", temp_root: str | None = None) -> str:
    """Confine the calling process for the rest of its life; return the level achieved.

    Call it in a fresh, single-threaded process before any untrusted import.
    It moves the process into new user (uid 0 inside, mapped to the caller's
    own uid), mount, network, IPC and UTS namespaces; sets ``no_new_privs``;
    and applies Landlock: read and execute only ``policy.read_paths`` plus
    /dev/null, /dev/urandom and the like; write only beneath ``temp_root``
    (when not given, a fresh folder that a janitor process, forked before any
    confinement, removes when this process ends; a host that passes its own
    removes it itself), where ``spawn_seat`` makes each
    seat's folder; no TCP bind or connect (ABI >= 4); signals and abstract
    unix sockets scoped to the sandbox (ABI >= 6); none of the calls
    ``seccomp`` denies (file metadata, keyrings, locks, the page cache, free
    space, netlink).  Descriptors already open
    (a socket to the referee) keep working.  ``SandboxError`` (before changing
    anything) when this machine's level is below ``require``.
    """
    global current
    capabilities = probe()  # before the namespaces: it forks and tries them
    level = capabilities.level
    require_level(level, require, capabilities)
    if current is not None:
        raise SandboxError("this process is already confined; confine a fresh process")
    if not single_threaded():
        raise SandboxError("confine needs a single-threaded process (namespaces and Landlock apply per thread); "
                           "call it before starting threads")
    if temp_root is None:
        temp_root = tempfile.mkdtemp(prefix=f"arena-sandbox-{os.getpid()}-")
        _remove_when_gone(temp_root)
    elif not os.path.isdir(temp_root) or os.path.islink(temp_root):
        raise SandboxError(f"sandbox temporary folder {temp_root} is not a folder")
    temp_root = os.path.realpath(temp_root)
    namespaces = capabilities.namespaces
    read_only = False
    with opened(policy.read_paths) as readable, opened(DEVICES) as devices, opened([temp_root]) as host_temp, \
            opened(["/proc/self"]) as own_proc:
        granted = rules(readable, READ) + rules(own_proc, READ & ~kernel.ACCESS_FS_EXECUTE)
        granted += [(fd, DEVICES[path]) for path, fd in devices]
        if namespaces:
            _enter_namespaces()
            _hide_shared_folders([path for path, _fd in readable + host_temp])
            # Every other mount read-only: no read moves a file's access time, a channel between seats and a
            # memory across matches (mounts.py).  Before Landlock and seccomp, and after the last mount but
            # the writable folder's own.
            read_only = _bounded_temp(temp_root, policy.memory_mb) and mounts.read_only_except(temp_root)
            # Only what spawn_seat needs (new PID and IPC namespaces; seats dropping theirs).  Without
            # CAP_NET_ADMIN nobody can bring up this namespace's loopback, so seats have no network at all.
            kernel.keep_capabilities(kernel.CAP_SYS_ADMIN, kernel.CAP_SETPCAP)
        kernel.prctl(kernel.PR_SET_NO_NEW_PRIVS, 1)
        with opened([temp_root]) as writable:  # opened now: the rule must name the bounded folder, if mounted
            if capabilities.landlock_abi:
                own = WRITE | (kernel.ACCESS_FS_EXECUTE if policy.run_own_files else 0)
                kernel.landlock_restrict(capabilities.landlock_abi, granted + rules(writable, own))
        if seccomp.supported():
            seccomp.deny_side_channels()  # what Landlock leaves open: metadata, keyrings, locks
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core files with a seat's memory in them
    current = Confinement(level=level, landlock_abi=capabilities.landlock_abi, namespaces=namespaces,
                          temp_root=temp_root, read_only=read_only)
    return level


def _remove_when_gone(folder: str) -> None:
    """Fork a janitor that removes ``folder`` once this process has ended.

    It waits for end of file on a pipe whose write end only this process
    keeps (a seat closes it with every other fd).  Double-forked, in its own
    session, holding no other fd: never a child to wait for, never keeping a
    socket or pipe of the caller open.
    """
    read, write = os.pipe()
    middle = os.fork()
    if middle == 0:
        try:
            if os.fork() == 0:
                try:
                    os.setsid()
                    devnull = os.open(os.devnull, os.O_RDWR)
                    for target in (0, 1, 2):
                        os.dup2(devnull, target)
                    os.closerange(3, read)
                    os.closerange(read + 1, process.max_fd())
                    while os.read(read, 1):
                        pass
                    remove_tree(folder)
                finally:
                    os._exit(0)
        finally:
            os._exit(0)
    os.close(read)
    os.waitpid(middle, 0)
    _janitor_pipes.append(write)


_janitor_pipes: list[int] = []
"""Write ends held for the life of this process (their closing at exit wakes the janitor)."""


def _hide_shared_folders(keep: list[str]) -> None:
    """Mount an empty tmpfs over each of ``HIDDEN`` (in our own mount namespace), then bind each path of
    ``keep`` under one of them back at the same path."""
    for folder in HIDDEN:
        if os.path.islink(folder) or not os.path.isdir(folder):
            continue
        # Opened in this mount namespace, before the tmpfs covers them: the sources of the binds.
        with opened(path for path in keep if _beneath(folder, path)) as inside:
            try:
                kernel.mount("tmpfs", folder, "tmpfs", kernel.MS_NOSUID | kernel.MS_NODEV | kernel.MS_NOEXEC,
                             "size=64k,mode=755")
            except OSError:
                continue  # left visible: Landlock still stops reading and writing there
            for path, fd in inside:
                if stat.S_ISDIR(os.fstat(fd).st_mode):
                    os.makedirs(path, exist_ok=True)
                else:
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o644))
                kernel.mount(f"/proc/self/fd/{fd}", path, None, kernel.MS_BIND | kernel.MS_REC)


TEMP_MB = 1024
"""Size of the memory-backed folder that replaces ``temp_root`` in the sandbox for a confining policy without a
memory bound; with one (a zygote's: 2 GiB), that bound, shared by the seats it forks (each seat's files count
against its own group's memory where cgroups bound it)."""


def _bounded_temp(temp_root: str, memory_mb: int | None) -> bool:
    """Mount a size-bounded tmpfs over ``temp_root`` in our own mount namespace: seats write there, never to
    the host's disk (a seat could otherwise fill it: a 2 GiB file takes a few milliseconds to allocate).

    The host's folder stays empty; everything written is gone with this namespace.  Where the tmpfs is
    refused, the host's folder is bound onto itself instead (Landlock still confines writes to it).  Whether
    ``temp_root`` is now a mount of its own, the one left writable when the others are made read-only.
    """
    size_mb = memory_mb or TEMP_MB
    try:
        kernel.mount("tmpfs", temp_root, "tmpfs", kernel.MS_NOSUID | kernel.MS_NODEV,
                     f"size={size_mb}m,nr_inodes=65536,mode=700")
        return True
    except OSError:
        pass
    try:
        kernel.mount(temp_root, temp_root, None, kernel.MS_BIND)
        return True
    except OSError:
        return False


def _beneath(folder: str, path: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _enter_namespaces() -> None:
    """New user namespace (uid and gid 0 inside mapped to ours), mount, network, IPC and UTS namespaces."""
    uid, gid = os.geteuid(), os.getegid()
    kernel.prctl(kernel.PR_SET_DUMPABLE, 1)  # a process that changed user is not, and could not write its maps
    kernel.unshare(NAMESPACES)
    with open("/proc/self/setgroups", "w") as file:
        file.write("deny")
    with open("/proc/self/uid_map", "w") as file:
        file.write(f"0 {uid} 1")
    with open("/proc/self/gid_map", "w") as file:
        file.write(f"0 {gid} 1")
    kernel.mount(None, "/", None, kernel.MS_REC | kernel.MS_PRIVATE)  # nothing we mount reaches the host
