"""The same API as a user without root (a child that dropped to uid 65534): what still holds there.

Without root no cgroup can be made here, so the level is "partial": memory is
bounded per process (RLIMIT_AS), freezing is the init's SIGSTOP to its
namespace, and the file system, network, signals and leftovers are held as
with root.
"""

from __future__ import annotations

import gc
import os
import signal
import socket
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from sandbox_helpers import as_unprivileged, in_seat, probe_all, run_seat, wait_for
from test_seat_hostile import fork_until_refused

from arena import sandbox
from arena.sandbox import Policy, SeatBox, probe

READ_PATHS = sandbox.default_read_paths()
"""Found as root: the unprivileged user cannot even look for them where root's home is private."""


@pytest.fixture(scope="module", autouse=True)
def _needs_root_to_drop() -> None:
    if os.geteuid() != 0:
        pytest.skip("dropping to another user needs root; as a user without root, the other sandbox tests "
                    "already run unprivileged (run 'arena doctor' to see the level)")
    if not probe().user_namespaces or probe().landlock_abi < 6:
        pytest.skip("this kernel lacks user namespaces or Landlock ABI 6; run 'arena doctor'")


def _in_seat(body: Any, policy: Policy | None = None, **options: Any) -> dict[str, Any]:
    root = tempfile.mkdtemp(prefix="arena-unprivileged-")  # made by the unprivileged user itself
    run = run_seat(body, root, policy=policy or Policy(READ_PATHS, memory_mb=256), **options)
    os.rmdir(root)
    return {"capabilities": probe().to_json(), "level": run.level, "box_level": run.box.level if run.box else None,
            "output": run.output.decode(), "zygote_reap": run.zygote_reap, "referee_reap": run.referee_reap,
            "temp_dir_left": bool(run.box and os.path.exists(run.box.temp_dir)), "error": run.zygote_error}


def test_probe_and_the_hostile_basics_without_root(tmp_path: Path) -> None:
    shared = Path(tempfile.mkdtemp(prefix="arena-store-"))  # readable by anyone: only the sandbox stops it
    shared.chmod(0o755)
    secret = shared / "results.sqlite"
    secret.write_text("secret")
    secret.chmod(0o644)
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    me = os.getpid()

    def body(out: int) -> int:
        return probe_all(out, {
            "store": lambda: secret.read_text(),
            "write_outside": lambda: Path("/tmp", f"arena-planted-{me}").write_text("x"),
            "write_own": lambda: Path(os.environ["TMPDIR"], "own").write_text("ok"),
            "tcp": lambda: socket.create_connection(("127.0.0.1", port), timeout=2),
            "signal": lambda: os.kill(me, signal.SIGTERM),
            "proc_list": lambda: os.listdir("/proc"),
            "pid": lambda: os.getpid(),
        })

    try:
        result = as_unprivileged(lambda: _in_seat(body))
    finally:
        listener.close()
        secret.unlink()
        shared.rmdir()
    assert not result.get("error"), result.get("error")
    capabilities = result["capabilities"]
    assert capabilities["root"] is False and capabilities["cgroups"] == "none"
    assert capabilities["memory_limit"] is False and capabilities["freezer"] is False
    assert capabilities["level"] == "partial" and result["level"] == "partial" and result["box_level"] == "partial"
    seen = __import__("json").loads(result["output"])
    for attempt in ("store", "write_outside", "tcp", "signal", "proc_list"):
        assert not seen[attempt].startswith("ok"), f"{attempt}: {seen[attempt]}"
    assert seen["write_own"] == "ok 2" and seen["pid"] == "ok 2"
    assert not os.path.exists(f"/tmp/arena-planted-{me}")
    assert result["temp_dir_left"] is False
    assert result["zygote_reap"] == {"exit": 0, "maxrss_kb": result["zygote_reap"]["maxrss_kb"],
                                     "memory_exceeded": False}


def test_confine_full_is_refused_without_root() -> None:
    def attempt() -> dict[str, Any]:
        try:
            sandbox.confine(Policy((), memory_mb=64), require="full")
        except sandbox.SandboxError as error:
            return {"refused": str(error)}
        return {"refused": ""}

    message = as_unprivileged(attempt)["refused"]
    assert "a cgroup memory controller the arena may use" in message and "run 'arena doctor'" in message


def test_freeze_and_double_fork_without_cgroups() -> None:
    counts: list[int] = []

    def body(out: int) -> int:
        path = os.path.join(os.environ["TMPDIR"], "count")
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:  # a double-forked grandchild does the counting, holding the pipe
                fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
                count = 0
                while True:
                    count += 1
                    os.pwrite(fd, count.to_bytes(8, "little"), 0)
            os._exit(0)
        while True:
            time.sleep(1)

    def during(box: SeatBox) -> None:
        path = in_seat(box, "count")

        def count() -> int:
            try:
                return int.from_bytes(path.read_bytes()[:8] or b"\0", "little")
            except OSError:
                return 0

        assert wait_for(lambda: count() > 0)
        sandbox.freeze(box)
        counts.append(count())
        time.sleep(0.3)  # room to make progress, if it could
        counts.append(count())
        sandbox.thaw(box)
        assert wait_for(lambda: count() > counts[-1])
        counts.append(count())

    def work() -> dict[str, Any]:
        result = _in_seat(body, during=during, kill_after=0.0)
        return result | {"counts": counts}

    result = as_unprivileged(work)
    assert not result.get("error"), result.get("error")
    frozen, later, thawed = result["counts"]
    assert frozen == later < thawed, "SIGSTOP from the init stops the double-forked grandchild too"
    assert result["output"] == "", "no process of the seat outlived reap"
    assert result["temp_dir_left"] is False


def test_memory_bound_per_process_without_cgroups() -> None:
    policy = Policy(READ_PATHS, memory_mb=64, label="memory")

    def body(out: int) -> int:
        return probe_all(out, {"allocate_past": lambda: len(bytearray(b"\1") * (256 << 20)),
                               "allocate_under": lambda: len(bytearray(b"\1") * (16 << 20))})

    def collected_then_in_seat() -> dict[str, Any]:
        # The bound is the forking process's size plus memory_mb. Here that process is this test's (a pytest-xdist
        # worker after hundreds of tests), whose garbage the seat may free after the fork, widening the bound by as
        # much (a real zygote is a fresh process): collect it first, and ask for four times the bound.
        gc.collect()
        return _in_seat(body, policy=policy)

    result = as_unprivileged(collected_then_in_seat)
    seen = __import__("json").loads(result["output"])
    assert seen["allocate_past"].startswith("MemoryError")
    assert seen["allocate_under"] == f"ok {16 << 20}"
    assert result["referee_reap"]["memory_exceeded"] is False  # no group to tell


def test_process_count_bounded_without_cgroups() -> None:
    policy = Policy(READ_PATHS, memory_mb=256, max_processes=16)
    result = as_unprivileged(lambda: _in_seat(fork_until_refused, policy=policy))
    made = int(result["output"])
    assert 0 < made < 16, "RLIMIT_NPROC, counted in the zygote's user namespace, bounds the seat"
