"""Hostile plugins against discovery, the registry and the listings: trust, patching, exceptions, names, markup.

Every plugin here is loaded from tests/hostile/plugins as a third-party plugin: it is imported only in a
sandboxed child (discovery) and in its own zygote, never in this process.
"""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path

import pytest
from hostile_helpers import HOSTILE, LIMITS, needs_sandbox, play, report_of

import arena.games.lovat.state
import arena.plugins
import arena.referee.faults
import arena.referee.match
import arena.referee.seats
from arena.cli import main
from arena.plugins import PluginFactory, Registry, is_builtin
from arena.referee import AgentHost

ORIGINALS = {
    "shuffle": random.Random.shuffle, "seed": random.seed, "random": random.random,
    "is_builtin": arena.plugins.is_builtin, "spec_from_json": arena.plugins.spec_from_json,
    "resolve_mode": arena.referee.seats.resolve_mode, "record_fault": arena.referee.match.Match.record_fault,
    "check_action": arena.referee.faults.check_action, "lovat_doc": arena.games.lovat.state.LovatState.__doc__,
}
"""What the patching plugins overwrite, as this process had it before any plugin was discovered."""


def current() -> dict[str, object]:
    return {
        "shuffle": random.Random.shuffle, "seed": random.seed, "random": random.random,
        "is_builtin": arena.plugins.is_builtin, "spec_from_json": arena.plugins.spec_from_json,
        "resolve_mode": arena.referee.seats.resolve_mode, "record_fault": arena.referee.match.Match.record_fault,
        "check_action": arena.referee.faults.check_action, "lovat_doc": arena.games.lovat.state.LovatState.__doc__,
    }


@pytest.mark.parametrize("name", ["forged-trusted", "forged-module", "arena-named", "arena-named-2"])
def test_self_declared_trust_decides_nothing(registry: Registry, host: AgentHost, name: str) -> None:
    # trusted=True, a factory whose __module__ / __qualname__ name arena's own code, a plugin file named
    # like arena's package: the driver holds only data for them, and auto seats them in the sandbox.
    spec = registry.agent(name)
    assert isinstance(spec.factory, PluginFactory) and spec.trusted is False and not is_builtin(spec)
    level = needs_sandbox()
    match = play(registry, host, ["random", name, "greedy", "random"], limits=LIMITS)
    assert (match.isolation[1], match.sandbox[1]) == ("sandboxed", level)
    assert match.record["seats"][1]["isolation"] == "sandboxed"
    assert report_of(match, 1) == {"states": 0}  # in its sandbox there is no game state to find


def test_a_third_party_factory_refuses_to_run_in_the_driver(registry: Registry) -> None:
    spec = registry.agent("forged-trusted")
    with pytest.raises(arena.plugins.PluginCodeRefused, match="runs only in its plugin's sandbox"):
        spec.factory(seat=0, game=registry.game("lorum").info, players=4, seed=1, options={})


def test_import_time_patching_changes_nothing_outside_its_sandbox(registry: Registry, host: AgentHost) -> None:
    # patch_import.py rewrites random, arena.plugins, the referee and the Lovat engine at import; its agent
    # plays exactly as the built-in random agent, so the match must be the one `random` plays in its seat.
    assert current() == ORIGINALS  # discovery imported it, in a child
    attacked = play(registry, host, ["patch-import", "greedy", "random", "greedy"], seed=8)
    assert current() == ORIGINALS  # so did its zygote, in its own sandbox
    reference = play(registry, host, ["random", "greedy", "random", "greedy"], seed=8)
    assert attacked.record["faults"] == []
    assert attacked.record["actions"] == reference.record["actions"]
    assert attacked.record["chance"] == reference.record["chance"]  # the deal was shuffled as always


def test_patching_in_register_changes_nothing_and_its_cheat_is_its_own_fault(registry: Registry,
                                                                           host: AgentHost) -> None:
    # patch_register.py disables the legality check and spec parsing from its hook, then plays illegally.
    spec = registry.agent("patch-register")
    assert spec.trusted is False  # declared True
    match = play(registry, host, ["random", "random", "patch-register", "random"])
    assert current() == ORIGINALS
    [fault] = match.record["faults"]
    assert (fault["seat"], fault["kind"]) == (2, "illegal")
    assert "take-everything" in fault["message"]


def test_exceptions_at_import_and_in_hooks_are_one_line_each(registry: Registry) -> None:
    # SystemExit(0) and KeyboardInterrupt at import, SystemExit in a hook, os._exit at import: each is that
    # plugin's problem, in one line, and every other plugin still loads.
    errors = {line.split("'")[1]: line for line in registry.errors}
    assert errors["exit_import"].endswith("failed to import: SystemExit: 0")
    assert errors["interrupt_import"].endswith("failed to import: KeyboardInterrupt")
    assert errors["exit_hook"].endswith("arena_register_agents raised SystemExit: bye")
    assert errors["crash_import"].endswith("the plugin's discovery process died without reporting")
    assert all("\n" not in line and len(line) < 400 for line in registry.errors)
    assert {"gc-snoop", "leaver", "exit-act", "markup"} <= set(registry.agents)


def test_names_are_validated_and_errors_stay_short(registry: Registry) -> None:
    markup_errors = [line for line in registry.errors if line.startswith("plugin 'markup'")]
    assert any("name must be 1 to 64 characters, not 5000" in line for line in markup_errors)
    assert any("name 'ev\\\\nil' must be lowercase" in line for line in markup_errors)
    assert any("name 'adv-nl\\\\n' must be lowercase" in line for line in markup_errors)  # $ before a newline
    assert any("'long-version': version must be at most 64 printable characters" in line for line in markup_errors)
    assert any("'escape-version': version must be at most 64 printable" in line for line in markup_errors)
    assert all(len(line) < 400 for line in markup_errors)
    assert not any(name.startswith("xxxx") or "\n" in name for name in registry.agents)


def test_a_trailing_newline_in_a_name_forges_no_line_of_a_listing(capsys: pytest.CaptureFixture[str]) -> None:
    # 'adv-nl\n' passed a pattern ending in $ (which also matches before a final newline).
    assert main(["agents", "--json", "--plugins-dir", str(HOSTILE)]) == 0
    names = [agent["name"] for agent in json.loads(capsys.readouterr().out)]
    assert "markup" in names and not any(name.startswith("adv-nl") for name in names)
    assert main(["agents", "--plugins-dir", str(HOSTILE)]) == 0
    out, err = capsys.readouterr()
    assert not any(line.startswith("adv-nl") for line in out.splitlines())
    assert "name 'adv-nl\\\\n' must be lowercase" in err  # refused, its newline shown escaped


def test_a_third_party_game_is_refused_unless_trusted_by_name(registry: Registry) -> None:
    [line] = [line for line in registry.errors if line.startswith("plugin 'game_plugin'")]
    assert "game 'lorum' not loaded" in line and "ARENA_PLUGINS_TRUST" in line
    assert registry.game("lorum").__module__.startswith("arena.games.lorum")  # arena's own, untouched


def test_listings_print_plugin_text_literally(capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["agents", "--plugins-dir", str(HOSTILE)]) == 0
    out, err = capsys.readouterr()
    assert "[red]red[/red] [link=https://example.invalid]click[/link] \\x1b[31mansi\\r\\x07" in out
    assert "[bold red]9[/]" in out
    assert "\x1b" not in out and "\r" not in out and "\x07" not in out
    assert main(["agents", "markup", "--plugins-dir", str(HOSTILE)]) == 0  # one agent's page: the same
    out, err = capsys.readouterr()
    assert "\\x1b[31mansi\\r\\x07" in out and "[bold red]9[/]" in out
    assert "\x1b" not in out and "\r" not in out and "\x07" not in out
    assert main(["plugins", "--plugins-dir", str(HOSTILE)]) == 0
    out, err = capsys.readouterr()
    assert "arena.games" in out and "\x1b" not in out
    # Each problem is one line on stderr, whatever the plugin put in its names.
    assert err and all(len(line) < 420 for line in err.splitlines())


def test_a_plugin_exiting_0_in_act_never_makes_arena_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["check-agent", "exit-act", "--game", "lorum", "--players", "4", "--matches", "1",
                   "--plugins-dir", str(HOSTILE)])
    out = capsys.readouterr().out
    assert status == 1, out
    assert "exception at move" in out and "SystemExit" in out


def test_discovery_does_not_hand_the_users_environment_to_a_plugin(tmp_path, monkeypatch) -> None:
    # A description is shown by 'arena agents' and kept with results: it must not carry the user's variables.
    (tmp_path / "env_description.py").write_text(
        "import os\nfrom arena import hookimpl\nfrom arena.agent import Agent, AgentSpec\n\n\n"
        "@hookimpl\ndef arena_register_agents(register):\n"
        "    register(AgentSpec(name='env-description', games=('lorum',), factory=Agent, version='1',\n"
        "                       description=os.environ.get('ARENA_TEST_TOKEN', 'unset')))\n")
    monkeypatch.setenv("ARENA_TEST_TOKEN", "hostile-visible-secret")
    registry = arena.plugins.load_registry(plugins_dir=tmp_path, entry_points=False).registry
    assert registry.agent("env-description").description == "unset"


def test_discovery_leaves_no_folder_behind(tmp_path) -> None:
    # Discovery runs the plugin's import in a sandbox whose one writable folder must go with it.
    token = f"hostile-discovery-{tmp_path.name}-{random.getrandbits(32)}"
    (tmp_path / "discovery_litter.py").write_text(
        "import os\n"
        "for folder in [line.split()[4] for line in open('/proc/self/mountinfo')]:  # its writable folder too\n"
        "    try:\n"
        f"        with open(os.path.join(folder, {token!r}), 'w') as note:\n"
        "            note.write('x' * 1000)\n"
        "    except OSError:\n"
        "        pass\n")
    arena.plugins.load_registry(plugins_dir=tmp_path, entry_points=False)
    assert list(Path(tempfile.gettempdir()).glob(f"arena-*/**/{token}")) == []
