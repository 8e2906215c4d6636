"""A seat's init joins its cgroup v1 groups itself (``place`` with a ``channel``): the whole seat ends up in
every group, and ``confirm`` refuses a seat whose init did not join."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from sandbox_helpers import need, run_seat

from arena import sandbox
from arena.sandbox import SandboxError, SeatBox, cgroups
from arena.sandbox.seat import _placed


@pytest.fixture
def root(tmp_path: Path) -> str:
    folder = tmp_path / "sandbox"
    folder.mkdir()
    return str(folder)


@pytest.fixture(autouse=True)
def v1_groups() -> None:
    need("full")
    if cgroups.find().version != "v1":
        pytest.skip("the init joins its groups itself only with cgroup v1 this process may manage (root)")


def wait_briefly(out: int) -> int:
    time.sleep(1.0)
    os.write(out, b"done")
    return 0


def agent_of(box: SeatBox) -> int:
    """The seat's agent process: its init's one child."""
    (child,) = Path(f"/proc/{box.pid}/task/{box.pid}/children").read_text().split()
    return int(child)


def test_the_init_and_the_agent_it_forks_are_in_every_group(root: str) -> None:
    seen: dict[str, object] = {}

    def during(box: SeatBox) -> None:
        deadline = time.monotonic() + 5
        while not Path(f"/proc/{box.pid}/task/{box.pid}/children").read_text().split():
            assert time.monotonic() < deadline, "the agent process never started"
            time.sleep(0.01)
        sandbox.confirm(box)  # the agent is forked after the move: by now the init has joined
        folders = _placed[box.pid].folders
        seen["folders"] = len(folders)
        seen["init"] = cgroups.holds(folders, box.pid)
        seen["agent"] = cgroups.holds(folders, agent_of(box))

    run = run_seat(wait_briefly, root, during=during, join="both")
    assert not run.zygote_error, run.zygote_error
    assert run.output == b"done"
    assert seen == {"folders": len(cgroups.find().bases), "init": True, "agent": True}


def test_a_seat_whose_init_never_joined_is_refused_before_its_first_freeze(root: str) -> None:
    caught: list[str] = []

    def during(box: SeatBox) -> None:
        time.sleep(0.2)
        try:
            sandbox.confirm(box)
        except SandboxError as error:
            caught.append(str(error))

    run = run_seat(wait_briefly, root, during=during, join="referee")  # the groups are sent, nobody reads them
    assert not run.zygote_error, run.zygote_error
    assert caught and "did not join its groups" in caught[0]
