"""What this machine offers the sandbox: ``probe()`` and its ``Capabilities``."""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from functools import cache
from typing import Any

from arena.sandbox import cgroups, kernel

LEVELS = ("none", "partial", "full")
"""Sandbox levels, weakest first."""

FULL_LANDLOCK_ABI = 6
"""The first Landlock ABI that scopes signals and abstract unix sockets (4 added TCP, 1 the file system)."""


class SandboxError(Exception):
    """The sandbox cannot be set up as asked: one line naming what is missing, ending with the fix."""


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What this machine offers, from probe()."""

    user_namespaces: bool  # an unprivileged process can make a user namespace
    pid_namespaces: bool  # ... and, inside it, a PID namespace
    mount_namespaces: bool  # ... a mount namespace
    network_namespaces: bool  # ... a network namespace
    landlock_abi: int  # 0: no Landlock
    cgroups: str  # "v2", "v1" or "none": a hierarchy the arena can create groups in
    memory_limit: bool  # a tree-wide memory bound is available (cgroup memory controller)
    freezer: bool  # a tree-wide freeze is available (cgroup freezer)
    cpu_limit: bool  # a CPU quota is available (cgroup cpu controller)
    root: bool  # the probing process runs as root

    @property
    def namespaces(self) -> bool:
        """Whether every namespace the seat needs is available."""
        return self.user_namespaces and self.pid_namespaces and self.mount_namespaces and self.network_namespaces

    @property
    def level(self) -> str:
        """``full``: namespaces, Landlock ABI >= 6 and tree-wide memory bound and freeze; ``partial``: some
        confinement (namespaces or Landlock); ``none``: no confinement beyond a plain process."""
        if self.namespaces and self.landlock_abi >= FULL_LANDLOCK_ABI and self.memory_limit and self.freezer:
            return "full"
        if (self.user_namespaces and self.pid_namespaces) or self.landlock_abi >= 1:
            return "partial"
        return "none"

    def missing(self, level: str) -> list[str]:
        """What this machine lacks for ``level`` (empty when it has it)."""
        if LEVELS.index(self.level) >= LEVELS.index(level):
            return []
        wanted = {
            "user namespaces": self.user_namespaces, "PID namespaces": self.pid_namespaces,
            "mount namespaces": self.mount_namespaces, "network namespaces": self.network_namespaces,
            f"Landlock ABI >= {FULL_LANDLOCK_ABI} (have {self.landlock_abi})":
                self.landlock_abi >= FULL_LANDLOCK_ABI,
            "a cgroup memory controller the arena may use": self.memory_limit,
            "a cgroup freezer the arena may use": self.freezer,
        }
        if level == "partial":
            wanted = {"user and PID namespaces, or Landlock": False}
        return [name for name, present in wanted.items() if not present]

    def to_json(self) -> dict[str, Any]:
        """Every field plus ``level``, as plain JSON data."""
        return asdict(self) | {"level": self.level}

    def describe(self) -> list[str]:
        """Lines for `arena doctor`: one per feature, then the level."""
        def mark(present: bool) -> str:
            return "yes" if present else "no"

        controllers = [name for name, present in (("memory", self.memory_limit), ("freezer", self.freezer),
                                                   ("cpu", self.cpu_limit)) if present]
        return [
            f"user namespaces:    {mark(self.user_namespaces)}",
            f"PID namespaces:     {mark(self.pid_namespaces)}",
            f"mount namespaces:   {mark(self.mount_namespaces)}",
            f"network namespaces: {mark(self.network_namespaces)}",
            "Landlock:           " + (f"ABI {self.landlock_abi}" if self.landlock_abi else "no"),
            f"cgroups:            {self.cgroups}"
            + (f" (usable: {', '.join(controllers)})" if controllers else " (no usable controller)"),
            f"running as root:    {mark(self.root)}",
            f"sandbox level:      {self.level}",
        ]


def _namespaces() -> tuple[bool, bool, bool, bool]:
    """Try each namespace in a throw-away child (a user namespace first, as an unprivileged process would)."""
    if not kernel.supported():
        return (False, False, False, False)
    flags = (kernel.CLONE_NEWPID, kernel.CLONE_NEWNS, kernel.CLONE_NEWNET)
    try:
        pid = os.fork()
    except OSError:
        return (False, False, False, False)
    if pid == 0:
        status = 0
        try:
            kernel.unshare(kernel.CLONE_NEWUSER)
            status = 1
            for bit, flag in enumerate(flags, start=1):
                try:
                    kernel.unshare(flag)
                    status |= 1 << bit
                except OSError:
                    pass
        finally:
            os._exit(status)
    _pid, status = os.waitpid(pid, 0)
    bits = os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 0
    return (bool(bits & 1), bool(bits & 2), bool(bits & 4), bool(bits & 8))


@cache
def probe() -> Capabilities:
    """What this machine offers the calling process (cached per process; safe to call anywhere).

    cgroup fields say whether *this* process can make groups: call it in the
    referee (unconfined), before any ``confine``.
    """
    user, pid, mount, net = _namespaces()
    hierarchy = cgroups.find()
    return Capabilities(
        user_namespaces=user,
        pid_namespaces=pid,
        mount_namespaces=mount,
        network_namespaces=net,
        landlock_abi=kernel.landlock_abi(),
        cgroups=hierarchy.version,
        memory_limit="memory" in hierarchy.bases,
        freezer="freezer" in hierarchy.bases,
        cpu_limit="cpu" in hierarchy.bases,
        root=os.geteuid() == 0,
    )


def require_level(have: str, want: str, capabilities: Capabilities) -> None:
    """Raise SandboxError when ``have`` is below ``want``, naming what is missing."""
    if want not in LEVELS:
        raise ValueError(f"sandbox level must be one of {', '.join(LEVELS)}, not {want!r}")
    if LEVELS.index(have) < LEVELS.index(want):
        missing = ", ".join(capabilities.missing(want)) or "a feature"
        raise SandboxError(f"the {want} sandbox needs {missing}, which this machine does not offer here "
                           f"(level {have}); run 'arena doctor'")
