"""Hostile build commands under the default sandbox: nothing they start outlives the build, their output is taken
only within bounds and without links out, and they read no secret of the user's."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest
from program_helpers import write_program

from arena.program import build
from arena.program.build import BuildError, ensure_built, output_folder
from arena.program.manifest import read_manifest
from arena.referee.confinement import sandbox_level
from arena.sandbox import lease

MANIFEST = '''name = "hostile-build"
version = "1"
games = ["lorum"]
command = ["./run.sh"]
build = ["sh", "-c", {script}]
build_seconds = {seconds}
'''

MAKE_RUN = "printf '#!/bin/sh\\n' > run.sh"


@pytest.fixture(autouse=True)
def sandboxed() -> None:
    if sandbox_level() == "none":
        pytest.skip("this machine offers no sandbox: run 'arena doctor' to see what is missing")


def hostile(folder: Path, script: str, seconds: float = 30) -> Path:
    return write_program(folder, MANIFEST.format(script=json.dumps(script), seconds=seconds))


def running(word: str) -> list[int]:
    """Pids of live processes whose command line holds ``word`` as one of its arguments."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and word.encode() in (entry / "cmdline").read_bytes().split(b"\0") and \
                    (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def gone(word: str, seconds: float = 5.0) -> bool:
    """Whether every process holding ``word`` has ended within ``seconds`` (the kernel kills asynchronously)."""
    deadline = time.monotonic() + seconds
    while running(word):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.mark.parametrize("how", ["setsid", "double fork"])
def test_a_build_that_leaves_a_daemon_leaves_nothing_running(tmp_path: Path, how: str) -> None:
    start = "setsid sleep 4141.5" if how == "setsid" else "sh -c 'sleep 4141.5 & exit 0'"
    manifest = read_manifest(hostile(tmp_path / "p", f"({start} </dev/null >/dev/null 2>&1 &); sleep 0.3; "
                                                     f"{MAKE_RUN}"))
    assert ensure_built(manifest).is_dir()
    assert gone("4141.5"), "a process the build started outlived it"


def test_a_build_past_its_time_leaves_nothing_running(tmp_path: Path) -> None:
    manifest = read_manifest(hostile(tmp_path / "p", "(setsid sleep 4242.5 </dev/null >/dev/null 2>&1 &); "
                                                     "exec sleep 4242.5", seconds=1))
    with pytest.raises(BuildError, match=r"the build failed: it took longer than build_seconds = 1 \(its log: "):
        ensure_built(manifest)
    assert gone("4242.5")


def test_the_build_process_carries_the_lease_and_takes_its_build_with_it(tmp_path: Path) -> None:
    """A run killed with its janitor's help (which kills every process marked ``--lease TOKEN``) ends its build."""
    manifest = read_manifest(hostile(tmp_path / "p", "(setsid sleep 4343.5 </dev/null >/dev/null 2>&1 &); "
                                                     "exec sleep 4343.5", seconds=60))
    failed: list[BaseException] = []

    def run() -> None:
        try:
            ensure_built(manifest)
        except BuildError as error:
            failed.append(error)

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 20
    while len(running("4343.5")) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    marked = [pid for pid in running(lease.current().token) if pid in running("arena.program.build")
              and Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1] == str(os.getpid())]
    assert len(marked) == 1, "the build process is not marked with the referee's lease"
    os.kill(marked[0], 9)  # what the janitor does (to it and to the rest of what is marked)
    thread.join(30)
    assert gone("4343.5"), "the build's processes outlived its marked process"
    assert failed and not output_folder(manifest).exists()


@pytest.mark.parametrize(("target", "words"), [
    ("/etc/passwd", "'leak' is a link to an absolute path"),
    ("../../../etc/passwd", "'leak' would link to"),
])
def test_a_link_out_of_the_build_output_is_refused(tmp_path: Path, target: str, words: str) -> None:
    manifest = read_manifest(hostile(tmp_path / "p", f"ln -s {target} leak; {MAKE_RUN}"))
    with pytest.raises(BuildError) as caught:
        ensure_built(manifest)
    assert str(caught.value).startswith("program 'hostile-build': the build's output was refused: " + words), \
        caught.value
    assert not output_folder(manifest).exists()


def test_a_build_output_over_its_bound_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A sparse file costs the build nothing and would cost the cache its whole size."""
    monkeypatch.setattr(build, "OUTPUT_BYTES_MAX", 1 << 20)
    script = f"python3 -c \"f = open('sparse', 'wb'); f.seek(50 << 20); f.write(b'x')\"; {MAKE_RUN}"
    manifest = read_manifest(hostile(tmp_path / "p", script))
    with pytest.raises(BuildError, match=r"the build's output was refused: it holds more than 1 MiB$"):
        ensure_built(manifest)
    assert not output_folder(manifest).exists()


def test_a_build_cannot_write_a_file_past_the_output_bound(tmp_path: Path) -> None:
    script = "python3 -c \"import os; os.pwrite(os.open('sparse', os.O_WRONLY | os.O_CREAT), b'x', 1 << 40)\""
    with pytest.raises(BuildError, match=r"File too large"):
        ensure_built(read_manifest(hostile(tmp_path / "p", script)))


def test_a_build_reads_the_cargo_tools_but_not_the_cargo_credentials(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    cargo = tmp_path / "cargo"
    (cargo / "bin").mkdir(parents=True)
    (cargo / "bin" / "tool").write_text("a tool\n")
    (cargo / "credentials.toml").write_text("[registry]\ntoken = \"secret\"\n")
    monkeypatch.setenv("CARGO_HOME", str(cargo))
    script = f"cat {cargo}/bin/tool > seen && cat {cargo}/credentials.toml >> seen && {MAKE_RUN}"
    with pytest.raises(BuildError, match=r"credentials.toml: (Permission denied|No such file)"):
        ensure_built(read_manifest(hostile(tmp_path / "p", script)))
    manifest = read_manifest(hostile(tmp_path / "q", f"cat {cargo}/bin/tool > seen; {MAKE_RUN}"))
    assert (ensure_built(manifest) / "seen").read_text() == "a tool\n"


@pytest.mark.parametrize("path", ["/etc/shadow", "/etc/hostname", "/etc/ssl/private"])
def test_a_build_reads_only_what_toolchains_need_of_etc(tmp_path: Path, path: str) -> None:
    # A build runs as the server's user: as root it read /etc/shadow and quoted it back in its error. The
    # world-readable /etc/hostname stands for every file of /etc that no toolchain needs.
    if not os.path.exists(path):
        pytest.skip(f"{path} is not on this machine")
    script = f"ls {path} > seen 2>&1 || cat {path} > seen; cat {path} >> seen && {MAKE_RUN}"
    with pytest.raises(BuildError, match=r"(Permission denied|Is a directory)"):
        ensure_built(read_manifest(hostile(tmp_path / "p", script)))


def test_a_build_lists_no_folder_of_etc_but_reads_the_linker_cache(tmp_path: Path) -> None:
    script = f"cat /etc/ld.so.cache > /dev/null && ! ls /etc > /dev/null 2>&1 && {MAKE_RUN}"
    assert (ensure_built(read_manifest(hostile(tmp_path / "p", script))) / "run.sh").exists()


def test_a_link_out_of_the_program_folder_is_refused_before_any_build(tmp_path: Path) -> None:
    folder = hostile(tmp_path / "p", f"cat secret > copy; {MAKE_RUN}")
    (folder / "secret").symlink_to("/etc/passwd")
    with pytest.raises(BuildError, match=r"secret links out of the plugin's folder \(to /etc/passwd\)"):
        ensure_built(read_manifest(folder))


def test_a_build_over_its_memory_is_stopped_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.sandbox import cgroups

    if "memory" not in cgroups.find().bases:
        pytest.skip("no memory cgroup here: a build's memory is bounded by its folder's size only")
    monkeypatch.setattr(build, "BUILD_MEMORY_MB", 160)  # the build process's own Python takes some 40 MB
    script = f"python3 -c \"b = bytearray(400 << 20); b[::4096] = b'x' * len(b[::4096])\"; {MAKE_RUN}"
    manifest = read_manifest(hostile(tmp_path / "p", script))
    with pytest.raises(BuildError, match=r"the build ran out of memory: it may use 160 MB, its files included"):
        ensure_built(manifest)
    assert not output_folder(manifest).exists()
