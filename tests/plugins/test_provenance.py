"""An entry's files hash covers every file a plugin could load code from, and only Python's own caches are left out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.plugin_system.provenance import HASHED_BYTES_MAX, ProvenanceError, files_hash, plugin_source
from arena.plugins import load_registry


def plugin_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "sly"
    folder.mkdir()
    (folder / "__init__.py").write_text("from . import brain\n")
    (folder / "brain.py").write_text("MOVE = 'pass'\n")
    return folder


def test_hidden_files_and_bare_bytecode_count_as_code(tmp_path: Path) -> None:
    folder = plugin_folder(tmp_path)
    before = files_hash(folder)
    (folder / ".hidden.py").write_text("MOVE = 'cheat'\n")  # importable by name, so it is code
    with_hidden = files_hash(folder)
    assert with_hidden != before
    (folder / "logic.pyc").write_bytes(b"\x00bytecode v1")  # a module shipped as bytecode only
    with_bytecode = files_hash(folder)
    assert with_bytecode != with_hidden
    (folder / "logic.pyc").write_bytes(b"\x00bytecode v2")
    assert files_hash(folder) != with_bytecode


def test_the_cache_of_a_hashed_source_file_changes_nothing(tmp_path: Path) -> None:
    folder = plugin_folder(tmp_path)
    before = files_hash(folder)
    cache = folder / "__pycache__"
    cache.mkdir()
    (cache / "brain.cpython-311.pyc").write_bytes(b"whatever the interpreter wrote")
    (cache / "__init__.cpython-311.pyc").write_bytes(b"likewise")
    assert files_hash(folder) == before
    (cache / "orphan.cpython-311.pyc").write_bytes(b"code with no source")  # loadable, so hashed
    assert files_hash(folder) != before


def test_a_link_out_of_the_plugins_folder_is_refused_in_one_line(tmp_path: Path) -> None:
    """Code behind a link to elsewhere could change under the same hash (and a link to / would make hashing read
    the whole machine), so a plugin that links out of its folder is refused, naming the link."""
    folder = plugin_folder(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "tactics.py").write_text("MOVE = 'pass'\n")
    (folder / "lib").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(ProvenanceError, match=r"sly/lib links out of the plugin's folder \(to .*elsewhere\)") as error:
        files_hash(folder)
    assert "\n" not in str(error.value)
    (folder / "lib").unlink()
    (folder / "root").symlink_to("/", target_is_directory=True)
    with pytest.raises(ProvenanceError, match="links out of the plugin's folder"):
        files_hash(folder)


def test_links_inside_the_folder_are_hashed_by_where_they_point(tmp_path: Path) -> None:
    """A link to another of the plugin's folders (or back up to the folder itself) is not followed, but which
    folder it names is hashed: pointing it elsewhere changes what is imported."""
    folder = plugin_folder(tmp_path)
    for version in ("v1", "v2"):
        (folder / version).mkdir()
        (folder / version / "tactics.py").write_text(f"MOVE = {version!r}\n")
    (folder / "loop").symlink_to(folder, target_is_directory=True)
    (folder / "current").symlink_to("v1", target_is_directory=True)
    before = files_hash(folder)
    (folder / "current").unlink()
    (folder / "current").symlink_to("v2", target_is_directory=True)
    assert files_hash(folder) != before


def test_bytecode_in_the_cache_folder_under_a_name_python_never_caches_counts(tmp_path: Path) -> None:
    """``import sly.__pycache__.brain`` loads ``__pycache__/brain.pyc`` (a namespace package's module) even beside
    ``brain.py``: only a real cache name (``brain.TAG.pyc``) is Python's own cache and left out."""
    folder = plugin_folder(tmp_path)
    before = files_hash(folder)
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "brain.pyc").write_bytes(b"\x00hidden code")
    assert files_hash(folder) != before


DUP_PLUGIN = """from arena import hookimpl
from arena.agent import AgentSpec
from arena.seating.substitute import RandomAgent


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="dup-agent", games=("lovat",), factory=RandomAgent, description="{where}", version="1"))
"""


def test_the_hash_covers_the_plugin_the_registry_loads_when_a_folder_and_a_file_share_its_name(tmp_path: Path) -> None:
    """With ``dup/`` and ``dup.py`` both in the plugins folder the registry loads one; the hash must cover that one,
    or the other could change freely under a decoy's hash."""
    (tmp_path / "dup").mkdir()
    (tmp_path / "dup" / "__init__.py").write_text(DUP_PLUGIN.format(where="folder"))
    (tmp_path / "dup.py").write_text(DUP_PLUGIN.format(where="file"))
    registry = load_registry(plugins_dir=tmp_path, entry_points=False).registry
    loaded = Path(registry.sources["dup"].target)
    assert registry.agent("dup-agent").description in ("folder", "file")
    assert plugin_source("dup", tmp_path) == loaded
    assert loaded == ((tmp_path / "dup").resolve() if registry.agent("dup-agent").description == "folder"
                      else (tmp_path / "dup.py").resolve())


def test_files_too_large_to_hash_are_refused_in_one_line_without_reading_them(tmp_path: Path) -> None:
    """A sparse file of terabytes costs nothing to make; hashing it would hold every run for hours."""
    folder = plugin_folder(tmp_path)
    with open(folder / "weights.bin", "wb") as sparse:
        sparse.truncate(HASHED_BYTES_MAX)  # exactly the bound, with the sources on top
    with pytest.raises(ProvenanceError) as refused:
        files_hash(folder)
    assert str(refused.value) == (f"{folder}: its files hold 8.0 GiB, more than the 8 GiB the arena reads to hash "
                                  "a plugin's files")
    with open(folder / "weights.bin", "wb") as sparse:
        sparse.truncate(1 << 20)
    assert len(files_hash(folder)) == 64  # within the bound: hashed


def test_links_are_never_read_so_they_cannot_multiply_the_bytes_hashed(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A link's target is hashed where it lies; reading it again per link would let 1,000 links to a file just
    under the bound read a thousand times the bound."""
    folder = plugin_folder(tmp_path)
    (folder / "weights.bin").write_bytes(b"\0" * 1000)
    for number in range(8):
        (folder / f"copy{number}.bin").symlink_to("weights.bin")
    opened: list[str] = []
    real_open = Path.open

    def counting_open(self: Path, *args: Any, **kwargs: Any) -> Any:
        opened.append(self.name)
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", counting_open)
    files_hash(folder)
    assert sorted(opened) == ["__init__.py", "brain.py", "weights.bin"]
