"""check-agent's report as a new user reads it: honest reproduce commands, clear timeouts, fitting advice,
each fix once, lines that fit an 80-column terminal, and singular counts."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.conformance.agents import MatchCheck, _reproduce, check_agent
from arena.plugins import Registry, load_registry
from arena.referee import Limits
from arena.referee.confinement import sandbox_level

PLUGIN = '''
import time

from arena_agents.lorum import RandomLorumAgent
from arena_agents.lovat import RandomLovatAgent

from arena import hookimpl
from arena.agent import Agent, AgentSpec


class Slow(Agent):
    """Plays randomly, 0.3 s a decision."""

    def __init__(self, seat, game, players, seed, options):
        super().__init__(seat=seat, game=game, players=players, seed=seed, options=options)
        inner = RandomLovatAgent if game.name == "lovat" else RandomLorumAgent
        self.inner = inner(seat=seat, game=game, players=players, seed=seed, options={})

    def act(self, observation):
        time.sleep(0.3)
        return self.inner.act(observation)


class BrokenInit(Agent):
    def __init__(self, seat, game, players, seed, options):
        raise RuntimeError("cannot build")

    def act(self, observation):
        return observation.legal[0]


class RaisesAtOnce(Agent):
    def act(self, observation):
        raise RuntimeError("no idea")


@hookimpl
def arena_register_agents(register):
    for name, factory in (("report-slow", Slow), ("report-broken-init", BrokenInit),
                          ("report-raises-at-once", RaisesAtOnce)):
        register(AgentSpec(name=name, games=("lovat", "lorum"), factory=factory, description=name,
                           version="1.0"))
'''

SLOW = Limits(move_seconds=0.1, bank_seconds=0.5)  # the reviewer's limits: 0.3 s a decision overdraws the bank


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding ``plugins/check_agent_report_agents.py``; tests run from it (its ./plugins is the default)."""
    root = tmp_path_factory.mktemp("report")
    (root / "plugins").mkdir()
    (root / "plugins" / "check_agent_report_agents.py").write_text(PLUGIN)
    return root


@pytest.fixture(scope="module")
def plugins(folder: Path) -> Registry:
    loaded = load_registry(plugins_dir=folder / "plugins", entry_points=False).registry
    assert loaded.errors == []
    return loaded


@pytest.fixture(autouse=True)
def in_folder(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(folder)


def check(registry: Registry, agent: str, **options: Any):
    options.setdefault("matches", 1)
    options.setdefault("determinism", False)
    return check_agent(agent, "lorum", registry=registry, plugins_dir="plugins", entry_points=False, **options)


def assert_fits_80_columns(text: str) -> None:
    long = [line for line in text.splitlines() if len(line) > 80]
    assert not long, "lines over 80 columns:\n" + "\n".join(long)


# -- 1 and 2: a timeout under other limits --------------------------------------------------------


def test_a_timeout_under_other_limits_is_reproduced_by_check_agent_and_explained(
        plugins: Registry, capsys: pytest.CaptureFixture[str]) -> None:
    report = check(plugins, "report-slow", limits=SLOW)
    [problem] = report.problems
    [match] = report.matches
    assert problem.startswith("timeout at move ")
    assert report.decisions == match.decisions == len(report.move_seconds) + 1  # the faulted decision counts too
    # The time the decision had is spelled out; the configured limits alone (0.1 s + 0.5 s) misled.
    assert "(0.1 s per move plus a 0.5 s bank)" not in problem
    assert re.search(r"this decision had: \d\.\d\d s \(0\.1 s per move plus \d\.\d\d s left of the 0\.5 s bank\); "
                     r"the process was killed \(the agent's \d earlier decisions? in this match had used \d\.\d\d s "
                     r"of the bank\)", problem), problem
    assert "and the decisions of one match may overrun that by 0.5 s in all (the bank)" in problem
    # `arena play` applies its own limits, so it is not offered as the reproduction.
    reproduce = problem.split("Reproduce: ", 1)[1]
    assert reproduce.startswith("arena check-agent report-slow --game lorum --players 4 --matches 1 --seed 0 "
                                "--move-seconds 0.1 --bank-seconds 0.5 (")
    assert "`arena play` cannot reproduce this: it always allows 1 s per move plus a 10 s bank" in reproduce
    assert match.command.startswith("arena play lorum")  # still there: it replays the deal
    assert match.reproduce == report.faults[0]["reproduce"] == reproduce.split(" (")[0]
    assert report.to_json()["matches"][0]["reproduce"] == match.reproduce
    assert_fits_80_columns(report.summary())

    # The command does reproduce it: the same match, the same fault.
    argv = shlex.split(match.reproduce)
    assert argv[0] == "arena"
    assert main(argv[1:]) == 1
    out = capsys.readouterr().out
    assert f"timeout at move {report.faults[0]['move']} (lorum, 4 players, seat 0, seed {match.seed})" in out


def test_check_agent_reproduces_a_later_match_by_playing_up_to_it(plugins: Registry) -> None:
    report = check(plugins, "report-slow", limits=SLOW, matches=2)
    assert [match.reproduce for match in report.matches] == [
        ("arena check-agent report-slow --game lorum --players 4 --matches 1 --seed 0 --move-seconds 0.1 "
         "--bank-seconds 0.5"),
        ("arena check-agent report-slow --game lorum --players 4 --matches 2 --seed 0 --move-seconds 0.1 "
         "--bank-seconds 0.5"),
    ]
    assert "this command plays the first 2 matches of 4 players, the last being this one," in report.problems[1]


def make_match() -> MatchCheck:
    return MatchCheck(players=4, seed=99, seat=1, decisions=3, faults=[],
                      command="arena play lorum --players 4 --seed 99 --agents random,x,random,random")


PROCESS = "isolated" if sandbox_level() == "none" else "sandboxed"
"""Where `arena play` runs a third-party agent on this machine (auto: the strongest sandbox available)."""


@pytest.mark.parametrize(
    ("kind", "startup", "limits", "isolation", "via_play", "note"),
    [
        ("exception", False, SLOW, PROCESS, True, ""),  # no limit plays a part
        ("illegal", False, Limits(memory_mb=64), "trusted", True, ""),
        ("timeout", False, Limits(), PROCESS, True, ""),  # arena play's own limits
        ("timeout", False, Limits(startup_seconds=1.0), PROCESS, True, ""),  # start-up does not matter
        ("timeout", True, Limits(startup_seconds=1.0), PROCESS, False, "it always gives an agent 10 s to start"),
        ("timeout", False, Limits(), "trusted", False, f"it runs report-slow in its own process ({PROCESS})"),
        ("memory", False, SLOW, PROCESS, True, ""),  # the memory limit is arena play's
        ("memory", False, Limits(memory_mb=64), PROCESS, False, "it always allows 1024 MB"),
        ("crash", False, SLOW, "trusted", False, f"it runs report-slow in its own process ({PROCESS})"),
    ],
)
def test_the_reproduce_command_is_arena_play_only_where_that_reproduces(
        plugins: Registry, kind: str, startup: bool, limits: Limits, isolation: str, via_play: bool,
        note: str) -> None:
    game = plugins.game("lorum")
    spec = plugins.agent("report-slow")
    match = make_match()
    command, said = _reproduce(spec, game, match, kind, startup, limits, isolation, 7, 1)
    if via_play:
        assert (command, said) == (match.command, "")
    else:
        assert command.startswith("arena check-agent report-slow --game lorum --players 4 --matches 2 --seed 7")
        assert ("--isolation trusted" in command) == (isolation == "trusted")
        assert note in said and said.startswith("`arena play` cannot reproduce this: ")
        for name in ("move_seconds", "bank_seconds", "startup_seconds"):
            value = getattr(limits, name)
            assert (f"--{name.replace('_', '-')} {value:g}" in command) == (value != getattr(Limits(), name))


# -- 3 and 4: start-up advice, each fix once, 80 columns --------------------------------------------


def test_a_constructor_that_raises_is_told_about_the_constructor_once(plugins: Registry) -> None:
    report = check(plugins, "report-broken-init", matches=2)
    assert len(report.problems) == 2
    for problem in report.problems:
        assert problem.startswith("exception at start-up (lorum, 4 players, seat ")
        assert "raised RuntimeError: cannot build" in problem
        assert "act() raised" not in problem
        assert "building the agent raised an exception (its factory or __init__, before any act())" in problem
    text = report.summary()
    assert_fits_80_columns(text)
    assert text.count("To fix") == 1 and "To fix the 2 problems above: building the agent" in text
    assert text.count("Reproduce: arena play lorum --players 4 --seed ") == 2
    message = report.failure_message()
    assert message.count("To fix") == 1 and "RuntimeError: cannot build" in message
    assert_fits_80_columns(message)


def test_different_fixes_are_each_printed_once_after_their_problems(plugins: Registry) -> None:
    broken = check(plugins, "report-broken-init", matches=2)
    failing = check(plugins, "report-raises-at-once")
    broken.add(failing.findings[0])
    broken.add(failing.findings[0])
    text = broken.summary()
    assert text.count("To fix") == 2
    first, second = text.split("To fix the 2 problems above: building the agent")
    assert first.count("exception at start-up") == 2 and "exception at move" not in first
    assert len(re.findall(r"exception at move \d+ ", second)) == 2 and "To fix the 2 problems above: act() raised" in second
    assert_fits_80_columns(text)


def test_long_commands_are_broken_so_that_they_still_paste(plugins: Registry) -> None:
    report = check(plugins, "report-slow", limits=SLOW)
    lines = report.summary().splitlines()
    start = next(index for index, line in enumerate(lines) if line.strip().startswith("Reproduce: "))
    command = lines[start].split("Reproduce: ", 1)[1]
    index = start
    while command.endswith(" \\"):
        index += 1
        command = command[:-2] + " " + lines[index].strip()
    assert command == report.matches[0].reproduce


# -- 5: counts -------------------------------------------------------------------------------------


def test_counts_of_one_are_singular(plugins: Registry) -> None:
    report = check(plugins, "report-raises-at-once")
    assert "  4 players: 1 match, 1 decision, 1 fault\n" in report.summary()
    assert "FAIL: 1 problem\n" in report.summary()
    report = check(plugins, "report-raises-at-once", matches=2)
    assert "  4 players: 2 matches, 2 decisions, 2 faults\n" in report.summary()


def test_the_coverage_matches_are_counted_apart_from_those_asked_for(plugins: Registry) -> None:
    """--matches 1 reported '5 matches' without a word on where the other four came from (tried as a new user)."""
    played: list[int] = []
    report = check(plugins, "greedy", on_match=played.append)  # what check-agent's display counts, match by match
    assert played == list(range(1, len(report.matches) + 1))
    scripted = [match for match in report.matches if match.scenario]
    assert scripted and len(report.matches) == 1 + len(scripted)
    assert (f"  4 players: {len(report.matches)} matches (1 asked for, {len(scripted)} more to reach the cases "
            "below), ") in report.summary()
    assert all(match["scenario"] for match in report.to_json()["matches"][1:])


# -- the command line ------------------------------------------------------------------------------


def test_cli_players_and_startup_seconds(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-agent", "greedy", "--game", "lovat", "--players", "5", "--matches", "1",
                 "--startup-seconds", "3", "--seed", "0", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [match["players"] for match in data["matches"]] == [5]
    assert data["limits"]["startup_seconds"] == 3 and data["seed"] == 0
    assert main(["check-agent", "greedy", "--game", "lorum", "--players", "3"]) == 2
    err = capsys.readouterr().err
    assert "Lorum is not played by 3 players (allowed: 4)" in err and err.count("\n") == 1


def test_a_check_without_a_seed_deals_from_a_fresh_secret_one_and_says_which(
        capsys: pytest.CaptureFixture[str]) -> None:
    # With seed 0 by default every check dealt the same cards: an agent could recognise a check and play well
    # only there.
    def checked_seed(*extra: str) -> int:
        assert main(["check-agent", "random", "--game", "lorum", "--matches", "1", "--isolation", "trusted",
                     *extra]) == 0
        found = re.search(r", seed\s+(\d+)\)", capsys.readouterr().out)  # the header may wrap before it
        assert found is not None
        return int(found.group(1))

    seeds = [checked_seed(), checked_seed()]
    assert seeds[0] != seeds[1] and all(0 <= seed < 2**63 for seed in seeds)
    assert checked_seed("--seed", str(seeds[0])) == seeds[0]
