"""One core per match of process seats (arena/referee/affinity.py): every seat's processes play on the core of
the referee, whose own set of cores comes back after the match; nothing is pinned where a seat may use more
than one core."""

from __future__ import annotations

import dataclasses
import os
import signal
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from referee_helpers import SMALL, play

from arena.plugins import Registry, load_registry
from arena.referee import AgentHost, affinity

CORE_AGENTS = Path(__file__).resolve().parent / "core_agents"
PREFIX = "CORES "

pytestmark = pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="this machine lets the tests use one core")


@pytest.fixture(autouse=True)
def own_reservations(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reservations under names only this test's process and its children use.

    The real names are the machine's, per user: matches played meanwhile by the suite's other pytest-xdist
    worker, or by another checkout's tests, hold cores at any moment.  These tests count free and held cores, so
    they reserve in a space of their own; the referee plays here, in this process, and takes the same names.
    """
    real = affinity.reservation_name
    assert real(0) == f"\0arena-core-{os.getuid()}-0".encode()
    scope = os.getpid()  # this process's, inherited by a child forked to hold a core
    monkeypatch.setattr(affinity, "reservation_name", lambda core: real(core) + f"-test-{scope}".encode())


@pytest.fixture(scope="module")
def core_registry() -> Registry:
    loaded = load_registry(plugins_dir=CORE_AGENTS, entry_points=False).registry
    assert loaded.errors == []
    return loaded


@pytest.fixture(scope="module")
def core_host() -> Iterator[AgentHost]:
    with AgentHost() as started:
        yield started


def reported(log: str) -> set[str]:
    """The sets of cores a seat's process printed at its decisions."""
    return {line[len(PREFIX):] for line in log.splitlines() if line.startswith(PREFIX)}


def test_every_process_seat_plays_on_one_core_and_the_referee_gets_its_cores_back(core_registry, core_host):
    before = os.sched_getaffinity(0)
    result = play(core_registry, core_host, "lorum", ["core-reporter"] * 4)  # default isolation: the sandbox
    assert not result.record["faults"]
    seen = set().union(*(reported(log) for log in result.logs))
    assert len(seen) == 1, seen  # four seats, every decision: one and the same core
    (core,) = seen
    assert int(core) in before
    assert os.sched_getaffinity(0) == before


def test_a_seat_that_may_use_two_cores_is_not_pinned(core_registry, core_host):
    result = play(core_registry, core_host, "lorum", ["core-reporter"] * 4, limits=dataclasses.replace(SMALL, cpus=2))
    assert not result.record["faults"]
    everything = ",".join(str(core) for core in sorted(os.sched_getaffinity(0)))
    assert set().union(*(reported(log) for log in result.logs)) == {everything}


def test_a_sandboxed_seat_that_asks_for_every_core_stays_on_its_matchs(core_registry, core_host):
    # Moved onto another match's core, it would halve the CPU of the seat pinned there (arena.sandbox.seccomp).
    result = play(core_registry, core_host, "lorum", ["core-reporter"] * 4, options={1: {"widen": True}})
    assert not result.record["faults"]
    assert len(set().union(*(reported(log) for log in result.logs))) == 1


def test_the_current_core_is_one_the_thread_may_use():
    core = affinity.current_core()
    assert core is not None and core in os.sched_getaffinity(0)
    with affinity.one_core(True) as pinned:
        assert pinned is not None and os.sched_getaffinity(0) == {pinned}
    with affinity.one_core(False) as pinned:
        assert pinned is None


def test_a_helper_started_during_a_match_and_a_build_get_the_cores_from_outside_it():
    outside = os.sched_getaffinity(0)
    with affinity.one_core(True) as core:
        hold, release = os.pipe()
        helper = os.fork()
        if helper == 0:
            os.close(release)
            os.read(hold, 1)  # alive until the test has looked
            os._exit(0)
        os.close(hold)
        try:
            affinity.unpin(helper)  # as AgentHost does for a zygote
            assert os.sched_getaffinity(helper) == outside
        finally:
            os.close(release)
            os.waitpid(helper, 0)
        with affinity.released():  # as a program's build runs
            assert os.sched_getaffinity(0) == outside
        assert os.sched_getaffinity(0) == {core}


def test_matches_at_once_reserve_different_cores_and_pin_nothing_when_every_core_is_held():
    allowed = os.sched_getaffinity(0)
    entered, leave = threading.Barrier(len(allowed) + 1), threading.Event()
    got: list[int | None] = []

    def hold() -> None:
        with affinity.one_core(True) as core:
            got.append(core)
            entered.wait(timeout=10)
            leave.wait(timeout=10)

    holders = [threading.Thread(target=hold) for _ in allowed]
    for holder in holders:
        holder.start()
    try:
        entered.wait(timeout=10)
        assert sorted(core for core in got if core is not None) == sorted(allowed)  # one core each
        with affinity.one_core(True) as extra:
            assert extra is None and os.sched_getaffinity(0) == allowed  # every core held: not pinned
    finally:
        leave.set()
        for holder in holders:
            holder.join()
    with affinity.one_core(True) as again:
        assert again is not None  # every reservation was given back


def test_a_core_held_by_another_process_is_skipped_and_freed_when_that_process_is_killed():
    here = affinity.current_core()
    assert here is not None
    ready_read, ready_write = os.pipe()
    holder = os.fork()
    if holder == 0:
        os.close(ready_read)
        held = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        held.bind(affinity.reservation_name(here))
        os.write(ready_write, b"x")
        time.sleep(60)
        os._exit(0)
    os.close(ready_write)
    try:
        os.read(ready_read, 1)
        with affinity.one_core(True) as core:
            assert core is not None and core != here
    finally:
        os.kill(holder, signal.SIGKILL)
        os.waitpid(holder, 0)
        os.close(ready_read)
    taken = affinity.reserve()
    assert taken is not None
    taken[1].close()
    freed = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with freed:
        freed.bind(affinity.reservation_name(here))  # the killed holder left nothing behind


def test_a_match_plays_on_the_core_other_matches_leave_free(core_registry, core_host):
    allowed = sorted(os.sched_getaffinity(0))
    free = allowed[-1]
    others = [socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) for _ in allowed[:-1]]
    try:
        for held, core in zip(others, allowed, strict=False):
            held.bind(affinity.reservation_name(core))  # as matches on other workers hold their cores
        result = play(core_registry, core_host, "lorum", ["core-reporter"] * 4)
    finally:
        for held in others:
            held.close()
    assert not result.record["faults"]
    assert set().union(*(reported(log) for log in result.logs)) == {str(free)}
