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
run from such a cache (``arena.plugin_system.source_only``).  Not covered: other top-level
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

from arena.plugin_system import hookspecs
from arena.plugin_system.registry import ENTRY_POINT, FILE, PROGRAM, PluginSource
from arena.plugin_system.sources import builtin_sources, third_party_sources

BYTECODE_CACHE = "__pycache__"
"""Python's bytecode cache folder: a cached ``name.*.pyc`` is skipped when its ``name.py`` stands beside the folder
(caches change on every import); any other file, bytecode or hidden, is hashed, since a plugin can load it."""


def plugin_source(plugin: str, plugins_dir: Path | str | None) -> Path | None:
    """The file or folder holding plugin ``plugin``'s code, found without importing it; None if unknown.

    The source the registry loads under that name (built-ins, then entry points, then the plugins folder in name
    order, the first of a name winning: ``PluginManager`` skips later ones), so the hash covers what runs.
    """
    for source in (*builtin_sources(), *third_party_sources(plugins_dir)[0]):
        if source.name == plugin:
            return source_root(source)
    return None


def source_root(source: PluginSource) -> Path | None:
    """The file or folder whose files ``files_hash`` covers for ``source``, and whose modules run from source."""
    if source.kind in (FILE, PROGRAM):
        return Path(source.target)
    if source.kind == ENTRY_POINT:
        entry = importlib.metadata.EntryPoint(source.name, source.target, hookspecs.PROJECT_NAME)
        return _module_location(entry.module)
    return _module_location(source.target)


class ProvenanceError(ValueError):
    """A plugin's files cannot be hashed as they are: a link out of its folder, or a file that cannot be read."""


HASHED_BYTES_MAX = 8 << 30
"""The most a plugin's files may hold, all together (models included): hashing reads every byte, at every run."""


def files_hash(source: Path | None) -> str:
    """A SHA-256 over the relative paths and contents of every file under ``source`` (or of the file itself),
    and over where each link inside it points.

    ``"unknown"`` when there is no source to read.  ``ProvenanceError`` (one line) for a link that leads out of
    ``source``, a file that cannot be read, or files that hold more than ``HASHED_BYTES_MAX`` bytes.
    """
    if source is None:
        return "unknown"
    digest = hashlib.sha256()
    root = source if source.is_dir() else source.parent
    files = list(_files(source))
    size = sum(path.lstat().st_size for path in files if not path.is_symlink())
    if size > HASHED_BYTES_MAX:  # a sparse file of terabytes costs nothing to make and hours to read
        raise ProvenanceError(f"{source}: its files hold {size / (1 << 30):.1f} GiB, more than the "
                              f"{HASHED_BYTES_MAX >> 30} GiB the arena reads to hash a plugin's files")
    for path in files:
        digest.update(str(path.relative_to(root)).encode() + b"\0")
        if path != source and path.is_symlink():  # which of its files a link names changes what is imported
            digest.update(b"-> " + os.readlink(path).encode() + b"\0")
            continue  # its target is hashed where it lies; read per link, links would multiply the bytes read
        if path.is_file():
            try:
                with path.open("rb") as file:  # in pieces: a plugin may ship a model far larger than memory
                    for piece in iter(lambda: file.read(1 << 20), b""):
                        digest.update(piece)
                digest.update(b"\0")
            except OSError as error:
                raise ProvenanceError(f"{path}: cannot be read to hash the plugin's files ({error.strerror})") from None
    return digest.hexdigest()


def _files(source: Path) -> Iterator[Path]:
    """Every file and every link under ``source`` (or ``source`` itself), in a fixed order.

    Links are not followed: each must lead to a place inside ``source``, whose files are hashed where they lie.
    A link out of it would put code under the plugin that the hash does not cover (or, linking to ``/``, make
    hashing read the whole machine), so it is refused.
    """
    if not source.is_dir():
        yield source
        return
    inside = os.path.realpath(source)
    for path in sorted(source.rglob("*")):
        if path.is_symlink():
            target = os.path.realpath(path)
            if os.path.commonpath([inside, target]) != inside:
                raise ProvenanceError(f"{path} links out of the plugin's folder (to {target}): the arena hashes a "
                                      "plugin's own files, so ship the files themselves")
            yield path
        elif path.is_file() and not _cached_bytecode(path):
            yield path


def _cached_bytecode(path: Path) -> bool:
    """Whether ``path`` is Python's cache of a source file that is hashed itself (``__pycache__/m.TAG.pyc``).

    Only a real cache name counts (``importlib.util.source_from_cache`` reads it): a plain ``__pycache__/m.pyc``
    is importable as a module of the namespace package ``__pycache__``, so it is hashed like any code.
    """
    if path.parent.name != BYTECODE_CACHE or path.suffix != ".pyc":
        return False
    try:
        source = importlib.util.source_from_cache(str(path))
    except ValueError:
        return False
    return Path(source).is_file()


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
