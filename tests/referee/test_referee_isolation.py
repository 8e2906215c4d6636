"""What an isolated agent cannot do: see hidden cards, remember a deal, flood the referee's terminal.

The trusted runs of the same agents show the danger is real (a trusted
snooper does find other seats' hands; a trusted rememberer does remember), so
the isolated runs' empty findings mean something.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from referee_helpers import play

from arena.plugins import Registry
from arena.referee import AgentHost, Limits

SNOOP_SEAT = 1


def dealt_by_seat(record: dict) -> dict[int, set[str]]:
    """Every card each seat was dealt in the match (all deals)."""
    cards: dict[int, set[str]] = {}
    for outcome in record["chance"]:
        if outcome["kind"] == "deal":
            for seat, hand in enumerate(outcome["value"]):
                cards.setdefault(seat, set()).update(hand)
    return cards


ROOMY = Limits(move_seconds=10.0, bank_seconds=10.0, startup_seconds=10.0, memory_mb=256)
"""Limits that no snoop reaches, so that a fault could only mean the snoop broke something."""


def snoop(registry: Registry, host: AgentHost, game: str, mode: str, report: Path) -> tuple[dict, dict]:
    names = ["greedy", "bad-snoop", "random", "greedy"]
    modes = ["trusted"] * 4
    modes[SNOOP_SEAT] = mode
    # Room to scan: a trusted snoop walks every object of this (test) process, which takes long under load.
    match = play(registry, host, game, names, seed=8, isolation=modes, limits=ROOMY,
                 options={SNOOP_SEAT: {"report": str(report), "snoops": 3}})
    assert match.record["faults"] == []
    return json.loads(report.read_text()), match.record


@pytest.mark.parametrize("game", ["lovat", "lorum"])
def test_no_hidden_card_reaches_an_isolated_snoop(registry: Registry, host: AgentHost, game: str,
                                                  tmp_path: Path) -> None:
    found, _record = snoop(registry, host, game, "isolated", tmp_path / "snoop.json")
    assert found["findings"] == []
    # Besides stdin (/dev/null) and stdout/stderr (its own log, in its own folder: arena.referee.seat_log) the
    # agent holds its own socket and nothing else: not the zygote's control socket, not another agent's socket.
    sockets = [target for target in found["fds"].values() if target.startswith("socket:")]
    assert len(sockets) == 1
    assert found["fds"]["0"] == "/dev/null"
    log = Path(found["fds"]["1"])
    assert found["fds"]["2"] == str(log) and log.name == "stderr.log" and "-agent-" in log.parent.name


@pytest.mark.parametrize("game", ["lovat", "lorum"])
def test_a_trusted_snoop_does_find_hidden_cards(registry: Registry, host: AgentHost, game: str,
                                                tmp_path: Path) -> None:
    # Why third-party agents run isolated: in-process, gc and the stack lead straight to the state.
    found, record = snoop(registry, host, game, "trusted", tmp_path / "snoop.json")
    dealt = dealt_by_seat(record)
    assert all(finding["seat"] != SNOOP_SEAT for finding in found["findings"])
    # Real hidden cards of another seat in this match (it may also dig up states of earlier tests' matches).
    assert any(set(finding["hand"]) <= dealt[finding["seat"]] for finding in found["findings"])


def remember(registry: Registry, host: AgentHost, mode: str, report: Path) -> list[dict]:
    """Two matches of a duplicate pair: the same deal, the seats rotated, the rememberer in both."""
    for rotation in range(2):
        names = ["random", "bad-rememberer", "greedy", "random"]
        names = names[-rotation:] + names[:-rotation] if rotation else names
        seat = names.index("bad-rememberer")
        modes = ["trusted"] * 4
        modes[seat] = mode
        match = play(registry, host, "lorum", names, seed=31, isolation=modes, options={seat: {"report": str(report)}})
        assert match.record["faults"] == []
    return [json.loads(line) for line in report.read_text().splitlines()]


def test_an_isolated_agent_remembers_nothing_across_matches(registry: Registry, host: AgentHost,
                                                            tmp_path: Path) -> None:
    first, second = remember(registry, host, "isolated", tmp_path / "memory.jsonl")
    assert first == {"global": [], "class": [], "file": []}
    # A fresh process per match: no module global, no class attribute, and a private temporary folder.
    assert second == {"global": [], "class": [], "file": []}


def test_a_trusted_agent_could_remember(registry: Registry, host: AgentHost, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # Documented limitation: trusted (first-party) agents share the referee's process.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    _first, second = remember(registry, host, "trusted", tmp_path / "memory.jsonl")
    assert second["global"] and second["class"]


@pytest.mark.parametrize("game", ["lovat", "lorum"])
def test_an_isolated_agent_cannot_flood_the_terminal(registry: Registry, host: AgentHost, game: str,
                                                     capfd: pytest.CaptureFixture[str]) -> None:
    match = play(registry, host, game, ["greedy", "bad-printer", "random", "greedy"],
                 isolation=["trusted", "isolated", "trusted", "trusted"], options={1: {"megabytes": 2}})
    assert match.record["faults"] == []
    out, err = capfd.readouterr()
    assert "BAD-PRINTER-OUTPUT" not in out and "BAD-PRINTER-OUTPUT" not in err
