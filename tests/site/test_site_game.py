"""The game a site's match pages replay with: a built-in, or a trusted plugin's from the given plugins folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.games.catalog import installed_game
from arena.games.lorum.game import LorumGame
from arena.plugins import TRUST_ENV

PLUGIN = '''
import dataclasses

from arena import hookimpl
from arena.games.lorum.game import LorumGame


class Renamed(LorumGame):
    info = dataclasses.replace(LorumGame.info, name="renamed", id="renamed-v1")


@hookimpl
def arena_register_games(register):
    register(Renamed())
'''


def test_a_plugins_game_loads_from_its_folder_only_when_trusted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "renamed.py").write_text(PLUGIN)
    monkeypatch.delenv(TRUST_ENV, raising=False)
    assert installed_game("renamed", plugins) is None, "a third-party game runs in-process: never untrusted"
    monkeypatch.setenv(TRUST_ENV, "renamed")
    game = installed_game("renamed", plugins)
    assert game is not None and game.info.id == "renamed-v1"
    assert installed_game("renamed", tmp_path) is None, "only the given folder's plugins"
    assert type(installed_game("lorum", plugins)) is LorumGame
