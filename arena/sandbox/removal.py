"""``remove_tree``: remove a folder an agent may have filled, whatever shape it gave it.

``shutil.rmtree`` recurses once per level of folders (on Python 3.11), so a chain of
folders deeper than the interpreter's recursion limit, which any agent can make in its own
temporary folder in a few milliseconds, raises ``RecursionError`` even with
``ignore_errors``: in a zygote, or in the referee of an isolated seat, that would end the
process that cleans up after the seat.  Such a tree is flattened instead: every folder's
subfolders are moved up into the top folder, one level at a time, so no path grows longer
than two names and nothing recurses.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable


def remove_tree(path: str) -> None:
    """Remove ``path`` and everything in it, ignoring errors, in bounded stack depth (see the module)."""
    try:
        shutil.rmtree(path, ignore_errors=True)
    except RecursionError:
        _flatten_and_remove(path)


def _flatten_and_remove(top: str) -> None:
    """Remove ``top`` without recursion: files are unlinked, each folder's subfolders renamed into ``top``."""
    moved = 0
    while True:
        try:
            with os.scandir(top) as entries:
                names = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in entries]
        except OSError:
            return
        if not names:
            break
        progress = False
        for name, is_folder in names:
            path = os.path.join(top, name)
            if not is_folder:
                progress |= _quietly(os.unlink, path)
                continue
            try:
                with os.scandir(path) as entries:
                    inside = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in entries]
            except OSError:
                continue
            for child, child_is_folder in inside:
                if child_is_folder:
                    moved += 1
                    progress |= _quietly(os.rename, os.path.join(path, child), os.path.join(top, f".up-{moved}"))
                else:
                    progress |= _quietly(os.unlink, os.path.join(path, child))
            progress |= _quietly(os.rmdir, path)
        if not progress:  # nothing more this process may remove
            return
    _quietly(os.rmdir, top)


def _quietly(operation: Callable[..., object], *paths: str) -> bool:
    """Run ``operation(*paths)``; whether it succeeded."""
    try:
        operation(*paths)
    except OSError:
        return False
    return True
