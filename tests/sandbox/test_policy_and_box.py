"""Policy, SeatBox and default_read_paths: validation, JSON round trips, and what is never readable."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from arena import sandbox
from arena.sandbox import Policy, SeatBox


def test_policy_round_trips_and_rejects_nonsense() -> None:
    policy = Policy(("/usr/lib",), memory_mb=64, cpus=0.5, label="x", max_processes=8)
    assert Policy.from_json(policy.to_json()) == policy
    for bad, message in (({"memory_mb": 2**63}, "memory_mb"), ({"memory_mb": True}, "memory_mb"),
                         ({"cpus": float("nan")}, "cpus"), ({"cpus": 0}, "cpus"), ({"max_processes": 1}, "max_processes")):
        with pytest.raises(ValueError, match=message):
            Policy(("/usr/lib",), **{"memory_mb": 64, **bad})  # type: ignore[arg-type]  # bad on purpose
    with pytest.raises(ValueError, match="read_paths"):
        Policy("/usr/lib", memory_mb=64)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown policy field 'root'"):
        Policy.from_json({"read_paths": [], "memory_mb": None, "root": True})


def test_seat_box_from_json_takes_only_a_box() -> None:
    box = SeatBox(pid=42, group=None, temp_dir="/tmp/x/seat-1", level="full")
    assert SeatBox.from_json(box.to_json()) == box
    for bad in ({"pid": -1}, {"pid": True}, {"temp_dir": "relative"}, {"level": "root"}, {"group": 3}):
        with pytest.raises(ValueError):
            SeatBox.from_json({**box.to_json(), **bad})


def test_default_read_paths_hold_the_code_and_never_the_working_directory(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "leaderboards" / "t").mkdir(parents=True)
    plugin = tmp_path / "plugin"
    plugin.mkdir()
    monkeypatch.chdir(tmp_path)
    paths = sandbox.default_read_paths(str(plugin), str(tmp_path), str(tmp_path / "leaderboards" / "t"))
    assert str(plugin) in paths, "an extra folder inside the working directory is fine"
    assert str(tmp_path) not in paths and not any(p.endswith("leaderboards") or "leaderboards/" in p
                                                   for p in paths)
    assert os.path.dirname(os.path.dirname(sandbox.__file__)) in paths, "arena's own sources"
    assert os.path.dirname(os.__file__) in paths, "the standard library"
    assert not any(Path(tmp_path).is_relative_to(p) for p in paths), "no folder holding the working directory"


def test_spawn_seat_needs_confine_and_confine_needs_one_thread() -> None:
    policy = Policy((), memory_mb=64)
    with pytest.raises(sandbox.SandboxError, match="call confine"):
        sandbox.spawn_seat(lambda: 0, policy, [])
    with pytest.raises(ValueError, match="sandbox level must be one of"):
        sandbox.confine(policy, require="total")

    def attempt() -> dict[str, str]:  # in a child: were confine to succeed, this process would stay confined
        stop = threading.Event()
        worker = threading.Thread(target=stop.wait)
        worker.start()
        try:
            sandbox.confine(policy, require="none")
        except sandbox.SandboxError as error:
            return {"refused": str(error)}
        finally:
            stop.set()
            worker.join()
        return {"refused": ""}

    assert "single-threaded" in in_child(attempt)["refused"]


def in_child(work: Callable[[], dict[str, str]]) -> dict[str, str]:
    """``work()`` run in a forked child; its JSON result."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.write(write, json.dumps(work()).encode())
        finally:
            os._exit(0)
    os.close(write)
    data = os.read(read, 1 << 16)
    os.close(read)
    os.waitpid(pid, 0)
    return json.loads(data)
