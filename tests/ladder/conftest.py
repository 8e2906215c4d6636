"""Shared pieces of the ladder tests: the skilled-agent plugin folder, small ladder configs, a played ladder."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.cli import main

PLUGINS = Path(__file__).resolve().parent / "plugins"
"""Holds ``skilled.py``: an agent whose strength is its ``skill`` option (greedy with that probability)."""

LORUM_FOUR = """
name = "{name}"
game = "lorum"
seed = {seed}
format = "ladder"
isolation = "trusted"

[game_options]
deals = 1

[ladder]
min_blocks = 4

[[agents]]
name = "greedy"

[[agents]]
name = "random"

[[agents]]
name = "random-2"
plugin = "random"

[[agents]]
name = "greedy-2"
plugin = "greedy"
"""


@pytest.fixture
def lorum_ladder(tmp_path: Path) -> Path:
    """A ladder config of four cheap entries (Lorum, one deal per game, in-process agents)."""
    path = tmp_path / "four.toml"
    path.write_text(LORUM_FOUR.format(name="four", seed=7))
    return path


@pytest.fixture(scope="module")
def boards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding ladder 'four' (8 matches played) and tournament 'plain' in ``boards/``, each with its site.

    Module-scoped: each test module gets its own copy, so one module's changes never reach another's.
    """
    folder = tmp_path_factory.mktemp("ladders")
    config = folder / "four.toml"
    config.write_text(LORUM_FOUR.format(name="four", seed=7))
    assert main(["ladder", "run", str(config), "--matches", "8", "--json", "--leaderboards", str(folder / "boards"),
                 "--plugins-dir", str(PLUGINS)]) == 0
    plain = folder / "plain.toml"
    plain.write_text(LORUM_FOUR.format(name="plain", seed=7).replace('format = "ladder"', "blocks = 1")
                     .replace("[ladder]\nmin_blocks = 4\n", ""))
    assert main(["run", str(plain), "--json", "--leaderboards", str(folder / "boards")]) == 0
    return folder
