"""How the referee talks to one seat's agent: in its own process (trusted) or through a socket (isolated).

Both kinds of seat offer the same calls, each raising ``Fault`` when the agent
misbehaves: ``start()`` (build the agent), ``act(observation)`` (one decision,
checked for legality), ``event(e)`` (a public event), ``finish(result)`` and
``close()``.  After a fault the referee stops using the seat.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.agent import Agent
from arena.games.base import Action, Game, Observation
from arena.referee import protocol
from arena.referee.faults import (
    CRASH,
    EXCEPTION,
    ILLEGAL,
    MEMORY,
    TIMEOUT,
    Fault,
    RefereeError,
    check_action,
    describe_exception,
)
from arena.referee.host import AgentHost
from arena.referee.limits import Clock, Limits
from arena.referee.zygote import MEMORY_EXIT, factory_id

if TYPE_CHECKING:
    from arena.referee.match import SeatPlan

TRUSTED, ISOLATED, AUTO = "trusted", "isolated", "auto"
ISOLATION_MODES: tuple[str, ...] = (AUTO, TRUSTED, ISOLATED)
"""``auto``: trusted agents (``AgentSpec.trusted``) and arena's own code in-process, every other agent isolated."""

FINISH_SECONDS = 0.5
"""Longest wait for an isolated agent to take the final result before its process is stopped."""


class TrustedSeat:
    """An agent in the referee's process: fast, but it cannot be pre-empted or memory-limited.

    A decision over the time limit is a ``timeout`` fault after the fact (its
    action is discarded).  Per decision the overhead is one ``perf_counter``
    pair and the legality check.
    """

    mode = TRUSTED

    def __init__(self, plan: SeatPlan, game: Game, seat: int, players: int, limits: Limits) -> None:
        self.plan = plan
        self.game = game
        self.seat = seat
        self.players = players
        self.limits = limits
        self.clock = Clock(limits)
        self.agent: Agent | None = None
        self.timed = True
        self.peak_memory_mb: float | None = None

    def launch(self) -> None:
        """Nothing to do ahead of ``start`` for an in-process agent."""

    def start(self) -> None:
        """Build the agent; a factory that raises or takes longer than ``startup_seconds`` is a fault."""
        started = time.perf_counter()
        try:
            self.agent = self.plan.spec.factory(seat=self.seat, game=self.game.info, players=self.players,
                                                seed=self.plan.seed, options=self.plan.options)
        except MemoryError:
            raise Fault(MEMORY, "start-up: MemoryError") from None
        except Exception as error:
            raise Fault(EXCEPTION, f"start-up: {describe_exception(error)}") from None
        elapsed = time.perf_counter() - started
        # A person at the terminal is never timed (arena play --human).
        self.timed = not _is_person(self.agent)
        if self.timed and elapsed > self.limits.startup_seconds:
            raise Fault(TIMEOUT, f"start-up took {elapsed:.2f} s, over the {self.limits.startup_seconds:g} s limit")

    def act(self, observation: Observation) -> tuple[Action, float]:
        """One decision and the seconds it took."""
        agent = self.agent
        assert agent is not None
        started = time.perf_counter()
        try:
            action = agent.act(observation)
        except MemoryError:
            raise Fault(MEMORY, "MemoryError", time.perf_counter() - started) from None
        except Exception as error:
            raise Fault(EXCEPTION, describe_exception(error), time.perf_counter() - started) from None
        elapsed = time.perf_counter() - started
        allowance = self.clock.allowance()
        if self.timed and not self.clock.charge(elapsed):
            # Trusted agents cannot be pre-empted: the late action is discarded, not played.
            raise Fault(TIMEOUT, f"took {elapsed:.2f} s, more than all this decision had: "
                                 f"{self.limits.describe_allowance(allowance)}; the late action was discarded", elapsed)
        return check_action(self.game, observation, action), elapsed

    def event(self, event: Mapping[str, Any]) -> None:
        """Tell the agent a public event; a failing notification is ignored."""
        try:
            self.agent.on_event(event)  # type: ignore[union-attr]
        except Exception:
            pass

    def finish(self, result: Mapping[str, Any]) -> None:
        """Tell the agent the result; a failing notification is ignored."""
        try:
            self.agent.on_result(result)  # type: ignore[union-attr]
        except Exception:
            pass

    def collect(self) -> None:
        """Nothing to wait for."""

    def close(self) -> None:
        """Drop the agent."""
        self.agent = None


class IsolatedSeat:
    """An agent in its own process, forked by the zygote, reached only through JSON over a socket.

    Events are batched and sent with the next request.  Past a limit the
    process (group) is killed with SIGKILL at once; a process that dies is a
    ``crash`` fault, or a ``memory`` fault if it ran out of memory.
    """

    mode = ISOLATED

    def __init__(self, plan: SeatPlan, game: Game, seat: int, players: int, limits: Limits, host: AgentHost,
                 plugins_dir: Path | None) -> None:
        self.plan = plan
        self.game = game
        self.seat = seat
        self.players = players
        self.limits = limits
        self.clock = Clock(limits)
        self.host = host
        self.plugins_dir = plugins_dir
        self.sock: socket.socket | None = None
        self.pid: int | None = None
        self.launched = 0.0
        self.pending: list[Mapping[str, Any]] = []
        self.peak_memory_mb: float | None = None
        self.finishing = False

    def launch(self) -> None:
        """Ask the zygote for a process (a fork: the agent builds in parallel with the other seats')."""
        spec = self.plan.spec
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        request = {
            "op": "spawn", "agent": spec.name, "version": spec.version, "factory": factory_id(spec.factory),
            "plugins_dir": str(self.plugins_dir) if self.plugins_dir is not None else None,
            "game": self.game.info.name, "seat": self.seat, "players": self.players, "seed": self.plan.seed,
            "options": dict(self.plan.options), "memory_mb": self.limits.memory_mb,
        }
        try:
            json.dumps(request)
        except (TypeError, ValueError):
            ours.close()
            theirs.close()
            raise RefereeError(f"seat {self.seat} ({self.plan.name}): options {self.plan.options!r} are not JSON data, "
                               "so they cannot reach an isolated agent") from None
        self.launched = time.monotonic()
        try:
            reply = self.host.spawn(request, theirs)
        finally:
            theirs.close()
        if "error" in reply:
            ours.close()
            raise RefereeError(reply["error"])
        self.sock = ours
        self.pid = reply["pid"]

    def start(self) -> None:
        """Wait for the agent to be built, at most ``startup_seconds`` after the fork."""
        reply = self._receive(self.launched + self.limits.startup_seconds, "start-up")
        if "ready" not in reply:
            raise self._stop(self._reply_fault(reply, "start-up: "))

    def act(self, observation: Observation) -> tuple[Action, float]:
        """Send the observation (and pending events); the checked action and the seconds it took."""
        data = protocol.encode_act(self.pending, observation)
        self.pending = []
        started = time.monotonic()
        allowance = self.clock.allowance()
        deadline = started + allowance
        self._send(data, deadline)
        reply = self._receive(deadline, "")
        elapsed = time.monotonic() - started
        if not self.clock.charge(elapsed):  # the reply beat the deadline by less than a clock tick
            raise self._stop(_timeout(elapsed, self.limits, allowance))
        if "action" not in reply:
            raise self._stop(self._reply_fault(reply, ""))
        try:
            return check_action(self.game, observation, _action_from_json(reply["action"])), elapsed
        except Fault as fault:
            raise self._stop(fault) from None

    def event(self, event: Mapping[str, Any]) -> None:
        """Queue a public event for the next request."""
        self.pending.append(event)

    def finish(self, result: Mapping[str, Any]) -> None:
        """Send the result (and pending events); ``collect`` waits for the agent to take it."""
        try:
            self._send(protocol.encode({"op": "result", "events": self.pending, "result": result}),
                       time.monotonic() + FINISH_SECONDS)
            self.finishing = True
        except Fault:
            pass
        self.pending = []

    def collect(self) -> None:
        """Give the agent a moment to process the result (its process is stopped by ``close_all``)."""
        if self.finishing and self.sock is not None:
            try:
                protocol.receive(self.sock, time.monotonic() + min(FINISH_SECONDS, self.limits.move_seconds))
            except (protocol.ChannelClosed, protocol.ChannelTimeout, protocol.ProtocolError, OSError):
                pass

    def close(self) -> dict[str, Any]:
        """Stop the process (SIGKILL) and reap it; its exit status."""
        if self.pid is None:
            self.closed({})
            return {}
        _kill(self.pid)
        status = self.host.reap([self.pid])[self.pid]
        self.closed(status)
        return status

    def closed(self, status: Mapping[str, Any]) -> None:
        """Note that the process was reaped with ``status`` (see ``close_all``) and drop the socket."""
        self.pid = None
        maxrss = status.get("maxrss_kb")
        if maxrss is not None:
            self.peak_memory_mb = maxrss / 1024
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    # -- internals -------------------------------------------------------------------------------

    def _send(self, data: bytes, deadline: float) -> None:
        assert self.sock is not None
        try:
            protocol.send(self.sock, data, deadline)
        except protocol.ChannelTimeout:
            raise self._stop(Fault(TIMEOUT, "did not read its request in time")) from None
        except (protocol.ChannelClosed, OSError):
            raise self._died("") from None

    def _receive(self, deadline: float, context: str) -> dict[str, Any]:
        assert self.sock is not None
        prefix = f"{context}: " if context else ""
        try:
            reply = protocol.receive(self.sock, deadline)
        except protocol.ChannelTimeout:
            if context:
                message = f"{prefix}not ready after {self.limits.startup_seconds:g} s"
                raise self._stop(Fault(TIMEOUT, message)) from None
            elapsed = time.monotonic() - (deadline - self.clock.allowance())
            raise self._stop(_timeout(elapsed, self.limits, self.clock.allowance())) from None
        except protocol.ProtocolError as error:
            raise self._stop(Fault(ILLEGAL, f"{prefix}sent a malformed reply: {error}")) from None
        except (protocol.ChannelClosed, OSError):
            raise self._died(prefix) from None
        if not isinstance(reply, dict):
            raise self._stop(Fault(ILLEGAL, f"{prefix}sent a malformed reply"))
        return reply

    def _reply_fault(self, reply: dict[str, Any], prefix: str) -> Fault:
        error = reply.get("error")
        message = str(reply.get("message", ""))[:500]
        if error == "memory":
            return Fault(MEMORY, f"{prefix}{message} (limit {self.limits.memory_mb} MB)")
        if error == "exception":
            return Fault(EXCEPTION, prefix + message)
        if error == "malformed":
            return Fault(ILLEGAL, prefix + message)
        return Fault(ILLEGAL, f"{prefix}sent a malformed reply")

    def _died(self, prefix: str) -> Fault:
        """The process went away: a memory fault if it died of exhaustion under its limit, else a crash."""
        status = self.close()
        limit = self.limits.memory_mb
        if status.get("exit") == MEMORY_EXIT:
            return Fault(MEMORY, f"{prefix}ran out of memory (limit {limit} MB)")
        if "signal" in status:
            name = _signal_name(status["signal"])
            if limit and status["signal"] in (signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS):
                return Fault(MEMORY, f"{prefix}the agent's process died of {name} under its {limit} MB memory limit")
            return Fault(CRASH, f"{prefix}the agent's process was killed by {name}")
        code = status.get("exit")
        how = f" with status {code}" if code is not None else ""
        return Fault(CRASH, f"{prefix}the agent's process exited{how}")

    def _stop(self, fault: Fault) -> Fault:
        self.close()
        return fault


def close_all(runners: list[TrustedSeat | IsolatedSeat]) -> None:
    """Stop every seat; the isolated ones' processes are killed and reaped in one request to the zygote."""
    isolated = [runner for runner in runners if isinstance(runner, IsolatedSeat) and runner.pid is not None]
    by_host: dict[int, list[IsolatedSeat]] = {}
    for runner in isolated:
        by_host.setdefault(id(runner.host), []).append(runner)
    for runner in isolated:
        _kill(runner.pid)  # type: ignore[arg-type]
    for group in by_host.values():
        statuses = group[0].host.reap([runner.pid for runner in group if runner.pid is not None])
        for runner in group:
            runner.closed(statuses.get(runner.pid, {}))  # type: ignore[arg-type]
    for runner in runners:
        runner.close()


def _kill(pid: int) -> None:
    """SIGKILL an agent's process group at once, without waiting for the zygote to do it.

    The pid cannot have been reused: the zygote reaps its children only when asked, after this.
    """
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


def _action_from_json(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _timeout(elapsed: float, limits: Limits, allowance: float) -> Fault:
    """The fault of an isolated decision that used up its ``allowance`` (the move time plus what the bank had left)."""
    seconds = max(elapsed, allowance)
    return Fault(TIMEOUT, f"no action after {seconds:.2f} s, all this decision had: "
                          f"{limits.describe_allowance(allowance)}; the process was killed", seconds)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _is_person(agent: Agent) -> bool:
    human = sys.modules.get("arena.human")
    return human is not None and isinstance(agent, human.HumanAgent)


def plugin_folder(factory: Any) -> Path | None:
    """The plugins folder a drop-in plugin's agent factory was loaded from, or None.

    Drop-in plugins import as ``arena_plugins.<name>``; telling the zygote the
    folder lets it load the same plugin even when the referee was given a
    ``--plugins-dir`` other than the host's.
    """
    module_name = getattr(getattr(factory, "func", factory), "__module__", None) or ""
    parts = module_name.split(".")
    if len(parts) < 2 or parts[0] != "arena_plugins":
        return None
    module = sys.modules.get(f"arena_plugins.{parts[1]}")
    filename = getattr(module, "__file__", None)
    if not filename:
        return None
    path = Path(filename).resolve()
    return path.parent.parent if path.name == "__init__.py" else path.parent


def is_arena_code(factory: Any) -> bool:
    """Whether ``factory`` is part of arena itself (e.g. the terminal player), not of a plugin."""
    module_name = getattr(getattr(factory, "func", factory), "__module__", None) or ""
    return module_name == "arena" or module_name.startswith("arena.")


def resolve_mode(requested: str, trusted: bool, factory: Any) -> str:
    """``trusted`` or ``isolated`` for a seat: ``auto`` trusts first-party agents and arena's own code."""
    if requested not in ISOLATION_MODES:
        raise RefereeError(f"isolation {requested!r} must be one of {', '.join(ISOLATION_MODES)}")
    if requested != AUTO:
        return requested
    return TRUSTED if trusted or is_arena_code(factory) else ISOLATED

