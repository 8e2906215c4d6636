"""Access times: a seat's reads move no file's access time, so they can carry nothing between seats or matches.

Under ``relatime`` the first read of a file after a change (or after a day) moves its access time, and a seat
may ``stat`` any path: one seat marked its dealt cards by reading one file per card and another (or a later
match of the same plugin) read them back.  Each file's access time is set a few days back first, so that a
read would move it on any atime mode but ``noatime``.
"""

from __future__ import annotations

import json
import os
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

import pytest
from sandbox_helpers import as_unprivileged, in_child, need, probe_all, run_seat

from arena import sandbox
from arena.sandbox import Policy, confinement, kernel, mounts, probe

PAST = 1_600_000_000.0
"""September 2020: older than any mtime a test file has, so relatime would move it on the next read."""


def _set_past(paths: list[Path]) -> dict[Path, float]:
    """Set each path's access time to ``PAST`` (keeping its modification time); the old access times."""
    old = {}
    for path in paths:
        stat = path.stat()
        old[path] = stat.st_atime
        os.utime(path, (PAST, stat.st_mtime))
    return old


def _restore(old: dict[Path, float]) -> None:
    for path, atime in old.items():
        os.utime(path, (atime, path.stat().st_mtime))


def _noatime(path: Path) -> bool:
    """Whether the file system at ``path`` moves no access time at all (then these tests prove nothing)."""
    probe_file = path / "probe"
    probe_file.write_text("x")
    os.utime(probe_file, (PAST, probe_file.stat().st_mtime))
    probe_file.read_text()
    moved = probe_file.stat().st_atime != PAST
    probe_file.unlink()
    return not moved


@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    """A plugin folder with marker files (under /tmp: the seat sees it through a bind under the hidden /tmp)."""
    folder = tmp_path / "plugin"
    folder.mkdir()
    for index in range(16):
        (folder / f"mark{index:02d}.txt").write_text(f"marker {index}\n")
    if _noatime(folder):
        pytest.skip("this file system moves no access time (noatime): there is no channel to close")
    return folder


def _read(paths: list[str]) -> int:
    total = 0
    for path in paths:
        if os.path.isdir(path):
            total += len(os.listdir(path))  # reading a folder moves its access time too
        else:
            with open(path, "rb") as file:
                total += len(file.read())
    return total


def test_a_seat_reads_files_but_moves_no_access_time(plugin: Path, tmp_path: Path) -> None:
    need()
    stdlib = Path(sysconfig.get_paths()["stdlib"], "this.py")  # read by "import this" alone
    targets = [plugin / "mark00.txt", plugin, stdlib]
    root = tmp_path / "sandbox"
    root.mkdir()
    old = _set_past(targets)
    try:
        run = run_seat(lambda out: probe_all(out, {
            "read": lambda: _read([str(path) for path in targets]) > 0,
            "seen": lambda: [os.stat(path).st_atime for path in targets],
            "read_only": lambda: confinement.current.read_only if confinement.current else None,
        }), str(root), policy=Policy(sandbox.default_read_paths(str(plugin)), memory_mb=256, label="atime"))
        results = run.results()
        after = {str(path): path.stat().st_atime for path in targets}
    finally:
        _restore(old)
    assert results == {"read": "ok True", "seen": f"ok {[PAST] * len(targets)!r}", "read_only": "ok True"}
    assert after == {str(path): PAST for path in targets}


def test_no_hand_passes_from_one_seat_to_another_in_access_times(plugin: Path, tmp_path: Path) -> None:
    """The red team's channel: a sender reads the marker files of its cards; a receiver, in a zygote started
    later (another plugin, or the same plugin in a later match), reads back which were read."""
    need()
    markers = sorted(str(path) for path in plugin.glob("mark*.txt"))
    hand = [1, 4, 5, 9, 12, 14]
    policy = Policy(sandbox.default_read_paths(str(plugin)), memory_mb=256, label="atime")
    old = _set_past([Path(path) for path in markers])
    try:
        sender = run_seat(lambda out: probe_all(out, {"marked": lambda: _read([markers[card] for card in hand])}),
                          str(_folder(tmp_path, "sender")), policy=policy)
        receiver = run_seat(lambda out: probe_all(out, {
            "hand": lambda: [index for index, path in enumerate(markers) if os.stat(path).st_atime != PAST]}),
            str(_folder(tmp_path, "receiver")), policy=policy)
    finally:
        _restore(old)
    assert sender.results() == {"marked": f"ok {sum(len(f'marker {card}') + 1 for card in hand)}"}
    assert receiver.results() == {"hand": "ok []"}


def _folder(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    return folder


def test_without_root_a_seat_moves_no_access_time(plugin: Path) -> None:
    """As a user without root (uid 65534, in a user namespace of its own): adding read-only to the host's
    mounts, whose other flags are locked there, is still allowed."""
    need()
    if os.geteuid() != 0:
        pytest.skip("dropping to another user needs root; the test above already runs unprivileged")
    shared = Path(tempfile.mkdtemp(prefix="arena-atime-"))  # readable by anyone: only the mounts stop the mark
    shared.chmod(0o755)
    marker = shared / "mark.txt"
    marker.write_text("marker\n")
    marker.chmod(0o644)
    read_paths = sandbox.default_read_paths(str(shared))
    old = _set_past([marker])

    def work() -> dict[str, Any]:
        root = tempfile.mkdtemp(prefix="arena-unprivileged-")
        run = run_seat(lambda out: probe_all(out, {
            "read": lambda: marker.read_text(),
            "read_only": lambda: confinement.current.read_only if confinement.current else None,
        }), root, policy=Policy(read_paths, memory_mb=256))
        os.rmdir(root)
        return {"level": run.level, "output": run.output.decode(), "error": run.zygote_error}

    try:
        result = as_unprivileged(work)
        after = marker.stat().st_atime
    finally:
        _restore(old)
        marker.unlink()
        shared.rmdir()
    assert result["error"] == "" and result["level"] == "partial", result
    assert json.loads(result["output"]) == {"read": "ok 'marker\\n'", "read_only": "ok True"}
    assert after == PAST


def _remount_child(marker: Path, writable: Path) -> dict[str, Any]:
    """In a fresh user and mount namespace: the remount fallback, then a read, a write and a refused write."""
    uid, gid = os.geteuid(), os.getegid()
    kernel.unshare(kernel.CLONE_NEWUSER | kernel.CLONE_NEWNS)
    for name, text in (("setgroups", "deny"), ("uid_map", f"0 {uid} 1"), ("gid_map", f"0 {gid} 1")):
        with open(f"/proc/self/{name}", "w") as file:
            file.write(text)
    kernel.mount(None, "/", None, kernel.MS_REC | kernel.MS_PRIVATE)
    kernel.mount("tmpfs", str(writable), "tmpfs", kernel.MS_NOSUID | kernel.MS_NODEV, "size=1m")
    result: dict[str, Any] = {"all": mounts.remount_each_except(str(writable)), "read": marker.read_text()}
    (writable / "kept.txt").write_text("ok")
    result["written"] = (writable / "kept.txt").read_text()
    try:
        (marker.parent / "other.txt").write_text("no")
        result["refused"] = "written"
    except OSError as error:
        result["refused"] = error.strerror
    return result


def test_the_remount_fallback_leaves_only_the_temporary_folder_writable(plugin: Path, tmp_path: Path) -> None:
    """Where the kernel lacks mount_setattr (before 5.12), each mount is remounted read-only from mountinfo."""
    if not probe().user_namespaces or not kernel.supported():
        pytest.skip("this machine has no user namespaces: run 'arena doctor'")
    marker = plugin / "mark00.txt"
    writable = _folder(tmp_path, "writable")
    old = _set_past([marker])
    result = in_child(lambda: _remount_child(marker, writable))
    try:
        after = marker.stat().st_atime
    finally:
        _restore(old)
    assert result == {"all": True, "read": "marker 0\n", "written": "ok",
                                "refused": "Read-only file system"}
    assert after == PAST
    assert not (plugin / "other.txt").exists()
