"""A ladder's field as stored: an entry joins with its version, or not at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.ladder import load_ladder_config
from arena.ladder.field import add_entry, read_ladder, start_ladder
from arena.plugins import load_registry
from arena.tournament.config import AgentEntry

REGISTRY = load_registry(plugins_dir=None, entry_points=False).registry
GAMES = {name: game.info for name, game in REGISTRY.games.items()}
AGENTS = {name: set(spec.games) for name, spec in REGISTRY.agents.items()}
VERSION = {"agent": "greedy", "plugin": "arena", "version": "1.0", "files": "ab" * 32}


def test_an_entry_joins_with_its_version_in_one_step(tmp_path: Path, lorum_ladder: Path) -> None:
    config = load_ladder_config(lorum_ladder, GAMES, AGENTS)
    with start_ladder(config, tmp_path) as store:
        add_entry(store, AgentEntry(name="greedy-3", plugin="greedy"), VERSION, {"passed": True})
        assert read_ladder(store).active[-1] == "greedy-3"
        assert store.store.versions()["greedy-3"] == VERSION

        broken = {key: value for key, value in VERSION.items() if key != "files"}
        with pytest.raises(KeyError):
            add_entry(store, AgentEntry(name="greedy-4", plugin="greedy"), broken, {"passed": True})
        assert "greedy-4" not in read_ladder(store).active, "no entry joins without its version"
        assert "greedy-4" not in store.store.versions()
        assert [agent["name"] for agent in store.store.meta("config")["agents"]][-1] == "greedy-3"
