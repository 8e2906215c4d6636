"""Where an agent's code came from: its plugin's version and a hash of the plugin's files.

A tournament stores both for every entry (``Store.bind_versions``) so that a
resumed run never rates two versions of an agent under one name.  The files
are read, never imported: a plugin's source is its file or folder in the
plugins folder, the top-level package an entry point names, or, for the
built-ins, the package of arena's first-party plugin module.  A plugin's own
``version`` string is self-reported; the hash is what catches an edit that
forgot to bump it.  Every file under the source counts, hidden ones and bare
bytecode included (a plugin can load code from either); only Python's cache of
a source file that is hashed itself is left out, and a plugin's modules never
run from such a cache (``arena.source_only``).  Not covered: other top-level
packages an installed plugin imports (its dependencies, or a second package of
its distribution).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path

from arena import hookspecs
from arena.plugins import DEFAULT_PLUGINS, ENTRY_POINT, FILE, PluginSource

BYTECODE_CACHE = "__pycache__"
"""Python's bytecode cache folder: a cached ``name.*.pyc`` is skipped when its ``name.py`` stands beside the folder
(caches change on every import); any other file, bytecode or hidden, is hashed, since a plugin can load it."""


def plugin_source(plugin: str, plugins_dir: Path | str | None) -> Path | None:
    """The file or folder holding plugin ``plugin``'s code, found without importing it; None if unknown."""
    modules = dict(DEFAULT_PLUGINS)
    if plugin in modules:
        return _module_location(modules[plugin])
    # Entry points first: the registry loads them first, and skips a plugins-folder plugin of the same name.
    for entry in importlib.metadata.entry_points(group=hookspecs.PROJECT_NAME):
        if entry.name == plugin:
            return _module_location(entry.module)
    if plugins_dir is not None:
        folder = Path(plugins_dir)
        for candidate in (folder / f"{plugin}.py", folder / plugin):
            if candidate.exists():
                return candidate
    return None


def source_root(source: PluginSource) -> Path | None:
    """The file or folder whose files ``files_hash`` covers for ``source`` (as ``plugin_source`` finds it)."""
    if source.kind == FILE:
        return Path(source.target)
    if source.kind == ENTRY_POINT:
        entry = importlib.metadata.EntryPoint(source.name, source.target, hookspecs.PROJECT_NAME)
        return _module_location(entry.module)
    return _module_location(source.target)


def files_hash(source: Path | None) -> str:
    """A SHA-256 over the relative paths and contents of every file under ``source`` (or of the file itself).

    ``"unknown"`` when there is no source to read.
    """
    if source is None:
        return "unknown"
    digest = hashlib.sha256()
    root = source if source.is_dir() else source.parent
    for path in _files(source):
        digest.update(str(path.relative_to(root)).encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def _files(source: Path) -> Iterator[Path]:
    """Every file under ``source`` in a fixed order, through links to folders too (a plugin imports through them).

    A folder reached twice (a link back up the tree, or two links to one place) is read once, by its first path.
    """
    if source.is_file():
        yield source
        return
    seen: set[str] = set()
    found: list[Path] = []
    for folder, subfolders, names in os.walk(source, followlinks=True):
        real = os.path.realpath(folder)
        if real in seen:
            subfolders.clear()
            continue
        seen.add(real)
        subfolders.sort()  # walked in name order, so which path reads a shared folder is the same everywhere
        found.extend(Path(folder, name) for name in names)
    for path in sorted(found):
        if path.is_file() and not _cached_bytecode(path):
            yield path


def _cached_bytecode(path: Path) -> bool:
    """Whether ``path`` is Python's cache of a source file that is hashed itself (``__pycache__/m.*.pyc``)."""
    if path.parent.name != BYTECODE_CACHE or path.suffix != ".pyc":
        return False
    return (path.parent.parent / f"{path.name.split('.', 1)[0]}.py").is_file()


def _module_location(module: str) -> Path | None:
    """The package folder (or module file) of ``module``'s top-level package, located without importing it."""
    top = module.split(".")[0]
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(spec.origin) if spec.origin and spec.origin not in ("built-in", "frozen") else None
