"""Tests for arena.tournament.config: defaults, every kind of error line, the shipped configs."""

from __future__ import annotations

import datetime
import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from arena.games.base import GameInfo, OptionSpec
from arena.ratings.registry import method_names
from arena.tournament.config import (
    AgentEntry,
    ConfigError,
    Limits,
    TournamentConfig,
    config_from_dict,
    load_config,
)
from arena.tournament.schedule import COMPLETE, GAUNTLET

ROOT = Path(__file__).resolve().parents[2]
QUICKSTARTS = [ROOT / "configs" / "quickstart-lovat.toml", ROOT / "configs" / "quickstart-lorum.toml"]

# Stand-ins for the real games' declared info (the registry lives elsewhere).
LOVAT = GameInfo(
    id="lovat-v1",
    name="lovat",
    title="Lovat",
    player_counts=(3, 4, 5, 6),
    options=(),
    simultaneous_phases=("keep",),
    chance=("dealer", "deal", "die"),
)
LORUM = GameInfo(
    id="lorum-v1",
    name="lorum",
    title="Slovak Lorum",
    player_counts=(4,),
    options=(OptionSpec(name="deals", default=4, choices=None, minimum=1, description="deals in a game"),),
    simultaneous_phases=(),
    chance=("dealer", "deal"),
)
GAMES = {"lovat": LOVAT, "lorum": LORUM}
AGENTS = {"random": {"lovat", "lorum"}, "greedy": {"lovat", "lorum"}, "lovat-only": {"lovat"}}
SOURCE = "configs/x.toml"


def minimal(**changes: Any) -> dict[str, Any]:
    """A small valid config as parsed TOML, with top-level keys replaced by ``changes``."""
    data: dict[str, Any] = {
        "name": "demo",
        "game": "lovat",
        "game_options": {"players": 3},
        "agents": [{"name": "greedy"}, {"name": "random"}, {"name": "random-2", "plugin": "random"}],
    }
    data.update(changes)
    return data


def problems(data: dict[str, Any], games: dict = GAMES, agents: dict = AGENTS) -> list[str]:
    """The problem lines a config raises (fails if it loads)."""
    with pytest.raises(ConfigError) as caught:
        config_from_dict(data, games, agents, source=SOURCE)
    lines = str(caught.value).splitlines()
    assert list(caught.value.problems) == lines
    assert all(line.startswith(f"{SOURCE}: ") for line in lines), lines
    return lines


def only_problem(data: dict[str, Any], key: str, *fragments: str) -> str:
    """Assert exactly one problem, for ``key``, mentioning every fragment."""
    lines = problems(data)
    assert len(lines) == 1, lines
    line = lines[0]
    assert line.startswith(f"{SOURCE}: {key}: "), line
    for fragment in fragments:
        assert fragment in line, line
    return line


def test_a_top_level_key_written_below_a_table_header_says_to_move_it_above() -> None:
    """TOML reads ``format = ...`` written after ``[limits]`` as ``limits.format``: say where it belongs."""
    text = 'name = "demo"\ngame = "lovat"\n[limits]\nmove_seconds = 1.0\nformat = "round-robin"\nblocks = 2\n'
    text += '[game_options]\nplayers = 3\nratings = ["elo"]\n'
    text += '[[agents]]\nname = "greedy"\nseed = 3\n[[agents]]\nname = "random"\n[[agents]]\nname = "random-2"\n'
    text += 'plugin = "random"\n'
    data = tomllib.loads(text)
    assert data["limits"]["format"] == "round-robin"  # what the slip does: the key lands in the table
    lines = problems(data)
    tail = "is a top-level key: TOML puts every key below a {} header into that table, so write it above the first table"
    assert lines == [
        f"{SOURCE}: game_options.ratings: unknown Lovat option 'ratings' (known: players); "
        f"'ratings' {tail.format('[game_options]')}",
        f"{SOURCE}: limits.format: unknown key; 'format' {tail.format('[limits]')}",
        f"{SOURCE}: limits.blocks: unknown key; 'blocks' {tail.format('[limits]')}",
        f"{SOURCE}: agents[0].seed: unknown key; 'seed' {tail.format('[[agents]]')}",
    ]


# --- valid configs ----------------------------------------------------------------------------


def test_minimal_config_gets_every_default() -> None:
    config = config_from_dict(minimal(), GAMES, AGENTS, source=SOURCE)
    assert config == TournamentConfig(
        name="demo",
        game="lovat",
        seed=None,
        format="round-robin",
        blocks=4,
        max_tables=500,
        ratings=tuple(name for name in method_names() if name != "luck"),  # luck is asked for by name
        isolation="auto",
        game_options={"players": 3},
        limits=Limits(move_seconds=1.0, bank_seconds=10.0, startup_seconds=10.0, memory_mb=1024),
        agents=(
            AgentEntry(name="greedy", plugin="greedy", options={}, isolation=None),
            AgentEntry(name="random", plugin="random", options={}, isolation=None),
            AgentEntry(name="random-2", plugin="random", options={}, isolation=None),
        ),
        candidates=(),
        source=SOURCE,
    )
    assert config.seats == 3
    assert config.entry_names == ("greedy", "random", "random-2")


def test_game_option_defaults_are_filled_in() -> None:
    data = minimal(game="lorum", game_options={})
    data["agents"].append({"name": "greedy-2", "plugin": "greedy"})
    config = config_from_dict(data, GAMES, AGENTS)
    assert config.game_options == {"players": 4, "deals": 4}


def test_full_config_round_trips_through_json() -> None:
    data = minimal(
        seed=7,
        format="gauntlet",
        blocks=2,
        max_tables=30,
        ratings=["trueskill", "elo"],
        isolation="isolated",
        limits={"move_seconds": 0.5, "bank_seconds": 0, "startup_seconds": 3, "memory_mb": 256},
        gauntlet={"candidates": ["greedy"]},
    )
    data["agents"][0].update(options={"depth": 2, "style": ["a", "b"]}, isolation="trusted")
    config = config_from_dict(data, GAMES, AGENTS)
    assert config.limits == Limits(move_seconds=0.5, bank_seconds=0.0, startup_seconds=3.0, memory_mb=256)
    assert config.candidates == ("greedy",)
    assert config.field == ("random", "random-2")
    assert config.agents[0].options == {"depth": 2, "style": ["a", "b"]}
    as_json = json.loads(json.dumps(config.to_json()))
    assert config_from_dict(as_json, GAMES, AGENTS) == config


def test_explicitly_trusted_entries_are_the_ones_the_leaderboard_marks() -> None:
    data = minimal(isolation="auto")
    data["agents"][1]["isolation"] = "isolated"
    config = config_from_dict(data, GAMES, AGENTS)
    assert config.trusted_entries() == frozenset()  # auto trusts by origin, never marks
    data["agents"][0]["isolation"] = "trusted"
    first = data["agents"][0]["name"]
    assert config_from_dict(data, GAMES, AGENTS).trusted_entries() == {first}
    del data["agents"][1]["isolation"]
    data["isolation"] = "trusted"  # the tournament's choice covers every entry that does not say otherwise
    assert config_from_dict(data, GAMES, AGENTS).trusted_entries() == {entry["name"] for entry in data["agents"]}
    data["isolation"] = "sandboxed"
    assert config_from_dict(data, GAMES, AGENTS).isolation == "sandboxed"


def test_config_builds_its_schedule() -> None:
    config = config_from_dict(minimal(blocks=2, seed=5), GAMES, AGENTS)
    schedule = config.schedule()
    assert schedule.design.kind == COMPLETE
    assert len(schedule.tables) == 1 and len(schedule) == 2 * 3
    assert schedule == config.schedule()
    gauntlet = config_from_dict(minimal(format="gauntlet", gauntlet={"candidates": ["greedy"]}), GAMES, AGENTS)
    assert gauntlet.schedule().design.format == GAUNTLET


@pytest.mark.parametrize("path", QUICKSTARTS, ids=lambda p: p.name)
def test_quickstart_configs_load(path: Path) -> None:
    config = load_config(path, GAMES, {"random": {"lovat", "lorum"}, "greedy": {"lovat", "lorum"}})
    assert config.name == path.stem
    assert config.seats == 4
    schedule = config.schedule()
    assert schedule.design.kind == COMPLETE
    assert 100 <= len(schedule) <= 400  # about a minute on two cores with fast engines
    assert {entry.plugin for entry in config.agents} == {"random", "greedy"}


@pytest.mark.parametrize("path", QUICKSTARTS, ids=lambda p: p.name)
def test_quickstart_configs_load_against_the_real_games(path: Path) -> None:
    lovat = pytest.importorskip("arena.games.lovat")
    lorum = pytest.importorskip("arena.games.lorum")
    games = {"lovat": lovat.GAME.info, "lorum": lorum.GAME.info}
    config = load_config(path, games, {"random": {"lovat", "lorum"}, "greedy": {"lovat", "lorum"}})
    assert config.game_options["players"] == 4


# --- one line per problem -----------------------------------------------------------------------


def test_unknown_keys_suggest_the_closest() -> None:
    only_problem(minimal(limit={}), "limit", 'did you mean "limits"?')
    only_problem(minimal(limits={"move_second": 1}), "limits.move_second", 'did you mean "move_seconds"?')
    only_problem(minimal(colour="red"), "colour", "unknown key", "known keys: name, game")
    data = minimal()
    data["agents"][2]["plugn"] = "random"
    only_problem(data, "agents[2].plugn", 'did you mean "plugin"?')
    only_problem(
        minimal(format="gauntlet", gauntlet={"candidates": ["greedy"], "candidate": 1}),
        "gauntlet.candidate",
        'did you mean "candidates"?',
    )


@pytest.mark.parametrize(
    ("changes", "key", "fragments"),
    [
        ({"name": "My Cup"}, "name", ["lowercase letters", 'got "My Cup"']),
        ({"name": 3}, "name", ["got 3"]),
        ({"seed": -1}, "seed", ["expected an integer from 0 to 2**63-1 (or no seed: secret deals), got -1"]),
        ({"seed": "lucky"}, "seed", ['got "lucky"']),
        ({"seed": True}, "seed", ["got true"]),
        ({"format": "swiss"}, "format", ["one of round-robin, gauntlet", 'got "swiss"']),
        ({"format": "roundrobin"}, "format", ['did you mean "round-robin"?']),
        ({"blocks": 0}, "blocks", ["positive integer", "got 0"]),
        ({"blocks": 2.5}, "blocks", ["got 2.5"]),
        ({"max_tables": "many"}, "max_tables", ["positive integer", 'got "many"']),
        ({"ratings": []}, "ratings", ["non-empty array"]),
        ({"ratings": "elo"}, "ratings", ['got "elo"']),
        ({"isolation": "sandbox"}, "isolation", ["auto, trusted, isolated", 'got "sandbox"']),
        ({"limits": {"move_seconds": "fast"}}, "limits.move_seconds", ['a positive number up to 86400 (seconds), got "fast"']),
        ({"limits": {"move_seconds": 0}}, "limits.move_seconds", ["positive number"]),
        ({"limits": {"bank_seconds": -1}}, "limits.bank_seconds", ["a number >= 0", "got -1"]),
        ({"limits": {"startup_seconds": float("nan")}}, "limits.startup_seconds", ["positive number"]),
        ({"limits": {"memory_mb": 1.5}}, "limits.memory_mb", ["positive integer up to 1,048,576 (megabytes), got 1.5"]),
        ({"limits": 5}, "limits", ["expected a table ([limits] section), got 5"]),
        ({"game_options": [1]}, "game_options", ["expected a table", "got an array"]),
    ],
)
def test_bad_values_name_the_key_and_expectation(changes: dict, key: str, fragments: list[str]) -> None:
    only_problem(minimal(**changes), key, *fragments)


def test_rating_methods_are_checked_one_by_one() -> None:
    lines = problems(minimal(ratings=["elo", "trueskil", "elo", 3]))
    assert lines == [
        f'{SOURCE}: ratings[1]: unknown rating method "trueskil"; did you mean "trueskill"? '
        "(known: elo, plackett-luce, trueskill, score, luck)",
        f'{SOURCE}: ratings[2]: rating method "elo" is listed twice',
        f"{SOURCE}: ratings[3]: unknown rating method 3 (known: elo, plackett-luce, trueskill, score, luck)",
    ]


def test_missing_required_keys() -> None:
    lines = problems({})
    assert [line.split(": ")[1] for line in lines] == ["name", "game", "agents"]
    assert "known: lorum, lovat" in lines[1]


def test_unknown_game_lists_the_known_ones() -> None:
    only_problem(minimal(game="lovatt"), "game", 'unknown game "lovatt"; did you mean "lovat"?', "known: lorum, lovat")


def test_unknown_agent_lists_the_known_ones() -> None:
    data = minimal()
    data["agents"][2]["plugin"] = "gredy"
    only_problem(data, "agents[2].plugin", 'unknown agent "gredy"; did you mean "greedy"?', "known: greedy, lovat-only")


def test_unknown_agent_from_the_entry_name_says_the_plugin_defaults_to_it() -> None:
    data = minimal()
    data["agents"][1] = {"name": "greedy-2"}
    only_problem(data, "agents[1].name", 'unknown agent "greedy-2"', "defaults to the entry name")


def test_agent_that_does_not_play_the_game() -> None:
    data = minimal(game="lorum", game_options={})
    data["agents"].append({"name": "solo", "plugin": "lovat-only"})
    only_problem(data, "agents[3].plugin", 'agent "lovat-only" does not play lorum', "it plays: lovat")


def test_game_options_are_checked_by_the_game_one_by_one() -> None:
    data = minimal(game="lorum", game_options={"players": 5, "deals": 0, "deels": 3})
    data["agents"].append({"name": "greedy-2", "plugin": "greedy"})
    lines = problems(data)
    assert len(lines) == 3, lines
    assert lines[0].startswith(f"{SOURCE}: game_options.players: Slovak Lorum is played by 4 players, not 5")
    assert lines[1].startswith(f"{SOURCE}: game_options.deals: option 'deals' must be an integer >= 1, not 0")
    assert lines[2].startswith(f"{SOURCE}: game_options.deels: unknown Slovak Lorum option 'deels'")
    assert lines[2].endswith('; did you mean "deals"?')


def test_fewer_entries_than_seats_in_a_round_robin() -> None:
    only_problem(
        minimal(game_options={"players": 4}),
        "agents",
        "a round-robin at tables of 4 needs at least 4 entries, got 3",
        'name = "greedy-2"',
    )


def test_agent_entry_problems() -> None:
    data = minimal(
        agents=[
            {"name": "greedy"},
            {"name": "greedy", "options": "fast"},
            {"plugin": "random"},
            {"name": "bad name", "plugin": "random"},
            {"name": "random", "isolation": "jail"},
            {"name": "random-2", "plugin": "random", "options": {"when": datetime.date(2026, 1, 1)}},
        ]
    )
    lines = problems(data)
    keys = [line.split(": ")[1] for line in lines]
    assert keys == [
        "agents[1].name",
        "agents[1].options",
        "agents[2].name",
        "agents[3].name",
        "agents[4].isolation",
        "agents[5].options",
    ]
    assert 'duplicate entry name "greedy" (also agents[0])' in lines[0]
    assert "expected a table of agent options" in lines[1]
    assert "missing" in lines[2]
    assert 'got "bad name"' in lines[3]
    assert 'got "jail"' in lines[4]
    assert "no dates or times" in lines[5]


@pytest.mark.parametrize("agents", [[], "greedy", [{"name": "greedy"}, "random"]])
def test_agents_must_be_an_array_of_tables(agents: Any) -> None:
    only_problem(minimal(agents=agents), "agents")


def test_gauntlet_problems() -> None:
    only_problem(minimal(gauntlet={"candidates": ["greedy"]}), "gauntlet", 'only used with format = "gauntlet"')
    only_problem(minimal(format="gauntlet"), "gauntlet", "missing")
    only_problem(minimal(format="gauntlet", gauntlet={"candidates": []}), "gauntlet.candidates", "non-empty array")
    only_problem(
        minimal(format="gauntlet", gauntlet={"candidates": ["gredy"]}),
        "gauntlet.candidates[0]",
        '"gredy" is not an entry; did you mean "greedy"?',
    )
    only_problem(
        minimal(format="gauntlet", gauntlet={"candidates": ["greedy", "random"]}),
        "gauntlet.candidates",
        "leaves 1 field entries, but tables of 3 need at least 2",
    )


def test_every_problem_is_reported_at_once() -> None:
    data = minimal(seed="x", blocks=0, game="chess", limits={"move_seconds": "fast", "memory": 1})
    data["agents"][0]["plugin"] = "nobody"
    lines = problems(data)
    keys = [line.split(": ")[1] for line in lines]
    assert keys == ["game", "seed", "blocks", "limits.memory", "limits.move_seconds", "agents[0].plugin"]


# --- files ------------------------------------------------------------------------------------


def test_toml_syntax_error_is_one_line_with_the_line_number(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text('name = "demo"\ngame = "lovat"\nseed = = 3\n', encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(path, GAMES, AGENTS)
    assert len(caught.value.problems) == 1
    assert str(caught.value).startswith(f"{path}: line 3: TOML syntax error: ")


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the file"):
        load_config(tmp_path / "nope.toml", GAMES, AGENTS)


def test_file_errors_name_the_file_as_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "configs").mkdir()
    agents = minimal()["agents"]
    text = 'name = "demo"\ngame = "lovat"\n[game_options]\nplayers = 3\n[limits]\nmove_seconds = "fast"\n'
    for agent in agents:
        text += f'[[agents]]\nname = "{agent["name"]}"\nplugin = "{agent.get("plugin", agent["name"])}"\n'

    (tmp_path / "configs" / "x.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config("configs/x.toml", GAMES, AGENTS)
    assert str(caught.value) == 'configs/x.toml: limits.move_seconds: expected a positive number up to 86400 (seconds), got "fast"'


def test_a_duplicate_entry_name_is_one_problem_not_also_too_few_entries() -> None:
    data = minimal(game_options={"players": 4})  # 3 distinct names for 4 seats: the duplicate is the problem
    data["agents"] = [{"name": "greedy"}, {"name": "random"}, {"name": "greedy"}, {"name": "random-2",
                                                                                  "plugin": "random"}]
    lines = problems(data)
    assert len(lines) == 1 and 'agents[2].name: duplicate entry name "greedy" (also agents[0])' in lines[0]
