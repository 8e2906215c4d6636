"""``remove_tree``: remove a folder an agent may have filled, whatever shape it gave it.

``shutil.rmtree`` recurses once per level of folders (on Python 3.11) and holds a descriptor
per level, so a chain of folders deeper than the interpreter's recursion limit, which any
agent can make in its own temporary folder in a few milliseconds, raises ``RecursionError``
even with ``ignore_errors`` (in a zygote, or in the referee of an isolated seat, that would
end the process that cleans up after the seat), and a slightly shallower one can exhaust the
descriptors and be left behind without a word.  Whatever ``rmtree`` leaves is flattened
instead: every folder's subfolders are moved up into the top folder, one level at a time, so
nothing recurses and at most two descriptors are open.  Every step goes through descriptors
opened with ``O_NOFOLLOW`` relative to the top folder, never through a path, so a process
still running in the tree cannot swap a folder for a link and turn the removal elsewhere.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable

_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def remove_tree(path: str) -> None:
    """Remove ``path`` and everything in it, ignoring errors, in bounded stack depth (see the module)."""
    try:
        shutil.rmtree(path, ignore_errors=True)
    except RecursionError:
        pass
    if os.path.lexists(path):
        _flatten_and_remove(path)


def _flatten_and_remove(top: str) -> None:
    """Remove ``top`` without recursion: files are unlinked, each folder's subfolders renamed into ``top``."""
    try:
        top_fd = os.open(top, _FOLDER)
    except OSError:
        return
    moved = 0
    try:
        while True:
            names = _listing(top_fd)
            if not names:
                break
            progress = False
            for name, is_folder in names:
                if not is_folder:
                    progress |= _quietly(os.unlink, name, dir_fd=top_fd)
                    continue
                try:
                    inner_fd = os.open(name, _FOLDER, dir_fd=top_fd)
                except OSError:
                    continue
                try:
                    for child, child_is_folder in _listing(inner_fd):
                        if child_is_folder:
                            moved += 1
                            progress |= _quietly(os.rename, child, f".up-{moved}", src_dir_fd=inner_fd,
                                                 dst_dir_fd=top_fd)
                        else:
                            progress |= _quietly(os.unlink, child, dir_fd=inner_fd)
                finally:
                    os.close(inner_fd)
                progress |= _quietly(os.rmdir, name, dir_fd=top_fd)
            if not progress:  # nothing more this process may remove
                return
    finally:
        os.close(top_fd)
    _quietly(os.rmdir, top)


def _listing(folder_fd: int) -> list[tuple[str, bool]]:
    """(name, is a folder, not following links) of each entry of the open folder; empty if it cannot be read."""
    try:
        with os.scandir(folder_fd) as entries:
            return [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in entries]
    except OSError:
        return []


def _quietly(operation: Callable[..., object], *args: object, **keywords: object) -> bool:
    """Run ``operation(*args, **keywords)``; whether it succeeded."""
    try:
        operation(*args, **keywords)
    except OSError:
        return False
    return True
