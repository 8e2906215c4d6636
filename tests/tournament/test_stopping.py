"""Stopping a run, however it is stopped, leaves nothing behind and loses no finished match.

Real ``arena run`` processes with sandboxed third-party agents (a drop-in plugin), serially and on a
local Ray, are stopped at seeded random points, while seats are frozen between turns, by SIGINT sent
to the process group (a terminal's Ctrl-C), SIGTERM, SIGHUP and SIGKILL.  Then, polling for at most
``GONE_SECONDS``: no process the run started is left (seats, zygotes, Ray), nor any of its leases
(a lease file is deleted by its janitor last, once everything it names is gone), seat groups,
temporary folders or Ray session; every match stored before the signal is still stored; and
``--resume`` completes the run exactly as an uninterrupted run plays it.  A driver killed with
SIGKILL together with its janitors leaves its frozen seats behind until the next arena command,
which removes them.
"""

from __future__ import annotations

import glob
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from arena.sandbox import lease, probe
from arena.tournament.store import Store, store_path

pytestmark = pytest.mark.slow

GONE_SECONDS = 5.0
"""How long after the stop everything of the run must be gone."""

PLUGIN = '''
import time

from arena import hookimpl
from arena.agent import Agent, AgentSpec


class First(Agent):
    def act(self, observation):
        time.sleep(0.01)  # a match lasts long enough to be stopped in, however fast seats become
        return observation.legal[0]


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="first", games=("lorum",), factory=First, description="the first legal card",
                       version="1"))
'''

CONFIG = '''
name = "stop"
game = "lorum"
seed = 5
blocks = 4
[game_options]
deals = 1
[[agents]]
name = "first"
[[agents]]
name = "first-2"
plugin = "first"
[[agents]]
name = "greedy"
[[agents]]
name = "random"
'''
"""One table of four, 4 blocks of 4 rotations: 16 matches, two sandboxed seats in each."""

ARENA = [sys.executable, "-m", "arena"]


@pytest.fixture(scope="module", autouse=True)
def private_temp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """A temporary folder of these tests' own for every command they run (and so its leases, seat folders and
    Ray sessions), which no other arena process on the machine sweeps meanwhile; short, as Ray's socket paths
    must be."""
    tmp_path_factory.getbasetemp()  # pytest's own folder stays where it was, not inside the one removed below
    folder = tempfile.mkdtemp(prefix="arena-test-", dir="/tmp")
    before = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = folder
    tempfile.tempdir = None  # read again from TMPDIR
    try:
        yield
    finally:
        if before is None:
            del os.environ["TMPDIR"]
        else:
            os.environ["TMPDIR"] = before
        tempfile.tempdir = None
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def sandbox_with_groups() -> None:
    capabilities = probe()
    if capabilities.level != "full" or not capabilities.freezer:
        pytest.skip(f"needs the full sandbox with a cgroup freezer (this machine: {capabilities.level}); "
                    "run 'arena doctor'")


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[tuple]]:
    """The plugins folder, the config, and the results of an uninterrupted run."""
    base = tmp_path_factory.mktemp("stopping")
    (base / "plugins").mkdir()
    (base / "plugins" / "first.py").write_text(PLUGIN)
    (base / "stop.toml").write_text(CONFIG)
    subprocess.run([*ARENA, "run", str(base / "stop.toml"), "--workers", "1", "--json", "--leaderboards",
                    str(base / "whole"), "--plugins-dir", str(base / "plugins")], check=True, capture_output=True)
    with Store.open_readonly(store_path(base / "whole", "stop")) as store:
        whole = store.result_table()
    assert len(whole) == 16
    return base / "plugins", base / "stop.toml", whole


@dataclass
class Run:
    """An ``arena run`` process and what it was seen to start while it ran."""

    process: subprocess.Popen[str]
    store: Path
    processes: set[tuple[int, str]] = field(default_factory=set)  # (pid, start time): pids may be reused
    leases: dict[str, dict] = field(default_factory=dict)  # token -> first line of its lease file

    def look(self) -> None:
        """Note every process below the driver now, and every lease one of them holds."""
        self.processes |= descendants(self.process.pid)
        pids = {pid for pid, _ in self.processes}
        for path in glob.glob(os.path.join(lease.leases_folder(), f"*{lease.SUFFIX}")):
            try:
                first = json.loads(Path(path).read_text().splitlines()[0])
            except (OSError, ValueError, IndexError):
                continue
            if first.get("pid") in pids:
                self.leases[Path(path).name[:-len(lease.SUFFIX)]] = first

    def stored(self) -> int:
        try:
            with sqlite3.connect(f"file:{self.store}?mode=ro", uri=True) as db:
                return int(db.execute("SELECT COUNT(*) FROM matches").fetchone()[0])
        except sqlite3.Error:
            return 0

    def frozen_seat(self) -> bool:
        """Whether one of the run's seat groups is frozen now."""
        for token in self.leases:
            # A seat's group, not the empty one the referee keeps frozen for good (arena.sandbox.cgroups).
            for state in glob.glob(f"/sys/fs/cgroup/freezer/arena-{token}-*-seat*/freezer.state"):
                try:
                    if Path(state).read_text().strip() == "FROZEN":
                        return True
                except OSError:
                    continue
        return False

    def left(self) -> list[str]:
        """Whatever of the run is still there."""
        found = [f"process {pid}: {command(pid)}" for pid, start in self.processes if started_at(pid) == start]
        for token in self.leases:
            found += glob.glob(os.path.join(lease.leases_folder(), token + lease.SUFFIX))
            found += glob.glob(f"/sys/fs/cgroup/*/arena-{token}-*")
            found += glob.glob(os.path.join(self.leases[token].get("temp", "/tmp"), f"arena-{token}-*"))
        found += glob.glob(os.path.join(tempfile.gettempdir(), "ray", f"session_*_{self.process.pid}"))
        return found


def started_at(pid: int) -> str | None:
    """A process's start time (None once it is gone or a zombie)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    return None if fields[0] == "Z" else fields[19]


def command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:100]
    except OSError:
        return "?"


def descendants(root: int) -> set[tuple[int, str]]:
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                text = Path(f"/proc/{name}/stat").read_text()
                children.setdefault(int(text[text.rindex(")") + 2:].split()[1]), []).append(int(name))
            except (OSError, ValueError):
                continue
    found, todo = set(), [root]
    while todo:
        pid = todo.pop()
        start = started_at(pid)
        if start is not None:
            found.add((pid, start))
        todo += children.get(pid, [])
    return found


def start(plugins: Path, config: Path, leaderboards: Path, workers: int, resume: bool = False) -> Run:
    command = [*ARENA, "run", str(config), "--workers", str(workers), "--json", "--leaderboards", str(leaderboards),
               "--plugins-dir", str(plugins), *(["--resume"] if resume else [])]
    # Ctrl-C's default, as a terminal's foreground job has it: a suite started in the background by a shell
    # inherits SIGINT ignored, and Python would then leave it ignored in the run.
    process = subprocess.Popen(command, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    return Run(process, store_path(leaderboards, "stop"))


def stop_at_random(run: Run, matches: int, sig: int, deadline: float = 120.0) -> int:
    """Wait until ``matches`` are stored and a seat is frozen between its turns, then send ``sig``; the number
    of matches stored just before."""
    until = time.monotonic() + deadline
    while time.monotonic() < until:
        run.look()
        if run.process.poll() is not None:
            pytest.fail(f"the run ended before it was stopped: {run.process.communicate()[1][-500:]}")
        if run.stored() >= matches and run.frozen_seat():
            break
        time.sleep(0.02)
    else:
        pytest.fail(f"no frozen seat after {matches} stored matches within {deadline} s")
    before = run.stored()
    if sig == signal.SIGINT:
        os.killpg(run.process.pid, sig)  # as Ctrl-C in a terminal: the whole foreground group
    else:
        run.process.send_signal(sig)
    run.look()
    return before


def wait_gone(run: Run) -> list[str]:
    deadline = time.monotonic() + GONE_SECONDS
    while (remaining := run.left()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return remaining


SIGNALS = {"SIGINT": (signal.SIGINT, 130), "SIGTERM": (signal.SIGTERM, 143), "SIGHUP": (signal.SIGHUP, 129),
           "SIGKILL": (signal.SIGKILL, -signal.SIGKILL)}


@pytest.mark.parametrize(("workers", "name"), [
    (1, "SIGINT"), (1, "SIGTERM"), (1, "SIGHUP"), (1, "SIGKILL"),
    pytest.param(2, "SIGINT", marks=pytest.mark.ray), pytest.param(2, "SIGTERM", marks=pytest.mark.ray),
    pytest.param(2, "SIGKILL", marks=pytest.mark.ray),
])
def test_a_stopped_run_leaves_nothing_and_resumes_to_the_whole_result(
        setup: tuple[Path, Path, list[tuple]], sandbox_with_groups: None, tmp_path: Path, workers: int,
        name: str) -> None:
    plugins, config, whole = setup
    sig, status = SIGNALS[name]
    matches = random.Random(f"{workers}-{name}").randint(1, 8)  # seeded: the same points every run
    run = start(plugins, config, tmp_path, workers)
    before = stop_at_random(run, matches, sig)
    _out, err = run.process.communicate(timeout=60)
    assert run.process.returncode == status, err
    assert run.leases, "the run's sandboxed seats were made under a lease"
    assert wait_gone(run) == []
    after = run.stored()
    assert before <= after < 16
    if sig != signal.SIGKILL:
        assert f"{after} of 16 matches are stored; run 'arena run" in err and "--resume' to play the rest" in err
    resumed = start(plugins, config, tmp_path, 1, resume=True)
    _out, err = resumed.process.communicate(timeout=120)
    assert resumed.process.returncode == 0, err
    with Store.open_readonly(run.store) as store:
        assert store.result_table() == whole


def test_a_driver_killed_with_its_janitors_is_cleaned_up_by_the_next_command(
        setup: tuple[Path, Path, list[tuple]], sandbox_with_groups: None, tmp_path: Path) -> None:
    plugins, config, _whole = setup
    run = start(plugins, config, tmp_path, 1)
    stop_at_random(run, 2, signal.SIGSTOP)  # held still, so that its janitor cannot act before it is killed
    janitors = janitors_of(run.leases)
    assert janitors
    for pid in janitors:
        os.kill(pid, signal.SIGKILL)
    run.process.kill()
    run.process.communicate(timeout=60)
    time.sleep(1.0)
    assert any("/sys/fs/cgroup/" in path for path in run.left()), "its frozen seats wait for a janitor"
    games = subprocess.run([*ARENA, "games"], capture_output=True, text=True, check=True)
    assert "arena: removed what an ended arena process" in games.stderr
    assert wait_gone(run) == []


def janitors_of(tokens: dict[str, dict]) -> list[int]:
    """The janitors (``arena-janitor``) holding one of these leases' files open."""
    found = []
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            if Path(f"/proc/{name}/comm").read_text().strip() != "arena-janitor":
                continue
            links = [os.readlink(f"/proc/{name}/fd/{fd}") for fd in os.listdir(f"/proc/{name}/fd")]
        except OSError:
            continue
        if any(link.endswith(tuple(token + lease.SUFFIX for token in tokens)) for link in links):
            found.append(int(name))
    return found
