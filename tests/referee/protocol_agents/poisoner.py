"""Hostile agent ``bad-poisoner``: plays randomly, then writes raw bytes to its own socket to the referee.

It finds the socket the way any agent could (``os.fstat`` on its file descriptors) and, at decision
``options["after"] + 1`` (default 2), does what ``options["attack"]`` names (see ``ATTACKS``).  It reads
the token of the request it is answering from the protocol module of its own process, as a clever
attacker would, so that its bytes reach the referee's decoder instead of being refused as unsolicited.
"""

import json
import os
import socket
import stat
import time

from arena import hookimpl
from arena.agent import Agent, AgentSpec
from arena.referee import protocol
from arena_agents.lorum import RandomLorumAgent
from arena_agents.lovat import RandomLovatAgent


def header(size):
    (channel,) = protocol._CHANNELS.values()  # the process's one socket: the request being answered
    return protocol.HEADER.pack(size, 1, channel.received)


def frame(body):
    return header(len(body)) + body


def reply(action):
    return frame(json.dumps({"action": list(action) if isinstance(action, tuple) else action}).encode())


ATTACKS = {
    # name: the bytes written to the socket, given the legal action that act then returns as usual
    "huge-length": lambda action: header(0xFFFFFFFF),
    "deep": lambda action: frame(b"[" * 100_000 + b"]" * 100_000),
    "big-number": lambda action: frame(b'{"action": ' + b"7" * 5000 + b"}"),
    "nan": lambda action: frame(b'{"action": NaN}'),
    "bad-utf8": lambda action: frame(b'{"action": "\xc3\x28"}'),
    "surrogate": lambda action: frame(b'{"action": "\\udfff"}'),
    "double": reply,  # its legal action now, and again when act returns: two replies to one request
    "flood": lambda action: reply(action) * 500,
    "partial": lambda action: header(60) + b'{"action": "xx',  # then silence
    "trickle": reply,  # written a byte at a time, slower than the time limit
}


def own_socket():
    for fd in range(3, 64):
        try:
            if stat.S_ISSOCK(os.fstat(fd).st_mode):
                return socket.socket(fileno=os.dup(fd))
        except OSError:
            continue
    raise RuntimeError("no socket found")


class PoisonerAgent(Agent):
    def __init__(self, seat, game, players, seed, options):
        super().__init__(seat=seat, game=game, players=players, seed=seed, options=options)
        inner = RandomLovatAgent if game.name == "lovat" else RandomLorumAgent
        self.inner = inner(seat=seat, game=game, players=players, seed=seed, options={})
        self.decisions = 0

    def act(self, observation):
        self.decisions += 1
        action = self.inner.act(observation)
        if self.decisions != self.options.get("after", 1) + 1:
            return action
        attack = self.options["attack"]
        data = ATTACKS[attack](action)
        sock = own_socket()
        if attack == "trickle":
            for byte in data:
                sock.sendall(bytes([byte]))
                time.sleep(0.1)
        else:
            sock.sendall(data)
        if attack == "partial":
            time.sleep(60)
        return action


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="bad-poisoner", games=("lovat", "lorum"), factory=PoisonerAgent,
                       description="writes raw bytes to the referee's socket", version="1.0"))
