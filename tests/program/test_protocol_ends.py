"""The two ends of protocol version 1 against each other: the Python client, the referee's line channel, and a
built-in agent run as a program playing exactly as it plays in-process."""

from __future__ import annotations

import io
import json
import shutil
import socket
import subprocess
import sysconfig
import time
import venv
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from program_helpers import write_program

from arena.plugins import Registry, load_registry
from arena.program.client import serve
from arena.records.seeding import derive_seed
from arena.referee import AgentHost, Limits, SeatPlan, play_match
from arena.referee.lines import LINE_LIMIT, LineChannel, decode, encode
from arena.referee.protocol import ChannelClosed, ChannelTimeout, MalformedMessage, OversizedMessage

PROGRAM = '''name = "greedy-program"
version = "1"
games = ["lovat", "lorum"]
command = ["python", "-m", "arena.program.client", "--agent", "greedy"]
'''


class Recorder:
    """A bot that plays the first legal action and remembers what it was told."""

    def __init__(self, hello: dict[str, object]) -> None:
        self.hello = hello
        self.events: list[object] = []
        self.results: list[object] = []

    def act(self, request: Mapping[str, Any]) -> Any:
        legal = request["legal"]
        assert isinstance(legal, list)
        return legal[0]

    def on_event(self, event: object) -> None:
        self.events.append(event)

    def on_result(self, result: object) -> None:
        self.results.append(result)


def test_the_client_greets_answers_with_the_request_id_and_ends_on_the_result() -> None:
    lines: list[dict[str, Any]] = [{"type": "hello", "protocol": 1, "game": "lorum", "players": 4, "seat": 1, "seed": 5, "options": {}},
             {"type": "event", "event": {"type": "bid", "seat": 0, "call": "pass"}},
             {"type": "act", "id": 7, "legal": ["pass", "small"], "observation": {}},
             {"type": "act", "id": 8, "legal": [["L1-01", "L2-02"]], "observation": {}},
             {"type": "result", "result": {"scores": [1, 2, 3, 4]}}]
    stdin = io.BytesIO(b"".join(encode(line) for line in lines))
    stdout = io.BytesIO()
    bots: list[Recorder] = []

    def make(hello: Mapping[str, Any]) -> Recorder:
        bots.append(Recorder(dict(hello)))
        return bots[-1]

    assert serve(make, stdin, stdout) == 0
    answers = [json.loads(line) for line in stdout.getvalue().splitlines()]
    assert answers == [{"type": "ready"}, {"type": "action", "id": 7, "action": "pass"},
                       {"type": "action", "id": 8, "action": ["L1-01", "L2-02"]}, {"type": "done"}]
    assert bots[0].hello["seat"] == 1
    assert bots[0].events == [{"type": "bid", "seat": 0, "call": "pass"}]
    assert bots[0].results == [{"scores": [1, 2, 3, 4]}]


def test_the_line_channel_reads_whole_lines_within_its_bounds() -> None:
    ours, theirs = socket.socketpair()
    with ours, theirs:
        channel = LineChannel(ours)
        theirs.sendall(b'{"type":"ready"}\r\n{"type":"act')
        assert channel.receive(time.monotonic() + 1) == {"type": "ready"}
        with pytest.raises(ChannelTimeout):  # half a line is never taken for a line
            channel.receive(time.monotonic() + 0.05)
        theirs.sendall(b'ion","id":1}\n')
        assert channel.receive(time.monotonic() + 1) == {"type": "action", "id": 1}
        theirs.sendall(b"\xff\xfe\n[1]\n" + b"1" * 200 + b"\nthinking about Og\x1b[31m\n" + b"z" * 100 + b"\n")
        for problem in ("not UTF-8 (invalid start byte at byte 0): '\\\\xff\\\\xfe'",
                        "not a JSON object with a \"type\": '[1]'",
                        "out of bounds: a number of 200 characters (the limit is 100)",
                        "not JSON (Expecting value at character 0): 'thinking about Og\\x1b[31m'",  # escaped
                        "not JSON (Expecting value at character 0): '" + "z" * 60 + "'..."):
            with pytest.raises(MalformedMessage) as caught:
                channel.receive(time.monotonic() + 1)
            assert str(caught.value).endswith(problem), caught.value
        theirs.sendall(b"x" * (LINE_LIMIT + 1))
        with pytest.raises(OversizedMessage):
            channel.receive(time.monotonic() + 1)
    ours, theirs = socket.socketpair()
    with ours:
        theirs.sendall(b'{"type":')
        theirs.close()
        with pytest.raises(ChannelClosed, match="in the middle of a line"):
            LineChannel(ours).receive(time.monotonic() + 1)


def test_arena_writes_ascii_lines_with_keys_in_the_documented_order() -> None:
    line = encode({"type": "act", "id": 3, "legal": ["Og"], "observation": {"name": "Zoë"}})
    assert line == b'{"type":"act","id":3,"legal":["Og"],"observation":{"name":"Zo\\u00eb"}}\n'
    assert decode(line[:-1])["observation"] == {"name": "Zoë"}


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Registry:
    plugins = tmp_path_factory.mktemp("plugins")
    write_program(plugins / "greedy-program", PROGRAM)
    return load_registry(plugins_dir=plugins, entry_points=False).registry


@pytest.mark.parametrize("game_name", ["lovat", "lorum"])
def test_a_built_in_agent_as_a_program_plays_exactly_as_it_does_in_process(registry: Registry,
                                                                           game_name: str) -> None:
    game = registry.game(game_name)
    options = game.info.resolve_options(4, {})
    limits = Limits(move_seconds=2.0, bank_seconds=5.0, startup_seconds=10.0)
    records = []
    with AgentHost() as host:
        for first in ("greedy-program", "greedy"):
            seats = [SeatPlan(name=name, spec=registry.agent(name), seed=derive_seed(11, "agent", seat))
                     for seat, name in enumerate([first, "greedy", "random", "greedy"])]
            records.append(play_match(game, options, 11, seats, limits=limits, host=host).record)
    program, in_process = records
    assert program["faults"] == []
    assert program["seats"][0]["isolation"] in ("sandboxed", "isolated")
    assert program["actions"] == in_process["actions"]
    assert program["result"] == in_process["result"]


def test_a_program_seated_trusted_runs_in_its_own_process(registry: Registry) -> None:
    game = registry.game("lorum")
    seats = [SeatPlan(name=name, spec=registry.agent(name), seed=seat, isolation="trusted")
             for seat, name in enumerate(["greedy-program", "random", "random", "random"])]
    with AgentHost() as host:
        record = play_match(game, game.info.resolve_options(4, {}), 5, seats, host=host).record
    assert record["faults"] == []
    assert [seat["isolation"] for seat in record["seats"]] == ["isolated", "trusted", "trusted", "trusted"]


def test_a_program_that_cannot_start_is_a_start_up_fault_naming_why(tmp_path: Path) -> None:
    folder = write_program(tmp_path / "plugins" / "missing", PROGRAM.replace("greedy-program", "missing").replace(
        '["python", "-m", "arena.program.client", "--agent", "greedy"]', '["./not-there"]'),
        {"not-there": "#!/bin/sh\n"})
    (folder / "not-there").chmod(0o755)
    registry = load_registry(plugins_dir=tmp_path / "plugins", entry_points=False).registry
    # Listed while its executable was there (the registry refuses one without); gone before the match.
    (folder / "not-there").unlink()
    game = registry.game("lorum")
    seats = [SeatPlan(name=name, spec=registry.agent(name), seed=seat)
             for seat, name in enumerate(["missing", "random", "random", "random"])]
    with AgentHost() as host:
        record = play_match(game, game.info.resolve_options(4, {}), 5, seats, host=host).record
    fault = record["faults"][0]
    assert (fault["seat"], fault["kind"], fault["phase"]) == (0, "crash", "startup")
    assert "command './not-there':" in fault["message"] and "is not an executable file" in fault["message"]


def test_a_first_build_is_charged_to_no_seat_s_start_up(tmp_path: Path) -> None:
    # launch_all forked every seat before placing any, and a program built in its fork: the seats forked
    # before it saw their start-up clocks run out during its build, and were faulted for it.
    plugins = tmp_path / "plugins"
    write_program(plugins / "quick", PROGRAM.replace("greedy-program", "quick"))
    write_program(plugins / "slow", PROGRAM.replace("greedy-program", "slow") + 'build = ["sleep", "4"]\n')
    registry = load_registry(plugins_dir=plugins, entry_points=False).registry
    game = registry.game("lorum")
    seats = [SeatPlan(name=name, spec=registry.agent(name), seed=seat)
             for seat, name in enumerate(["quick", "slow", "random", "random"])]
    limits = Limits(move_seconds=2.0, bank_seconds=5.0, startup_seconds=3.0)
    with AgentHost() as host:
        record = play_match(game, game.info.resolve_options(4, {}), 5, seats, limits=limits, host=host).record
    assert record["faults"] == []


def test_check_agent_tells_a_program_what_to_fix_in_the_protocol_s_words() -> None:
    from arena.conformance.agents import check_agent

    hostile = load_registry(plugins_dir=Path(__file__).resolve().parents[1] / "hostile" / "programs",
                            entry_points=False).registry
    report = check_agent(hostile.agent("hostile-program"), "lorum", matches=1, player_counts=[4], registry=hostile,
                         options={"attack": "stale"}, determinism=False)
    assert not report.passed
    problem = report.problems[0]
    assert "answered request 1 when asked request 2" in problem, problem
    assert "echoing the request's id" in problem and "docs/protocol.md" in problem, problem
    assert "observation.legal" not in problem  # the Python agent's advice is not a program's


MATCH_FROM_A_VENV = '''
import sys
from pathlib import Path
from arena.plugins import load_registry
from arena.referee import AgentHost, Limits, SeatPlan, play_match
registry = load_registry(plugins_dir=Path(sys.argv[1]), entry_points=False).registry
game = registry.game("lorum")
seats = [SeatPlan(name=name, spec=registry.agent(name), seed=seat)
         for seat, name in enumerate(["greedy-program", "greedy", "random", "greedy"])]
with AgentHost() as host:
    result = play_match(game, game.info.resolve_options(4, {}), 5, seats,
                        limits=Limits(move_seconds=2.0, bank_seconds=5.0, startup_seconds=10.0), host=host)
print(result.record["faults"], result.record["seats"][0]["isolation"])
'''


@pytest.mark.slow
def test_a_python_program_starts_when_arena_runs_from_a_virtual_environment_under_tmp(tmp_path: Path) -> None:
    # A checkout under /tmp, as CI's clean clone may be: the sandbox hides /tmp, where the environment's `python`
    # link then no longer resolves; the seat must still start the interpreter and find the environment. The
    # environment here holds arena as this one does (its editable-install finder) and reads its dependencies.
    here = Path(sysconfig.get_paths()["purelib"])
    finders = sorted(here.glob("__editable__*arena*"))
    if not finders:
        pytest.skip("arena is not installed editable here ('pip install -e .'): nothing to copy into the environment")
    environment = tmp_path / "venv"
    venv.EnvBuilder(symlinks=True, with_pip=False).create(environment)
    purelib = Path(sysconfig.get_paths(vars={"base": str(environment), "platbase": str(environment)})["purelib"])
    for finder in finders:
        shutil.copy(finder, purelib / finder.name)
    (purelib / "dependencies.pth").write_text(f"{here}\n")
    plugins = tmp_path / "plugins"
    write_program(plugins / "greedy-program", PROGRAM)
    script = tmp_path / "match.py"
    script.write_text(MATCH_FROM_A_VENV)
    done = subprocess.run([str(environment / "bin" / "python"), str(script), str(plugins)], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path, env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("[] "), done.stdout


SHELL_PROGRAM = '''name = "NAME"
version = "1"
games = ["lorum"]
command = COMMAND
'''


@pytest.mark.parametrize(("command", "files", "advice"), [
    ('["sh", "./bot.sh"]', {"bot.sh": "read -r hello\necho ready | sed 's/.*/{\"type\":\"ready\"}/'\n"},
     "a script cannot run other tools of the system (sed, awk, jq, ...)"),
    # The refusal above the last line of standard error (tried as a new user would: a later line hid it).
    ('["sh", "./bot.sh"]', {"bot.sh": "read -r hello\necho x | sed 's/x/y/'\necho 'now what' >&2\nread -r again\n"},
     "a script cannot run other tools of the system (sed, awk, jq, ...)"),
    ('["sleep", "30"]', {}, 'answer the greeting with {"type": "ready"} on one line within 1 s of starting'),
])
def test_check_agent_tells_a_script_what_the_sandbox_refused(tmp_path: Path, command: str, files: dict[str, str],
                                                              advice: str) -> None:
    """A script piping through a system tool is told the sandbox refuses the tool; one never ready, to answer the
    greeting and flush: neither is told to answer faster, which would not help."""
    from arena.conformance.agents import check_agent
    from arena.referee.confinement import sandbox_level

    if sandbox_level() == "none":
        pytest.skip("this machine offers no sandbox: run 'arena doctor' to see what is missing")
    write_program(tmp_path / "plugins" / "script", SHELL_PROGRAM.replace("NAME", "script").replace(
        "COMMAND", command), files)
    registry = load_registry(plugins_dir=tmp_path / "plugins", entry_points=False).registry
    report = check_agent(registry.agent("script"), "lorum", matches=1, player_counts=[4], registry=registry,
                         determinism=False, limits=Limits(move_seconds=1.0, bank_seconds=1.0, startup_seconds=1.0))
    assert not report.passed
    assert advice in report.findings[0].fix and "answer faster" not in report.summary()
