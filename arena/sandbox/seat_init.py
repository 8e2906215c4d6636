"""What runs inside a seat: its init (process 1 of the seat's PID namespace) and the agent process.

``spawn_seat`` (``arena.sandbox.seat``) forks the init; the init forks the agent process, which confines
itself further and calls ``run()``, then waits: it reaps every process that ends up its child, stops or
resumes every process of the seat when the referee's signals ask (``START``, ``FREEZE``, ``THAW``), and when
the agent process ends kills the rest and exits with its status.  The signals, names and bytes here are the
protocol between the init and the referee's ``place``, ``freeze`` and ``thaw``.
"""

from __future__ import annotations

import os
import resource
import signal
import socket
import tempfile
from collections.abc import Callable

from arena.sandbox import confinement, kernel, process
from arena.sandbox.cgroups import JOIN_MESSAGE
from arena.sandbox.policy import Policy, limit_open_files

START = signal.SIGUSR1
"""Sent to the init by ``place`` once the seat is in its groups: the agent process may start."""

FREEZE = signal.SIGRTMIN + 1
"""Asks the init to stop every process of the seat (when there is no cgroup freezer)."""

THAW = signal.SIGRTMIN + 2
"""Asks the init to resume them."""

SIGNALS = {signal.SIGCHLD, START, FREEZE, THAW}
"""What the init waits for (blocked, so it takes them one at a time with ``sigwaitinfo``)."""

FROZEN_NAME, THAWED_NAME = "arena-frozen", "arena-thawed"
"""The init's process name after it has stopped / resumed the seat: how the referee knows it is done."""

FROZEN_BYTE, THAWED_BYTE = b"F", b"T"
"""Written by the init on its acknowledgement pipe (``spawn_seat``'s ``acknowledge``) after it renamed itself:
the referee sleeps on the pipe instead of polling the name, then reads the name once to confirm."""


def run_init(run: Callable[[], int], policy: Policy, keep: list[int], temp_dir: str, old_mask: set[int],
             await_placement: bool, size_kb: int, state: confinement.Confinement,
             ack: int | None, placement: int | None = None) -> int:
    """The seat's init: start the agent process, reap, stop/resume on request, end with the agent."""
    kernel.prctl(kernel.PR_SET_PDEATHSIG, signal.SIGKILL)  # the zygote's death ends the seat
    in_namespace = os.getpid() == 1
    devnull = os.open(os.devnull, os.O_RDWR)
    for target in (0, 1, 2):
        os.dup2(devnull, target)
    _close_fds_except(keep)
    if in_namespace:
        kernel.drop_capabilities()
    kernel.set_name("arena-seat")
    if await_placement:
        while signal.sigwaitinfo({START}).si_pid != 0 and in_namespace:
            pass  # only the referee, outside the namespace, starts the seat
        if placement is not None:
            _join_groups(placement)
    agent = os.fork()
    if agent == 0:
        status = 127
        try:
            if ack is not None:
                os.close(ack)  # the init's alone: an agent that could write there could fake a freeze
            status = _agent(run, policy, temp_dir, old_mask, size_kb, state, in_namespace)
        finally:
            os._exit(status)
    if not in_namespace:
        try:
            os.setpgid(agent, agent)  # also done by the agent: whichever runs first makes the group
        except OSError:
            pass
    for fd in keep:
        if fd != ack:
            os.close(fd)
    if ack is not None:
        os.set_blocking(ack, False)  # a referee that stopped reading never blocks the init

    def acknowledged(byte: bytes) -> None:
        if ack is not None:
            try:
                os.write(ack, byte)
            except OSError:
                pass

    def everyone(sig: int) -> None:
        try:
            if in_namespace:
                os.kill(-1, sig)  # every process of this PID namespace but the init itself
            else:
                os.killpg(agent, sig)
        except OSError:
            pass

    result = None
    while result is None:
        info = signal.sigwaitinfo(SIGNALS)
        if info.si_signo == signal.SIGCHLD:
            result = _reap_children(agent)
        elif in_namespace and info.si_pid != 0:
            continue  # freeze and thaw come from outside the namespace only
        elif info.si_signo == FREEZE:
            everyone(signal.SIGSTOP)
            kernel.set_name(FROZEN_NAME)
            acknowledged(FROZEN_BYTE)
        elif info.si_signo == THAW:
            everyone(signal.SIGCONT)
            kernel.set_name(THAWED_NAME)
            acknowledged(THAWED_BYTE)
    everyone(signal.SIGKILL)
    if os.WIFSIGNALED(result):
        return 128 + os.WTERMSIG(result)
    return os.waitstatus_to_exitcode(result) & 0x7F


def _join_groups(placement: int) -> None:
    """Read ``place`` 's message on the placement socket and move this process (the init, before it forks the
    agent) into each group whose ``tasks`` file came with it.  Failures are left to the referee's ``confirm``."""
    with socket.socket(fileno=os.dup(placement)) as channel:
        try:
            _message, files, _flags, _address = socket.recv_fds(channel, len(JOIN_MESSAGE), 16)
        except OSError:
            return
    for fd in files:
        try:
            os.write(fd, b"0")  # 0: the writer itself, and only it
        except OSError:
            pass
        finally:
            os.close(fd)


def _reap_children(agent: int) -> int | None:
    """Wait for every child that has ended; the agent process's wait status if it was one of them."""
    result = None
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
        if pid == agent:
            result = status
    return result


def _agent(run: Callable[[], int], policy: Policy, temp_dir: str, old_mask: set[int], size_kb: int,
           state: confinement.Confinement, in_namespace: bool) -> int:
    """The agent process: confine itself to the seat's own folder, then ``run()``."""
    if not in_namespace:  # without a PID namespace: the process group is what the init stops and kills, and
        init = os.getppid()  # the agent process dies with the init (its own children may not: level "none")
        os.setpgid(0, 0)
        kernel.prctl(kernel.PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != init:
            return 127
    signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    limit_open_files()
    if state.namespaces:  # counted per user id of the zygote's namespace, so only there is it a bound of ours
        resource.setrlimit(resource.RLIMIT_NPROC, (policy.max_processes, policy.max_processes))
    if policy.memory_mb and size_kb:  # without the zygote's size, a bound could not even hold the process itself
        process.bound_address_space(size_kb, policy.memory_mb)
    if state.landlock_abi:
        with confinement.opened(policy.read_paths) as readable, confinement.opened(confinement.DEVICES) as devices, \
                confinement.opened([temp_dir]) as writable:
            granted = confinement.rules(readable, confinement.READ) + confinement.rules(writable, confinement.WRITE)
            granted += [(fd, confinement.DEVICES[path]) for path, fd in devices]
            kernel.landlock_restrict(state.landlock_abi, granted)
    os.chdir(temp_dir)
    os.environ["TMPDIR"] = temp_dir
    os.environ["HOME"] = temp_dir
    tempfile.tempdir = temp_dir
    status = run()
    return status if isinstance(status, int) and 0 <= status < 128 else 1


def _close_fds_except(keep: list[int]) -> None:
    top = process.max_fd()
    low = 3
    for fd in keep + [top]:
        if fd >= low:
            os.closerange(low, fd)
        low = max(low, fd + 1)
