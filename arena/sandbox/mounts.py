"""``read_only_except``: make every mount of the sandbox's own mount namespace read-only but one.

Reading a file moves its access time (under ``relatime``, the first read after a change, or after a day), and
a seat may ``stat`` any path, so with read rights alone one seat could mark files by reading them and another
read the marks back (a dealt hand passed in the access times of a few of the thousands of library files a seat
may read), or a later match of the same plugin find them (a memory across matches and across a duplicate
block's rotations).  The kernel never updates an access time through a read-only mount, and nothing else a
seat may do there moves one: so once the zygote (or a build process) is in its own mount namespace, every mount
it sees is made read-only there, except the bounded temporary folder its seats write in (memory-backed and the
zygote's alone, gone with it).  The host's mounts are not touched: the namespace's mounts are private copies.

In a user namespace, mounts inherited from the host keep their other flags locked (``nosuid``, ``nodev``,
``noexec``, the access-time mode); adding read-only is always allowed, and the seats, with no capability
left, cannot take it away (a nested user namespace of theirs would find it locked).
"""

from __future__ import annotations

import re

from arena.sandbox import kernel

_OPTION_FLAGS = {"nosuid": kernel.MS_NOSUID, "nodev": kernel.MS_NODEV, "noexec": kernel.MS_NOEXEC,
                 "noatime": kernel.MS_NOATIME, "nodiratime": kernel.MS_NODIRATIME, "relatime": kernel.MS_RELATIME,
                 "nosymfollow": kernel.MS_NOSYMFOLLOW}
"""A mount's per-mount options as /proc/self/mountinfo writes them, and their ``MS_*`` flags."""


def read_only_except(writable: str) -> bool:
    """Make every mount this process sees read-only, except the mount at ``writable`` (which must be a mount
    point of this namespace's own making); whether every one became read-only.

    Call it in a private mount namespace of our own (propagation private, so nothing reaches the host), before
    Landlock and seccomp.  ``mount_setattr`` does the whole tree at once (all or nothing); where the kernel
    lacks it (before 5.12), each visible mount is remounted read-only from /proc/self/mountinfo, which misses
    only mounts hidden beneath others (out of reach anyway).
    """
    try:
        kernel.mount_setattr("/", set_flags=kernel.MOUNT_ATTR_RDONLY, recursive=True)
    except OSError:
        return remount_each_except(writable)
    try:
        kernel.mount_setattr(writable, clear_flags=kernel.MOUNT_ATTR_RDONLY)
    except OSError:
        pass  # our own mount: never locked; should it fail, the seats cannot write, which tests would show
    return True


def remount_each_except(writable: str) -> bool:
    """Remount each mount of /proc/self/mountinfo read-only (a bind remount, keeping its other flags, which
    may be locked), except those at ``writable``; whether every one of them became read-only."""
    try:
        with open("/proc/self/mountinfo") as file:
            lines = file.read().splitlines()
    except OSError:
        return False
    done = True
    for line in lines:
        fields = line.split()
        if len(fields) < 6:
            continue
        target, options = _unescape(fields[4]), fields[5].split(",")
        if target == writable or "ro" in options:
            continue
        flags = kernel.MS_REMOUNT | kernel.MS_BIND | kernel.MS_RDONLY
        for option in options:
            flags |= _OPTION_FLAGS.get(option, 0)
        if not flags & (kernel.MS_NOATIME | kernel.MS_RELATIME):
            flags |= kernel.MS_STRICTATIME  # mountinfo names no mode for strictatime
        try:
            kernel.mount(None, target, None, flags)
        except OSError:
            done = False
    return done


def _unescape(path: str) -> str:
    """A mountinfo path with its octal escapes (space, tab, newline, backslash) decoded."""
    return re.sub(r"\\([0-7]{3})", lambda match: chr(int(match.group(1), 8)), path)
