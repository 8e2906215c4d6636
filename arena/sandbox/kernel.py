"""Thin ctypes wrappers over the Linux system calls the sandbox needs and Python does not expose.

Namespaces (``unshare``, a raw ``clone`` with namespace flags), ``prctl``,
``mount`` and ``mount_setattr``, capabilities (``capset``) and Landlock (``landlock_create_ruleset``,
``landlock_add_rule``, ``landlock_restrict_self``).  Each raises ``OSError``
with the kernel's errno on failure.  Nothing here decides policy.
"""

from __future__ import annotations

import ctypes
import os
import platform
import signal
import struct
from collections.abc import Iterable

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_NAME = 15
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
PR_SET_CHILD_SUBREAPER = 36

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_NOSYMFOLLOW = 256
MS_NOATIME = 1024
MS_NODIRATIME = 2048
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MS_RELATIME = 1 << 21
MS_STRICTATIME = 1 << 24

AT_FDCWD = -100
AT_RECURSIVE = 0x8000
MOUNT_ATTR_RDONLY = 0x1

_SYSCALLS = {  # (clone, capset, landlock_create_ruleset, landlock_add_rule, landlock_restrict_self, mount_setattr)
    "x86_64": (56, 126, 444, 445, 446, 442),
    "aarch64": (220, 91, 444, 445, 446, 442),
}
"""System call numbers per machine; Landlock's and mount_setattr's are the same everywhere (the generic table)."""

_NUMBERS = _SYSCALLS.get(platform.machine())

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def supported() -> bool:
    """Whether this is a Linux machine whose system call numbers we know."""
    return _NUMBERS is not None and platform.system() == "Linux"


def _check(result: int) -> int:
    if result < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))
    return result


def _syscall(index: int, *args: object) -> int:
    if _NUMBERS is None:
        raise OSError(38, f"system calls unknown on {platform.machine()}")
    return _check(_libc.syscall(ctypes.c_long(_NUMBERS[index]), *args))


def unshare(flags: int) -> None:
    """Move the calling process into new namespaces (``unshare(2)``)."""
    _check(_libc.unshare(ctypes.c_int(flags)))


def prctl(option: int, arg: int = 0, arg3: int = 0) -> None:
    """``prctl(option, arg, arg3, 0, 0)`` (``arg3`` may be an address, such as a seccomp filter's)."""
    _check(_libc.prctl(ctypes.c_int(option), ctypes.c_ulong(arg), ctypes.c_ulong(arg3), ctypes.c_ulong(0),
                       ctypes.c_ulong(0)))


def set_name(name: str) -> None:
    """Set the calling thread's name (``/proc/PID/comm``, at most 15 bytes)."""
    buffer = ctypes.create_string_buffer(name.encode()[:15])
    _check(_libc.prctl(ctypes.c_int(PR_SET_NAME), buffer, ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0)))


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    """``mount(2)``."""
    def arg(text: str | None) -> bytes | None:
        return None if text is None else os.fsencode(text)

    _check(_libc.mount(arg(source), arg(target), arg(fstype), ctypes.c_ulong(flags), arg(data)))


def mount_setattr(path: str, *, set_flags: int = 0, clear_flags: int = 0, recursive: bool = False) -> None:
    """``mount_setattr(2)`` (Linux 5.12): set and clear ``MOUNT_ATTR_*`` flags of the mount at ``path``, and
    with ``recursive`` of every mount beneath it too (all of them or, on error, none)."""
    attr = struct.pack("QQQQ", set_flags, clear_flags, 0, 0)  # struct mount_attr, version 0
    _syscall(5, ctypes.c_int(AT_FDCWD), os.fsencode(path), ctypes.c_uint(AT_RECURSIVE if recursive else 0),
             ctypes.c_char_p(attr), ctypes.c_size_t(len(attr)))


def clone(flags: int) -> int:
    """Fork into new namespaces (``clone(2)`` without a new stack): like ``os.fork``, 0 in the child.

    Python's own fork hooks run around it (``PyOS_BeforeFork`` and the two
    ``PyOS_AfterFork_*``), so the child's interpreter state is as after
    ``os.fork``.  With ``CLONE_NEWPID`` the child is process 1 of a new PID
    namespace, and the parent gets its pid as the parent sees it.
    """
    flags |= signal.SIGCHLD
    python = ctypes.pythonapi
    python.PyOS_BeforeFork()
    if platform.machine() == "aarch64":  # clone(flags, stack, parent_tid, tls, child_tid)
        pid = _libc.syscall(ctypes.c_long(_NUMBERS[0] if _NUMBERS else -1), ctypes.c_ulong(flags), None, None, None,
                            None)
    else:  # clone(flags, stack, parent_tid, child_tid, tls)
        pid = _libc.syscall(ctypes.c_long(_NUMBERS[0] if _NUMBERS else -1), ctypes.c_ulong(flags), None, None,
                            None, ctypes.c_ulong(0))
    if pid == 0:
        python.PyOS_AfterFork_Child()
        return 0
    errno = ctypes.get_errno()
    python.PyOS_AfterFork_Parent()
    if pid < 0:
        raise OSError(errno, os.strerror(errno))
    return int(pid)


CAP_SETPCAP = 8
CAP_SYS_ADMIN = 21


def keep_capabilities(*kept: int) -> None:
    """Keep only the capabilities ``kept`` (effective and permitted; none inheritable); the rest are gone for good."""
    mask = sum(1 << cap for cap in kept)
    low, high = mask & 0xFFFFFFFF, mask >> 32
    header = struct.pack("Ii", 0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = struct.pack("6I", low, low, 0, high, high, 0)  # {effective, permitted, inheritable} x 2 words
    _syscall(1, ctypes.c_char_p(header), ctypes.c_char_p(data))


def drop_capabilities() -> None:
    """Give up every capability: the bounding set (needs CAP_SETPCAP), then the others."""
    cap = 0
    while True:
        if _libc.prctl(ctypes.c_int(PR_CAPBSET_DROP), ctypes.c_ulong(cap), ctypes.c_ulong(0), ctypes.c_ulong(0),
                       ctypes.c_ulong(0)) < 0:
            break  # EINVAL past the last capability this kernel knows (or EPERM without CAP_SETPCAP)
        cap += 1
    keep_capabilities()


# Landlock (include/uapi/linux/landlock.h).
ACCESS_FS_EXECUTE = 1 << 0
ACCESS_FS_WRITE_FILE = 1 << 1
ACCESS_FS_READ_FILE = 1 << 2
ACCESS_FS_READ_DIR = 1 << 3
ACCESS_FS_REMOVE_DIR = 1 << 4
ACCESS_FS_REMOVE_FILE = 1 << 5
ACCESS_FS_MAKE_CHAR = 1 << 6
ACCESS_FS_MAKE_DIR = 1 << 7
ACCESS_FS_MAKE_REG = 1 << 8
ACCESS_FS_MAKE_SOCK = 1 << 9
ACCESS_FS_MAKE_FIFO = 1 << 10
ACCESS_FS_MAKE_BLOCK = 1 << 11
ACCESS_FS_MAKE_SYM = 1 << 12
ACCESS_FS_REFER = 1 << 13  # ABI 2
ACCESS_FS_TRUNCATE = 1 << 14  # ABI 3
ACCESS_FS_IOCTL_DEV = 1 << 15  # ABI 5
ACCESS_NET_BIND_TCP = 1 << 0  # ABI 4
ACCESS_NET_CONNECT_TCP = 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1  # ABI 6

FILE_ACCESS = ACCESS_FS_EXECUTE | ACCESS_FS_WRITE_FILE | ACCESS_FS_READ_FILE | ACCESS_FS_TRUNCATE | ACCESS_FS_IOCTL_DEV
"""The rights that apply to a file (a rule on a file may grant only these)."""


def landlock_abi() -> int:
    """The Landlock ABI version the kernel offers (0: none, or disabled at boot)."""
    if not supported():
        return 0
    try:
        return _syscall(2, None, ctypes.c_size_t(0), ctypes.c_uint32(1))  # LANDLOCK_CREATE_RULESET_VERSION
    except OSError:
        return 0


def fs_access(abi: int) -> int:
    """Every file-system right the kernel's Landlock ABI ``abi`` knows (all of them are then handled)."""
    access = (1 << 13) - 1
    if abi >= 2:
        access |= ACCESS_FS_REFER
    if abi >= 3:
        access |= ACCESS_FS_TRUNCATE
    if abi >= 5:
        access |= ACCESS_FS_IOCTL_DEV
    return access


def landlock_restrict(abi: int, rules: Iterable[tuple[int, int]]) -> None:
    """Restrict the calling thread to ``rules`` (pairs of an open fd and the rights granted beneath it).

    Every file-system right the ABI knows is handled (so anything not granted
    is denied); from ABI 4 TCP bind and connect are handled and never granted;
    from ABI 6 abstract unix sockets and signals are scoped to this domain.
    Needs ``no_new_privs`` (or ``CAP_SYS_ADMIN``).  Nested calls add a domain.
    """
    handled_fs = fs_access(abi)
    net = ACCESS_NET_BIND_TCP | ACCESS_NET_CONNECT_TCP if abi >= 4 else 0
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0
    if abi >= 6:
        attr = struct.pack("QQQ", handled_fs, net, scoped)
    elif abi >= 4:
        attr = struct.pack("QQ", handled_fs, net)
    else:
        attr = struct.pack("Q", handled_fs)
    ruleset = _syscall(2, ctypes.c_char_p(attr), ctypes.c_size_t(len(attr)), ctypes.c_uint32(0))
    try:
        for fd, access in rules:
            rule = struct.pack("=Qi", access & handled_fs, fd)  # landlock_path_beneath_attr is packed
            _syscall(3, ctypes.c_int(ruleset), ctypes.c_int(1), ctypes.c_char_p(rule), ctypes.c_uint32(0))
        _syscall(4, ctypes.c_int(ruleset), ctypes.c_uint32(0))
    finally:
        os.close(ruleset)
