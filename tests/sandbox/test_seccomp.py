"""The seccomp filter's program, run by a small BPF interpreter for every machine it knows (the seat tests
run it for real on this one): each denied call fails with EPERM, fcntl only for its lock commands, every
other call passes, and a call from another instruction set kills."""

from __future__ import annotations

import errno
import struct

import pytest

from arena.sandbox import seccomp

AUDIT_ARCH_I386 = 0x40000003


def run(program: list[tuple[int, int, int, int]], nr: int, arch: int, arg1: int = 0) -> int:
    """What the filter returns for one call (``seccomp_data`` with ``nr``, ``arch`` and ``args[1] = arg1``)."""
    data = struct.pack("=iIQ6Q", nr, arch, 0, 0, arg1, 0, 0, 0, 0)
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


@pytest.mark.parametrize("machine", sorted(seccomp._TABLES))
def test_each_denied_call_fails_and_every_other_passes(machine: str) -> None:
    arch, numbers = seccomp._TABLES[machine]
    program = seccomp.program(machine)
    assert all(0 <= jump <= 255 for _code, jt, jf, _k in program for jump in (jt, jf))
    denied = set(numbers.values())
    flock, fcntl, ioctl = seccomp._FLOCK[machine], seccomp._FCNTL[machine], seccomp._IOCTL[machine]
    for nr in range(600):
        if nr in (fcntl, ioctl):
            continue
        expected = DENY if nr in denied else NOSYS if nr == flock else ALLOW
        assert run(program, nr, arch) == expected, (machine, nr)
    for command in [*range(64), 1024, 1025, 1026, 1030, 1031]:  # 1025: F_GETLEASE; 1030: F_DUPFD_CLOEXEC
        expected = NOSYS if command in seccomp.LOCK_COMMANDS else DENY if command in (1024, 1026) else ALLOW
        assert run(program, fcntl, arch, command) == expected, (machine, "fcntl", command)
    for request in seccomp.SETATTR_REQUESTS:
        assert run(program, ioctl, arch, request) == DENY, (machine, "ioctl", hex(request))
    for request in (0x5401, 0x541B, 0x80086601, 0x5421):  # TCGETS, FIONREAD, FS_IOC_GETFLAGS, FIONBIO
        assert run(program, ioctl, arch, request) == ALLOW, (machine, "ioctl", hex(request))
    assert {"fchmodat", "fchownat", "utimensat", "setxattr", "keyctl", "file_setattr", "inotify_add_watch",
            "io_uring_setup"} <= set(numbers)
    assert run(program, 0, AUDIT_ARCH_I386) == KILL  # another instruction set: the numbers mean other calls


def test_x32_calls_fail_on_x86_64() -> None:
    arch, numbers = seccomp._TABLES["x86_64"]
    program = seccomp.program("x86_64")
    assert run(program, seccomp.X32_BIT + 39, arch) == DENY  # x32's getpid
    assert run(program, seccomp.X32_BIT | numbers["chmod"], arch) == DENY
