"""The freezer as the referee uses it between turns: a group's freezer kept open, and the group that holds the
v1 freezer's switch on (``arena.sandbox.cgroups.Freezer``, ``hold_freezing``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from arena.sandbox import cgroups, lease


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of process ``pid``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_a_frozen_group_gets_no_cpu_and_a_thawed_one_does() -> None:
    if "freezer" not in cgroups.find().bases:
        pytest.skip("no cgroup freezer this process may use (it needs root or a delegated v2 subtree)")
    owner = lease.current()
    for base in set(cgroups.find().bases.values()):
        owner.note("groups", base)
    groups = cgroups.create(owner.prefix, "freezer-test", 64, 1.0, 16)
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    folder = cgroups.freezer(groups)
    assert folder is not None
    freezer = cgroups.Freezer(folder)
    try:
        cgroups.move(groups, spinner.pid)
        freezer.set(True)
        before = cpu_seconds(spinner.pid)
        time.sleep(0.3)
        assert cpu_seconds(spinner.pid) - before < 0.02
        freezer.set(False)
        before = cpu_seconds(spinner.pid)
        time.sleep(0.3)
        assert cpu_seconds(spinner.pid) - before > 0.05  # it runs again: thawing took
    finally:
        freezer.set(False)
        spinner.kill()
        spinner.wait()
        freezer.close()
        cgroups.remove(groups)


HOLDER = textwrap.dedent('''
    import json, os, sys
    from arena.sandbox import cgroups, lease, seat
    owner = lease.current()
    for base in set(cgroups.find().bases.values()):
        owner.note("groups", base)
    seat._hold_freezing(owner.prefix)
    print(json.dumps(seat._holding[os.getpid()]), flush=True)
    sys.stdin.readline()  # the test looks at the group, then lets this process exit normally
''')


def test_the_group_holding_the_freezer_on_is_empty_frozen_and_gone_at_exit() -> None:
    hierarchy = cgroups.find()
    if hierarchy.version != "v1" or "freezer" not in hierarchy.bases:
        pytest.skip("no cgroup v1 freezer this process may use")
    holder = subprocess.Popen([sys.executable, "-c", HOLDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    assert holder.stdout is not None and holder.stdin is not None
    try:
        folder = json.loads(holder.stdout.readline())
        assert folder is not None and os.path.dirname(folder) == hierarchy.bases["freezer"]
        assert os.path.basename(folder).startswith("arena-") and folder.endswith("-freezing")
        assert Path(folder, "freezer.state").read_text().strip() == "FROZEN"
        assert cgroups.processes([folder]) == set()  # it freezes nothing
        holder.stdin.write("\n")
        holder.stdin.flush()
        assert holder.wait(timeout=30) == 0
        assert not os.path.exists(folder)
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
