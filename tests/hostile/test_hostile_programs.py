"""Hostile agent programs through the line protocol, under the default sandbox: faulted with the right reason,
and contained (tests/hostile/programs/hostile-program/attack.py; docs/protocol.md, "Faults")."""

from __future__ import annotations

import errno
import os
import socket
import time
from pathlib import Path

import pytest
from hostile_helpers import LIMITS, Victim, needs_sandbox, play, processes_named

from arena.agent import AgentSpec
from arena.plugins import Registry, load_registry
from arena.records.seeding import derive_seed
from arena.referee import AgentHost, Limits, MatchResult, SeatPlan, play_match
from arena.referee.program_seat import ProgramSeat
from arena.sandbox import cgroups, probe

PROGRAMS = Path(__file__).resolve().parent / "programs"

QUICK = Limits(move_seconds=0.3, bank_seconds=0.2, startup_seconds=10.0, memory_mb=256)
"""For the attacks that end in a timeout: half a second, not the four of ``LIMITS``."""


@pytest.fixture(scope="module")
def programs() -> Registry:
    """Built-ins plus the hostile program."""
    registry = load_registry(plugins_dir=PROGRAMS, entry_points=False).registry
    assert "hostile-program" in registry.agents, registry.errors
    return registry


def attacked(registry: Registry, host: AgentHost, attack: str, limits: Limits = LIMITS) -> MatchResult:
    """A Lorum match with the hostile program in seat 0 doing ``attack``; asserts it ran sandboxed, was the
    only seat faulted, and that the match still ended with a result."""
    needs_sandbox()
    match = play(registry, host, ["hostile-program", "random", "random", "random"],
                 options={0: {"attack": attack}}, limits=limits)
    assert match.record["seats"][0]["isolation"] == "sandboxed"
    assert [fault["seat"] for fault in match.record["faults"]] == [0], match.record["faults"]
    assert len(match.record["result"]["scores"]) == 4
    return match


def only_fault(match: MatchResult) -> dict[str, str]:
    return match.record["faults"][0]


@pytest.mark.parametrize(("attack", "kind", "words"), [
    ("flood", "illegal", "sent an oversized answer: a line over 65536 bytes"),
    ("stale", "illegal", "answered request 1 when asked request 2: a stale or extra answer"),
    ("utf8", "illegal", "sent a malformed answer: a line that is not UTF-8"),
    ("huge", "illegal", "sent a malformed answer: a line of JSON out of bounds"),
    ("exit", "crash", "the agent's process exited with status 3"),
    ("shutdown", "crash", "closed its standard output but did not exit"),
    ("early", "illegal", "illegal action 'pass'"),  # its early answers were read as its answers, in turn
    ("odd-table", "illegal", 'answered the action {"card": "Og"}: not an action (a string, or a list of strings'),
    ("odd-nested", "illegal", 'answered the action [["L1-1"], {"a": 1}]: not an action'),
    ("odd-number", "illegal", "answered the action 1e+308: not an action"),
    ("odd-null", "illegal", "answered the action null: not an action"),
    # What a runtime writes after the error (node's stack and version, Rust's backtrace hint) is not quoted.
    ("trailer-node", "crash", "status 1; its standard error ends: TypeError: Cannot read properties of undefined"),
    ("trailer-rust", "crash", "status 1; its standard error ends: index out of bounds: the len is 0"),
])
def test_a_misbehaving_program_is_faulted_with_its_reason(programs: Registry, host: AgentHost, attack: str,
                                                          kind: str, words: str) -> None:
    fault = only_fault(attacked(programs, host, attack))
    assert (fault["kind"], fault["phase"]) == (kind, "move")
    assert words in fault["message"], fault["message"]


@pytest.mark.parametrize("attack", ["partial", "silent"])
def test_half_a_line_or_nothing_is_a_timeout(programs: Registry, host: AgentHost, attack: str) -> None:
    fault = only_fault(attacked(programs, host, attack, QUICK))
    assert fault["kind"] == "timeout"
    assert "no action after 0.5" in fault["message"], fault["message"]  # 0.50 s or a tick more, under load


def test_a_program_that_never_flushes_its_ready_line_is_told_so(programs: Registry, host: AgentHost) -> None:
    limits = Limits(move_seconds=0.3, bank_seconds=0.2, startup_seconds=1.0, memory_mb=256)
    fault = only_fault(attacked(programs, host, "mute", limits))
    assert (fault["kind"], fault["phase"]) == ("timeout", "startup")
    assert fault["message"] == ('not ready after 1 s: no {"type": "ready"} line read (is standard output '
                                'flushed?)'), fault["message"]


def test_a_malformed_greeting_is_a_start_up_fault(programs: Registry, host: AgentHost) -> None:
    fault = only_fault(attacked(programs, host, "greeting"))
    assert (fault["kind"], fault["phase"]) == ("illegal", "startup")
    assert "a line over 65536 bytes" in fault["message"], fault["message"]


def test_a_program_cannot_exec_a_shell(programs: Registry, host: AgentHost) -> None:
    message = only_fault(attacked(programs, host, "shell"))["message"]
    assert "its standard error ends: exec of a shell refused: errno 13" in message, message  # EACCES: Landlock


def test_a_program_cannot_read_other_seats_the_plugins_folder_or_the_system(programs: Registry,
                                                                             host: AgentHost) -> None:
    message = only_fault(attacked(programs, host, "snoop"))["message"]
    for target in ("seats", "home", "passwd", "plugins"):
        assert f"{target}=denied" in message, message


def test_a_fork_bomb_is_bounded_and_leaves_nothing_running(programs: Registry) -> None:
    with AgentHost() as own:
        message = only_fault(attacked(programs, own, "fork"))["message"]
    forked = int(message.rsplit("forked ", 1)[1].split()[0].rstrip("."))
    assert 0 < forked < 64, message  # the seat's process bound (arena.sandbox.policy.MAX_PROCESSES)
    deadline = time.monotonic() + 5.0  # the host has returned; its seats' groups are killed as it closes
    while processes_named("hostile-fork") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes_named("hostile-fork") == []


def test_a_flood_of_standard_error_is_bounded(programs: Registry, host: AgentHost) -> None:
    message = only_fault(attacked(programs, host, "chatter"))["message"]
    assert "stderr stopped at 16777216 bytes: errno 27" in message, message  # EFBIG at FILE_BYTES_MAX


def test_a_crash_is_a_crash_not_a_memory_fault_under_a_memory_group(programs: Registry, host: AgentHost) -> None:
    """A program has no address-space limit where a memory group bounds it (a C author's NULL dereference is
    theirs to fix, not a memory limit to raise); where only the address space is bounded, a segfault may be
    the limit's doing and is reported so."""
    fault = only_fault(attacked(programs, host, "segv"))
    if "memory" in cgroups.find().bases:
        assert (fault["kind"], fault["message"]) == ("crash", "the agent's process was killed by SIGSEGV"), fault
    else:
        assert fault["kind"] == "memory" and "SIGSEGV under its 256 MB memory limit" in fault["message"], fault


def test_what_an_exiting_program_leaves_running_is_killed(programs: Registry) -> None:
    with AgentHost() as own:
        fault = only_fault(attacked(programs, own, "orphan"))
        assert (fault["kind"], fault["message"]) == ("crash", "the agent's process exited with status 0"), fault
    assert processes_named("hostile-orphan") == []


def test_a_program_cannot_write_its_run_folder_or_beside_it(programs: Registry, host: AgentHost) -> None:
    message = only_fault(attacked(programs, host, "write"))["message"]
    # In the sandbox's own namespaces every mount but its temporary folder is read-only, which the kernel
    # checks before Landlock: EROFS there, Landlock's EACCES where there are no namespaces.
    refused = errno.EROFS if probe().namespaces else errno.EACCES
    assert message.endswith(f"its standard error ends: write run=denied {refused} above=denied {refused}"), message
    assert not (PROGRAMS / "hostile-program" / "written").exists() and not (PROGRAMS / "written").exists()


def test_a_spinning_program_gets_no_cpu_between_its_turns(programs: Registry, host: AgentHost,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    needs_sandbox()
    started = ProgramSeat.start

    def start(seat: ProgramSeat) -> None:
        started(seat)
        Victim.spinners.append(seat)

    monkeypatch.setattr(ProgramSeat, "start", start)
    monkeypatch.setattr(Victim, "spinners", [])
    monkeypatch.setattr(Victim, "stolen", [])
    game = programs.game("lorum")
    victim = AgentSpec(name="victim", games=("lorum",), factory=Victim, description="", version="1")
    names = ["victim", "hostile-program", "random", "random"]
    seats = [SeatPlan(name=name, spec=victim if name == "victim" else programs.agent(name),
                      seed=derive_seed(2, "agent", index), isolation="trusted" if name == "victim" else "auto",
                      options={"attack": "spin"} if name == "hostile-program" else {})
             for index, name in enumerate(names)]
    match = play_match(game, game.info.resolve_options(4, {}), 2, seats, substitute=programs.agent("random"),
                       host=host, limits=LIMITS)
    assert match.record["faults"] == [] and len(Victim.spinners) == 1
    assert len(Victim.stolen) >= 5
    # A spinning thread would take ~0.05 CPU-second per 0.05 s turn; frozen, it takes none.
    assert max(Victim.stolen) < 0.02, Victim.stolen


def test_a_program_has_no_network_not_even_the_hosts_loopback(programs: Registry, host: AgentHost) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", derive_seed(3, "agent", 0) % 20000 + 20000))  # the port the attack tries
        server.listen()
        message = only_fault(attacked(programs, host, "network"))["message"]
    assert "network internet=failed" in message and "loopback=failed" in message, message
    assert "=failed 111" not in message, message  # ECONNREFUSED: it reached a network stack with no listener


def test_a_program_cannot_read_the_referee_or_the_zygotes_in_proc(programs: Registry, host: AgentHost) -> None:
    attacked(programs, host, "stale")  # its zygote runs, in this host
    targets = [os.getpid(), *host.pids]
    assert len(targets) >= 2
    match = play(programs, host, ["hostile-program", "random", "random", "random"], limits=LIMITS,
                 options={0: {"attack": "proc", "targets": " ".join(map(str, targets))}})
    message = only_fault(match)["message"]
    assert message.endswith("its standard error ends: proc nothing"), message
