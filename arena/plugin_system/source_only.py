"""A third-party plugin's modules run from their source files, never from a bytecode cache.

The files hash of a plugin (``arena.plugin_system.provenance``) leaves out ``__pycache__/m.*.pyc`` beside a hashed
``m.py``, since Python writes those caches itself.  Python's own loader runs such a cache in place of the
source whenever its header passes (the source's time stamp and size, or its hash; an "unchecked" hash is
never compared at all), so a cache shipped with a plugin could change what runs while the hash stays the
same.  ``protect(root)`` makes every module whose source file lies in ``root`` (the file or folder the hash
covers) load through ``SourceOnlyLoader``, which compiles the source and neither reads nor writes a cache:

* the plugin's first module, imported by path (a drop-in), is given that loader directly (``load_file``);
* every other module is found by the finders Python already has, and ``SourceOnlyFinder``, put first in
  ``sys.meta_path``, swaps the loader of a spec whose origin is a source file in a protected root, whichever
  finder found it (``sys.path``, an editable install's finder, pytest's rewriting hook).  ``importlib.reload``
  finds its spec the same way.

A zygote compiles its plugin's sources once (``precompile``), so that its seats, forked from it, compile
none: a seat still reads each source file and uses that code only for the very same bytes.

Bytecode without a source beside it (``m.pyc`` next to no ``m.py``) is hashed like any file and loads as
usual.  Code the plugin runs after its first module (which came from source) is the plugin's own: it could
remove the finder, but then what it runs still follows from hashed files.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
import threading
import zipimport
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import CodeType, ModuleType

SOURCE_SUFFIXES = tuple(importlib.machinery.SOURCE_SUFFIXES)
"""Suffixes of Python source files (``.py``)."""

PRECOMPILE_BYTES = 16 << 20
"""Most source ``precompile`` compiles ahead (about 400,000 lines, 2 s): a root that is a namespace package
shared with other distributions may hold far more than the plugin imports."""

_compiled: dict[str, tuple[bytes, CodeType]] = {}
"""Code compiled ahead by ``precompile``, by source path, with the source bytes it was compiled from."""


class SourceOnlyLoader(importlib.machinery.SourceFileLoader):
    """Python's source loader that compiles the source every time: no bytecode cache is read or written.

    The one shortcut is code this process (or the one it was forked from) compiled from the very same bytes
    (``precompile``): the source file is read all the same, and compared.
    """

    def get_code(self, fullname: str) -> CodeType:
        """The module's code, compiled from its source file."""
        path = self.get_filename(fullname)
        data = self.get_data(path)
        ahead = _compiled.get(path)
        if ahead is not None and ahead[0] == data:
            return ahead[1]
        return self.source_to_code(data, path)


class SourceOnlyFinder:
    """A meta path finder that asks the finders after it and loads sources in protected roots from source."""

    def __init__(self) -> None:
        # Replaced, never changed in place: another thread's import may be reading them.
        self.folders: frozenset[str] = frozenset()  # protected folders, as written and resolved, ending in "/"
        self.files: frozenset[str] = frozenset()  # protected single-file plugins, likewise

    def protect(self, root: Path) -> None:
        """Cover every source file in ``root`` (a folder), or ``root`` itself (a file)."""
        names = {os.path.abspath(root), os.path.realpath(root)}
        if root.is_dir():
            self.folders = self.folders.union(os.path.join(name, "") for name in names)
        else:
            self.files = self.files.union(names)

    def covers(self, path: str) -> bool:
        """Whether the source file ``path`` is protected (compared both as written and with links resolved)."""
        for name in {os.path.abspath(path), os.path.realpath(path)}:
            if name in self.files or any(name.startswith(folder) for folder in self.folders):
                return True
        return False

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        """The spec the next finders give, loading from source when its origin is a protected source file."""
        finders = sys.meta_path
        later = finders[finders.index(self) + 1:] if self in finders else finders
        for finder in later:
            find = getattr(finder, "find_spec", None)
            spec = find(fullname, path, target) if find is not None else None
            if spec is not None:
                origin = spec.origin
                # A module inside a zip the plugin ships (the zip is hashed as a file) keeps zipimport's loader:
                # there is no source file to read, and zipimport never runs a cache from outside the zip.
                if origin and origin.endswith(SOURCE_SUFFIXES) and self.covers(origin) \
                        and not isinstance(spec.loader, zipimport.zipimporter):
                    spec.loader = SourceOnlyLoader(fullname, origin)
                return spec
        return None


_finder = SourceOnlyFinder()
_lock = threading.Lock()


def protect(root: Path | None) -> None:
    """Load every module whose source lies in ``root`` from that source from now on, in this process.

    Call before the plugin's first import.  The finder is (re)placed first in ``sys.meta_path``, so that a
    finder put in front of it since (by another plugin of a trusted process) cannot hide this root from it.
    """
    with _lock:
        if root is not None:
            _finder.protect(root)
        if sys.meta_path[:1] != [_finder]:
            if _finder in sys.meta_path:
                sys.meta_path.remove(_finder)
            sys.meta_path.insert(0, _finder)


def load_file(name: str, path: Path, package: bool) -> ModuleSpec | None:
    """The spec of module ``name`` from source file ``path``, loaded from source (a drop-in's first module).

    ``package``: the file is a package's ``__init__.py``, whose folder holds its submodules.
    """
    folder = [str(path.parent)] if package else None
    return importlib.util.spec_from_file_location(name, path, loader=SourceOnlyLoader(name, str(path)),
                                                  submodule_search_locations=folder)


def precompile(root: Path | None) -> int:
    """Compile every source file in ``root`` now; how many compiled.

    For a zygote, before it forks seats: each seat then reads its plugin's sources and compiles none of
    them again (about 5 µs per line each).  Compiling runs none of the plugin's code.  A file that does not
    compile is left for its import to fail on, in the seat, and so are the files past ``PRECOMPILE_BYTES``
    and links (a link to a pipe or a device would block the read; the seat that imports one meets it).
    """
    if root is None:
        return 0
    count = size = 0
    for path in root.rglob("*.py") if root.is_dir() else [root]:
        try:
            if (path != root and path.is_symlink()) or not path.is_file():
                continue
            size += path.stat().st_size
            if size > PRECOMPILE_BYTES:
                break
            data = path.read_bytes()
            _compiled[str(path)] = (data, compile(data, str(path), "exec", dont_inherit=True))
        except Exception:  # whatever a hostile file makes the compiler raise, its import meets again
            continue
        count += 1
    return count
