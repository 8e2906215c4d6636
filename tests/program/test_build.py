"""A program's build: once per content hash, cached; confined (no network, writes only its own copy); its
failures one line each."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from program_helpers import write_program

from arena.program.build import BuildError, ensure_built, output_folder
from arena.program.build_log import HEAD_BYTES, TAIL_BYTES
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
    log = output_folder(manifest).with_name(output_folder(manifest).name + ".log")
    assert str(caught.value) == f"program 'built': the build failed: cc: no such file (its log: {log})"
    assert log.read_text() == "first\ncc: no such file\n"
    assert not output_folder(manifest).exists()


def test_a_failed_compile_is_quoted_by_its_first_error_not_its_last_line(tmp_path: Path) -> None:
    """gcc ends with the source line and a caret, cargo with "could not compile": the first error says why."""
    gcc = ("agent.c: In function 'answer':\nagent.c:88:13: error: expected ';' before 'return'\n"
           "   88 |     return\n      |     ~~~~~~\nagent.c:90:1: error: expected '}'\n      | ^\n")
    folder = program(tmp_path / "built", '["sh", "-c", "cat gcc.txt >&2; exit 1"]')
    (folder / "gcc.txt").write_text(gcc)
    with pytest.raises(BuildError, match=r"the build failed: agent.c:88:13: error: expected ';' before 'return' "
                                         r"\(its log: "):
        ensure_built(read_manifest(folder))
    (folder / "gcc.txt").write_text("   Compiling kit v1.0.0\nerror[E0425]: cannot find value `x` in this scope\n"
                                    "error: could not compile `kit` (bin \"kit\") due to 1 previous error\n")
    with pytest.raises(BuildError, match=r"the build failed: error\[E0425\]: cannot find value `x` in this scope "):
        ensure_built(read_manifest(folder))


def test_a_flood_of_build_errors_is_kept_within_bounds(tmp_path: Path) -> None:
    manifest = read_manifest(program(tmp_path / "built", '["sh", "-c", "echo first error: here >&2; '
                                                         'head -c 8000000 /dev/zero | tr \'\\\\0\' x >&2; '
                                                         'echo; echo last >&2; exit 1"]'))
    with pytest.raises(BuildError, match=r"the build failed: first error: here \(its log: "):
        ensure_built(manifest)
    log = output_folder(manifest).with_name(output_folder(manifest).name + ".log").read_text()
    assert len(log) < HEAD_BYTES + TAIL_BYTES + 100 and log.startswith("first error: here\n")
    assert "bytes left out ...]" in log and log.endswith("last\n")


def test_a_build_over_its_time_is_stopped(tmp_path: Path) -> None:
    manifest = read_manifest(program(tmp_path / "built", '["sleep", "30"]', seconds=0.5))
    with pytest.raises(BuildError, match=r"took longer than build_seconds = 0\.5"):
        ensure_built(manifest)


def test_an_executable_file_of_the_folder_keeps_its_bit_in_the_build(tmp_path: Path) -> None:
    # The copy is made inside the sandbox, which refuses chmod: a folder holding an executable script failed
    # with 'Operation not permitted' before its build could run; and the build may run the scripts it holds.
    folder = program(tmp_path / "built", '["./configure"]')
    (folder / "configure").write_text("#!/bin/sh\nprintf '#!/bin/sh\\n' > run.sh\n")
    (folder / "configure").chmod(0o755)
    (folder / "data.txt").write_text("plain\n")
    built = ensure_built(read_manifest(folder))
    assert os.access(built / "configure", os.X_OK) and os.access(built / "run.sh", os.X_OK)
    assert not os.access(built / "data.txt", os.X_OK)


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
