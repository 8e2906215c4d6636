"""A ladder played on a local Ray chooses and stores exactly what it does serially (the choice depends only on
the store and the seed)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from arena.ladder import ladder_from_dict, run_ladder
from arena.plugins import load_registry
from arena.tournament.store import Store, store_path

REGISTRY = load_registry(plugins_dir=None, entry_points=False).registry


def chosen_and_stored(leaderboards: Path) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    with sqlite3.connect(store_path(leaderboards, "rayed")) as db:
        return (db.execute("SELECT block_id, table_idx, batch, focus, reason FROM ladder_blocks ORDER BY number")
                .fetchall(),
                db.execute("SELECT idx, id, deal_seed, agents, scores, ranks, faults FROM matches ORDER BY idx")
                .fetchall())


@pytest.mark.ray
def test_a_ladder_on_ray_equals_a_serial_one_with_secret_deals(tmp_path: Path) -> None:
    config = ladder_from_dict(
        {"name": "rayed", "game": "lovat", "format": "ladder", "game_options": {"players": 3},
         "ladder": {"min_blocks": 2, "batch_blocks": 5},
         "agents": [{"name": "greedy"}, {"name": "random"}, {"name": "random-2", "plugin": "random"},
                    {"name": "greedy-2", "plugin": "greedy"}]},
        {name: game.info for name, game in REGISTRY.games.items()},
        {name: set(spec.games) for name, spec in REGISTRY.agents.items()})
    first = store_path(tmp_path / "serial", "rayed")
    first.parent.mkdir(parents=True)
    Store(first).close()  # one secret key for both: deals keyed by the store's secret
    store_path(tmp_path / "ray", "rayed").parent.mkdir(parents=True)
    shutil.copyfile(first, store_path(tmp_path / "ray", "rayed"))
    run_ladder(config, leaderboards=tmp_path / "serial", plugins_dir=None, matches=30, workers=1)
    summary = run_ladder(config, leaderboards=tmp_path / "ray", plugins_dir=None, matches=30, workers=2)
    assert (summary.backend, summary.workers, summary.played) == ("ray", 2, 30)
    assert chosen_and_stored(tmp_path / "ray") == chosen_and_stored(tmp_path / "serial")
