"""Processes a test saw started and must see end: a parent's children, and which outlive a time."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Sequence
from pathlib import Path

from tests.sandbox.test_lease import alive


def children(parent: int) -> list[int]:
    """The live processes whose parent is ``parent``."""
    found = []
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            fields = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == parent and fields[0] != "Z":
            found.append(int(name))
    return found


def outliving(pids: Sequence[int], seconds: float = 10.0) -> list[int]:
    """Those of ``pids`` still running after ``seconds``, killed then, so that a failing test leaves none behind."""
    deadline = time.monotonic() + seconds
    while (left := [pid for pid in pids if alive(pid)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return left
