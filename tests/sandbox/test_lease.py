"""Leases: whatever a process made for third-party code goes when it dies, however it dies, and never before.

Each test starts an owner process that takes a lease and makes what a referee makes (a marked process
standing for a zygote, a temporary folder, a seat group frozen with a process in it), then kills it
with SIGKILL and looks for what is left: the janitor must remove it all within seconds; with the
janitor killed too, the next sweep must; and a sweep must never touch the lease of a live process.
"""

from __future__ import annotations

import glob
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.sandbox import cgroups, lease, leftovers

OWNER = textwrap.dedent('''
    import json, os, subprocess, sys, time
    from arena.sandbox import cgroups, lease
    owner = lease.current()
    folder = owner.temp_folder("zygote")
    marked = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", *owner.mark],
                              start_new_session=True)
    groups, frozen = [], None
    if sys.argv[1] == "groups" and cgroups.find().bases:
        for base in set(cgroups.find().bases.values()):
            owner.note("groups", base)
        groups = cgroups.create(owner.prefix, "seat0-test", 64, 1.0, 16)
        frozen = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"], start_new_session=True)
        cgroups.move(groups, frozen.pid)
        cgroups.set_frozen(cgroups.freezer(groups), True)
    print(json.dumps({"token": owner.token, "lease": owner.path, "folder": folder, "marked": marked.pid,
                      "groups": groups, "frozen": frozen.pid if frozen else None}), flush=True)
    time.sleep(120)
''')


def alive(pid: int | None) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    if pid is None:
        return False
    try:
        with open(f"/proc/{pid}/stat") as stat:
            text = stat.read()
    except OSError:
        return False
    return text[text.rindex(")") + 2] != "Z"


def janitor_of(token: str, seconds: float = 5.0) -> int | None:
    """The pid of the janitor holding lease ``token``'s file open (it names itself once started: waited for)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/comm") as comm:
                    if comm.read().strip() != "arena-janitor":
                        continue
                if any(os.readlink(f"/proc/{name}/fd/{fd}").endswith(f"{token}{lease.SUFFIX}")
                       for fd in os.listdir(f"/proc/{name}/fd")):
                    return int(name)
            except OSError:
                continue
        time.sleep(0.05)
    return None


def left(made: dict) -> list[str]:
    """What is left of what the owner made."""
    found = [f"process {pid}" for pid in (made["marked"], made["frozen"]) if alive(pid)]
    found += [path for path in (made["folder"], made["lease"], *made["groups"]) if os.path.lexists(path)]
    return found


def gone_within(made: dict, seconds: float) -> list[str]:
    """Poll until nothing of what the owner made is left, at most ``seconds``; what is left then."""
    deadline = time.monotonic() + seconds
    while (remaining := left(made)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return remaining


@pytest.fixture(autouse=True)
def private_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A temporary folder of the test's own, and so a leases folder no other arena process on the machine
    sweeps meanwhile (every arena command sweeps what it finds in the shared one)."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(lease.tempfile, "tempdir", str(tmp_path))


@pytest.fixture
def owner() -> Iterator[tuple[subprocess.Popen[str], dict]]:
    """An owner that made a marked process and a temporary folder (and, where cgroups are usable, a frozen
    seat group with a process in it); killed at the end if the test did not."""
    kind = "groups" if os.geteuid() == 0 else "plain"
    process = subprocess.Popen([sys.executable, "-c", OWNER, kind], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    made = json.loads(process.stdout.readline())
    try:
        yield process, made
    finally:
        process.kill()
        process.wait()
        for pid in (made["marked"], made["frozen"]):
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        if made["groups"]:
            leftovers.remove(leftovers.Record(made["token"], groups=[os.path.dirname(g) for g in made["groups"]]))


def test_a_killed_owner_leaves_nothing_its_janitor_can_remove(owner: tuple[subprocess.Popen[str], dict]) -> None:
    process, made = owner
    assert alive(made["marked"]) and os.path.isdir(made["folder"]) and os.path.exists(made["lease"])
    assert janitor_of(made["token"]) is not None
    if made["groups"]:
        assert all(os.path.isdir(group) for group in made["groups"]) and alive(made["frozen"])
        freezer = cgroups.freezer(made["groups"])
        if freezer and os.path.exists(os.path.join(freezer, "freezer.state")):
            assert Path(freezer, "freezer.state").read_text().strip() == "FROZEN"
    assert made["token"] not in {stale.token for stale in lease.stale()}  # alive: never listed, never swept
    process.kill()
    process.wait()
    assert gone_within(made, 5.0) == []


def test_a_lease_whose_janitor_died_too_is_swept_by_the_next_command(
        owner: tuple[subprocess.Popen[str], dict]) -> None:
    process, made = owner
    janitor = janitor_of(made["token"])
    assert janitor is not None
    assert made["token"] not in {stale.token for stale in lease.sweep()}  # the lease is held: nothing removed
    assert alive(made["marked"]) and os.path.isdir(made["folder"])
    os.kill(janitor, signal.SIGKILL)
    process.kill()
    process.wait()
    time.sleep(0.5)
    assert left(made), "without a janitor nothing removes it on its own"
    [stale] = [stale for stale in lease.stale() if stale.token == made["token"]]
    assert made["marked"] in stale.found.processes and made["folder"] in stale.found.folders
    assert stale.found.frozen == (1 if made["groups"] and cgroups.freezer(made["groups"]) else 0)
    assert os.path.exists(made["lease"])  # listing changes nothing
    [swept] = [stale for stale in lease.sweep() if stale.token == made["token"]]
    assert swept.found.describe().startswith("1 process")
    assert gone_within(made, 5.0) == []


def test_the_cli_sweeps_on_its_way_and_the_doctor_lists_then_cleans(
        owner: tuple[subprocess.Popen[str], dict], tmp_path: Path) -> None:
    process, made = owner
    janitor = janitor_of(made["token"])
    assert janitor is not None
    os.kill(janitor, signal.SIGKILL)
    process.kill()
    process.wait()
    arena = [sys.executable, "-m", "arena"]
    listed = subprocess.run([*arena, "doctor", "--json"], capture_output=True, text=True, check=True)
    [entry] = [entry for entry in json.loads(listed.stdout)["left_behind"] if entry["lease"] == made["token"]]
    assert made["folder"] in entry["folders"] and not entry["removed"] and left(made)
    text = subprocess.run([*arena, "doctor"], capture_output=True, text=True, check=True).stdout
    assert f"lease {made['token']}" in text and "arena doctor --clean" in text
    games = subprocess.run([*arena, "games"], capture_output=True, text=True, check=True)
    assert f"arena: removed what an ended arena process (pid {process.pid}) left behind: 1 process" in games.stderr
    assert gone_within(made, 5.0) == []
    again = subprocess.run([*arena, "doctor", "--clean"], capture_output=True, text=True, check=True)
    assert f"lease {made['token']}" not in again.stdout


def test_a_lease_file_lists_what_was_noted_and_skips_a_torn_line() -> None:
    text = '{"pid": 7, "temp": "/tmp"}\n{"groups": "/sys/fs/cgroup/memory"}\n{"processes": "/tmp/ray/s_*_7"}\n{"gro'
    record = leftovers.Record.read("ab12", text)
    assert (record.pid, record.temp, record.groups, record.processes) == (
        7, ["/tmp"], ["/sys/fs/cgroup/memory"], ["/tmp/ray/s_*_7"])
    assert leftovers.Record.read("ab12", '{"temp": "relative"}\n[1]\nnull\n').temp == []  # only absolute paths


def test_a_leases_folder_that_is_not_private_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lease.tempfile, "gettempdir", lambda: str(tmp_path))
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", lease.leases_folder())  # a trap laid by someone else
    with pytest.raises(OSError, match="not a private folder"):
        lease.Lease()
    os.unlink(lease.leases_folder())
    os.mkdir(lease.leases_folder(), 0o777)
    os.chmod(lease.leases_folder(), 0o777)
    with pytest.raises(OSError, match="not a private folder"):
        lease.Lease()
    assert glob.glob(str(tmp_path / "elsewhere" / "*")) == []
