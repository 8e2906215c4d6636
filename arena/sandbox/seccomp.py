"""``deny_side_channels``: a seccomp filter that makes the system calls a seat has no use for fail with EPERM.

Landlock decides which files a seat may read and write, but not who may change a file's
metadata: with only its read rights a seat could still chmod, chown, touch or set an extended
attribute on any file its user owns (its own plugin file, a rival's, the results store), and
remember what it saw from one match to the next in an attribute, or pass it to a colluding seat
in the same match.  The kernel keyrings are another store shared by every seat of a zygote, and
file locks on a readable file a channel between seats.  This filter closes them:

* changing metadata: chmod, chown, utime and the extended-attribute setters (every variant);
* the kernel keyrings: add_key, request_key, keyctl;
* locks: flock, and fcntl's lock commands (a seat cannot lock or test a lock on any file);
* io_uring (its operations would not pass through this filter), perf_event_open, bpf, userfaultfd.

A call from another instruction set (32-bit calls on x86-64) kills the process, and an x32 call
fails: the numbers below would not mean the same calls there.  Inherited by every process the
filtered one starts, and never removable.
"""

from __future__ import annotations

import ctypes
import errno
import platform
import struct

from arena.sandbox import kernel

PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2

_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_RET_KILL_PROCESS = 0x80000000
_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE_K = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_RET_K = 0x06  # BPF_RET | BPF_K
_NR, _ARCH, _ARG1 = 0, 4, 24  # offsets in struct seccomp_data (the low half of args[1] on little-endian)

X32_BIT = 0x40000000
"""x86-64 system call numbers with this bit set are the x32 ABI's."""

LOCK_COMMANDS = (5, 6, 7, 36, 37, 38)
"""fcntl commands that take or test a lock: F_GETLK, F_SETLK, F_SETLKW and their open-file-description twins."""

_TABLES: dict[str, tuple[int, dict[str, int]]] = {
    "x86_64": (0xC000003E, {
        "chmod": 90, "fchmod": 91, "fchmodat": 268, "fchmodat2": 452,
        "chown": 92, "fchown": 93, "lchown": 94, "fchownat": 260,
        "utime": 132, "utimes": 235, "futimesat": 261, "utimensat": 280,
        "setxattr": 188, "lsetxattr": 189, "fsetxattr": 190, "setxattrat": 463,
        "removexattr": 197, "lremovexattr": 198, "fremovexattr": 199, "removexattrat": 466,
        "add_key": 248, "request_key": 249, "keyctl": 250,
        "flock": 73,
        "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "perf_event_open": 298, "bpf": 321, "userfaultfd": 323,
    }),
    "aarch64": (0xC00000B7, {
        "fchmod": 52, "fchmodat": 53, "fchmodat2": 452,
        "fchown": 55, "fchownat": 54,
        "utimensat": 88,
        "setxattr": 5, "lsetxattr": 6, "fsetxattr": 7, "setxattrat": 463,
        "removexattr": 14, "lremovexattr": 15, "fremovexattr": 16, "removexattrat": 466,
        "add_key": 217, "request_key": 218, "keyctl": 219,
        "flock": 32,
        "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "perf_event_open": 241, "bpf": 280, "userfaultfd": 282,
    }),
}
"""Per machine: its audit architecture and the numbers of the calls denied outright (the legacy calls that
aarch64 never had are simply absent)."""

_FCNTL = {"x86_64": 72, "aarch64": 25}
"""fcntl's number per machine (denied only for ``LOCK_COMMANDS``)."""


def supported() -> bool:
    """Whether this machine's system call numbers are known here."""
    return kernel.supported() and platform.machine() in _TABLES


def program(machine: str) -> list[tuple[int, int, int, int]]:
    """The filter as (code, jump if true, jump if false, constant) instructions for ``machine``."""
    arch, numbers = _TABLES[machine]
    denied = sorted(set(numbers.values()))
    checks: list[tuple[int, int]] = [(_JEQ_K, number) for number in denied]  # each: jump to DENY when equal
    if machine == "x86_64":
        checks.insert(0, (_JGE_K, X32_BIT))
    # Layout: arch check, load nr, the checks, the fcntl test, ALLOW, DENY, KILL.
    body: list[tuple[int, int, int, int]] = []
    fcntl_block = 2 + len(LOCK_COMMANDS)  # JEQ fcntl, LD arg1, one JEQ per command
    after_checks = len(checks) + fcntl_block  # instructions between the first check and ALLOW
    for index, (code, constant) in enumerate(checks):
        to_deny = after_checks - index  # skip the rest of the checks, the fcntl block and ALLOW
        body.append((code, to_deny, 0, constant))
    body.append((_JEQ_K, 0, 1 + len(LOCK_COMMANDS), _FCNTL[machine]))  # not fcntl: on to ALLOW
    body.append((_LD_W_ABS, 0, 0, _ARG1))
    for index, command in enumerate(LOCK_COMMANDS):
        body.append((_JEQ_K, len(LOCK_COMMANDS) - index, 0, command))  # to DENY
    head = [(_LD_W_ABS, 0, 0, _ARCH), (_JEQ_K, 1, 0, arch), (_RET_K, 0, 0, _RET_KILL_PROCESS),
            (_LD_W_ABS, 0, 0, _NR)]
    return [*head, *body, (_RET_K, 0, 0, _RET_ALLOW), (_RET_K, 0, 0, _RET_ERRNO | errno.EPERM)]


def deny_side_channels() -> None:
    """Install the filter on the calling thread and everything it starts; needs ``no_new_privs`` set first."""
    machine = platform.machine()
    instructions = program(machine)
    packed = b"".join(struct.pack("=HBBI", *instruction) for instruction in instructions)
    buffer = ctypes.create_string_buffer(packed, len(packed))

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    prog = Program(len(instructions), ctypes.cast(buffer, ctypes.c_void_p))
    kernel.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(prog))
