"""Each seat's output goes to a log of its own, bounded, kept with the match, under the default sandbox
(arena.referee.seat_log; docs/writing-agents.md, "Where your prints go")."""

from __future__ import annotations

from pathlib import Path

from hostile_helpers import needs_sandbox, play, report_of

from arena.plugins import Registry
from arena.referee import AgentHost
from arena.referee.seat_log import CUT_MARK, FILE_BYTES_MAX, KEPT_BYTES


def test_each_seat_keeps_its_own_prints_logging_and_traceback(registry: Registry, host: AgentHost) -> None:
    needs_sandbox()
    match = play(registry, host, ["chatty", "chatty", "random", "random"],
                 options={0: {"marker": "ALPHA"}, 1: {"marker": "BRAVO"}})
    assert [seat["isolation"] for seat in match.record["seats"][:2]] == ["sandboxed", "sandboxed"]
    first, second = match.logs[0], match.logs[1]
    for marker, log in (("ALPHA", first), ("BRAVO", second)):
        assert f"{marker} built for seat" in log, log
        assert f"INFO:chatty:{marker} logged at start" in log, log
        assert f"{marker} turn 1\n" in log and f"{marker} turn 2\n" in log, log
        assert f"ValueError: {marker} gave up" in log and "Traceback (most recent call last)" in log, log
        assert f"{marker} raw\\x1b[31m\n" in log and "\x1b" not in log, log  # escapes shown, never sent raw
    assert "BRAVO" not in first and "ALPHA" not in second
    assert match.logs[2:] == ["", ""]  # the built-in agents print nothing
    assert "built for seat" not in str(match.record) and "turn 1" not in str(match.record)  # the record is public


def test_a_flood_is_bounded_and_the_seat_plays_on_until_it_chooses_to_stop(registry: Registry,
                                                                          host: AgentHost) -> None:
    needs_sandbox()
    match = play(registry, host, ["log-flood", "random", "random", "random"])
    report = report_of(match, 0)  # its only fault is its own report: 24 MiB of prints raised nothing
    assert report == {"size": FILE_BYTES_MAX, "failure": "EFBIG"}
    assert match.logs[0].startswith(CUT_MARK)
    assert len(match.logs[0].encode()) <= KEPT_BYTES + len(CUT_MARK)


def test_a_seat_cannot_write_another_seats_log_or_the_referees_files(registry: Registry, host: AgentHost,
                                                                      tmp_path: Path) -> None:
    needs_sandbox()
    target = tmp_path / "referee.log"
    target.write_text("the referee's\n")
    match = play(registry, host, ["log-vandal", "chatty", "chatty", "random"],
                 options={0: {"target": str(target)}, 1: {"marker": "ALPHA"}, 2: {"marker": "BRAVO"}})
    fault = next(fault for fault in match.record["faults"] if fault["seat"] == 0)
    assert 'REPORT {"wrote": []}' in fault["message"], fault
    assert target.read_text() == "the referee's\n"
    assert "VANDAL" not in match.logs[1] + match.logs[2]
    assert "ALPHA built" in match.logs[1] and "BRAVO built" in match.logs[2]
    assert "root:" not in match.logs[0]  # its log replaced by a link: not followed


def test_an_isolated_seat_has_a_log_of_its_own_too(registry: Registry, host: AgentHost) -> None:
    match = play(registry, host, ["chatty", "chatty", "random", "random"], isolation="isolated",
                 options={0: {"marker": "ALPHA"}, 1: {"marker": "BRAVO"}})
    assert [seat["isolation"] for seat in match.record["seats"][:2]] == ["isolated", "isolated"]
    assert "ALPHA turn 2" in match.logs[0] and "ValueError: ALPHA gave up" in match.logs[0]
    assert "BRAVO turn 2" in match.logs[1] and "ALPHA" not in match.logs[1]
