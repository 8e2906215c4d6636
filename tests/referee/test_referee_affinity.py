"""One core per match of process seats (arena/referee/affinity.py): every seat's processes play on the core of
the referee, whose own set of cores comes back after the match; nothing is pinned where a seat may use more
than one core."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from referee_helpers import SMALL, play

from arena.plugins import Registry, load_registry
from arena.referee import AgentHost, affinity

CORE_AGENTS = Path(__file__).resolve().parent / "core_agents"
PREFIX = "CORES "

pytestmark = pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="this machine lets the tests use one core")


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


def test_a_seat_that_widens_its_own_cores_only_changes_where_it_runs(core_registry, core_host):
    result = play(core_registry, core_host, "lorum", ["core-reporter"] * 4, options={1: {"widen": True}})
    assert not result.record["faults"]  # still frozen between turns, still answering in time
    assert len(set().union(*(reported(log) for seat, log in enumerate(result.logs) if seat != 1))) == 1


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
