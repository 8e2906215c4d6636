"""A tournament keeps each seat's output with its match, apart from the public record and the export, in the
results store (read back after the run, as a restarted server would)."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

from arena.plugins import load_registry
from arena.tournament.config import config_from_dict
from arena.tournament.match_row import rows_for_export
from arena.tournament.runner import run_tournament
from arena.tournament.store import Store, store_path

PLUGIN = '''
from arena import hookimpl
from arena.agent import Agent, AgentSpec


class Talker(Agent):
    def act(self, observation):
        print(f"talker in seat {self.seat} with seed {self.seed}")
        return observation.legal[0]


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="talker", games=("lovat",), factory=Talker, description="talks", version="1"))
'''


def test_each_seats_output_is_stored_apart_from_the_record(tmp_path: Path) -> None:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "talker.py").write_text(PLUGIN)
    registry = load_registry(plugins_dir=plugins, entry_points=False).registry
    config = config_from_dict(
        {"name": "talk", "game": "lovat", "seed": 3, "blocks": 1, "game_options": {"players": 4},
         "agents": [{"name": "talker"}, {"name": "random"}, {"name": "random-2", "plugin": "random"},
                    {"name": "random-3", "plugin": "random"}]},
        {name: game.info for name, game in registry.games.items()},
        {name: set(spec.games) for name, spec in registry.agents.items()})
    run_tournament(config, leaderboards=tmp_path / "boards", plugins_dir=plugins, workers=1)
    with Store.open_readonly(store_path(tmp_path / "boards", "talk")) as store:
        rows = list(store.rows())
        assert len(rows) == 4
        for row in rows:
            seat = row.agents.index("talker")
            log = store.seat_log(row.id, seat)
            assert log.startswith(f"talker in seat {seat} with seed "), log
            assert all(store.seat_log(row.id, other) == "" for other in range(4) if other != seat)
            record = store.record(row.id)
            assert "talker in seat" not in json.dumps(record)
        assert "talker in seat" not in json.dumps(rows_for_export(rows))
        packed = store.db.execute("SELECT record FROM matches").fetchall()
        assert all(b"talker in seat" not in zlib.decompress(blob) for (blob,) in packed)
