"""The wire protocol against hostile bytes: whatever the other end writes, ``receive`` raises one of the three
kinds the seats map to faults (or returns a bounded JSON value), and never waits past its deadline."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.referee import protocol
from arena.referee.protocol import (
    ChannelClosed,
    ChannelTimeout,
    MalformedMessage,
    OversizedMessage,
    ProtocolError,
    UnsolicitedMessage,
)

EXPECTED = (ChannelClosed, ChannelTimeout, ProtocolError)
"""Everything ``receive`` may raise: ``arena.referee.seats`` turns each into a fault of the seat."""


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    """(referee's end, agent's end)."""
    referee, agent = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    yield referee, agent
    referee.close()
    agent.close()


def frame(body: bytes, answers: int = 0) -> bytes:
    """A raw message; ``answers`` 0: the first message on the socket, answering nothing."""
    return protocol.HEADER.pack(len(body), 12345, answers) + body


def soon() -> float:
    return time.monotonic() + 0.5


@pytest.mark.parametrize(
    "body, problem",
    [
        (b"[" * 100_000 + b"]" * 100_000, "nested more than 64 levels"),  # RecursionError in json.loads
        (b'{"a":' * 65 + b"1" + b"}" * 65, "nested more than 64 levels"),  # few brackets per level
        (b'{"action": ' + b"9" * 5000 + b"}", "a number of 5000 characters"),  # over Python's int/str limit
        (b'{"action": ' + b"9" * 200 + b"}", "a number of 200 characters"),  # under it, still refused
        (b'{"action": NaN}', "NaN is not a JSON number"),
        (b'{"action": -Infinity}', "-Infinity is not a JSON number"),
        (b'{"action": 1e999}', "too large to be finite"),
        (b'{"action": "\xff\xfe"}', "not UTF-8"),
        (b'{"action": "\\ud800"}', "lone surrogate"),
        (b'{"\\udc00": 1}', "lone surrogate"),
        (b"", "not JSON"),
        (b'{"action": "a"} trailing', "not JSON"),
        (b'\xef\xbb\xbf{"ready": true}', "not JSON"),  # a byte-order mark
    ],
)
def test_a_poisoned_body_is_a_protocol_error(pair, body: bytes, problem: str) -> None:
    referee, agent = pair
    threading.Thread(target=agent.sendall, args=(frame(body),), daemon=True).start()
    with pytest.raises(MalformedMessage, match=problem) as caught:
        protocol.receive(referee, soon())
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 200


def test_valid_unicode_and_moderate_values_still_pass(pair) -> None:
    referee, agent = pair
    value = {"action": "\U0001F600 \\ud800 is text", "n": -(10**30), "x": 1e308, "deep": [[[[[]]]]]}
    agent.sendall(protocol.encode(value))
    assert protocol.receive(referee, soon()) == value


def test_a_huge_length_prefix_is_refused_before_any_body_is_read(pair) -> None:
    referee, agent = pair
    agent.sendall(protocol.HEADER.pack(0xFFFFFFFF, 1, 0))  # and nothing after it
    with pytest.raises(OversizedMessage, match="4294967295 bytes is over the 1048576-byte limit"):
        protocol.receive(referee, soon())


def test_a_partial_frame_then_silence_times_out(pair) -> None:
    referee, agent = pair
    agent.sendall(protocol.HEADER.pack(100, 1, 0) + b'{"action":')
    with pytest.raises(ChannelTimeout):
        protocol.receive(referee, time.monotonic() + 0.1)


def test_a_trickled_frame_cannot_stretch_the_deadline(pair) -> None:
    referee, agent = pair
    data = frame(b'{"action": "' + b"x" * 20 + b'"}')
    sent = []

    def trickle() -> None:
        for byte in data:  # one byte every 20 ms: about a second for the whole frame
            try:
                agent.send(bytes([byte]))
            except OSError:
                return
            sent.append(byte)
            time.sleep(0.02)

    thread = threading.Thread(target=trickle, daemon=True)
    thread.start()
    with pytest.raises(ChannelTimeout):
        protocol.receive(referee, time.monotonic() + 0.2)  # every byte arrived well within its own timeout
    assert len(sent) < len(data)  # the deadline, not the end of the frame, ended the wait
    referee.close()
    thread.join()


def test_a_reply_before_the_request_is_never_taken_as_its_answer(pair) -> None:
    referee, agent = pair
    agent.sendall(frame(b'{"ready": true}') + frame(b'{"action": "guess"}'))
    assert protocol.receive(referee, soon()) == {"ready": True}
    protocol.send(referee, protocol.encode({"op": "act"}), soon())
    with pytest.raises(UnsolicitedMessage, match="answers no request of ours"):
        protocol.receive(referee, soon())


def test_a_second_reply_is_never_taken_as_the_answer_to_the_next_request(pair) -> None:
    referee, agent = pair
    protocol.send(referee, protocol.encode({"op": "act"}), soon())
    protocol.receive(agent, None, protocol.REQUEST_LIMIT)
    protocol.send(agent, protocol.encode({"action": "first"}))
    assert protocol.receive(referee, soon()) == {"action": "first"}
    protocol.send(agent, protocol.encode({"action": "second"}))
    protocol.send(referee, protocol.encode({"op": "act"}), soon())
    with pytest.raises(UnsolicitedMessage):
        protocol.receive(referee, soon())  # not {"action": "second"}


def test_a_late_answer_to_an_earlier_request_is_refused_even_when_it_arrives_after_the_next_one(pair) -> None:
    # No race to win: the answer must name the newest request's token, unknown before that request was sent.
    referee, agent = pair
    protocol.send(referee, protocol.encode({"op": "act", "turn": 1}), soon())
    protocol.receive(agent, None, protocol.REQUEST_LIMIT)
    protocol.send(referee, protocol.encode({"op": "act", "turn": 2}), soon())
    protocol.send(agent, protocol.encode({"action": "for turn 1"}))
    with pytest.raises(UnsolicitedMessage):
        protocol.receive(referee, soon())


def test_a_flood_before_being_asked_is_refused(pair) -> None:
    referee, agent = pair
    flood = frame(b'{"ready": true}') * 2000
    writer = threading.Thread(target=agent.sendall, args=(flood,), daemon=True)
    writer.start()
    protocol.receive(referee, soon())  # the first one answers start-up, as a real "ready" would
    protocol.send(referee, protocol.encode({"op": "act"}), soon())
    with pytest.raises(UnsolicitedMessage):
        protocol.receive(referee, soon())
    referee.close()
    writer.join()


def test_end_of_file_mid_frame_is_a_closed_channel(pair) -> None:
    referee, agent = pair
    agent.sendall(frame(b'{"ready": true}')[:10])
    agent.close()
    with pytest.raises(ChannelClosed):
        protocol.receive(referee, soon())


def test_an_answer_after_the_request_is_accepted_and_nothing_is_marked(pair) -> None:
    referee, agent = pair
    for turn in range(3):
        protocol.send(referee, protocol.encode({"op": "act", "turn": turn}), soon())
        assert protocol.receive(agent, None, protocol.REQUEST_LIMIT) == {"op": "act", "turn": turn}
        protocol.send(agent, protocol.encode({"action": turn}))
        assert protocol.receive(referee, soon()) == {"action": turn}


@pytest.mark.parametrize(
    "data, kind",
    [
        (protocol.HEADER.pack(protocol.REQUEST_LIMIT + 1, 1, 0), OversizedMessage),
        (frame(b"[" * 100_000), MalformedMessage),
        (frame(b'{"op": "act", "observation": ' + b"1" * 5000 + b"}"), MalformedMessage),
    ],
)
def test_the_agent_side_reads_requests_within_the_same_bounds(pair, data: bytes, kind: type) -> None:
    referee, agent = pair
    threading.Thread(target=referee.sendall, args=(data,), daemon=True).start()
    with pytest.raises(kind):
        protocol.receive(agent, None, protocol.REQUEST_LIMIT)


# The fixture is a seat reused on purpose: every example talks to the same process.
@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=64) | st.builds(lambda body: frame(body), st.binary(max_size=64))
       | st.builds(lambda text: frame(text.encode("utf-8", "surrogatepass")), st.text(max_size=40)))
def test_any_bytes_end_in_a_value_or_one_of_three_errors(data: bytes) -> None:
    referee, agent = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        agent.sendall(data)
        agent.shutdown(socket.SHUT_WR)
        try:
            value = protocol.receive(referee, time.monotonic() + 0.05)
        except EXPECTED:
            return
        json.dumps(value)  # what passes is plain, printable JSON data
        repr(value)
    finally:
        referee.close()
        agent.close()


def test_a_request_larger_than_the_socket_buffer_arrives_whole_while_the_agent_reads_slowly(pair) -> None:
    # The referee's socket is non-blocking under a deadline: a partial send must carry on where it stopped.
    referee, agent = pair
    request = {"op": "act", "events": [{"type": "play", "card": "x" * 100, "n": n} for n in range(20_000)]}
    received: list[object] = []

    def read_slowly() -> None:
        time.sleep(0.05)  # the referee's first send fills the buffer and has to wait
        received.append(protocol.receive_request(agent))

    reader = threading.Thread(target=read_slowly)
    reader.start()
    protocol.send(referee, protocol.encode(request), time.monotonic() + 5)
    reader.join()
    assert received == [request]


def test_a_request_the_agent_never_reads_times_out_at_its_deadline(pair) -> None:
    referee, _agent = pair
    request = protocol.encode({"op": "act", "padding": "x" * (8 << 20)})  # more than any socket buffer holds
    started = time.monotonic()
    with pytest.raises(ChannelTimeout, match="timed out sending"):
        protocol.send(referee, request, started + 0.2)
    assert 0.2 <= time.monotonic() - started < 1.0


def test_two_replies_written_at_once_are_read_one_message_at_a_time(pair) -> None:
    # The referee reads ahead of a message when the bytes are there; what it read past the first reply is kept
    # for the next read, where it is refused as unsolicited, exactly as if it had stayed in the socket.
    referee, agent = pair
    protocol.send(referee, protocol.encode({"op": "act"}), soon())
    protocol.receive_request(agent)
    protocol.send(agent, protocol.encode({"action": "first"}))
    extra = protocol.encode({"action": "second"})
    agent.sendall(protocol.HEADER.pack(len(extra) - protocol.HEADER.size, 7, 0) + extra[protocol.HEADER.size:])
    time.sleep(0.05)  # both replies in the socket before the referee reads
    assert protocol.receive(referee, soon()) == {"action": "first"}
    protocol.send(referee, protocol.encode({"op": "act"}), soon())
    with pytest.raises(UnsolicitedMessage):
        protocol.receive(referee, soon())


@pytest.mark.parametrize("message", [{"op": "act", "observation": {"legal": ["7a", "Ka"], "seat": 2}},
                                     {"op": "result", "events": [], "result": {"scores": [1.5, -2, 0, 10**18]}}])
def test_the_agent_reads_the_referees_json_as_it_was_written(pair, message: dict[str, object]) -> None:
    referee, agent = pair
    protocol.send(referee, protocol.encode(message), soon())
    assert protocol.receive_request(agent) == message


def test_encoding_falls_back_to_json_for_what_orjson_cannot_write() -> None:
    # An integer past 64 bits and a non-string key: json's text, as before orjson.
    body = protocol.encode({"big": 10**30, "keys": {1: "one"}})[protocol.HEADER.size:]
    assert json.loads(body) == {"big": 10**30, "keys": {"1": "one"}}
    with pytest.raises(TypeError):
        protocol.encode({"not": object()})
