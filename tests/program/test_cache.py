"""The build cache stays bounded (least recently used first, never a build in use), and ``arena doctor`` lists it
and with --clean removes superseded builds."""

from __future__ import annotations

import contextlib
import io
import json
import os
import time
from pathlib import Path

import pytest

from arena.cli import main
from arena.program import cache
from arena.program.build import CACHE_ENV

HOUR = 3600.0


def make_build(root: Path, name: str, key: str, size: int, used: float) -> Path:
    """A cached build of ``size`` bytes, last used at ``used``."""
    folder = root / f"{name}-{key * 24}"
    folder.mkdir(parents=True)
    (folder / "agent").write_bytes(b"x" * size)
    (root / f"{folder.name}.lock").write_text("")
    os.utime(folder, (used, used))
    return folder


def test_pruning_removes_the_least_recently_used_until_under_the_bound(tmp_path: Path) -> None:
    now = time.time()
    oldest = make_build(tmp_path, "a", "1", 40_000, now - 3 * HOUR)
    older = make_build(tmp_path, "b", "2", 40_000, now - 2 * HOUR)
    recent = make_build(tmp_path, "c", "3", 40_000, now - HOUR)
    in_use = make_build(tmp_path, "d", "4", 40_000, now - 60)
    removed = cache.prune(tmp_path, bound=90_000, now=now)
    assert [build.path for build in removed] == [oldest, older]
    assert not oldest.exists() and not (tmp_path / f"{oldest.name}.lock").exists()
    assert recent.is_dir() and in_use.is_dir()
    # A build used in the last ten minutes stays, even over the bound.
    assert [build.path for build in cache.prune(tmp_path, bound=0, now=now)] == [recent]
    assert in_use.is_dir()


def test_pruning_removes_what_killed_builds_left_and_old_logs(tmp_path: Path) -> None:
    now = time.time()
    killed = tmp_path / f"a-{'1' * 24}.x1.partial"
    under_way = tmp_path / f"a-{'2' * 24}.x2.partial"
    for folder, age in ((killed, 2 * HOUR), (under_way, 60)):
        folder.mkdir()
        os.utime(folder, (now - age, now - age))
    old_log, new_log = tmp_path / f"a-{'3' * 24}.log", tmp_path / f"a-{'4' * 24}.log"
    for log, age in ((old_log, 25 * HOUR), (new_log, HOUR)):
        log.write_text("error: here\n")
        os.utime(log, (now - age, now - age))
    cache.prune(tmp_path, now=now)
    assert not killed.exists() and under_way.is_dir()
    assert not old_log.exists() and new_log.exists()
    cache.clean(tmp_path, now=now)
    assert not new_log.exists()


def doctor(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(["doctor", *args])
    return status, out.getvalue()


def test_doctor_lists_the_cache_and_cleans_superseded_builds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    now = time.time()
    first = make_build(tmp_path, "kit", "1", 3 << 20, now - 2 * HOUR)
    second = make_build(tmp_path, "kit", "2", 1 << 20, now - HOUR)
    other = make_build(tmp_path, "other", "3", 1 << 20, now - 3 * HOUR)
    status, text = doctor()
    assert status == 0
    assert f"build cache of agent programs: {tmp_path}: 3 builds, 5.0 MiB (kept under 8 GiB)" in text
    assert f"  kit: 3.0 MiB, last used {time.strftime('%Y-%m-%d %H:%M', time.localtime(now - 2 * HOUR))}, " \
           f"superseded  {first}" in text
    assert "remove superseded builds with 'arena doctor --clean'" in text
    status, text = doctor("--clean", "--json")
    report = json.loads(text)["build_cache"]
    assert status == 0 and report["removed"] == [{"name": "kit", "path": str(first), "bytes": 3 << 20}]
    assert [entry["path"] for entry in report["builds"]] == [str(other), str(second)]
    assert not first.exists() and second.is_dir() and other.is_dir()
