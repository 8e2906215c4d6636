"""arena-agent.toml: read strictly, one line per problem, and found by the plugin registry as an agent."""

from __future__ import annotations

from pathlib import Path

import pytest
from program_helpers import write_program

from arena.plugins import PROGRAM, PluginCodeRefused, load_registry
from arena.program.manifest import ManifestError, manifest_report, read_manifest
from arena.seating.options import OptionError

GOOD = '''name = "bot"
version = "2.1"
games = ["lovat", "lorum"]
description = "a test bot"
command = ["./bot", "--fast"]
build = ["make"]
build_seconds = 20

[options.depth]
type = "int"
default = 2
min = 1
max = 6
help = "plies"
'''


def test_a_manifest_declares_the_agent_and_its_options(tmp_path: Path) -> None:
    manifest = read_manifest(write_program(tmp_path / "bot", GOOD))
    assert (manifest.name, manifest.version, manifest.games) == ("bot", "2.1", ("lovat", "lorum"))
    assert (manifest.command, manifest.build, manifest.build_seconds) == (("./bot", "--fast"), ("make",), 20.0)
    manifest.options.check({"depth": 3}, "bot")
    with pytest.raises(OptionError, match="depth"):
        manifest.options.check({"depth": 9}, "bot")


@pytest.mark.parametrize(("change", "problem"), [
    (("games = [", "game = ["), "unknown key 'game'; did you mean 'games'?"),
    (('name = "bot"\n', ""), "missing key 'name'"),
    (('version = "2.1"', "version = 2.1"), "version must be a string, not float"),
    (('command = ["./bot", "--fast"]', 'command = "./bot"'), "command must be a non-empty list of non-empty strings"),
    (('command = ["./bot", "--fast"]', "command = []"), "command must be a non-empty list"),
    (('name = "bot"', 'name = "Bot Two"'), "name 'Bot Two' must be"),
    (("build_seconds = 20", "build_seconds = 99999"), "build_seconds must be a number of seconds > 0 and <= 3600"),
    (('type = "int"', 'type = "integer"'), "options.depth.type must be one of int, float, str, bool"),
    (("help = ", "hepl = "), "options.depth: unknown key 'hepl'; did you mean 'help'?"),
    (("max = 6", "max = 6\nprotocol = 2"), "options.depth: unknown key 'protocol'"),
    (('games = ["lovat", "lorum"]', 'games = ["lovat", "lorum"]\nprotocol = 2'), "protocol 2 is not one"),
    (("[options.depth]", "[options.depth"), "not TOML"),
    (('command = ["./bot", "--fast"]', 'command = ["/usr/bin/python3"]'), "command '/usr/bin/python3' leads out"),
    (('command = ["./bot", "--fast"]', 'command = ["bin/../../other/bot"]'), "command 'bin/../../other/bot' leads"),
    (('type = "int"', 'type = 3'), "options.depth.type must be one of"),
    (("default = 2", 'default = "two"'), "its default 'two' is not allowed: expected an integer"),
    (("min = 1", "min = [1]"), "options.depth"),
    (('name = "bot"', 'name = "' + 'b' * 100 + '"'), "name must be 1 to 64 characters"),
    (('name = "bot"', 'name = "../../etc"'), "name '../../etc' must be"),
    (('build = ["make"]', 'build = ["/home/user/bin/run", "make"]'), "build '/home/user/bin/run' leads out"),
    (('build = ["make"]', 'build = ["tools/../../run"]'), "build 'tools/../../run' leads out"),
    (('version = "2.1"', 'version = "2.1\\u001b[2J"'), "version must be 1 to 64 printable characters"),
    (('version = "2.1"', 'version = "2.1\\r"'), "version must be 1 to 64 printable characters"),
    (('description = "a test bot"', 'description = "a \\u202e test bot"'), "description must be one line"),
])
def test_a_wrong_manifest_is_one_line_naming_the_file_and_key(tmp_path: Path, change: tuple[str, str],
                                                              problem: str) -> None:
    folder = write_program(tmp_path / "bot", GOOD.replace(*change))
    with pytest.raises(ManifestError) as caught:
        read_manifest(folder)
    message = str(caught.value)
    assert message.startswith(str(folder / "arena-agent.toml") + ": "), message
    assert problem in message, message
    assert "\n" not in message
    assert manifest_report(folder) == {"agents": [], "games": [], "errors": [message], "failed": True}


def test_every_problem_of_a_manifest_is_named_at_once(tmp_path: Path) -> None:
    folder = write_program(tmp_path / "bot", GOOD.replace('name = "bot"', 'name = "Bot"').replace(
        'version = "2.1"', 'version = ""').replace("build_seconds = 20", "build_seconds = -1").replace(
        "games = [", "game = [").replace('type = "int"', 'type = "integer"'))
    where = str(folder / "arena-agent.toml")
    with pytest.raises(ManifestError) as caught:
        read_manifest(folder)
    problems = ["unknown key 'game'; did you mean 'games'?", "name 'Bot' must be",
                "version must be 1 to", "build_seconds must be", "options.depth.type must be one of"]
    message = str(caught.value)
    assert message.startswith(f"{where}: 5 problems: ") and "\n" not in message, message
    assert [problem in message for problem in problems] == [True] * 5, message
    assert "missing key" not in message  # 'game' is told it means 'games', not also that 'games' is missing
    # The registry lists them one line each, naming the file.
    report = manifest_report(folder)
    assert report["failed"] and len(report["errors"]) == 5
    assert all(line.startswith(f"{where}: ") and problem in line for line, problem in zip(report["errors"], problems))


@pytest.mark.parametrize(("command", "files", "problem"), [
    ('["./bot"]', {}, "command './bot': {folder}/bot is not an executable file"),
    ('["./bot"]', {"bot": "#!/bin/sh\n"}, "command './bot': {folder}/bot is not executable (chmod +x it)"),
    ('["no-such-runtime-here"]', {}, "command 'no-such-runtime-here' is not a program on /usr/local/bin"),
])
def test_a_program_without_a_build_whose_command_cannot_start_is_not_listed(
        tmp_path: Path, command: str, files: dict[str, str], problem: str) -> None:
    manifest = 'name = "bot"\nversion = "1"\ngames = ["lorum"]\ncommand = ' + command + "\n"
    folder = write_program(tmp_path / "plugins" / "bot", manifest, files)
    registry = load_registry(plugins_dir=tmp_path / "plugins", entry_points=False).registry
    assert "bot" not in registry.agents
    assert any(problem.format(folder=folder) in line for line in registry.errors), registry.errors
    with pytest.raises(KeyError, match="its plugin did not load"):
        registry.agent("bot")
    # Made executable, it is listed; with a build its output is checked only when built.
    (folder / "bot").write_text("#!/bin/sh\n")
    (folder / "bot").chmod(0o755)
    write_program(folder, manifest.replace('command = ["no-such-runtime-here"]', 'command = ["./bot"]'))
    assert "bot" in load_registry(plugins_dir=tmp_path / "plugins", entry_points=False).registry.agents
    write_program(folder, manifest.replace(command, '["./out/bot"]') + 'build = ["make"]\n')
    assert "bot" in load_registry(plugins_dir=tmp_path / "plugins", entry_points=False).registry.agents


def test_an_oversized_or_binary_manifest_is_refused(tmp_path: Path) -> None:
    folder = write_program(tmp_path / "big", "# " + "x" * 70000 + "\n")
    with pytest.raises(ManifestError, match="over 65536 bytes"):
        read_manifest(folder)
    (folder / "arena-agent.toml").write_bytes(b"name = \"\xff\"\n")
    with pytest.raises(ManifestError, match="not UTF-8"):
        read_manifest(folder)


def test_the_registry_lists_a_program_like_any_agent_and_never_runs_it_in_process(tmp_path: Path) -> None:
    write_program(tmp_path / "plugins" / "bot", GOOD)
    write_program(tmp_path / "plugins" / "broken", GOOD.replace('name = "bot"', 'name = "other"').replace(
        "games = [", "gmes = ["))
    write_program(tmp_path / "plugins" / "copycat", GOOD.replace('name = "bot"', 'name = "greedy"'))
    registry = load_registry(plugins_dir=tmp_path / "plugins", entry_points=False).registry
    spec = registry.agents["bot"]
    assert (spec.version, spec.games, spec.description) == ("2.1", ("lovat", "lorum"), "a test bot")
    assert [option.name for option in spec.options.options] == ["depth"]
    assert registry.sources[registry.agent_plugin["bot"]].kind == PROGRAM
    with pytest.raises(PluginCodeRefused):
        spec.factory(seat=0)
    assert any("plugin 'broken'" in line and "unknown key 'gmes'" in line for line in registry.errors), registry.errors
    # A built-in's name stays the built-in's.
    assert registry.agent_plugin["greedy"] == "builtin-agents"
    assert any("plugin 'copycat'" in line and "'greedy' is already registered" in line for line in registry.errors)
