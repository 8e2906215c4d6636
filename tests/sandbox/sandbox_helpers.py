"""A referee and a zygote in miniature, to run one hostile body inside a seat and report what happened.

``run_seat(body)`` forks a zygote that calls ``confine`` and ``spawn_seat``; this
process plays the referee (``place``, optional actions while the seat runs,
``reap``).  The body runs in the seat as ``body(out_fd)``: whatever it writes
to ``out_fd`` comes back as ``SeatRun.output``, and end of file on that pipe
means every process holding it (the seat's whole tree) is gone.
"""

from __future__ import annotations

import json
import os
import select
import socket
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from arena import sandbox
from arena.sandbox import Policy, SeatBox, cgroups, probe
from arena.sandbox.capabilities import LEVELS

LONG_WAIT = 20.0
"""Longest wait for a seat that should end on its own (never reached when the test passes)."""


def in_seat(box: SeatBox, name: str) -> Path:
    """The path of file ``name`` in the seat's folder as the seat sees it (its folder is in the sandbox's own
    memory-backed temp_root, out of the host's sight), read through the seat init's root."""
    return Path(f"/proc/{box.pid}/root{box.temp_dir}", name)


def need(level: str = "full", landlock_abi: int = 1) -> sandbox.Capabilities:
    """Skip unless this machine offers ``level`` and Landlock ``landlock_abi``, telling the user what to run."""
    capabilities = probe()
    if LEVELS.index(capabilities.level) < LEVELS.index(level) \
            or capabilities.landlock_abi < landlock_abi:
        pytest.skip(f"this machine offers the {capabilities.level} sandbox with Landlock ABI "
                    f"{capabilities.landlock_abi}; the test needs {level} and ABI {landlock_abi}: "
                    "run 'arena doctor' to see what is missing")
    return capabilities


@dataclass
class SeatRun:
    """What one seat did: its output, both reaps, its box and whether its tree died at reap."""

    output: bytes = b""
    box: SeatBox | None = None
    referee_reap: dict[str, Any] = field(default_factory=dict)
    zygote_reap: dict[str, Any] = field(default_factory=dict)
    level: str = ""
    zygote_error: str = ""

    def results(self) -> dict[str, str]:
        """The output as the JSON object ``probe_all`` writes."""
        return json.loads(self.output.decode())


def _zygote(control: socket.socket, body: Callable[[int], int], policy: Policy, temp_root: str, require: str,
            placement: socket.socket | None) -> None:
    level = sandbox.confine(policy, temp_root=temp_root, require=require)
    read, write = os.pipe()
    keep = [write] if placement is None else [write, placement.fileno()]
    box = sandbox.spawn_seat(lambda: body(write), policy, keep, await_placement=True,
                             placement=None if placement is None else placement.fileno())
    os.close(write)
    if placement is not None:
        placement.close()
    control.send(json.dumps({"box": box.to_json(), "level": level}).encode())
    output = b""
    while chunk := os.read(read, 1 << 16):  # end of file: no process of the seat holds the pipe any more
        output += chunk
    os.waitid(os.P_PID, box.pid, os.WEXITED | os.WNOWAIT)  # the seat's own end, not our reap, decides its status
    control.send(output[:60000] or b" ")
    control.recv(16)  # the referee says when to reap
    control.send(json.dumps(sandbox.reap(box)).encode())


def run_seat(body: Callable[[int], int], temp_root: str, *, policy: Policy | None = None,
             during: Callable[[SeatBox], None] | None = None, kill_after: float | None = None,
             require: str = "partial", join: str = "") -> SeatRun:
    """Run ``body`` in a seat of a fresh confined zygote; ``during(box)`` runs here while the seat does.

    With ``kill_after`` the referee reaps the seat that many seconds after
    ``during`` returns, whether or not it has ended; else it waits for the end.
    ``join`` "both": the seat is spawned with a placement socket and placed
    with its other end (the init joins its groups itself, as in a match);
    "referee": only placed with one, so that nobody reads the groups sent.
    """
    policy = policy or Policy(sandbox.default_read_paths(), memory_mb=256, label="test")
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    channel, placement = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM) if join else (None, None)
    pid = os.fork()
    if pid == 0:
        ours.close()
        try:
            if channel is not None:
                channel.close()
            _zygote(theirs, body, policy, temp_root, require, placement if join == "both" else None)
        except BaseException:
            try:
                theirs.send(json.dumps({"error": traceback.format_exc()}).encode())
            except OSError:
                pass
        finally:
            os._exit(0)
    theirs.close()
    if placement is not None:
        placement.close()
    run = SeatRun()
    try:
        started = json.loads(ours.recv(1 << 16))
        if "error" in started:
            run.zygote_error = started["error"]
            return run
        run.level = started["level"]
        run.box = sandbox.place(SeatBox.from_json(started["box"]), policy, parent=pid, temp_root=temp_root,
                                channel=channel)
        if during is not None:
            during(run.box)
        ready = select.select([ours], [], [], LONG_WAIT if kill_after is None else kill_after)[0]
        if ready:
            run.output = ours.recv(1 << 16).strip()
        run.referee_reap = sandbox.reap(run.box)
        if not ready:
            run.output = ours.recv(1 << 16).strip()  # the reap ended the tree, so the pipe is closed
        ours.send(b"reap")
        run.zygote_reap = json.loads(ours.recv(1 << 16))
    finally:
        ours.close()
        if channel is not None:
            channel.close()
        os.waitpid(pid, 0)
    return run


def probe_all(out: int, attempts: dict[str, Callable[[], object]]) -> int:
    """Try each attempt; write ``{name: "ok ..." or "ERRNAME ..."}`` as JSON to ``out``."""
    results = {}
    for name, attempt in attempts.items():
        try:
            results[name] = f"ok {attempt()!r}"[:200]
        except BaseException as error:  # the attempt failing is what the tests want to see
            results[name] = f"{type(error).__name__} {error}"[:200]
    os.write(out, json.dumps(results).encode())
    return 0


def as_unprivileged(work: Callable[[], dict[str, Any]], uid: int = 65534) -> dict[str, Any]:
    """Run ``work()`` in a child that has dropped root for ``uid`` (fresh probe); its JSON result."""

    def unprivileged() -> dict[str, Any]:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        probe.cache_clear()
        cgroups.find.cache_clear()
        return work()

    return in_child(unprivileged)


def in_child(work: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run ``work()`` in a forked child (whatever it confines or drops stays there); its JSON result, or
    ``{"error": traceback}``."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        result: dict[str, Any]
        try:
            result = work()
        except BaseException:
            result = {"error": traceback.format_exc()}
        os.write(write, json.dumps(result).encode())
        os._exit(0)
    os.close(write)
    data = b""
    while chunk := os.read(read, 1 << 16):
        data += chunk
    os.close(read)
    os.waitpid(pid, 0)
    return json.loads(data)


def wait_for(predicate: Callable[[], bool], timeout: float = LONG_WAIT) -> bool:
    """Poll ``predicate`` until it holds or ``timeout`` passes (for events, not for measuring time)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.005)
    return False
