"""Removing a folder an agent filled: a chain of folders deeper than the recursion limit, long names, files."""

from __future__ import annotations

import os
import resource
import shutil
import sys
from pathlib import Path

import pytest

from arena.sandbox.removal import remove_tree


def deep_chain(top: Path, depth: int, name: str) -> None:
    """``depth`` nested folders called ``name`` under ``top``, a file in every tenth (built through dir fds: the
    full path is far past PATH_MAX)."""
    fd = os.open(top, os.O_RDONLY)
    try:
        for level in range(depth):
            os.mkdir(name, dir_fd=fd)
            if level % 10 == 0:
                os.close(os.open(f"f{level}", os.O_CREAT | os.O_WRONLY, dir_fd=fd))
            inner = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
    finally:
        os.close(fd)


def test_a_chain_deeper_than_the_recursion_limit_is_removed(tmp_path: Path) -> None:
    top = tmp_path / "seat-x"
    top.mkdir()
    deep_chain(top, sys.getrecursionlimit() + 500, "d" * 200)
    (top / "side").mkdir()
    (top / "side" / "file").write_text("x")
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("not the seat's")
    (top / "link").symlink_to(victim)  # links are removed, never followed
    (top / "side" / "link").symlink_to(victim)
    if sys.version_info < (3, 12):  # what the zygote met: rmtree recursing once per level
        with pytest.raises(RecursionError):
            shutil.rmtree(top, ignore_errors=True)
    remove_tree(str(top))
    assert not top.exists() and [path.name for path in tmp_path.iterdir()] == ["victim"]
    assert (victim / "keep.txt").read_text() == "not the seat's"


def test_a_tree_that_exhausts_the_descriptors_is_still_removed(tmp_path: Path) -> None:
    """rmtree holds a descriptor per level: with few to spare it gives up silently, short of the recursion
    limit; what it leaves is flattened."""
    top = tmp_path / "seat-z"
    top.mkdir()
    deep_chain(top, 300, "d")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    held = []
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
        while True:
            try:
                held.append(os.open(os.devnull, os.O_RDONLY))
            except OSError:
                break
        for fd in held[-100:]:  # about 100 left: fewer than the 300 levels, plenty for the flattening
            os.close(fd)
        del held[-100:]
        remove_tree(str(top))
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert not top.exists()


def test_an_ordinary_folder_and_a_missing_one(tmp_path: Path) -> None:
    top = tmp_path / "seat-y"
    (top / "a" / "b").mkdir(parents=True)
    (top / "a" / "b" / "c.txt").write_text("x")
    remove_tree(str(top))
    assert not top.exists()
    remove_tree(str(top))  # already gone: nothing to do, no error
