"""``deny_side_channels``: a seccomp filter that makes the system calls a seat has no use for fail.

Landlock decides which files a seat may read and write, but not who may change a file's
metadata: with only its read rights a seat could still chmod, chown, touch or set an extended
attribute on any file its user owns (its own plugin file, a rival's, the results store), and
remember what it saw from one match to the next in an attribute, or pass it to a colluding seat
in the same match.  The kernel keyrings are another store shared by every seat of a zygote, and
file locks on a readable file a channel between seats.  This filter closes them:

* changing metadata: chmod, chown, utime and the extended-attribute setters (every variant);
* the same through other doors: file_setattr, and the ioctl requests that set an inode's flags or version;
* watching others use a file: inotify, fanotify, fcntl's F_NOTIFY and F_SETLEASE;
* the kernel keyrings: add_key, request_key, keyctl;
* locks: flock, and fcntl's lock commands (a seat cannot lock or test a lock on any file; these fail with
  ENOSYS, as on a file system without locks);
* io_uring (its operations would not pass through this filter), perf_event_open, bpf, userfaultfd;
* the page cache as a store: mincore, cachestat and preadv2/pwritev2 (whose RWF_NOWAIT says whether a
  page is cached) read which pages of a readable file are in memory, and fadvise, readahead and madvise's
  MADV_COLD and MADV_PAGEOUT (or process_madvise's) evict or load them, as does asynchronous I/O (io_setup,
  whose reads take RWF_NOWAIT too), so with read rights alone a seat could keep the hands of
  one rotation of a duplicate block for the next, or pass a hand to a colluding seat, in the cache state
  of any library file (these fail with ENOSYS, as on a kernel without them: glibc's preadv2 then falls back
  to preadv; madvise's two with EPERM);
* a file system's free space and files (statfs, fstatfs, ustat): the seats of one plugin share their zygote's
  memory-backed temporary folder, whose free blocks and files any of them can move and all of them could read
  (ENOSYS: ``os.statvfs`` and ``shutil.disk_usage`` raise);
* moving to other cores (sched_setaffinity): the referee pins a match's seats on the core the match reserved
  (``arena.referee.affinity``), and a seat that moved itself onto another match's core would halve the CPU of
  the seat thinking there, pinned, which could run out of its time (the referee pins from outside: its own
  calls are not filtered);
* netlink sockets, whose NETLINK_USERSOCK family joins seats of one plugin with no capability and outside
  Landlock's scoping (``socket(AF_NETLINK, ...)`` fails with EAFNOSUPPORT: no address family to use).

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
_NR, _ARCH = 0, 4  # offsets in struct seccomp_data
_ARG0, _ARG1, _ARG2 = 16, 24, 32  # the low halves of args[0..2] on little-endian

X32_BIT = 0x40000000
"""x86-64 system call numbers with this bit set are the x32 ABI's."""

LOCK_COMMANDS = (5, 6, 7, 36, 37, 38)
"""fcntl commands that take or test a lock: F_GETLK, F_SETLK, F_SETLKW and their open-file-description twins."""

NOTICE_COMMANDS = (1024, 1026)
"""fcntl commands that watch a file for others' use of it: F_SETLEASE and F_NOTIFY."""

SETATTR_REQUESTS = (0x40086602, 0x40046602, 0x40087602, 0x40047602, 0x401C5820)
"""ioctl requests that write an inode's flags or version into a file any reader may open (Landlock does not
check them): FS_IOC_SETFLAGS and FS_IOC_SETVERSION (64- and 32-bit forms) and FS_IOC_FSSETXATTR."""

_TABLES: dict[str, tuple[int, dict[str, int]]] = {
    "x86_64": (0xC000003E, {
        "chmod": 90, "fchmod": 91, "fchmodat": 268, "fchmodat2": 452,
        "chown": 92, "fchown": 93, "lchown": 94, "fchownat": 260,
        "utime": 132, "utimes": 235, "futimesat": 261, "utimensat": 280,
        "setxattr": 188, "lsetxattr": 189, "fsetxattr": 190, "setxattrat": 463,
        "removexattr": 197, "lremovexattr": 198, "fremovexattr": 199, "removexattrat": 466,
        "file_setattr": 469,
        "inotify_init": 253, "inotify_add_watch": 254, "inotify_init1": 294, "fanotify_init": 300,
        "fanotify_mark": 301,
        "add_key": 248, "request_key": 249, "keyctl": 250,
        "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "perf_event_open": 298, "bpf": 321, "userfaultfd": 323,
        "sched_setaffinity": 203,
    }),
    "aarch64": (0xC00000B7, {
        "fchmod": 52, "fchmodat": 53, "fchmodat2": 452,
        "fchown": 55, "fchownat": 54,
        "utimensat": 88,
        "setxattr": 5, "lsetxattr": 6, "fsetxattr": 7, "setxattrat": 463,
        "removexattr": 14, "lremovexattr": 15, "fremovexattr": 16, "removexattrat": 466,
        "file_setattr": 469,
        "inotify_init1": 26, "inotify_add_watch": 27, "fanotify_init": 262, "fanotify_mark": 263,
        "add_key": 217, "request_key": 218, "keyctl": 219,
        "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "perf_event_open": 241, "bpf": 280, "userfaultfd": 282,
        "sched_setaffinity": 122,
    }),
}
"""Per machine: its audit architecture and the numbers of the calls denied outright with EPERM (the legacy
calls that aarch64 never had are simply absent)."""

_NOSYS: dict[str, dict[str, int]] = {
    "x86_64": {"flock": 73, "mincore": 27, "cachestat": 451, "fadvise64": 221, "readahead": 187,
               "preadv2": 327, "pwritev2": 328, "process_madvise": 440, "io_setup": 206,
               "statfs": 137, "fstatfs": 138, "ustat": 136},
    "aarch64": {"flock": 32, "mincore": 232, "cachestat": 451, "fadvise64": 223, "readahead": 213,
                "preadv2": 286, "pwritev2": 287, "process_madvise": 440, "io_setup": 0,
                "statfs": 43, "fstatfs": 44},
}
"""Per machine: the calls denied with ENOSYS.  flock's ENOSYS is what lock libraries take as "no locking here"
and give up at once (with EPERM some retry until the move's time runs out); the page-cache calls' is what
a kernel without them says, which every library that uses them as a hint handles."""

PAGE_OUT_ADVICE = (20, 21)
"""madvise advice that evicts pages, of a readable file's mapping too: MADV_COLD and MADV_PAGEOUT."""

AF_NETLINK = 16
"""The address family of netlink sockets (refused by ``socket``)."""

_FCNTL = {"x86_64": 72, "aarch64": 25}
"""fcntl's number per machine (denied only for ``LOCK_COMMANDS`` and ``NOTICE_COMMANDS``)."""

_IOCTL = {"x86_64": 16, "aarch64": 29}
"""ioctl's number per machine (denied only for ``SETATTR_REQUESTS``)."""

_MADVISE = {"x86_64": 28, "aarch64": 233}
"""madvise's number per machine (denied only for ``PAGE_OUT_ADVICE``)."""

_SOCKET = {"x86_64": 41, "aarch64": 198}
"""socket's number per machine (denied only for ``AF_NETLINK``)."""

Instruction = tuple[int, int, int, int]
"""(code, jump if true, jump if false, constant): one classic BPF instruction."""

Line = tuple[int | str, str | None, int]
"""Before assembly: (code, the place a true test jumps to or None, constant), or (place name, None, 0)."""


def supported() -> bool:
    """Whether this machine's system call numbers are known here."""
    return kernel.supported() and platform.machine() in _TABLES


def program(machine: str) -> list[Instruction]:
    """The filter for ``machine``, written with named jump targets and then assembled."""
    arch, numbers = _TABLES[machine]
    code: list[Line] = [(_LD_W_ABS, None, _ARCH), (_JEQ_K, "native", arch),
                        (_RET_K, None, _RET_KILL_PROCESS), ("native", None, 0), (_LD_W_ABS, None, _NR)]
    if machine == "x86_64":
        code.append((_JGE_K, "eperm", X32_BIT))
    code += [(_JEQ_K, "eperm", number) for number in sorted(set(numbers.values()))]
    code += [(_JEQ_K, "nosys", number) for number in sorted(set(_NOSYS[machine].values()))]
    code += [(_JEQ_K, "fcntl", _FCNTL[machine]), (_JEQ_K, "ioctl", _IOCTL[machine]),
             (_JEQ_K, "madvise", _MADVISE[machine]), (_JEQ_K, "socket", _SOCKET[machine]),
             (_RET_K, None, _RET_ALLOW)]
    code += [("fcntl", None, 0), (_LD_W_ABS, None, _ARG1)]
    code += [(_JEQ_K, "nosys", command) for command in LOCK_COMMANDS]
    code += [(_JEQ_K, "eperm", command) for command in NOTICE_COMMANDS]
    code += [(_RET_K, None, _RET_ALLOW), ("ioctl", None, 0), (_LD_W_ABS, None, _ARG1)]
    code += [(_JEQ_K, "eperm", request) for request in SETATTR_REQUESTS]
    code += [(_RET_K, None, _RET_ALLOW), ("madvise", None, 0), (_LD_W_ABS, None, _ARG2)]
    code += [(_JEQ_K, "eperm", advice) for advice in PAGE_OUT_ADVICE]
    code += [(_RET_K, None, _RET_ALLOW), ("socket", None, 0), (_LD_W_ABS, None, _ARG0),
             (_JEQ_K, "noafsupport", AF_NETLINK)]
    code += [(_RET_K, None, _RET_ALLOW), ("eperm", None, 0), (_RET_K, None, _RET_ERRNO | errno.EPERM),
             ("nosys", None, 0), (_RET_K, None, _RET_ERRNO | errno.ENOSYS),
             ("noafsupport", None, 0), (_RET_K, None, _RET_ERRNO | errno.EAFNOSUPPORT)]
    return _assemble(code)


def _assemble(code: list[Line]) -> list[Instruction]:
    """Resolve labels: an entry ``(name, None, 0)`` marks a place; a jump names the place it goes to when true."""
    places: dict[str, int] = {}
    instructions: list[tuple[int, str | None, int]] = []
    for operation_or_place, target, constant in code:
        if isinstance(operation_or_place, str):
            places[operation_or_place] = len(instructions)
        else:
            instructions.append((operation_or_place, target, constant))
    assembled = []
    for index, (operation, target, constant) in enumerate(instructions):
        jump = 0 if target is None else places[target] - index - 1
        if not 0 <= jump <= 255:
            raise ValueError(f"a jump of {jump} instructions does not fit a BPF jump")
        assembled.append((operation, jump, 0, constant))
    return assembled


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
