"""Shared pieces of the ladder tests: the skilled-agent plugin folder and small ladder configs."""

from __future__ import annotations

from pathlib import Path

import pytest

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
