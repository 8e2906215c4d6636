"""A program's build: once per content hash, cached; confined (no network, writes only its own copy); its
failures one line each."""

from __future__ import annotations

from pathlib import Path

import pytest
from program_helpers import write_program

from arena.program.build import BuildError, ensure_built, output_folder
from arena.program.manifest import read_manifest
from arena.referee.confinement import sandbox_level

MANIFEST = '''name = "built"
version = "1"
games = ["lorum"]
command = ["./run.sh"]
build = {build}
build_seconds = {seconds}
'''


def program(folder: Path, build: str, seconds: float = 30) -> Path:
    return write_program(folder, MANIFEST.format(build=build, seconds=seconds), {"input.txt": "one\n"})


def test_a_build_runs_once_per_content_and_again_after_an_edit(tmp_path: Path) -> None:
    folder = program(tmp_path / "built", '["sh", "-c", "cat input.txt >> count.txt; printf \'#!/bin/sh\\n\' > run.sh"]')
    manifest = read_manifest(folder)
    first = ensure_built(manifest)
    assert first == output_folder(manifest) and first.parent != folder.parent
    assert (first / "count.txt").read_text() == "one\n"
    assert (first / "run.sh").stat().st_mode & 0o111  # a script the build made is executable
    assert ensure_built(read_manifest(folder)) == first
    assert (first / "count.txt").read_text() == "one\n"  # not built a second time
    assert not (folder / "count.txt").exists()  # built in a copy, never in the program's folder
    (folder / "input.txt").write_text("two\n")
    second = ensure_built(read_manifest(folder))
    assert second != first and (second / "count.txt").read_text() == "two\n"


def test_a_failed_build_is_one_line_with_its_last_error(tmp_path: Path) -> None:
    manifest = read_manifest(program(tmp_path / "built", '["sh", "-c", "echo first >&2; echo cc: no such file >&2; '
                                                         'exit 4"]'))
    with pytest.raises(BuildError) as caught:
        ensure_built(manifest)
    assert str(caught.value) == "program 'built': the build failed: cc: no such file"
    assert not output_folder(manifest).exists()


def test_a_build_over_its_time_is_stopped(tmp_path: Path) -> None:
    manifest = read_manifest(program(tmp_path / "built", '["sleep", "30"]', seconds=0.5))
    with pytest.raises(BuildError, match=r"took longer than build_seconds = 0\.5"):
        ensure_built(manifest)


def test_a_build_has_no_network_and_writes_nowhere_but_its_copy(tmp_path: Path) -> None:
    if sandbox_level() == "none":
        pytest.skip("this machine offers no sandbox: run 'arena doctor' to see what is missing")
    folder = tmp_path / "built"
    escape = tmp_path / "escaped"
    script = (f"touch {folder}/escaped {escape} 2>/dev/null; "
              "python3 -c \\\"import socket; socket.create_connection(('1.1.1.1', 53), timeout=3)\\\"")
    manifest = read_manifest(program(folder, f'["sh", "-c", "{script}"]'))
    # Landlock refuses the connect (EACCES); without its network rules, the empty network namespace does.
    with pytest.raises(BuildError, match=r"PermissionError: \[Errno 13\]|Network is unreachable"):
        ensure_built(manifest)
    assert not (folder / "escaped").exists() and not escape.exists()
