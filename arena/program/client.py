"""The program's side of protocol version 1, in Python: run a bot as an agent program (docs/protocol.md).

A bot is any object with ``act(request) -> action`` (``request`` is the ``act`` message: ``id``,
``observation``, ``legal``) and, optionally, ``on_event(event)`` and ``on_result(result)``; ``serve`` builds it
from the greeting and answers the referee until the result::

    from arena.program.client import serve

    class First:
        def act(self, request):
            return request["legal"][0] if request["legal"] else ...

    serve(lambda hello: First())

A manifest runs such a file as ``command = ["python", "bot.py"]``.  ``python -m arena.program.client --agent
NAME`` runs one of arena's own agents as a program (the observation rebuilt by the game from its JSON):
how the tests check the two ends against one another.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping
from typing import IO, Any, Protocol

from arena.program import PROTOCOL_VERSION


class Bot(Protocol):
    """What ``serve`` calls: ``act`` for every request (``on_event`` and ``on_result`` are optional)."""

    def act(self, request: Mapping[str, Any]) -> Any:
        """The action for one ``act`` message: one of ``request["legal"]``, or a Lovat keep (a list of cards)."""


class ProtocolMismatch(Exception):
    """The referee speaks a protocol version this client does not."""


def serve(make_bot: Callable[[Mapping[str, Any]], Bot], stdin: IO[bytes] | None = None,
          stdout: IO[bytes] | None = None) -> int:
    """Answer the referee on ``stdin``/``stdout`` (default the process's) until the result; the exit status.

    ``make_bot(hello)`` gets the greeting (game, players, seat, seed, options, limits) and returns the bot.
    """
    reader = stdin if stdin is not None else sys.stdin.buffer
    writer = stdout if stdout is not None else sys.stdout.buffer

    def send(message: Mapping[str, Any]) -> None:
        writer.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        writer.flush()

    hello = _read(reader)
    if hello is None:
        return 0
    if hello.get("type") != "hello" or hello.get("protocol") != PROTOCOL_VERSION:
        raise ProtocolMismatch(f"expected a protocol {PROTOCOL_VERSION} greeting, got {str(hello)[:80]}")
    bot = make_bot(hello)
    send({"type": "ready"})
    while (message := _read(reader)) is not None:
        kind = message.get("type")
        if kind == "act":
            action = bot.act(message)
            send({"type": "action", "id": message["id"],
                  "action": list(action) if isinstance(action, tuple) else action})
        elif kind == "event" and hasattr(bot, "on_event"):
            bot.on_event(message["event"])
        elif kind == "result":
            if hasattr(bot, "on_result"):
                bot.on_result(message["result"])
            send({"type": "done"})
            return 0
    return 0


def _read(reader: IO[bytes]) -> dict[str, Any] | None:
    line = reader.readline()
    if not line:
        return None
    value = json.loads(line)
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object per line, got {line[:80]!r}")
    return value


class AgentBot:
    """One of arena's own agents behind the protocol: observations rebuilt by the game from their JSON."""

    def __init__(self, agent_name: str, hello: Mapping[str, Any]) -> None:
        from arena.plugin_system.registration import Registrar
        from arena.plugin_system.sources import builtin_sources

        manager = Registrar()
        for source in builtin_sources():
            manager.add(source)
        registry = manager.registry
        self.game = registry.game(str(hello["game"]))
        spec = registry.agent(agent_name)
        self.agent = spec.factory(seat=hello["seat"], game=self.game.info, players=hello["players"],
                                  seed=hello["seed"], options=hello.get("options") or {})

    def act(self, request: Mapping[str, Any]) -> Any:
        """The agent's action for the request's observation."""
        return self.agent.act(self.game.observation_from_json(request["observation"]))

    def on_event(self, event: Mapping[str, Any]) -> None:
        """Pass a public event on to the agent."""
        self.agent.on_event(event)

    def on_result(self, result: Mapping[str, Any]) -> None:
        """Pass the result on to the agent."""
        self.agent.on_result(result)


def main(argv: list[str] | None = None) -> int:
    """``python -m arena.program.client --agent NAME``: one of arena's own agents, as a program."""
    parser = argparse.ArgumentParser(prog="python -m arena.program.client",
                                     description="Run one of arena's own agents as an agent program on stdin/stdout.")
    parser.add_argument("--agent", required=True, help="the built-in agent to run (see 'arena agents')")
    args = parser.parse_args(argv)
    return serve(lambda hello: AgentBot(args.agent, hello))


if __name__ == "__main__":
    sys.exit(main())
