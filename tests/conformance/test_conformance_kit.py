"""The conformance kit: check_agent's report, the assertion helper, and `arena check-agent`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.agent import AgentSpec
from arena.cli import main
from arena.conformance.agents import assert_agent_conforms, check_agent
from arena.plugins import Registry
from arena.referee import Limits
from arena.referee.confinement import sandbox_level

BAD_AGENTS = Path(__file__).resolve().parents[1] / "bad_agents"
FAST = Limits(move_seconds=0.2, bank_seconds=0.2, startup_seconds=2.0, memory_mb=64)


def check(registry: Registry, agent: str, game: str = "lorum", **options: Any):
    options.setdefault("matches", 1)
    options.setdefault("limits", FAST)
    return check_agent(agent, game, registry=registry, plugins_dir=BAD_AGENTS, entry_points=False, **options)


def test_a_good_agent_passes_with_measurements(bad_registry: Registry) -> None:
    report = check(bad_registry, "greedy", "lovat", matches=2)
    assert report.passed, report.summary()
    assert sorted({match.players for match in report.matches}) == [3, 4, 5, 6]
    assert len(report.matches) >= 8  # 2 per player count, then coverage scenarios for the cases still missing
    assert {match.seat for match in report.matches[:8] if match.players == 4} == {0, 1}
    assert report.coverage is not None and report.coverage.missing() == []
    assert report.decisions == sum(match.decisions for match in report.matches) > 0
    assert 0 < report.move_seconds_median <= report.move_seconds_max < FAST.move_seconds
    assert report.peak_memory_mb is not None and report.peak_memory_mb > 0
    assert report.deterministic is True
    assert report.counts() == {"exception": 0, "illegal": 0, "timeout": 0, "crash": 0, "memory": 0}
    text = report.summary()
    assert text.endswith("PASS") and "time per move: median" in text and "peak memory" in text
    # The figure says what it counts: a full sandbox's cgroup counts what the seat added to the preloaded arena
    # (a few MB), a process's resident peak counts the arena too.
    full = sandbox_level() == "full"
    assert report.peak_memory_kind == ("added" if full else "resident")
    assert ("(the agent's own, beyond the preloaded arena it shares)" in text) == full
    assert ("(resident, the preloaded arena included)" in text) == (not full)
    data = report.to_json()
    assert data["passed"] is True and data["deterministic"] is True and len(data["matches"]) == len(report.matches)
    assert all(count > 0 for cases in data["coverage"].values() for count in cases.values())
    json.dumps(data)


def test_trusted_checks_measure_no_memory(bad_registry: Registry) -> None:
    report = check(bad_registry, "random", isolation="trusted")
    assert report.passed and report.peak_memory_mb is None and report.isolation == "trusted"


def test_an_isolated_seat_reports_its_resident_peak_with_the_arena_in_it(bad_registry: Registry) -> None:
    report = check(bad_registry, "random", isolation="isolated")
    assert report.peak_memory_kind == "resident" and report.peak_memory_mb is not None
    assert "(resident, the preloaded arena included)" in report.summary()


@pytest.mark.parametrize(
    ("agent", "kind", "fix"),
    [
        ("bad-raises", "exception", "fix the error at the file and line named"),
        ("bad-illegal", "illegal", "return exactly one of observation.legal"),
        ("bad-garbage", "illegal", "never a list of options, None or another type"),
        ("bad-sleeper", "timeout", ("decide faster: each decision gets 0.2 s, and the decisions of one match "
                                    "may overrun that by 0.2 s in all (the bank)")),
        ("bad-exiter", "crash", "do not call os._exit()"),
        ("bad-hog", "memory", "use less memory: an isolated agent may allocate 64 MB"),
    ],
)
def test_each_fault_is_a_problem_that_says_what_to_fix(bad_registry: Registry, agent: str, kind: str,
                                                        fix: str) -> None:
    # Only the timeout case needs tight time limits; the others get room so that load cannot time them out.
    limits = FAST if kind == "timeout" else Limits(move_seconds=5.0, bank_seconds=0.0, memory_mb=64)
    report = check(bad_registry, agent, determinism=False, limits=limits)
    assert not report.passed
    [problem] = report.problems
    assert problem.startswith(f"{kind} at move ")
    assert fix in problem
    play = f"arena play lorum --players 4 --seed {report.matches[0].seed} --agents {agent},random"
    if kind in ("timeout", "memory"):  # under limits other than arena play's: check-agent reproduces it
        assert "Reproduce: arena check-agent " + agent + " --game lorum --players 4 --matches 1 --seed 0 " in problem
        assert "`arena play` cannot reproduce this" in problem
        assert report.matches[0].command.startswith(play)
    else:
        assert f"Reproduce: {play}" in problem
        assert report.matches[0].reproduce == report.matches[0].command
    assert report.counts()[kind] == 1
    assert report.faults[0]["command"] == report.matches[0].command
    assert report.faults[0]["reproduce"] == report.matches[0].reproduce
    assert report.matches[0].reproduce.endswith("bad_agents")
    assert "--plugins-dir " in report.matches[0].command  # a drop-in plugin: name its folder
    assert report.matches[0].command.endswith("bad_agents")


def test_nondeterminism_is_caught(bad_registry: Registry) -> None:
    report = check(bad_registry, "bad-unsteady")
    assert report.deterministic is False
    [problem] = report.problems
    assert problem.startswith("not deterministic (lorum, 4 players")
    assert "random.Random(self.seed)" in problem


def test_assert_agent_conforms_tells_the_author_what_to_fix(bad_registry: Registry) -> None:
    report = assert_agent_conforms("random", "lorum", registry=bad_registry, plugins_dir=BAD_AGENTS,
                                   entry_points=False, matches=1, limits=FAST)
    assert report.passed
    with pytest.raises(AssertionError) as raised:
        assert_agent_conforms("bad-raises", "lorum", registry=bad_registry, plugins_dir=BAD_AGENTS,
                              entry_points=False, matches=1, limits=FAST)
    message = str(raised.value)
    assert message.startswith("agent 'bad-raises' does not conform on lorum:")
    assert "ValueError: deliberately broken (at raises.py:" in message and "To fix:" in message


def test_bad_requests_are_one_line_value_errors(bad_registry: Registry) -> None:
    with pytest.raises(ValueError, match=r"^unknown agent 'xyzzy' \(installed: "):
        check(bad_registry, "xyzzy")
    with pytest.raises(ValueError, match=r"^unknown game 'chess'"):
        check(bad_registry, "greedy", "chess")
    lovat_only = AgentSpec(name="lovat-only", games=("lovat",), factory=object, description="", version="1")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="agent 'lovat-only' does not play lorum"):
        check(bad_registry, lovat_only)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="Lorum is not played by 3 players"):
        check(bad_registry, "greedy", player_counts=[3])
    with pytest.raises(ValueError, match="player_counts is empty"):
        check_agent("random", "lovat", player_counts=[])
    with pytest.raises(ValueError, match="matches must be a whole number >= 1"):
        check(bad_registry, "greedy", matches=0)


# -- the command line ---------------------------------------------------------------------------


def run_cli(*args: str) -> int:
    return main(["check-agent", *args, "--plugins-dir", str(BAD_AGENTS)])


def test_cli_pass_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli("greedy", "--game", "lorum", "--matches", "1") == 0
    out = capsys.readouterr().out
    assert out.startswith("greedy ") and out.rstrip().endswith("PASS")


def test_cli_fail_exits_1_with_the_fix(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli("bad-illegal", "--game", "lorum", "--matches", "1", "--move-seconds", "0.5") == 1
    out = capsys.readouterr().out
    assert "FAIL: 1 problem" in out and "return exactly one of observation.legal" in out


def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli("bad-sleeper", "--game", "lorum", "--matches", "1", "--move-seconds", "0.1",
                   "--bank-seconds", "0", "--seed", "4", "--json") == 1
    data = json.loads(capsys.readouterr().out)
    assert data["passed"] is False and data["faults"]["timeout"] == 1
    assert data["limits"]["move_seconds"] == 0.1
    assert set(data["move_seconds"]) == {"median", "max"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["xyzzy", "--game", "lorum"], "arena: error: unknown agent 'xyzzy' (installed: "),
        (["greedy", "--game", "chess"], "arena: error: unknown game 'chess' (installed: "),
    ],
)
def test_cli_bad_input_is_one_line_without_traceback(capsys: pytest.CaptureFixture[str], args: list[str],
                                                     message: str) -> None:
    assert run_cli(*args) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1


@pytest.mark.slow
def test_cli_help_has_examples() -> None:
    result = subprocess.run([sys.executable, "-m", "arena", "check-agent", "--help"], capture_output=True, text=True)
    assert result.returncode == 0
    assert "examples:" in result.stdout and "arena check-agent greedy --game lovat" in result.stdout
    assert "Exit status: 0 if the agent passes, 1 if it fails" in " ".join(result.stdout.split())


@pytest.mark.slow
def test_cli_as_a_process_exits_1_on_fail_without_traceback() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "arena", "check-agent", "bad-raises", "--game", "lorum", "--matches", "1",
         "--plugins-dir", str(BAD_AGENTS)],
        capture_output=True, text=True,
    )
    assert result.returncode == 1
    quoted = [line for line in result.stdout.splitlines() if line.lstrip().startswith("| ")]  # the agent's output
    assert any("Traceback" in line for line in quoted), result.stdout  # its own traceback, quoted for its author
    assert not any(line.startswith("Traceback") for line in (result.stdout + result.stderr).splitlines())
    assert "exception at move" in result.stdout
