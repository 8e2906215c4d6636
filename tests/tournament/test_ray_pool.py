"""Ray's worker actors: reused across runs, a lost worker's batches replayed elsewhere, resume after a crash."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from test_runner import Interrupt, results, small_config, stop_after, twin_stores

from arena.tournament import ray_pool
from arena.tournament.runner import Progress, run_tournament


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    import ray

    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        yield
    finally:
        ray.shutdown()
        ray_pool.forget_pools()


def test_rows_survive_packing() -> None:
    rows = [{"idx": 3, "record": b"\x78\x9c", "faults": [{"seat": 1, "message": "late"}], "scores": [1.5, -2.0]}]
    assert ray_pool.unpack_rows(ray_pool.pack_rows(rows)) == rows


@pytest.mark.ray
def test_workers_outlive_a_run_and_a_killed_one_loses_nothing(tmp_path: Path, local_ray: None) -> None:
    import ray

    config = small_config(blocks=4)
    run_tournament(config, leaderboards=tmp_path / "serial", plugins_dir=None, workers=1)
    before = ray_pool.worker_pids(None)
    assert len(before) == 2
    run_tournament(config, leaderboards=tmp_path / "warm", plugins_dir=None, workers=2)
    assert ray_pool.worker_pids(None) == before  # the same processes played: nothing started again
    assert results(tmp_path / "warm") == results(tmp_path / "serial")
    killed: list[int] = []

    def kill_a_worker(progress: Progress) -> None:
        if progress.played_now and not killed:
            victim = ray_pool.pool(None)[0]
            ray.kill(victim, no_restart=True)
            killed.append(progress.played_now)

    summary = run_tournament(config, leaderboards=tmp_path / "killed", plugins_dir=None, workers=2,
                             on_progress=kill_a_worker)
    assert killed and killed[0] < summary.total == summary.played == 80
    assert summary.backend == "ray"
    assert results(tmp_path / "killed") == results(tmp_path / "serial")
    after = ray_pool.worker_pids(None)  # the dead worker was replaced on its node
    assert len(after) == 2 and len(set(after) & set(before)) == 1


@pytest.mark.ray
def test_a_ray_run_stopped_midway_resumes_to_the_serial_result(tmp_path: Path, local_ray: None) -> None:
    config = small_config(blocks=4)
    twin_stores("small", tmp_path / "serial", tmp_path / "ray")
    run_tournament(config, leaderboards=tmp_path / "serial", plugins_dir=None, workers=1)
    with pytest.raises(Interrupt):
        run_tournament(config, leaderboards=tmp_path / "ray", plugins_dir=None, workers=2, on_progress=stop_after(5))
    stored = results(tmp_path / "ray")
    serial = {row[0]: row for row in results(tmp_path / "serial")}
    # Stored as they ended, not in schedule order: any of the matches, each exactly as played serially.
    assert 5 <= len(stored) < 80 and all(row == serial[row[0]] for row in stored)
    summary = run_tournament(config, leaderboards=tmp_path / "ray", plugins_dir=None, workers=2, resume=True)
    assert summary.played == 80 - len(stored)
    assert results(tmp_path / "ray") == results(tmp_path / "serial")
