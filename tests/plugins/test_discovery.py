"""Plugin discovery: every source goes through one path, and a bad plugin never stops the others."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from arena.plugins import ALLOW_ENV, BLOCK_ENV, TRUST_ENV, load_registry

GOOD = '''
from arena import hookimpl
from arena.agent import AgentSpec
from arena_agents.lovat import RandomLovatAgent

@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="{name}", games=("lovat",), factory=RandomLovatAgent,
                       description="test agent", version="9.9"))
'''


def write(folder: Path, name: str, text: str) -> None:
    (folder / name).write_text(textwrap.dedent(text))


@pytest.fixture
def plugins_dir(tmp_path: Path) -> Path:
    write(tmp_path, "good_one.py", GOOD.format(name="good-one"))
    return tmp_path


def test_builtins_register_both_games_and_first_party_agents(tmp_path: Path) -> None:
    registry = load_registry(plugins_dir=tmp_path, entry_points=False).registry
    assert registry.errors == []
    assert {"lovat", "lorum"} <= set(registry.games)
    assert {"random", "greedy"} <= set(registry.agents)
    assert [info.source for info in registry.plugins[:3]] == ["builtin"] * 3


def test_drop_in_file_is_discovered_with_its_path(plugins_dir: Path) -> None:
    registry = load_registry(plugins_dir=plugins_dir, entry_points=False).registry
    assert registry.agent("good-one").version == "9.9"
    info = next(info for info in registry.plugins if info.name == "good_one")
    assert info.source == str(plugins_dir / "good_one.py")
    assert info.agents == ("good-one",)


def test_drop_in_package_folder_is_discovered(tmp_path: Path) -> None:
    package = tmp_path / "pkg_agent"
    package.mkdir()
    write(package, "__init__.py", "from .impl import arena_register_agents\n")
    write(package, "impl.py", GOOD.format(name="pkg-agent"))
    registry = load_registry(plugins_dir=tmp_path, entry_points=False).registry
    assert "pkg-agent" in registry.agents, registry.errors


def test_an_agent_name_two_plugins_claim_is_seated_for_neither(tmp_path: Path) -> None:
    """A drop-in whose file sorts first must not take another plugin's agent name and be rated under it."""
    write(tmp_path, "aaa_imposter.py", GOOD.format(name="victim"))
    write(tmp_path, "victim.py", GOOD.format(name="victim"))
    write(tmp_path, "zzz_third.py", GOOD.format(name="victim"))
    write(tmp_path, "bystander.py", GOOD.format(name="bystander"))
    write(tmp_path, "greedy_too.py", GOOD.format(name="greedy"))  # a built-in name stays the built-in's
    registry = load_registry(plugins_dir=tmp_path, entry_points=False).registry
    assert "victim" not in registry.agents and "victim" not in registry.agent_plugin
    assert registry.agent("bystander").version == "9.9" and registry.agent_plugin["greedy"] == "builtin-agents"
    claims = [line for line in registry.errors if "'victim' is also registered" in line]
    assert claims == [
        f"plugin 'aaa_imposter' ({tmp_path / 'aaa_imposter.py'}): agent not registered: 'victim' is also "
        "registered by plugin 'victim', so none of them is seated under that name (rename one)",
        f"plugin 'victim' ({tmp_path / 'victim.py'}): agent not registered: 'victim' is also registered by "
        "plugin 'aaa_imposter', so none of them is seated under that name (rename one)",
        f"plugin 'zzz_third' ({tmp_path / 'zzz_third.py'}): agent not registered: 'victim' is also registered by "
        "plugin 'aaa_imposter', 'victim', so none of them is seated under that name (rename one)",
    ]
    listed = {info.name: info.agents for info in registry.plugins}
    assert listed["aaa_imposter"] == listed["victim"] == listed["zzz_third"] == () and listed["bystander"] == (
        "bystander",)
    with pytest.raises(KeyError, match="unknown agent 'victim'"):
        registry.agent("victim")


def test_import_failure_is_one_line_and_others_still_load(plugins_dir: Path) -> None:
    write(plugins_dir, "broken.py", "import no_such_module_anywhere\n")
    registry = load_registry(plugins_dir=plugins_dir, entry_points=False).registry
    assert registry.errors == [
        f"plugin 'broken' ({plugins_dir / 'broken.py'}): failed to import: "
        "ModuleNotFoundError: No module named 'no_such_module_anywhere'"
    ]
    assert "good-one" in registry.agents


def test_misspelled_hook_fails_loudly_with_a_suggestion(plugins_dir: Path) -> None:
    write(plugins_dir, "typo.py", "from arena import hookimpl\n@hookimpl\ndef arena_register_agent(register):\n    pass\n")
    registry = load_registry(plugins_dir=plugins_dir, entry_points=False).registry
    [error] = registry.errors
    assert error.startswith("plugin 'typo'")
    assert "unknown hook 'arena_register_agent'; did you mean 'arena_register_agents'?" in error
    assert "typo" not in [info.name for info in registry.plugins]


def test_a_hook_defined_twice_is_named_with_its_lines(plugins_dir: Path) -> None:
    """Two agents pasted into one file each with its own hook: Python keeps the second, and the first would vanish
    without a word; the plugin still loads what the last one registers."""
    first, second = GOOD.format(name="first-one"), GOOD.format(name="second-one").replace("from arena", "#")
    write(plugins_dir, "pasted.py", first + second)
    registry = load_registry(plugins_dir=plugins_dir, entry_points=False).registry
    assert registry.errors == [
        f"plugin 'pasted' ({plugins_dir / 'pasted.py'}): arena_register_agents() is defined 2 times (lines 7, 16): "
        "Python keeps only the last, so what the others register is lost; make one arena_register_agents() "
        "register everything"]
    assert "second-one" in registry.agents and "first-one" not in registry.agents


def test_a_hook_without_hookimpl_is_named(plugins_dir: Path) -> None:
    """pluggy calls only marked functions: without the mark the plugin loaded, registered nothing, and no listing
    or check said why its agent was unknown (tried as a new user would)."""
    write(plugins_dir, "nohook.py", GOOD.format(name="nohook").replace("@hookimpl\n", ""))
    registry = load_registry(plugins_dir=plugins_dir, entry_points=False).registry
    assert registry.errors == [
        f"plugin 'nohook' ({plugins_dir / 'nohook.py'}): arena_register_agents() is not marked @hookimpl, so it is "
        "never called and registers nothing: put @hookimpl (from arena import hookimpl) on the line above it"]
    assert "nohook" not in registry.agents and "good-one" in registry.agents


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ('AgentSpec(name="Bad Name", games=("lovat",), factory=len, description="", version="1")',
         "name 'Bad Name' must be lowercase"),
        ('AgentSpec(name="nofactory", games=("lovat",), factory=None, description="", version="1")',
         "factory is not callable"),
        ('AgentSpec(name="nogames", games=(), factory=len, description="", version="1")',
         "games must be a non-empty tuple"),
        # It said 'at most 32 game names of at most 64 characters': the case was the fault (tried as a new user).
        ('AgentSpec(name="upper", games=("lovat", "Lorum"), factory=len, description="", version="1")',
         "agent 'upper': games: game name 'Lorum' must be lowercase letters, digits"),
        ('AgentSpec(name="random", games=("lovat",), factory=len, description="", version="1")',
         "an agent called 'random' is already registered"),
        ('"just a string"', "expected an arena.agent.AgentSpec, got str"),
    ],
)
def test_bad_agent_registration_is_reported_and_skipped(plugins_dir: Path, spec: str, problem: str) -> None:
    write(plugins_dir, "bad.py", f"""
from arena import hookimpl
from arena.agent import AgentSpec
@hookimpl
def arena_register_agents(register):
    register({spec})
""")
    registry = load_registry(plugins_dir=plugins_dir, entry_points=False).registry
    [error] = registry.errors
    assert error.startswith(f"plugin 'bad' ({plugins_dir / 'bad.py'}): agent not registered: ")
    assert problem in error
    assert "good-one" in registry.agents


def test_block_list_skips_a_plugin(plugins_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(BLOCK_ENV, "good_one")
    registry = load_registry(plugins_dir=plugins_dir, entry_points=False).registry
    assert "good-one" not in registry.agents


def test_allow_list_keeps_builtins_and_named_plugins_only(plugins_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(plugins_dir, "other.py", GOOD.format(name="other"))
    monkeypatch.setenv(ALLOW_ENV, "other")
    registry = load_registry(plugins_dir=plugins_dir, entry_points=False).registry
    assert "other" in registry.agents and "good-one" not in registry.agents
    assert "random" in registry.agents


REPORTER = '''
import json
from arena import hookimpl

@hookimpl
def arena_match_finished(record):
    with open({path!r}, "a") as out:
        out.write(json.dumps({{"match": record.get("match"), "game": record["game"]}}) + "\\n")
'''


def test_a_third_party_reporter_loads_only_when_trusted_by_name(tmp_path: Path) -> None:
    # A reporter runs in the referee's process: without ARENA_PLUGINS_TRUST it is never imported there.
    heard = tmp_path / "heard.jsonl"
    write(tmp_path, "reporter.py", REPORTER.format(path=str(heard)))
    registry = load_registry(plugins_dir=tmp_path, entry_points=False).registry
    [error] = registry.errors
    assert error.startswith(f"plugin 'reporter' ({tmp_path / 'reporter.py'}): reporter (arena_match_finished) not "
                            "loaded")
    assert TRUST_ENV in error
    registry.match_finished({"match": "t0000-b00-r0", "game": "lovat-v1"})
    assert not heard.exists()


def test_reporters_hear_every_finished_match(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.tournament.config import config_from_dict
    from arena.tournament.runner import run_tournament

    heard = tmp_path / "heard.jsonl"
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    write(plugins, "reporter.py", REPORTER.format(path=str(heard)))
    monkeypatch.setenv(TRUST_ENV, "reporter")
    registry = load_registry(plugins_dir=plugins, entry_points=False).registry
    assert registry.errors == []
    config = config_from_dict(
        {"name": "reported", "game": "lorum", "blocks": 1, "game_options": {"deals": 1},
         "agents": [{"name": "random"}, {"name": "greedy"}, {"name": "r2", "plugin": "random"},
                    {"name": "g2", "plugin": "greedy"}]},
        {name: game.info for name, game in registry.games.items()},
        {name: set(spec.games) for name, spec in registry.agents.items()},
    )
    run_tournament(config, leaderboards=tmp_path / "boards", plugins_dir=plugins, workers=1)
    lines = [json.loads(line) for line in heard.read_text().splitlines()]
    assert [line["match"] for line in lines] == [match.id for match in config.schedule().iter_matches()]
    assert {line["game"] for line in lines} == {"lorum-v1"}


def test_a_failing_reporter_is_one_line_and_play_goes_on(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TRUST_ENV, "loud")
    write(tmp_path, "loud.py", "from arena import hookimpl\n@hookimpl\ndef arena_match_finished(record):\n"
                               "    raise RuntimeError('disk full')\n")
    registry = load_registry(plugins_dir=tmp_path, entry_points=False).registry
    registry.match_finished({"match": "t0000-b00-r0", "game": "lovat-v1"})
    assert capsys.readouterr().err == (
        "arena: reporter plugin 'loud' failed on match t0000-b00-r0: RuntimeError: disk full\n"
    )
