"""Ladder configs: the shipped example loads, round-trips through its JSON, and `arena run` refuses it."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.cli import main
from arena.ladder import ladder_from_dict, load_ladder_config
from arena.ladder.config import LadderSettings
from arena.plugins import load_registry
from arena.tournament.config import ConfigError

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = load_registry(plugins_dir=None, entry_points=False).registry
GAMES = {name: game.info for name, game in REGISTRY.games.items()}
AGENTS = {name: set(spec.games) for name, spec in REGISTRY.agents.items()}
OPTIONS = {name: spec.options for name, spec in REGISTRY.agents.items()}


def test_the_example_ladder_config_loads_and_round_trips() -> None:
    config = load_ladder_config(ROOT / "configs" / "ladder-lovat.toml", GAMES, AGENTS, agent_options=OPTIONS)
    assert (config.name, config.seats, config.settings) == ("ladder-lovat", 3, LadderSettings())
    assert config.tournament.entry_names == ("random", "greedy", "search-20")
    data = config.to_json()
    assert data["format"] == "ladder" and "blocks" not in data and "max_tables" not in data
    assert ladder_from_dict(data, GAMES, AGENTS, agent_options=OPTIONS).to_json() == data


def test_arena_run_refuses_a_ladder_config_in_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status = main(["run", str(ROOT / "configs" / "ladder-lovat.toml"), "--leaderboards", str(tmp_path)])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1
    assert "a ladder config; play it with 'arena ladder run" in err
    assert not any(tmp_path.iterdir()), "nothing is written"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('format = "ladder"\n[x]\n' + "a." * 300_000 + "b = 1", ": line 3: a dotted key of more than 64 parts"),
        ('format = "ladder"\nseats = = 3\n', ": line 2: TOML syntax error: "),
    ],
)
def test_a_ladder_config_is_read_as_a_tournament_config_is(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "ladder.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_ladder_config(path, GAMES, AGENTS, agent_options=OPTIONS)
    (line,) = caught.value.problems
    assert line.startswith(f"{path}{problem}")


def test_a_ladder_short_of_entries_is_called_a_ladder() -> None:
    data = load_ladder_config(ROOT / "configs" / "ladder-lovat.toml", GAMES, AGENTS, agent_options=OPTIONS).to_json()
    data["agents"] = data["agents"][:2]
    with pytest.raises(ConfigError) as caught:
        ladder_from_dict(data, GAMES, AGENTS, source="l.toml", agent_options=OPTIONS)
    (line,) = caught.value.problems
    assert line.startswith("l.toml: agents: a ladder at tables of 3 needs at least 3 entries, got 2; add entries")


def test_a_top_level_key_below_the_ladder_table_says_to_move_it_above() -> None:
    data = load_ladder_config(ROOT / "configs" / "ladder-lovat.toml", GAMES, AGENTS, agent_options=OPTIONS).to_json()
    data["ladder"]["isolation"] = data.pop("isolation")  # written after [ladder]: TOML puts it in that table
    with pytest.raises(ConfigError) as caught:
        ladder_from_dict(data, GAMES, AGENTS, source="l.toml", agent_options=OPTIONS)
    assert caught.value.problems == (
        "l.toml: ladder.isolation: unknown key; 'isolation' is a top-level key: TOML puts every key below a "
        "[ladder] header into that table, so write it above the first table",)
