"""The check queue on its own: an upload is unpacked alone, discovered in its sandboxed child and checked; a missing
library, a name another participant owns and a check cut short are each rejected or requeued with their reason."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from serve_helpers import add_user, agent_source, zip_of

import arena
from arena.serve.checker import REASON_MAX, check_one, run_checker
from arena.serve.config import ServeLimits
from arena.serve.db import ACCEPTED, CHECKING, QUEUED, REJECTED, ServeDB
from arena.serve.storage import store_blob

LIMITS = {"move_seconds": 1.0, "bank_seconds": 10.0, "startup_seconds": 10.0, "memory_mb": 1024}
NEEDS_TORCH = b"import torch_that_is_not_here\n" + agent_source("heavy")


def queue(folder: Path, user: str, filename: str, data: bytes) -> int:
    with ServeDB(folder) as db:
        return db.add_upload(user, filename, "file", store_blob(folder, data), len(data)).id


def test_an_upload_needing_a_missing_library_is_rejected_with_the_import_error(tmp_path: Path) -> None:
    add_user(tmp_path, "alice")
    upload_id = queue(tmp_path, "alice", "heavy.py", NEEDS_TORCH)
    with ServeDB(tmp_path) as db:
        upload = db.upload(upload_id)
    assert upload is not None
    state, reason, report, agent = check_one(tmp_path, upload, "lovat", 3, LIMITS, ServeLimits(check_matches=1))
    assert state == REJECTED and agent is None
    assert "No module named 'torch_that_is_not_here'" in reason
    assert str(tmp_path) not in reason + report  # they name the upload, never spell out the server's folders
    assert not (tmp_path / "work" / f"check-{upload_id}").exists()  # the unpacked copy is gone


def test_a_package_registering_two_agents_is_rejected(tmp_path: Path) -> None:
    add_user(tmp_path, "alice")
    two = agent_source("one").replace(
        b"    register(AgentSpec(",
        b"    register(AgentSpec(name='two', games=('lorum',), factory=Mine, description='x', version='1'))\n"
        b"    register(AgentSpec(")
    data = zip_of({"pkg-1.0.dist-info/METADATA": b"Name: pkg\n", "pkg/__init__.py": two})
    with ServeDB(tmp_path) as db:
        upload = db.add_upload("alice", "pkg-1.0-py3-none-any.whl", "wheel", store_blob(tmp_path, data), len(data))
    state, reason, _report, agent = check_one(tmp_path, upload, "lorum", 4, LIMITS, ServeLimits(check_matches=1))
    assert (state, agent) == (REJECTED, None)
    assert reason == "the upload registers 2 agents that play lorum (one, two); register exactly one (a new agent is " \
                     "a new upload)"


def test_an_upload_registering_a_second_agent_for_another_game_is_rejected(tmp_path: Path) -> None:
    # In the ladder every playing upload shares one plugins folder, where a name two uploads register is seated
    # under neither: bob's lorum-only 'mine' would have knocked alice's lovat agent 'mine' out of the field.
    add_user(tmp_path, "bob")
    extra = agent_source("mine2").replace(
        b"    register(AgentSpec(",
        b"    register(AgentSpec(name='mine', games=('lorum',), factory=Mine, description='x', version='1'))\n"
        b"    register(AgentSpec(")
    upload_id = queue(tmp_path, "bob", "mine2.py", extra)
    with ServeDB(tmp_path) as db:
        upload = db.upload(upload_id)
    assert upload is not None
    state, reason, _report, agent = check_one(tmp_path, upload, "lovat", 3, LIMITS, ServeLimits(check_matches=1))
    assert (state, agent) == (REJECTED, None)
    assert reason.startswith("the upload registers 2 agents (mine, mine2); register exactly one")


@pytest.mark.parametrize("version", ['=HYPERLINK("http://evil.example","open")', "+1", "1.0 | [x](javascript:y)", ""])
def test_an_agent_version_that_is_not_plain_is_rejected(tmp_path: Path, version: str) -> None:
    # The version is uploader's text written into the site's leaderboard.csv, which the organiser may open in a
    # spreadsheet: a cell starting with '=' or '+' would be a formula there.
    add_user(tmp_path, "alice")
    source = agent_source("mine").replace(b'version="1.0"', f"version={version!r}".encode())
    upload_id = queue(tmp_path, "alice", "mine.py", source)
    with ServeDB(tmp_path) as db:
        upload = db.upload(upload_id)
    assert upload is not None
    state, reason, _report, agent = check_one(tmp_path, upload, "lovat", 3, LIMITS, ServeLimits(check_matches=1))
    assert (state, agent) == (REJECTED, None)
    assert reason.startswith("agent version") or "version must be a non-empty string" in reason, reason


@pytest.mark.slow
def test_the_queue_checks_in_order_refuses_a_taken_agent_name_and_requeues_a_cut_check(tmp_path: Path) -> None:
    for name in ("alice", "bob"):
        add_user(tmp_path, name)
    first = queue(tmp_path, "alice", "mine.py", agent_source("mine"))
    clash = queue(tmp_path, "bob", "mine.py", agent_source("mine").replace(b'"random"', b'"bob\'s"'))
    with ServeDB(tmp_path) as db:  # a check a killed checker left half done
        db.db.execute("UPDATE uploads SET state = ? WHERE id = ?", (CHECKING, first))
    calls = []

    def stop() -> bool:
        calls.append(1)
        with ServeDB(tmp_path) as db:
            return not db.uploads(state=QUEUED) and not db.uploads(state=CHECKING)

    run_checker(tmp_path, "lovat", 3, LIMITS, ServeLimits(check_matches=1), stop=stop, idle=0.01)
    with ServeDB(tmp_path) as db:
        mine, theirs = db.upload(first), db.upload(clash)
    assert mine is not None and theirs is not None
    assert (mine.state, mine.agent, mine.version) == (ACCEPTED, "mine", 1)
    assert theirs.state == REJECTED and "agent name 'mine' belongs to another participant" in (theirs.reason or "")
    # Each check deals from a seed of its own (named in its report): no upload can know the check's deals ahead
    # and play only those well.
    seeds = {(report or "").splitlines()[0] for report in (mine.report, theirs.report)}
    assert len(seeds) == 2 and all(line.startswith("check seed ") for line in seeds)


@pytest.mark.slow
def test_an_agent_program_in_c_is_built_checked_and_accepted(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    if shutil.which("cc") is None:
        pytest.skip("no C compiler on this machine: the C starter program cannot be built")
    monkeypatch.setenv("ARENA_BUILD_CACHE", str(tmp_path / "builds"))
    starter = Path(__file__).resolve().parents[2] / "plugins" / "c-starter"
    manifest = (starter / "arena-agent.toml").read_text().replace('name = "c-starter"', 'name = "c-mine"')
    data = zip_of({"c-mine/arena-agent.toml": manifest.encode(), "c-mine/agent.c": (starter / "agent.c").read_bytes()})
    add_user(tmp_path, "alice")
    with ServeDB(tmp_path) as db:
        upload = db.add_upload("alice", "c-mine.zip", "zip", store_blob(tmp_path, data), len(data))
    state, reason, report, agent = check_one(tmp_path, upload, "lorum", 4, LIMITS, ServeLimits(check_matches=1))
    assert (state, agent) == (ACCEPTED, "c-mine"), report
    assert reason.startswith("passed:")


STOPPED_WORKER = """
import sys
from pathlib import Path

from arena.cli import stopping
from arena.serve.checker import check_one
from arena.serve.config import ServeLimits
from arena.serve.db import ServeDB

folder = Path(sys.argv[1])
stopping.install()  # as the checker worker: SIGTERM stops it as Ctrl-C does
with ServeDB(folder) as db:
    upload = db.upload(int(sys.argv[2]))
try:
    check_one(folder, upload, "lorum", 4, {"move_seconds": 1.0, "bank_seconds": 10.0, "startup_seconds": 10.0,
              "memory_mb": 1024}, ServeLimits(check_matches=1))
except KeyboardInterrupt:
    sys.exit(3)
"""


def processes_naming(text: str) -> list[int]:
    """Pids of the processes whose command line holds ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if text in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.parametrize("stop", ["SIGTERM", "SIGKILL"])
def test_a_check_stops_with_its_worker(tmp_path: Path, stop: str) -> None:
    import signal
    import subprocess
    import sys
    import time

    add_user(tmp_path, "alice")
    upload_id = queue(tmp_path, "alice", "slow.py", b"import time\ntime.sleep(120)\n" + agent_source("slow"))
    worker = subprocess.Popen([sys.executable, "-c", STOPPED_WORKER, str(tmp_path), str(upload_id)])
    marker = str(tmp_path / "work" / f"check-{upload_id}")
    try:
        deadline = time.monotonic() + 30
        while not [pid for pid in processes_naming(marker) if pid != worker.pid]:
            assert time.monotonic() < deadline, "the check never started"
            time.sleep(0.05)
        worker.send_signal(getattr(signal, stop))
        assert worker.wait(timeout=30) == (3 if stop == "SIGTERM" else -signal.SIGKILL)
        deadline = time.monotonic() + 10
        while processes_naming(marker):
            assert time.monotonic() < deadline, f"left running: {processes_naming(marker)}"
            time.sleep(0.05)
    finally:
        worker.kill()
        worker.wait()


FILLER = b'''name = "filler"
version = "1"
games = ["lorum"]
command = ["./run.sh"]
build = ["sh", "-c", "head -c 1000000 /dev/zero > filler.bin; printf '#!/bin/sh\\\\nexit 1\\\\n' > run.sh"]
build_seconds = 30
'''


def check_program(folder: Path, monkeypatch: pytest.MonkeyPatch, name: str, manifest: bytes,
                  limits: ServeLimits) -> tuple[str, str, str, str | None, Path]:
    """Check program ``name`` (its manifest alone) as alice's upload, building into a cache of the test's own:
    ``check_one``'s answer and that cache."""
    from arena.referee.confinement import sandbox_level

    if sandbox_level() == "none":
        pytest.skip("this machine offers no sandbox: run 'arena doctor' to see what is missing")
    cache = folder / "builds"
    monkeypatch.setenv("ARENA_BUILD_CACHE", str(cache))
    add_user(folder, "alice")
    data = zip_of({f"{name}/arena-agent.toml": manifest})
    with ServeDB(folder) as db:
        upload = db.add_upload("alice", f"{name}.zip", "zip", store_blob(folder, data), len(data))
    return (*check_one(folder, upload, "lorum", 4, LIMITS, limits), cache)


def test_a_rejected_programs_build_leaves_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    state, _reason, report, _agent, cache = check_program(tmp_path, monkeypatch, "filler", FILLER,
                                                          ServeLimits(check_matches=1))
    assert state == REJECTED, report
    assert "could not be started" in report or "Permission denied" in report, report  # built, then not run
    assert not [path for path in cache.glob("filler-*") if not path.name.endswith(".lock")]  # no 1 MB build kept


RAISES = b'''
from arena import hookimpl
from arena.agent import Agent, AgentSpec


class Raises(Agent):
    def act(self, observation):
        raise RuntimeError("lost " + "and lost again " * 40)


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="raises", games=("lorum",), factory=Raises, description="d", version="1.0"))
'''


@pytest.mark.parametrize("where", ["elsewhere", "folder", "above"])
def test_a_failed_checks_reason_and_report_speak_of_the_owners_file(tmp_path: Path, where: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The reason is what failed and where, cut at a word; the report names the file as sent, and its Reproduce
    command runs from the folder holding it: no server name (u<hash>) or folder reaches the owner, whatever the
    working folder the check names its plugins folder from (the competition's own, as in the worker, or one
    above it)."""
    if where != "elsewhere":
        monkeypatch.chdir(tmp_path if where == "folder" else tmp_path.parent)
    add_user(tmp_path, "alice")
    upload_id = queue(tmp_path, "alice", "my_bot.py", RAISES)
    with ServeDB(tmp_path) as db:
        upload = db.upload(upload_id)
    assert upload is not None
    state, reason, report, agent = check_one(tmp_path, upload, "lorum", 4, LIMITS, ServeLimits(check_matches=1))
    assert state == REJECTED and agent == "raises"
    assert reason.startswith("failed its check: exception at move ") and "raised RuntimeError: lost" in reason
    assert len(reason) <= REASON_MAX and re.search(r" (lost|and|again) … \(the whole report is on your page\)$", reason)
    assert "To fix" not in reason  # the fix and the command are the report's, whole
    words = " ".join(report.split())  # the report wraps at 80 columns
    assert "(at my_bot.py:8 in act)" in words and "--plugins-dir ." in words  # though its message was long
    assert '| File "my_bot.py", line 8, in act' in words  # the traceback's line, too long with its folder
    assert "u" + upload.sha256[:16] not in reason + report and str(tmp_path) not in report
    assert "work/check-" not in report and tmp_path.name not in report
    assert str(Path(arena.__file__).parent) not in report  # the traceback's arena files, from the package


BIG_BUILD = b'''name = "bulky"
version = "1"
games = ["lorum"]
command = ["python", "-m", "arena.program.client", "--agent", "greedy"]
build = ["sh", "-c", "head -c 1500000 /dev/zero > bulk.bin"]
build_seconds = 30
'''


def test_a_program_whose_build_is_over_the_limit_is_rejected_and_its_build_removed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Each accepted program's build stays in the cache while it plays: one bound per build keeps a participant's
    # uploads from filling the server's disk with builds of up to the build sandbox's 2 GiB each.
    state, reason, report, agent, cache = check_program(tmp_path, monkeypatch, "bulky", BIG_BUILD,
                                                        ServeLimits(check_matches=1, build_bytes=1_000_000))
    assert (state, agent) == (REJECTED, "bulky"), report
    assert reason.startswith("its build left 1,500,") and "above the competition's limit of 1,000,000 (build_bytes)" \
        in reason, reason
    assert "bulky 1 on lorum" in report  # the check's report, which it passed, follows
    assert not [path for path in cache.glob("bulky-*") if not path.name.endswith(".lock")]
