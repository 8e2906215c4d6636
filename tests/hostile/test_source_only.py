"""``arena.plugin_system.source_only``: modules in a protected root run from source, whatever cache lies beside them.

Each test builds modules with crafted caches (``hostile_helpers.craft_cache``) in a temporary folder put on
``sys.path``, with a finder of its own first in ``sys.meta_path``; both are restored afterwards.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hostile_helpers import CACHES, craft_cache

from arena.plugin_system import source_only as source_only
from arena.plugin_system.provenance import source_root
from arena.plugin_system.source_only import SourceOnlyFinder, SourceOnlyLoader
from arena.plugins import ENTRY_POINT, FILE, PluginSource, load_plugin


@pytest.fixture
def finder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SourceOnlyFinder]:
    """A finder first in ``sys.meta_path``, ``tmp_path`` on ``sys.path``; the modules imported from it forgotten."""
    found = SourceOnlyFinder()
    monkeypatch.setattr(sys, "meta_path", [found, *sys.meta_path])
    monkeypatch.syspath_prepend(str(tmp_path))
    yield found
    doomed = []  # found before any is forgotten: a namespace package's path is recomputed from its parent
    for name, module in list(sys.modules.items()):
        places = [getattr(module, "__file__", None) or "", *(getattr(module, "__path__", None) or ())]
        if any(str(place).startswith(str(tmp_path)) for place in places):  # namespace packages have no file
            doomed.append(name)
    for name in doomed:
        del sys.modules[name]


def two_faced(path: Path, kind: str = "timestamp") -> None:
    """``path`` says ``FACE = "source"``; its crafted cache says ``FACE = "cache"``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('FACE = "source"\n')
    craft_cache(path, 'FACE = "cache"\n', kind)


@pytest.mark.parametrize("kind", CACHES)
def test_a_module_in_a_protected_folder_runs_its_source(tmp_path: Path, finder: SourceOnlyFinder, kind: str) -> None:
    two_faced(tmp_path / "plug" / "__init__.py", kind)
    two_faced(tmp_path / "plug" / "face.py", kind)
    finder.protect(tmp_path / "plug")
    face = importlib.import_module("plug.face")
    assert (sys.modules["plug"].FACE, face.FACE) == ("source", "source")
    assert isinstance(face.__loader__, SourceOnlyLoader)


def test_a_module_outside_every_protected_root_keeps_its_cache(tmp_path: Path, finder: SourceOnlyFinder) -> None:
    # Only the plugin's own files pay for compiling: a dependency loads as Python loads it.
    two_faced(tmp_path / "plug" / "__init__.py")
    two_faced(tmp_path / "other.py")
    finder.protect(tmp_path / "plug")
    assert importlib.import_module("other").FACE == "cache"


def test_a_single_file_root_covers_that_file_only(tmp_path: Path, finder: SourceOnlyFinder) -> None:
    two_faced(tmp_path / "single.py")
    two_faced(tmp_path / "beside.py")
    finder.protect(tmp_path / "single.py")
    assert (importlib.import_module("single").FACE, importlib.import_module("beside").FACE) == ("source", "cache")


def test_no_cache_is_written(tmp_path: Path, finder: SourceOnlyFinder, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    (tmp_path / "plug").mkdir()
    (tmp_path / "plug" / "__init__.py").write_text("FACE = 'source'\n")
    finder.protect(tmp_path / "plug")
    assert importlib.import_module("plug").FACE == "source"
    assert not (tmp_path / "plug" / "__pycache__").exists()


def test_reload_runs_the_source_again(tmp_path: Path, finder: SourceOnlyFinder) -> None:
    two_faced(tmp_path / "plug" / "__init__.py")
    finder.protect(tmp_path / "plug")
    plug = importlib.import_module("plug")
    craft_cache(tmp_path / "plug" / "__init__.py", 'FACE = "cache, crafted later"\n', "unchecked-hash")
    assert importlib.reload(plug).FACE == "source"


def test_a_namespace_package_and_a_top_level_name_in_the_root_run_their_source(tmp_path: Path,
                                                                                finder: SourceOnlyFinder) -> None:
    # A plugin may put its own folder on sys.path, or ship a package without __init__.py.
    two_faced(tmp_path / "plug" / "space" / "inner.py")
    two_faced(tmp_path / "plug" / "helper.py")
    finder.protect(tmp_path / "plug")
    assert importlib.import_module("plug.space.inner").FACE == "source"
    sys.path.insert(0, str(tmp_path / "plug"))  # undone by the fixture's syspath_prepend
    assert importlib.import_module("helper").FACE == "source"


def test_a_source_linked_from_elsewhere_runs_its_source(tmp_path: Path, finder: SourceOnlyFinder) -> None:
    # The hash reads the link's target and leaves out the cache beside the link: so must the loader.
    (tmp_path / "plug").mkdir()
    (tmp_path / "plug" / "__init__.py").write_text("")
    (tmp_path / "elsewhere.txt").write_text('FACE = "source"\n')
    os.symlink(tmp_path / "elsewhere.txt", tmp_path / "plug" / "linked.py")
    craft_cache(tmp_path / "plug" / "linked.py", 'FACE = "cache"\n', "timestamp")
    finder.protect(tmp_path / "plug")
    assert importlib.import_module("plug.linked").FACE == "source"


def test_bytecode_without_a_source_still_loads(tmp_path: Path, finder: SourceOnlyFinder) -> None:
    # A bare .pyc is hashed like any file, so it may run.
    (tmp_path / "plug").mkdir()
    (tmp_path / "plug" / "__init__.py").write_text("")
    two_faced(tmp_path / "plug" / "bare.py")
    cache = Path(importlib.util.cache_from_source(str(tmp_path / "plug" / "bare.py")))
    cache.rename(tmp_path / "plug" / "bare.pyc")
    (tmp_path / "plug" / "bare.py").unlink()
    finder.protect(tmp_path / "plug")
    assert importlib.import_module("plug.bare").FACE == "cache"


def test_a_module_in_a_zip_inside_the_root_still_imports(tmp_path: Path, finder: SourceOnlyFinder) -> None:
    # A zip the plugin ships is hashed as a file; its modules keep zipimport's loader (no file to read from).
    import zipfile

    (tmp_path / "plug").mkdir()
    with zipfile.ZipFile(tmp_path / "plug" / "vendored.zip", "w") as archive:
        archive.writestr("vend.py", 'FACE = "zipped"\n')
    finder.protect(tmp_path / "plug")
    sys.path.insert(0, str(tmp_path / "plug" / "vendored.zip"))
    try:
        assert importlib.import_module("vend").FACE == "zipped"
    finally:
        sys.path.remove(str(tmp_path / "plug" / "vendored.zip"))
        sys.modules.pop("vend", None)


def test_load_file_gives_a_drop_ins_first_module_the_source_loader(tmp_path: Path) -> None:
    two_faced(tmp_path / "drop" / "__init__.py")
    spec = source_only.load_file("arena_plugins.drop_test", tmp_path / "drop" / "__init__.py", package=True)
    assert spec is not None and isinstance(spec.loader, SourceOnlyLoader)
    assert spec.submodule_search_locations == [str(tmp_path / "drop")]
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.FACE == "source"


def test_protect_puts_the_one_finder_first(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    ahead = SourceOnlyFinder()
    monkeypatch.setattr(sys, "meta_path", [ahead, *sys.meta_path])
    source_only.protect(tmp_path)
    source_only.protect(None)
    mine = [finder for finder in sys.meta_path if isinstance(finder, SourceOnlyFinder) and finder is not ahead]
    assert len(mine) == 1 and sys.meta_path[:2] == [mine[0], ahead]


def test_precompiled_code_serves_the_same_bytes_only(tmp_path: Path, finder: SourceOnlyFinder,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # A zygote compiles once; its seats use that code only while the source is what was compiled.
    monkeypatch.setattr(source_only, "_compiled", {})
    (tmp_path / "plug").mkdir()
    (tmp_path / "plug" / "__init__.py").write_text("# the package\n")
    (tmp_path / "plug" / "same.py").write_text("def face():\n    return 'source'\n")
    (tmp_path / "plug" / "edited.py").write_text("def face():\n    return 'source'\n")
    (tmp_path / "plug" / "broken.py").write_text("def face(:\n")
    monkeypatch.setattr(source_only, "PRECOMPILE_BYTES", 0)
    assert source_only.precompile(tmp_path / "plug") == 0  # past the budget: left to each import
    monkeypatch.setattr(source_only, "PRECOMPILE_BYTES", 1 << 20)
    assert source_only.precompile(tmp_path / "plug") == 3  # the broken file is left to its import
    (tmp_path / "plug" / "edited.py").write_text("def face():\n    return 'edited'\n")
    finder.protect(tmp_path / "plug")
    same, edited = importlib.import_module("plug.same"), importlib.import_module("plug.edited")
    ahead = source_only._compiled[str(tmp_path / "plug" / "same.py")][1]
    assert any(const is same.face.__code__ for const in ahead.co_consts)
    assert edited.face() == "edited"
    with pytest.raises(SyntaxError):
        importlib.import_module("plug.broken")


@pytest.mark.parametrize("kind", [FILE, ENTRY_POINT])
def test_a_plugin_loaded_as_its_seats_load_it_runs_its_precompiled_code(tmp_path: Path, kind: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # The paths the zygote compiles are the paths its seats' imports look up: no seat compiles again.
    monkeypatch.setattr(source_only, "_compiled", {})
    package = f"precompiled_{kind.replace(' ', '_')}"
    (tmp_path / package).mkdir()
    (tmp_path / package / "__init__.py").write_text("from .inner import face\n\ndef outer():\n    return face()\n")
    (tmp_path / package / "inner.py").write_text("def face():\n    return 'source'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    target = str(tmp_path / package) if kind == FILE else package
    source = PluginSource(package, kind, target, "1", "test")
    assert source_only.precompile(source_root(source)) == 2
    plugin: Any = load_plugin(source)
    for function, path in ((plugin.outer, "__init__.py"), (plugin.face, "inner.py")):
        ahead = source_only._compiled[str(tmp_path / package / path)][1]
        assert any(const is function.__code__ for const in ahead.co_consts), path
