"""Protocol poisoning end to end and at the seat: raw bytes from an agent are that seat's fault, the match goes on.

``bad-poisoner`` (tests/referee/protocol_agents) is an isolated agent that finds its own socket and writes
to it what the real agent process never would; ``RawHost`` hands a real ``IsolatedSeat`` a socket whose
other end the test writes directly.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from referee_helpers import SMALL, play

from arena.plugins import Registry, load_registry
from arena.referee import AgentHost, SeatPlan, protocol
from arena.referee.faults import ILLEGAL, TIMEOUT, Fault
from arena.referee.sandboxed import ProcessSeat

POISONERS = Path(__file__).resolve().parent / "protocol_agents"
HOSTILE_SEAT = 1


@pytest.fixture(scope="module")
def poison_registry() -> Registry:
    loaded = load_registry(plugins_dir=POISONERS, entry_points=False).registry
    assert loaded.errors == []
    return loaded


@pytest.fixture(scope="module")
def poison_host() -> Iterator[AgentHost]:
    with AgentHost() as started:
        yield started


@pytest.mark.parametrize(
    "attack, kind, message, decision",
    [
        ("huge-length", ILLEGAL, "over the 1048576-byte limit", 2),
        ("deep", ILLEGAL, "nested more than 64 levels", 2),
        ("big-number", ILLEGAL, "a number of 5000 characters", 2),
        ("nan", ILLEGAL, "NaN is not a JSON number", 2),
        ("bad-utf8", ILLEGAL, "not UTF-8", 2),
        ("surrogate", ILLEGAL, "lone surrogate", 2),
        ("double", ILLEGAL, "answers no request of ours", 3),  # the extra reply is refused at the next request
        ("flood", ILLEGAL, "answers no request of ours", 3),
        ("partial", TIMEOUT, "no action after", 2),
        ("trickle", TIMEOUT, "no action after", 2),
    ],
)
def test_raw_bytes_from_an_isolated_agent_are_its_fault_and_the_match_goes_on(
    poison_registry: Registry, poison_host: AgentHost, attack: str, kind: str, message: str, decision: int
) -> None:
    names = ["greedy", "bad-poisoner", "random", "greedy"]
    modes = ["trusted", "isolated", "trusted", "trusted"]
    match = play(poison_registry, poison_host, "lovat", names, seed=5, isolation=modes,
                 options={HOSTILE_SEAT: {"attack": attack}})
    record = match.record
    assert "result" in record  # the match was played to the end
    assert [(fault["seat"], fault["kind"]) for fault in record["faults"]] == [(HOSTILE_SEAT, kind)]
    assert message in record["faults"][0]["message"]
    own_moves = [index for index, entry in enumerate(record["actions"]) if entry["seat"] == HOSTILE_SEAT]
    assert record["faults"][0]["move"] == own_moves[decision - 1]
    assert len(own_moves) > decision  # the substitute played the seat's later decisions


class RawHost:
    """Stands in for the plugin's zygote: keeps the agent's end of the seat's socket for the test to write raw bytes.

    The "agent process" is a ``sleep`` in its own process group (a child of this process, which plays the
    zygote), so that the seat's SIGKILL hits only it.
    """

    level = "none"
    temp_root = None

    def __init__(self) -> None:
        self.agent: socket.socket | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self.pid = os.getpid()
        self.plugin = SimpleNamespace(name="raw")

    def zygote(self, plugin: Any, require: str) -> RawHost:
        return self

    def start(self) -> None:
        """Nothing to start: this process is the stand-in zygote."""

    def spawn(self, request: dict[str, Any], channel: socket.socket, acknowledge: int | None = None) -> dict[str, Any]:
        self.agent = socket.socket(fileno=os.dup(channel.fileno()))
        self.process = subprocess.Popen(["sleep", "60"], start_new_session=True)
        return {"pid": self.process.pid}

    def reap(self, pids: list[int]) -> dict[int, dict[str, Any]]:
        assert self.process is not None
        self.process.wait()
        return {pid: {"signal": 9} for pid in pids}


@pytest.fixture
def seat(poison_registry: Registry) -> Iterator[tuple[ProcessSeat, RawHost, Any, Any]]:
    """A started isolated seat at 4-player Lovat, its raw host, the game and a state where seat 0 decides."""
    game = poison_registry.game("lovat")
    options = game.info.resolve_options(4, {})
    state = game.new_state(3, options)
    host = RawHost()
    plan = SeatPlan(name="random", spec=poison_registry.agent("random"), seed=1, isolation="isolated")
    runner = ProcessSeat(plan, game, 0, 4, SMALL, host, mode="isolated", require="none")  # type: ignore[arg-type]
    runner.launch()
    assert host.agent is not None
    host.agent.sendall(protocol.encode({"ready": True}))
    runner.start()
    yield runner, host, game, state
    runner.close()
    host.agent.close()


def legal_action(registry: Registry, game: Any, observation: Any) -> Any:
    agent = registry.agent("random").factory(seat=observation.seat, game=game.info, players=4, seed=2, options={})
    action = agent.act(observation)
    return list(action) if isinstance(action, tuple) else action


def recv_exactly(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        assert chunk, "the referee closed the socket"
        data += chunk
    return data


def answer(agent: socket.socket, reply: Callable[[int], bytes]) -> threading.Thread:
    """In a thread, as the agent's process: read the next request, write ``reply(its token)`` raw."""

    def run() -> None:
        size, token, _answers = protocol.HEADER.unpack(recv_exactly(agent, protocol.HEADER.size))
        recv_exactly(agent, size)
        agent.sendall(reply(token))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def raw(body: bytes, token: int, size: int | None = None) -> bytes:
    return protocol.HEADER.pack(len(body) if size is None else size, 99, token) + body


def test_an_extra_legal_reply_is_never_played_as_the_next_answer(seat, poison_registry: Registry) -> None:
    runner, host, game, state = seat
    observation = state.observation(0)
    action = legal_action(poison_registry, game, observation)
    body = json.dumps({"action": action}).encode()
    thread = answer(host.agent, lambda token: raw(body, token) * 2)  # two answers to one request
    played, _elapsed = runner.act(observation)
    thread.join()
    assert json.loads(json.dumps({"action": played})) == {"action": action}
    with pytest.raises(Fault) as caught:
        runner.act(observation)  # the stale reply would be legal here: it must still not be taken
    assert caught.value.kind == ILLEGAL and "answers no request of ours" in str(caught.value)
    assert runner.pid is None  # the agent's process was stopped


@pytest.mark.parametrize(
    "reply, message",
    [
        (lambda token: raw(b"", token, size=0x7FFFFFFF), "over the 1048576-byte limit"),
        (lambda token: raw(b"[" * 100_000 + b"]" * 100_000, token), "nested more than 64"),
        (lambda token: raw(b'{"action": "\xff\xff"}', token), "not UTF-8"),
        (lambda token: raw(b'{"action": ' + b"9" * 5000 + b"}", token), "a number of 5000 characters"),
        (lambda token: raw(b'{"action": Infinity}', token), "Infinity is not a JSON number"),
        (lambda token: raw(b"[1, 2, 3]", token), "malformed reply"),
        (lambda token: raw(b'{"error": [[["x"]]], "message": {"nested": [1e308]}}', token), "malformed reply"),
        (lambda token: raw(b'{"action": "x"}', token ^ 1), "answers no request of ours"),  # a guessed token
        (lambda token: raw(b'{"action": "x"}', 0), "answers no request of ours"),
    ],
)
def test_a_seat_turns_any_reply_bytes_into_its_own_fault(seat, reply: Callable[[int], bytes], message: str) -> None:
    runner, host, _game, state = seat
    thread = answer(host.agent, reply)
    with pytest.raises(Fault) as caught:
        runner.act(state.observation(0))
    thread.join()
    assert caught.value.kind == ILLEGAL and message in str(caught.value)
    assert runner.pid is None  # the agent's process was stopped
