"""Running tournaments: each match stored as it ends and read in schedule order, resume, and identical results serially and on Ray."""

from __future__ import annotations

import dataclasses
import os
import shutil
from pathlib import Path

import pytest

from arena.plugins import load_registry
from arena.tournament import execution
from arena.tournament.config import TournamentConfig, config_from_dict
from arena.tournament.player import InOrder
from arena.tournament.playing import MAX_BATCH, batch_size, batches
from arena.tournament.runner import Progress, run_tournament
from arena.tournament.store import Store, StoreError, store_path

REGISTRY = load_registry(plugins_dir=None, entry_points=False).registry
KNOWN_GAMES = {name: game.info for name, game in REGISTRY.games.items()}
KNOWN_AGENTS = {name: set(spec.games) for name, spec in REGISTRY.agents.items()}


def small_config(name: str = "small", blocks: int = 2, seed: int = 5) -> TournamentConfig:
    """Five entries at 4-player Lovat: 5 tables x blocks x 4 rotations."""
    return config_from_dict(
        {
            "name": name, "game": "lovat", "seed": seed, "blocks": blocks,
            "game_options": {"players": 4},
            "agents": [{"name": "greedy"}, {"name": "greedy-2", "plugin": "greedy"}, {"name": "random"},
                       {"name": "random-2", "plugin": "random"}, {"name": "random-3", "plugin": "random"}],
        },
        KNOWN_GAMES, KNOWN_AGENTS,
    )


def results(leaderboards: Path, name: str = "small") -> list[tuple]:
    with Store.open_readonly(store_path(leaderboards, name)) as store:
        return store.result_table()


class Interrupt(Exception):
    pass


def stop_after(count: int):
    def on_progress(progress: Progress) -> None:
        if progress.played_now >= count:
            raise Interrupt

    return on_progress


def test_serial_run_stores_every_match_in_schedule_order(tmp_path: Path) -> None:
    config = small_config()
    summary = run_tournament(config, leaderboards=tmp_path, plugins_dir=None, workers=1)
    schedule = config.schedule()
    assert summary.played == summary.total == schedule.match_count == 5 * 2 * 4
    rows = results(tmp_path)
    assert [row[0] for row in rows] == list(range(schedule.match_count))
    assert [row[1] for row in rows] == [match.id for match in schedule.iter_matches()]
    with Store.open_readonly(store_path(tmp_path, "small")) as store:
        first = next(store.rows())
        record = store.record(first.id)
    assert record["match"] == first.id and record["seed"] == first.deal_seed
    assert [seat["agent"] for seat in record["seats"]] == list(first.agents)
    assert record["result"]["scores"] == list(first.scores)


def test_each_match_is_stored_as_soon_as_it_ends(tmp_path: Path) -> None:
    """The progress moves match by match, and every match it counts is in the store already (a stop then loses
    only the match being played; stored in batches, a serial run once showed 0 of 80 for its first minute)."""
    seen: list[tuple[int, int]] = []

    def on_progress(progress: Progress) -> None:
        with Store.open_readonly(store_path(tmp_path, "small")) as store:
            seen.append((progress.done, store.count()))

    run_tournament(small_config(), leaderboards=tmp_path, plugins_dir=None, workers=1, on_progress=on_progress)
    assert seen == [(done, done) for done in range(41)]


def test_rows_that_come_back_out_of_order_are_released_in_the_order_asked() -> None:
    order = InOrder()
    matches = list(small_config().schedule().iter_matches())[:5]
    assert [match.index for match in order.note(iter(matches))] == [0, 1, 2, 3, 4]
    assert order.arrive([{"idx": 2}, {"idx": 1}]) == []
    assert [row["idx"] for row in order.arrive([{"idx": 0}])] == [0, 1, 2]
    assert [row["idx"] for row in order.arrive([{"idx": 4}, {"idx": 3}])] == [3, 4]


@pytest.mark.parametrize("pending, workers", [(800, 2), (1, 2), (37, 1), (10_000, 8), (5, 64)])
def test_batches_cover_the_run_and_shrink_towards_its_end(pending: int, workers: int) -> None:
    matches = [next(small_config().schedule().iter_matches())] * pending
    made = list(batches(iter(matches), pending, workers))
    sizes = [len(batch) for batch in made]
    assert sum(sizes) == pending and made[0][0] == matches[0].to_json()
    assert all(1 <= size <= MAX_BATCH for size in sizes)
    assert sizes == sorted(sizes, reverse=True)  # big batches first, the last ones small: workers end together
    assert sizes[-1] == 1


def test_continuing_a_part_played_store_needs_resume(tmp_path: Path) -> None:
    with pytest.raises(Interrupt):
        run_tournament(small_config(), leaderboards=tmp_path, plugins_dir=None, workers=1, on_progress=stop_after(9))
    with pytest.raises(StoreError, match=r"already holds \d+ of 40 results; add --resume"):
        run_tournament(small_config(), leaderboards=tmp_path, plugins_dir=None, workers=1)


def test_a_complete_tournament_has_nothing_left_to_play(tmp_path: Path) -> None:
    run_tournament(small_config(), leaderboards=tmp_path, plugins_dir=None, workers=1)
    again = run_tournament(small_config(), leaderboards=tmp_path, plugins_dir=None, workers=1)
    assert again.played == 0 and again.total == 40


def test_a_changed_config_under_the_same_name_is_refused(tmp_path: Path) -> None:
    run_tournament(small_config(), leaderboards=tmp_path, plugins_dir=None, workers=1)
    with pytest.raises(StoreError, match=r"holds results of a different configuration of 'small' \(seed: was 5, "
                                         r"now 6\); give the tournament a new name"):
        run_tournament(small_config(seed=6), leaderboards=tmp_path, plugins_dir=None, workers=1, resume=True)
    renamed = config_from_dict(
        {"name": "small", "game": "lovat", "seed": 5, "blocks": 2, "game_options": {"players": 4},
         "agents": [{"name": "greedy"}, {"name": "greedy-2", "plugin": "greedy"}, {"name": "random"},
                    {"name": "random-2", "plugin": "random"}, {"name": "random-9", "plugin": "random"}]},
        KNOWN_GAMES, KNOWN_AGENTS,
    )
    with pytest.raises(StoreError, match=r"\(agents\[4\]\.name: was \"random-3\", now \"random-9\"\)"):
        run_tournament(renamed, leaderboards=tmp_path, plugins_dir=None, workers=1, resume=True)


def test_more_blocks_with_resume_extend_a_tournament_and_equal_a_fresh_run(tmp_path: Path) -> None:
    run_tournament(small_config(blocks=2), leaderboards=tmp_path / "grown", plugins_dir=None, workers=1)
    with pytest.raises(StoreError, match="to add blocks, raise only 'blocks' and run with --resume"):
        run_tournament(small_config(blocks=3), leaderboards=tmp_path / "grown", plugins_dir=None, workers=1)
    grown = run_tournament(small_config(blocks=3), leaderboards=tmp_path / "grown", plugins_dir=None, workers=1,
                           resume=True)
    assert (grown.played, grown.total) == (20, 60)  # only the new block of each of the 5 tables
    run_tournament(small_config(blocks=3), leaderboards=tmp_path / "fresh", plugins_dir=None, workers=1)
    assert results(tmp_path / "grown") == results(tmp_path / "fresh")
    with pytest.raises(StoreError, match="different configuration"):  # fewer blocks never fit the stored results
        run_tournament(small_config(blocks=2), leaderboards=tmp_path / "grown", plugins_dir=None, workers=1,
                       resume=True)


def test_resume_after_an_interruption_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    config = small_config()
    whole = tmp_path / "whole"
    run_tournament(config, leaderboards=whole, plugins_dir=None, workers=1)
    parts = tmp_path / "parts"
    with pytest.raises(Interrupt):
        run_tournament(config, leaderboards=parts, plugins_dir=None, workers=1, on_progress=stop_after(9))
    interrupted = results(parts)
    assert 9 <= len(interrupted) < 40
    summary = run_tournament(config, leaderboards=parts, plugins_dir=None, workers=1, resume=True)
    assert summary.played == 40 - len(interrupted)
    assert results(parts) == results(whole)


def twin_stores(name: str, *leaderboards: Path) -> None:
    """Empty stores of tournament ``name`` that share one secret key (copies of one new store)."""
    first = store_path(leaderboards[0], name)
    Store(first).close()
    for folder in leaderboards[1:]:
        store_path(folder, name).parent.mkdir(parents=True)
        shutil.copyfile(first, store_path(folder, name))


@pytest.mark.ray
def test_ray_run_equals_serial_run_with_secret_deals(tmp_path: Path) -> None:
    config = dataclasses.replace(small_config(), seed=None)  # deals keyed by the store's secret
    twin_stores("small", tmp_path / "serial", tmp_path / "ray")
    run_tournament(config, leaderboards=tmp_path / "serial", plugins_dir=None, workers=1)
    summary = run_tournament(config, leaderboards=tmp_path / "ray", plugins_dir=None, workers=2)
    assert summary.backend == "ray" and summary.workers == 2
    assert results(tmp_path / "ray") == results(tmp_path / "serial")


@pytest.mark.ray
def test_a_run_started_in_the_driver_and_continued_on_ray_equals_a_serial_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The default backend: the driver plays while a local Ray starts, then hands the rest to it."""
    config = dataclasses.replace(small_config(), seed=None)
    twin_stores("small", tmp_path / "serial", tmp_path / "handover")
    run_tournament(config, leaderboards=tmp_path / "serial", plugins_dir=None, workers=1)
    monkeypatch.setattr(execution, "RAY_WORTH_SECONDS", 0.0)  # any run is worth Ray: started after the first batch
    # Wait for Ray once it is starting, so that the hand-over comes right after the first batch whatever
    # the machine's speed (otherwise the driver may well finish 40 quick matches before Ray is up).
    monkeypatch.setattr(execution.RayStart, "ready", lambda start: start.wait() or True)
    summary = run_tournament(config, leaderboards=tmp_path / "handover", plugins_dir=None)
    first_batch = batch_size(40, os.cpu_count() or 1)
    assert (summary.backend, summary.played) == ("ray", 40)
    assert first_batch <= summary.in_driver < 40  # the head start, and more until the first batch is back from Ray
    assert results(tmp_path / "handover") == results(tmp_path / "serial")
    assert (tmp_path / "handover" / "small" / "ray.log").is_file()


def test_a_local_ray_that_fails_to_start_leaves_the_run_to_the_driver(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken_init(address: str | None, workers: int | None) -> None:
        raise RuntimeError("no room for Ray's session folder")

    monkeypatch.setattr(execution, "RAY_WORTH_SECONDS", 0.0)
    monkeypatch.setattr(execution, "init_ray", broken_init)
    summary = run_tournament(small_config(), leaderboards=tmp_path / "default", plugins_dir=None)
    assert (summary.backend, summary.in_driver, summary.played) == ("serial", 40, 40)
    assert "no room for Ray's session folder" in (tmp_path / "default" / "small" / "ray.log").read_text()
    run_tournament(small_config(), leaderboards=tmp_path / "serial", plugins_dir=None, workers=1)
    assert results(tmp_path / "default") == results(tmp_path / "serial")


def test_a_small_run_on_the_default_backend_never_starts_ray(tmp_path: Path) -> None:
    summary = run_tournament(small_config(), leaderboards=tmp_path / "default", plugins_dir=None)
    assert (summary.backend, summary.workers, summary.in_driver) == ("serial", 1, 40)
    assert not (tmp_path / "default" / "small" / "ray.log").exists()  # Ray's output goes there from its start
    run_tournament(small_config(), leaderboards=tmp_path / "serial", plugins_dir=None, workers=1)
    assert results(tmp_path / "default") == results(tmp_path / "serial")


def test_same_seed_same_results_different_seed_different_deals(tmp_path: Path) -> None:
    run_tournament(small_config(), leaderboards=tmp_path / "a", plugins_dir=None, workers=1)
    run_tournament(small_config(), leaderboards=tmp_path / "b", plugins_dir=None, workers=1)
    other = dataclasses.replace(small_config(seed=6))
    run_tournament(other, leaderboards=tmp_path / "c", plugins_dir=None, workers=1)
    assert results(tmp_path / "a") == results(tmp_path / "b")
    assert [row[6] for row in results(tmp_path / "a")] != [row[6] for row in results(tmp_path / "c")]


REPORTER = """
from arena import hookimpl

@hookimpl
def arena_match_finished(record):
    with open({path!r}, "a") as out:
        out.write(record["match"] + "\\n")
"""


@pytest.mark.ray
def test_a_node_killed_mid_run_loses_nothing_and_counts_nothing_twice(
        tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A three-node Ray cluster on this machine; one worker node is removed while it holds work.

    Ray retries the lost batches; reporters still hear every match once, in schedule order, and whatever
    Ray prints about the dead node goes to the tournament's ray.log, not to stdout or stderr.
    """
    from ray.cluster_utils import Cluster

    heard = tmp_path / "heard.txt"
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "reporter.py").write_text(REPORTER.format(path=str(heard)))
    monkeypatch.setenv("ARENA_PLUGINS_TRUST", "reporter")  # a reporter runs on the driver: only when trusted
    config = small_config(blocks=4)
    run_tournament(config, leaderboards=tmp_path / "serial", plugins_dir=None, workers=1)
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0})  # work goes to the worker nodes
    doomed = cluster.add_node(num_cpus=1)
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    killed: list = []

    def kill_a_node(progress: Progress) -> None:
        if progress.played_now and not killed:
            cluster.remove_node(doomed, allow_graceful=False)
            killed.append(progress.played_now)

    try:
        capfd.readouterr()  # the cluster's own start-up output is not the run's
        summary = run_tournament(config, leaderboards=tmp_path / "cluster", plugins_dir=plugins,
                                 address=cluster.address, on_progress=kill_a_node)
        streams = capfd.readouterr()
    finally:
        cluster.shutdown()
    assert killed and killed[0] < summary.total
    assert summary.played == summary.total == 80
    assert results(tmp_path / "cluster") == results(tmp_path / "serial")
    assert heard.read_text().split() == [match.id for match in config.schedule().iter_matches()]
    assert streams.out == "" and streams.err == ""
    assert (tmp_path / "cluster" / "small" / "ray.log").is_file()


def test_an_unfinished_tournaments_leaderboards_say_how_many_matches_were_scheduled(tmp_path: Path) -> None:
    from arena.leaderboard.files import to_markdown
    from arena.leaderboard.publish import rate_stored
    from arena.leaderboard.terminal import caption_lines

    config = small_config()
    with pytest.raises(Interrupt):
        run_tournament(config, leaderboards=tmp_path, plugins_dir=None, workers=1, on_progress=stop_after(9))
    board = rate_stored(config, tmp_path)[0].default
    played = len(results(tmp_path))
    line = f"{played} of 40 scheduled matches in {board.blocks} duplicate blocks (unfinished: arena run --resume"
    assert board.scheduled == 40 and board.matches == played < 40 and board.to_json()["scheduled"] == 40
    assert line in caption_lines(board)[0] and line in to_markdown(board, "small")
    run_tournament(config, leaderboards=tmp_path, plugins_dir=None, workers=1, resume=True)
    board = rate_stored(config, tmp_path)[0].default
    assert caption_lines(board)[0].endswith("; 40 matches in 10 duplicate blocks")
