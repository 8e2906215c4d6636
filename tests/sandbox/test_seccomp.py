"""The seccomp filter's program, run by a small BPF interpreter for every machine it knows (the seat tests
run it for real on this one): each denied call fails with EPERM or ENOSYS, fcntl, ioctl, madvise and socket
only for their denied arguments, every other call passes, and a call from another instruction set kills."""

from __future__ import annotations

import errno
import struct

import pytest

from arena.sandbox import seccomp

AUDIT_ARCH_I386 = 0x40000003


def run(program: list[tuple[int, int, int, int]], nr: int, arch: int, arg1: int = 0, *, arg0: int = 0,
        arg2: int = 0) -> int:
    """What the filter returns for one call (``seccomp_data`` with ``nr``, ``arch`` and its first three args)."""
    data = struct.pack("=iIQ6Q", nr, arch, 0, arg0, arg1, arg2, 0, 0, 0)
    accumulator, pc = 0, 0
    for _ in range(len(program) + 1):  # a filter's jumps go forward only: it ends within this many steps
        code, jump_true, jump_false, constant = program[pc]
        if code == 0x20:  # load a word of seccomp_data
            accumulator = struct.unpack_from("=I", data, constant)[0]
            pc += 1
        elif code in (0x15, 0x35):  # jump if equal / if greater or equal
            taken = accumulator == constant if code == 0x15 else accumulator >= constant
            pc += 1 + (jump_true if taken else jump_false)
        elif code == 0x06:
            return constant
        else:
            raise AssertionError(f"unknown instruction {code:#x}")
    raise AssertionError("the program did not return")


ALLOW, DENY, NOSYS, KILL = 0x7FFF0000, 0x00050000 | errno.EPERM, 0x00050000 | errno.ENOSYS, 0x80000000
NO_FAMILY = 0x00050000 | errno.EAFNOSUPPORT


@pytest.mark.parametrize("machine", sorted(seccomp._TABLES))
def test_each_denied_call_fails_and_every_other_passes(machine: str) -> None:
    arch, numbers = seccomp._TABLES[machine]
    program = seccomp.program(machine)
    assert all(0 <= jump <= 255 for _code, jt, jf, _k in program for jump in (jt, jf))
    denied, absent = set(numbers.values()), set(seccomp._NOSYS[machine].values())
    fcntl, ioctl = seccomp._FCNTL[machine], seccomp._IOCTL[machine]
    madvise, socket = seccomp._MADVISE[machine], seccomp._SOCKET[machine]
    for nr in range(600):
        if nr in (fcntl, ioctl, madvise, socket):
            continue
        expected = DENY if nr in denied else NOSYS if nr in absent else ALLOW
        assert run(program, nr, arch) == expected, (machine, nr)
    for command in [*range(64), 1024, 1025, 1026, 1030, 1031]:  # 1025: F_GETLEASE; 1030: F_DUPFD_CLOEXEC
        expected = NOSYS if command in seccomp.LOCK_COMMANDS else DENY if command in (1024, 1026) else ALLOW
        assert run(program, fcntl, arch, command) == expected, (machine, "fcntl", command)
    for request in seccomp.SETATTR_REQUESTS:
        assert run(program, ioctl, arch, request) == DENY, (machine, "ioctl", hex(request))
    for request in (0x5401, 0x541B, 0x80086601, 0x5421):  # TCGETS, FIONREAD, FS_IOC_GETFLAGS, FIONBIO
        assert run(program, ioctl, arch, request) == ALLOW, (machine, "ioctl", hex(request))
    for advice in range(32):  # MADV_DONTNEED (4) and MADV_FREE (8), which malloc uses, pass
        expected = DENY if advice in (20, 21) else ALLOW  # MADV_COLD, MADV_PAGEOUT
        assert run(program, madvise, arch, arg2=advice) == expected, (machine, "madvise", advice)
    for family in range(46):  # AF_UNIX (1), AF_INET (2) and the rest pass: the namespaces and Landlock stop those
        expected = NO_FAMILY if family == 16 else ALLOW  # AF_NETLINK
        assert run(program, socket, arch, arg0=family) == expected, (machine, "socket", family)
    assert {"fchmodat", "fchownat", "utimensat", "setxattr", "keyctl", "file_setattr", "inotify_add_watch",
            "io_uring_setup"} <= set(numbers)
    assert {"flock", "mincore", "cachestat", "fadvise64", "readahead", "preadv2", "pwritev2", "process_madvise",
            "io_setup", "statfs", "fstatfs"} <= set(seccomp._NOSYS[machine])
    assert run(program, 0, AUDIT_ARCH_I386) == KILL  # another instruction set: the numbers mean other calls


def test_x32_calls_fail_on_x86_64() -> None:
    arch, numbers = seccomp._TABLES["x86_64"]
    program = seccomp.program("x86_64")
    assert run(program, seccomp.X32_BIT + 39, arch) == DENY  # x32's getpid
    assert run(program, seccomp.X32_BIT | numbers["chmod"], arch) == DENY
