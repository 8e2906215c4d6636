"""A program seat: an agent program (any language) speaking protocol version 1 over its stdin and stdout.

The seat is a ``ProcessSeat`` in every way but the wire: the program's zygote
(``arena.referee.program_zygote``) forks it in the same sandbox a Python seat
gets, the seat is placed in its groups, frozen between its turns, timed on the
same clock and killed the same way.  Only the messages differ: lines of JSON
(``arena.referee.lines``, docs/protocol.md) instead of framed ones, with request
ids the program must echo (the line protocol's defence against stale answers,
as tokens are for Python seats).

The program's standard error goes to a file in the seat's private folder; a
fault's message ends with the last line of it (bounded), so an author sees why
the program failed without a debugger.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping
from typing import Any

from arena.agent import AgentSpec
from arena.games.base import Action, Observation
from arena.games.types import to_json
from arena.plugin_system.data import printable
from arena.plugin_system.origin import origin
from arena.plugin_system.registry import PROGRAM
from arena.program import PROTOCOL_VERSION
from arena.program.build import BuildError, ensure_built
from arena.program.manifest import ManifestError, read_manifest
from arena.referee import affinity, protocol, seat_log
from arena.referee.faults import CRASH, ILLEGAL, MEMORY, TIMEOUT, Fault, check_action
from arena.referee.lines import LineChannel, encode
from arena.referee.sandboxed import FINISH_SECONDS, LATE_READ_SECONDS, ProcessSeat, _timeout
from arena.referee.seats import ISOLATED, TRUSTED

LOG_TAIL_BYTES = 4096
"""How much of the end of a program's standard error the referee reads after a fault."""

EXIT_WAIT_SECONDS = 0.2
"""How long a program that closed its output is given to finish exiting before it is killed."""

LOG_LINE_MAX = 200
"""Longest piece of standard error a fault message quotes."""

TRAILER = re.compile(r"Node\.js v\d|at \S|note: run with `RUST_BACKTRACE|[\^~]+$")
"""Lines a runtime writes after the error itself, skipped when quoting the last line of standard error: node's
version and stack frames (``at decide (agent.js:29:51)``), Rust's backtrace hint, a caret under a source line."""


def is_program(spec: AgentSpec) -> bool:
    """Whether ``spec`` is an agent program (its plugin is a folder with an ``arena-agent.toml``)."""
    source = origin(spec)
    return source is not None and source.kind == PROGRAM


class ProgramSeat(ProcessSeat):
    """An agent program in its own process tree (``isolated`` or ``sandboxed``), reached by lines of JSON."""

    channel: LineChannel | None = None
    asked = 0  # id of the last request sent

    def prepare(self) -> None:
        """Build the program if this version of its files was never built: before any seat of the match is
        forked (``launch`` and ``launch_all``), so that no seat's start-up clock runs during a build."""
        source = origin(self.plan.spec)
        if source is not None and source.kind == PROGRAM:
            try:
                with affinity.released():
                    ensure_built(read_manifest(source.target))
            except (BuildError, ManifestError, OSError) as error:
                self.failed = Fault(CRASH, f"its program could not be built: {error}")

    def fork(self) -> None:
        """Ask the program's zygote for the seat, unless its build failed."""
        if self.failed is None:
            super().fork()

    def _adopt(self, reply: dict[str, Any]) -> None:
        super()._adopt(reply)
        assert self.sock is not None
        self.channel = LineChannel(self.sock)

    def start(self) -> None:
        """Greet the program and wait for it to say it is ready, within ``startup_seconds`` of the fork."""
        if self.failed is not None:
            raise self.failed
        deadline = max(self.launched + self.limits.startup_seconds, time.monotonic() + LATE_READ_SECONDS)
        info = self.game.info
        hello = {"type": "hello", "protocol": PROTOCOL_VERSION, "game": info.name, "game_id": info.id,
                 "players": self.players, "seat": self.seat, "seed": self.plan.seed,
                 "options": dict(self.plan.options), "limits": self.limits.to_json()}
        self._send(encode(hello), deadline)
        reply = self._receive(deadline, startup=True)
        if reply.get("type") != "ready":
            raise self._stop(Fault(ILLEGAL, f"answered the greeting with {_shown(reply)}, not "
                                            "{\"type\": \"ready\"}"))
        self._started()

    def act(self, observation: Observation) -> tuple[Action, float]:
        """Send pending events and the request, wait for the answer that echoes its id; check the action."""
        self.asked += 1
        data = self._events() + encode({"type": "act", "id": self.asked, "legal": to_json(observation.legal),
                                        "observation": observation.to_json()})
        reply, elapsed = self._ask(data)
        if reply.get("type") != "action" or "action" not in reply:
            raise self._stop(Fault(ILLEGAL, f"answered request {self.asked} with {_shown(reply)}, not an action"))
        if reply.get("id") != self.asked or isinstance(reply.get("id"), bool):
            raise self._stop(Fault(ILLEGAL, f"answered request {_shown(reply.get('id'))} when asked request "
                                            f"{self.asked}: a stale or extra answer"))
        value = reply["action"]
        words = isinstance(value, list) and all(isinstance(item, str) for item in value)
        if not isinstance(value, str) and not words:
            # Said in the protocol's words (JSON), not Python's (a dict, a tuple).
            raise self._stop(Fault(ILLEGAL, f"answered the action {_json_shown(value)}: not an action (a string, "
                                            "or a list of strings such as a Lovat keep)"))
        try:
            return check_action(self.game, observation, tuple(value) if isinstance(value, list) else value), elapsed
        except Fault as fault:
            raise self._stop(fault) from None

    def finish(self, result: Mapping[str, Any]) -> None:
        """Thaw and send pending events and the result; ``collect`` gives the program a moment to take them."""
        try:
            self._thaw()
            self._send(self._events() + encode({"type": "result", "result": dict(result)}),
                       time.monotonic() + FINISH_SECONDS)
            self.finishing = True
        except Fault:
            pass

    def collect(self) -> None:
        """Wait a moment for ``{"type": "done"}`` (or the program's exit); whatever it says is ignored."""
        if self.finishing and self.channel is not None:
            try:
                self.channel.receive_line(time.monotonic() + min(FINISH_SECONDS, self.limits.move_seconds))
            except (protocol.ChannelClosed, protocol.ChannelTimeout, protocol.ProtocolError, OSError):
                pass

    # -- internals -------------------------------------------------------------------------------

    def _events(self) -> bytes:
        data = b"".join(encode({"type": "event", "event": event}) for event in self.pending)
        self.pending = []
        return data

    def _send(self, data: bytes, deadline: float) -> None:
        if self.channel is None:
            raise self._died()
        try:
            self.channel.send(data, deadline)
        except protocol.ChannelTimeout:
            raise self._stop(Fault(TIMEOUT, "did not read its input in time")) from None
        except (protocol.ChannelClosed, OSError):
            raise self._died() from None

    def _receive(self, deadline: float, startup: bool = False) -> dict[str, Any]:
        if self.channel is None:
            raise self._died()
        try:
            return self.channel.receive(deadline)
        except protocol.ChannelTimeout:
            if startup:
                late = (f"not ready after {self.limits.startup_seconds:g} s: no {{\"type\": \"ready\"}} line read "
                        "(is standard output flushed?)")
                raise self._stop(Fault(TIMEOUT, late)) from None
            elapsed = time.monotonic() - (deadline - self.clock.allowance())
            raise self._stop(_timeout(elapsed, self.limits, self.clock.allowance())) from None
        except protocol.OversizedMessage as error:
            raise self._stop(Fault(ILLEGAL, f"sent an oversized answer: {error}")) from None
        except protocol.ProtocolError as error:
            raise self._stop(Fault(ILLEGAL, f"sent a malformed answer: {error}")) from None
        except (protocol.ChannelClosed, OSError):
            raise self._died() from None

    def _died(self) -> Fault:
        running = False
        if self.pid is not None:  # its end of the socket closed: let it finish exiting, so the status is its own
            running = not _await_exit(self.pid, EXIT_WAIT_SECONDS)
        tail = self._log_tail()
        grouped = self.box is not None and self.box.group is not None and _memory_groups()
        fault = super()._died()
        if running:  # it was killed by the referee, not by itself: what it did was close its output
            fault = Fault(CRASH, "closed its standard output but did not exit", fault.elapsed)
        elif fault.kind == MEMORY and grouped and "memory limit" in str(fault):
            # Bounded by its memory group alone (no address-space limit), a program that runs out of memory is
            # killed by the group, which the status says; a segfault or an abort is then its own crash.
            fault = Fault(CRASH, str(fault).split(" under its ")[0].replace("died of", "was killed by"),
                          fault.elapsed)
        return _with_log(fault, tail)

    def _stop(self, fault: Fault) -> Fault:
        tail = self._log_tail()
        self.close()
        return _with_log(fault, tail)

    def _log_tail(self) -> str:
        """The last line the program wrote on its standard error (read before the seat's folder goes)."""
        data = seat_log.read_tail(self.log_path, LOG_TAIL_BYTES) if self.log_path is not None else None
        if not data:
            return ""
        lines = [line.strip() for line in data.decode(errors="replace").splitlines() if line.strip()]
        said = [line for line in lines if not TRAILER.match(line)]
        return printable((said or lines)[-1], LOG_LINE_MAX) if lines else ""


def _await_exit(pid: int, seconds: float) -> bool:
    """Wait (polling, at most ``seconds``) until process ``pid`` has ended (a zombie, or gone); whether it has."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with open(f"/proc/{pid}/stat") as stat_file:
                text = stat_file.read()
        except OSError:
            return True
        if text[text.rindex(")") + 2:].startswith(("Z", "X")):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.002)


def _memory_groups() -> bool:
    """Whether the referee puts seats in memory groups here (then a program seat has no address-space limit:
    arena.referee.program_zygote)."""
    from arena.sandbox import cgroups

    return "memory" in cgroups.find().bases


def _with_log(fault: Fault, tail: str) -> Fault:
    if not tail:
        return fault
    return Fault(fault.kind, f"{fault}; its standard error ends: {tail}", fault.elapsed)


def _json_shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True)
    return printable(text if len(text) <= 80 else text[:77] + "...", 80)


def _shown(value: Any) -> str:
    text = repr(value)
    return printable(text if len(text) <= 80 else text[:77] + "...", 80)


def program_mode(resolved: tuple[str, str]) -> tuple[str, str]:
    """The mode a program seat runs in: a program always has a process of its own, so a seat asked to run
    ``trusted`` (in the referee's process, which a program cannot) runs ``isolated``: its own process,
    rlimits, no sandbox -- what trusting it means for a program."""
    mode, level = resolved
    return (ISOLATED, "none") if mode == TRUSTED else (mode, level)
