"""A small stored tournament and its site, shared by the site's tests.

Lorum, two deals, four entries at one table in two duplicate blocks (8 matches); ``bad-raises``
(tests/bad_agents) raises after two decisions, so every match has a fault and a substitute.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.leaderboard.publish import Published, publish
from arena.plugins import load_registry
from arena.tournament.config import config_from_dict
from arena.tournament.runner import run_tournament

BAD_AGENTS = Path(__file__).resolve().parents[1] / "bad_agents"

CONFIG = {
    "name": "site-test",
    "game": "lorum",
    "seed": 5,
    "blocks": 2,
    "ratings": ["elo", "score"],
    "isolation": "trusted",
    "game_options": {"deals": 2},
    "agents": [
        {"name": "greedy"},
        {"name": "random"},
        {"name": "raiser", "plugin": "bad-raises"},
        {"name": "random-2", "plugin": "random"},
    ],
}


@pytest.fixture(scope="session")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> tuple[Published, Path]:
    """The published tournament and its leaderboards folder."""
    boards = tmp_path_factory.mktemp("boards")
    registry = load_registry(plugins_dir=BAD_AGENTS, entry_points=False).registry
    config = config_from_dict(CONFIG, {name: game.info for name, game in registry.games.items()},
                              {name: set(spec.games) for name, spec in registry.agents.items()})
    run_tournament(config, leaderboards=boards, plugins_dir=BAD_AGENTS, workers=1)
    return publish(config, boards, plugins_dir=BAD_AGENTS), boards


@pytest.fixture(scope="session")
def site(tournament: tuple[Published, Path]) -> Path:
    """The site's folder."""
    published, boards = tournament
    return boards / published.name
