"""An entry's files hash covers every file a plugin could load code from, and only Python's own caches are left out."""

from __future__ import annotations

from pathlib import Path

from arena.provenance import files_hash


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


def test_code_behind_a_link_to_a_folder_counts_and_a_link_loop_ends(tmp_path: Path) -> None:
    """A plugin imports through a link to a folder elsewhere, so what lies there is hashed; a loop is read once."""
    folder = plugin_folder(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "tactics.py").write_text("MOVE = 'pass'\n")
    (folder / "lib").symlink_to(elsewhere, target_is_directory=True)
    (folder / "loop").symlink_to(folder, target_is_directory=True)
    before = files_hash(folder)
    (elsewhere / "tactics.py").write_text("MOVE = 'cheat'\n")
    assert files_hash(folder) != before


def test_the_hash_reads_linked_folders_in_name_order(tmp_path: Path) -> None:
    """Two links to one folder: the hash is the same whichever order the file system lists them in."""
    hashes = []
    for order in (("a", "b"), ("b", "a")):
        base = tmp_path / "".join(order)
        base.mkdir()
        folder = plugin_folder(base)
        shared = base / "shared"
        shared.mkdir()
        (shared / "m.py").write_text("X = 1\n")
        for name in order:
            (folder / name).symlink_to(shared, target_is_directory=True)
        hashes.append(files_hash(folder))
    assert hashes[0] == hashes[1]
