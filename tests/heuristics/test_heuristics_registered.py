"""The reference heuristics are first-party agents: each registered under its name for its one game, built as
the class its module documents, and refused by name in a config for the other game."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.agent import Agent
from arena.cli import main
from arena.plugins import load_registry
from arena_agents.heuristics import lorum, lovat, lovat_reader
from arena_agents.plugin import HEURISTICS

CLASSES: dict[str, tuple[str, type[Agent]]] = {
    "counting": ("lovat", lovat.CountingLovatAgent),
    "hoarder": ("lovat", lovat.HoarderLovatAgent),
    "sniper": ("lovat", lovat.SniperLovatAgent),
    "reader": ("lovat", lovat_reader.ReaderLovatAgent),
    "cautious": ("lorum", lorum.CautiousLorumAgent),
    "mixed": ("lorum", lorum.MixedLorumAgent),
    "point-shy": ("lorum", lorum.PointShyLorumAgent),
    "bold": ("lorum", lorum.BoldLorumAgent),
}
"""What each name must build, written out here so that a slip in the plugin's table fails."""


def test_every_heuristic_is_registered_for_its_game_and_builds_its_class(tmp_path: Path) -> None:
    registry = load_registry(plugins_dir=tmp_path, entry_points=False).registry
    assert registry.errors == []
    assert [name for name, *_ in HEURISTICS] == list(CLASSES)
    for name, (game, agent_class) in CLASSES.items():
        spec = registry.agent(name)
        assert spec.games == (game,) and spec.description and not spec.options.options
        agent = spec.factory(seat=1, game=registry.games[game].info, players=4, seed=3, options={})
        assert type(agent) is agent_class and agent.seat == 1


def test_a_heuristic_named_for_the_other_game_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "wrong.toml"
    config.write_text('name = "wrong"\ngame = "lorum"\nblocks = 1\n'
                      '[[agents]]\nname = "sniper"\n[[agents]]\nname = "greedy"\n'
                      '[[agents]]\nname = "cautious"\n[[agents]]\nname = "bold"\n')
    status = main(["run", str(config), "--leaderboards", str(tmp_path / "boards"), "--workers", "1",
                   "--plugins-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert status == 2
    assert len(err.strip().splitlines()) == 1
    start = 'wrong.toml: agents[0].name: agent "sniper" does not play lorum (it plays: lovat; agents for lorum: '
    assert start in err and err.rstrip().endswith(")"), err
    # Every installed agent that plays Lorum is offered (a user may have installed more), sorted, and no
    # Lovat-only heuristic.
    offered = err[err.index(start) + len(start):err.rindex(")")].split(", ")
    assert offered == sorted(offered)
    assert {"bold", "cautious", "greedy", "mixed", "point-shy", "random", "search"} <= set(offered)
    assert not {"sniper", "counting", "hoarder"} & set(offered)
