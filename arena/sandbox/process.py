"""The process hygiene of every process that runs third-party code, and the cleanup of what it leaves.

A freshly forked child takes its own process group, dies with its parent, has stdio on /dev/null and no
inherited descriptors (``child_hygiene``); a process that starts plugin code adopts whatever that code
leaves running (``make_subreaper``) and kills it at the end (``reap_descendants``).  Also the two numbers
every confining step needs: the highest descriptor worth closing (``max_fd``) and this process's size
(``address_space_kb``), the base of its address-space bound (``bound_address_space``).  Used by plugin
discovery, the zygotes and the seats.
"""

from __future__ import annotations

import os
import resource
import signal

from arena.sandbox import kernel
from arena.sandbox.policy import limit_open_files


def _prctl(option: int, value: int) -> None:
    """``prctl`` where the machine has it; elsewhere (no Linux) nothing: these requests only tidy up."""
    try:
        kernel.prctl(option, value)
    except (OSError, AttributeError):
        pass


def die_with_parent(sig: int = signal.SIGKILL) -> None:
    """Get ``sig`` (default SIGKILL) when the parent process dies (Linux)."""
    _prctl(kernel.PR_SET_PDEATHSIG, sig)


def make_subreaper() -> None:
    """Adopt every orphaned descendant (a plugin's double-forked daemon included), so ``reap_descendants`` finds it."""
    _prctl(kernel.PR_SET_CHILD_SUBREAPER, 1)


def kill_group_or_process(pid: int) -> None:
    """SIGKILL ``pid``'s process group, or ``pid`` alone when it leads none (a child that has not yet called
    ``setpgid``); nothing when it is gone."""
    for kill in (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
            return
        except OSError:
            continue


def reap_descendants() -> None:
    """SIGKILL and wait for every child of this process until none is left (adopted orphans included)."""
    while True:
        children = _children()
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            pid, _status = os.waitpid(-1, 0 if children else os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0 and not children:
            return


def _children() -> list[int]:
    """This process's children, from /proc (every thread's list)."""
    found: list[int] = []
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/self/task/{task}/children") as listing:
                found += [int(pid) for pid in listing.read().split()]
        except (OSError, ValueError):
            continue
    return found


def child_hygiene(keep: int) -> None:
    """In a freshly forked child: own process group, die with the parent, stdio on /dev/null, only ``keep`` open."""
    parent = os.getppid()
    try:
        os.setpgid(0, 0)
    except OSError:
        pass
    die_with_parent()
    if os.getppid() != parent:  # the parent died before we could ask to die with it
        os._exit(1)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    devnull = os.open(os.devnull, os.O_RDWR)
    for target in (0, 1, 2):
        os.dup2(devnull, target)
    os.closerange(3, keep)
    os.closerange(keep + 1, max_fd())
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    limit_open_files()


def max_fd() -> int:
    """One past the highest descriptor number that may be open (and so is worth closing)."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft if 0 < soft < (1 << 20) else 4096


def address_space_kb() -> int:
    """The size of this process's address space, in KiB (0 if unknown): what a child forked now starts with."""
    try:
        with open("/proc/self/statm") as statm:
            size = int(statm.read().split()[0])
        return size * (os.sysconf("SC_PAGE_SIZE") // 1024)
    except (OSError, ValueError):
        return 0


def bound_address_space(base_kb: int, memory_mb: int) -> None:
    """Bound this process's address space (``RLIMIT_AS``) to ``base_kb`` KiB, what it already holds, plus
    ``memory_mb`` MiB for what it may add."""
    size = base_kb * 1024 + memory_mb * (1 << 20)
    resource.setrlimit(resource.RLIMIT_AS, (size, size))
