"""What an agent printed reaches the person checking or playing it: check-agent quotes the end of it under a
problem, and ``arena play --seat-logs`` saves each seat's (arena.referee.seat_log)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli import main

PLUGIN = '''
import sys

from arena import hookimpl
from arena.agent import Agent, AgentSpec


class Talker(Agent):
    def act(self, observation):
        print("thinking about", len(observation.legal), "moves")
        print("x" * 300)
        if self.seat == 0:
            print("seat zero has had enough", file=sys.stderr)
            raise RuntimeError("no idea")
        return observation.legal[0]


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="talker", games=("lovat", "lorum"), factory=Talker, description="talks", version="1"))
'''


@pytest.fixture(autouse=True)
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "talker.py").write_text(PLUGIN)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_check_agent_quotes_the_end_of_what_a_failing_agent_printed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-agent", "talker", "--game", "lorum", "--matches", "1", "--players", "4"]) == 1
    out = capsys.readouterr().out
    quoted = out.split("Its output ended:\n", 1)[1].splitlines()
    assert quoted[0].startswith("      | thinking about ")
    assert "      | seat zero has had enough" in quoted
    assert "      | RuntimeError: no idea" in quoted  # its traceback, as Python printed it
    assert "      | " + "x" * 69 + "..." in quoted  # cut to the report's 80 columns
    assert not [line for line in out.splitlines() if len(line) > 80]


def test_check_agent_json_has_the_output_of_the_faulted_match(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-agent", "talker", "--game", "lorum", "--matches", "1", "--players", "4", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["matches"][0]["output"].endswith("RuntimeError: no idea")


def test_play_saves_each_seats_output_apart(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "lorum", "--seed", "5", "--agents", "talker,talker,random,random",
                 "--seat-logs", "logs/here"]) == 0
    out = capsys.readouterr().out
    first, second = (folder / "logs" / "here" / f"seat{seat}.log" for seat in (0, 1))
    assert f"output of seat 0 (talker) saved to {Path('logs/here/seat0.log')}" in out
    assert "seat zero has had enough" in first.read_text() and "RuntimeError: no idea" in first.read_text()
    assert "thinking about" in second.read_text() and "seat zero" not in second.read_text()
    assert not (folder / "logs" / "here" / "seat2.log").exists()  # the built-in agent printed nothing


def test_play_refuses_a_seat_logs_path_that_is_a_file(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "taken").write_text("")
    assert main(["play", "lorum", "--agents", "random", "--seat-logs", "taken"]) == 2
    assert "--seat-logs taken: is a file, not a folder" in capsys.readouterr().err
