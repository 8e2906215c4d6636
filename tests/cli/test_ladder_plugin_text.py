"""A plugin's version is the plugin's text: 'arena ladder history' shows rich markup in it as written."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.cli import main
from tests.ladder.conftest import LORUM_FOUR

MARKUP = "1[/x][link=https://example.invalid]2"
"""A version that crashes rich as markup (a closing tag with no opening one) and would carry a hyperlink."""

PLUGIN = f'''
from arena import hookimpl
from arena.agent import Agent, AgentSpec


class First(Agent):
    def act(self, observation):
        return observation.legal[0]


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="first", games=("lorum",), factory=First, version={MARKUP!r}, description="first legal"))
'''


def test_ladder_history_shows_a_versions_markup_literally(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "first.py").write_text(PLUGIN)
    config = tmp_path / "four.toml"
    config.write_text(LORUM_FOUR.format(name="four", seed=7).replace('name = "greedy-2"\nplugin = "greedy"',
                                                                     'name = "first"\nplugin = "first"'))
    where = ["--leaderboards", str(tmp_path / "boards")]
    assert main(["ladder", "run", str(config), "--matches", "4", "--json", *where,
                 "--plugins-dir", str(plugins)]) == 0
    capsys.readouterr()
    monkeypatch.setenv("COLUMNS", "200")  # the whole version on one line
    assert main(["ladder", "history", "four", *where]) == 0
    out = capsys.readouterr().out
    assert f"first {MARKUP}" in out, out
