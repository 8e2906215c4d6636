"""A process seat: the agent runs in its own process, forked by its plugin's zygote, reached only through JSON.

Two modes share this code: ``isolated`` (a plain forked process, rlimits) and
``sandboxed`` (a process tree in the sandbox of ``arena.sandbox``: its own
namespaces, Landlock, a cgroup).  Between its own turns a seat is frozen (the
cgroup freezer for a sandbox with a group, else SIGSTOP to its process group),
so its background threads and children cannot take CPU from the seat that is
thinking; it is thawed when asked to act and when told the result.

Events are batched and sent with the next request.  Past a limit the seat is
killed at once; a process that dies is a ``crash`` fault, or a ``memory``
fault if it ran out of memory.  Nothing a zygote replies is taken on trust: a
seat's pid must be a descendant of its zygote before the referee signals it.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import tempfile
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from arena.games.base import Action, Game, Observation
from arena.plugin_system.data import printable
from arena.plugin_system.origin import origin
from arena.referee import affinity, protocol, seat_log
from arena.referee.faults import (
    CRASH,
    EXCEPTION,
    ILLEGAL,
    MEMORY,
    NOTIFICATIONS,
    TIMEOUT,
    Fault,
    RefereeError,
    check_action,
)
from arena.referee.host import AgentHost, Zygote
from arena.referee.limits import Clock, Limits
from arena.referee.seats import LEVELS, SANDBOXED
from arena.referee.zygote import MEMORY_EXIT

if TYPE_CHECKING:
    from arena.referee.match import SeatPlan

LATE_READ_SECONDS = 0.05
"""How long the referee, arriving at a seat's start-up after its deadline, waits for a reply already sent."""

FINISH_SECONDS = 0.5
"""Longest wait for an agent to take the final result before its process is stopped."""


class ProcessSeat:
    """An agent in its own process (``isolated``) or sandboxed process tree (``sandboxed``)."""

    log_path: str | None = None  # where the referee reads the seat's log (arena.referee.seat_log), once it exists
    output = ""  # the kept end of that log, read just before the seat is killed
    core: int | None = None  # the core its match runs on (arena.referee.affinity), set before it is launched

    def __init__(self, plan: SeatPlan, game: Game, seat: int, players: int, limits: Limits, host: AgentHost,
                 mode: str, require: str) -> None:
        self.plan = plan
        self.game = game
        self.seat = seat
        self.players = players
        self.limits = limits
        self.clock = Clock(limits)
        self.host = host
        self.mode = mode
        self.require = require
        self.level = "none"
        self.zygote: Zygote | None = None
        self.sock: socket.socket | None = None
        self.pid: int | None = None
        self.box: Any = None  # arena.sandbox.SeatBox of a sandboxed seat
        self.launched = 0.0
        self.pending: list[Mapping[str, Any]] = []
        self.peak_memory_mb: float | None = None
        self.finishing = False
        self.listens = True
        self.failed: Fault | None = None  # a start-up failure that comes from the plugin's side
        self.forked: dict[str, Any] | None = None  # the zygote's reply to ``fork``, until ``place`` takes it
        self.acknowledgements: int | None = None  # read end of the init's pipe (``fork``), until ``place`` takes it

    def launch(self) -> None:
        """Ask the plugin's zygote for the seat (a fork: the agent builds in parallel with the other seats')."""
        self.prepare()
        self.fork()
        self.place()

    def prepare(self) -> None:
        """What must be done before any seat of the match is forked (a program's build); nothing here."""

    def fork(self) -> None:
        """The first half of ``launch``: the zygote forks the seat, which waits for ``place`` to start its agent.

        ``launch_all`` forks every seat of a match before it places any.
        """
        spec = self.plan.spec
        source = origin(spec)
        if source is None:
            raise RefereeError(f"agent {spec.name!r} cannot run {self.mode}: no plugin registers it (it was made in "
                               "this program); register it through a plugin or seat it with isolation='trusted'")
        request = {
            "op": "spawn", "agent": spec.name, "version": spec.version, "game": self.game.info.name,
            "seat": self.seat, "players": self.players, "seed": self.plan.seed, "options": dict(self.plan.options),
            "memory_mb": self.limits.memory_mb,
        }
        try:
            json.dumps(request)
        except (TypeError, ValueError):
            raise RefereeError(f"seat {self.seat} ({self.plan.name}): options {self.plan.options!r} are not JSON data, "
                               "so they cannot reach an agent in its own process") from None
        self.zygote = self.host.zygote(source, self.require)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        # Where the seat has no cgroup freezer its init stops it and says so on this pipe (a read, not a poll).
        self.acknowledgements, acknowledge = os.pipe2(os.O_CLOEXEC) if self.mode == SANDBOXED else (None, None)
        self.launched = time.monotonic()
        # Whatever goes wrong from here on comes from the plugin's side (its zygote ran its code): a start-up
        # fault of this seat, never a reason to stop the match or the tournament.
        try:
            try:
                self.zygote.start()
                if self.mode == SANDBOXED and LEVELS.index(self.zygote.level) < LEVELS.index(self.require):
                    raise RefereeError(f"the sandbox of plugin {source.name!r} reached level "
                                       f"{self.zygote.level!r}, not {self.require!r}; run 'arena doctor'")
                self.forked = self.zygote.spawn(request, theirs, acknowledge)
            finally:
                theirs.close()
                if acknowledge is not None:
                    os.close(acknowledge)
            self.sock = ours
        except RefereeError as error:
            self._launch_failed(error, ours)

    def place(self) -> None:
        """The second half of ``launch``: check the seat the zygote forked, place it in its groups, let it start."""
        reply, self.forked = self.forked, None
        if reply is None:  # the fork failed (a start-up fault), or the seat is placed already
            return
        try:
            self._adopt(reply)
        except RefereeError as error:
            self._launch_failed(error, None)

    def _launch_failed(self, error: RefereeError, ours: socket.socket | None) -> None:
        if "arena doctor" in str(error):
            if ours is not None:
                ours.close()
            raise error
        self.failed = Fault(CRASH, f"its process could not be started: {error}")
        self.close()
        if self.sock is None and ours is not None:
            ours.close()

    def _adopt(self, reply: dict[str, Any]) -> None:
        """Take the seat the zygote says it started, after checking that it is one of the zygote's own."""
        assert self.zygote is not None
        if "error" in reply:
            raise RefereeError(str(reply["error"])[:500])
        pid = reply.get("pid")
        if isinstance(pid, bool) or not isinstance(pid, int) or not _descends_from(pid, self.zygote.pid):
            raise RefereeError(f"the host of plugin {self.zygote.plugin.name!r} named process {pid!r}, which is "
                               "not one of its own")
        self.pid = pid
        root = self.zygote.temp_root if reply.get("box") is not None else tempfile.gettempdir()
        self.log_path = seat_log.locate(reply, self.zygote.pid, root)
        self.level = "none"
        if reply.get("box") is None:
            if self.mode == SANDBOXED:
                raise RefereeError(f"the host of plugin {self.zygote.plugin.name!r} started no sandbox")
            return
        from arena.sandbox import Policy, SandboxError, SeatBox, place

        policy = Policy(read_paths=(), memory_mb=self.limits.memory_mb, cpus=self.limits.cpus,
                        label=f"seat{self.seat}-{self.plan.spec.name}")
        try:
            box = SeatBox.from_json(reply["box"])
            if box.pid != pid:
                raise ValueError(f"its box names process {box.pid}, not {pid}")
            acknowledgements, self.acknowledgements = self.acknowledgements, None
            self.box = place(box, policy, parent=self.zygote.pid or 0, temp_root=self.zygote.temp_root or "/",
                             acknowledgements=acknowledgements, channel=self.sock)
        except (SandboxError, ValueError, TypeError) as error:
            raise RefereeError(f"the host of plugin {self.zygote.plugin.name!r} started a seat that cannot be "
                               f"placed: {error}") from None
        # The level the zygote said before it ran plugin code, or less if placing found less.
        self.level = min(self.zygote.level, self.box.level, key=LEVELS.index)

    def start(self) -> None:
        """Wait for the agent to be built, at most ``startup_seconds`` after the fork; then freeze it."""
        if self.failed is not None:
            raise self.failed
        # Seats are awaited in turn: when the seats before this one kept the referee past its deadline (one
        # that stalls to its own deadline, then is torn down), a reply it already sent still counts.
        deadline = max(self.launched + self.limits.startup_seconds, time.monotonic() + LATE_READ_SECONDS)
        reply = self._receive(deadline, startup=True)
        if "ready" not in reply:
            raise self._stop(self._reply_fault(reply, startup=True))
        self._started()

    def _started(self) -> None:
        """The seat said it is ready: freeze it until its turn, then move its stopped processes to the match's
        core (none of them can start another while the walk runs)."""
        if self.box is not None:
            from arena.sandbox import SandboxError, confirm

            try:
                confirm(self.box)
            except SandboxError as error:
                raise self._stop(Fault(CRASH, f"its process could not be started: {error}")) from None
        self._freeze()
        if self.pid is not None:
            affinity.pin_tree(self.pid, self.core)

    def act(self, observation: Observation) -> tuple[Action, float]:
        """Thaw, send the observation (and pending events), freeze again; the checked action and its seconds."""
        data = protocol.encode_act(self.pending, observation)
        self.pending = []
        reply, elapsed = self._ask(data)
        if "action" not in reply:
            raise self._stop(self._reply_fault(reply))
        try:
            return check_action(self.game, observation, _action_from_json(reply["action"])), elapsed
        except Fault as fault:
            raise self._stop(fault) from None

    def _ask(self, data: bytes) -> tuple[dict[str, Any], float]:
        """Thaw, send ``data``, wait for the reply within the move clock, freeze again; the reply and the seconds
        charged to the clock (a ``Fault`` stops the seat when the clock ran out)."""
        self._thaw()
        started = time.monotonic()
        allowance = self.clock.allowance()
        deadline = started + allowance
        self._send(data, deadline)
        reply = self._receive(deadline)
        elapsed = time.monotonic() - started
        self._freeze()
        if not self.clock.charge(elapsed):  # the reply beat the deadline by less than a clock tick
            raise self._stop(_timeout(elapsed, self.limits, allowance))
        return reply, elapsed

    def event(self, event: Mapping[str, Any]) -> None:
        """Queue a public event for the next request."""
        self.pending.append(event)

    def finish(self, result: Mapping[str, Any]) -> None:
        """Thaw and send the result (and pending events); ``collect`` waits for the agent to take it."""
        try:
            self._thaw()
            self._send(protocol.encode({"op": "result", "events": self.pending, "result": result}),
                       time.monotonic() + FINISH_SECONDS)
            self.finishing = True
        except Fault:
            pass
        self.pending = []

    def collect(self) -> None:
        """Give the agent a moment to process the result (its process is stopped by ``close_all``); a ``Fault``
        when its process reports that a notification raised."""
        if self.finishing and self.sock is not None:
            try:
                reply = protocol.receive(self.sock, time.monotonic() + min(FINISH_SECONDS, self.limits.move_seconds))
            except (protocol.ChannelClosed, protocol.ChannelTimeout, protocol.ProtocolError, OSError):
                return
            if isinstance(reply, dict) and "error" in reply:
                raise self._reply_fault(reply)

    def close(self) -> dict[str, Any]:
        """Kill the seat's processes and reap them; its exit status."""
        forked, self.forked = self.forked, None
        if forked is not None and self.zygote is not None and isinstance(forked.get("pid"), int):
            self.zygote.reap([forked["pid"]])  # forked, never placed: still the zygote's child, waiting to start
        if self.pid is None or self.zygote is None:
            self.closed({})
            return {}
        memory = _kill(self)
        status = dict(self.zygote.reap([self.pid])[self.pid])
        status.update({key: value for key, value in memory.items() if value is not None})
        self.closed(status)
        return status

    def closed(self, status: Mapping[str, Any]) -> None:
        """Note that the seat was reaped with ``status`` (see ``reap_all``) and drop the socket."""
        if self.acknowledgements is not None:  # never placed
            os.close(self.acknowledgements)
            self.acknowledgements = None
        self.pid = None
        self.box = None
        maxrss = status.get("maxrss_kb")
        if isinstance(maxrss, (int, float)) and not isinstance(maxrss, bool):
            self.peak_memory_mb = maxrss / 1024
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    # -- internals -------------------------------------------------------------------------------

    def _freeze(self) -> None:
        # A sandboxed seat: its group's freezer, or without one (no cgroups) its init stops every process of
        # its PID namespace; an isolated seat: SIGSTOP to its process group.
        if self.box is not None:
            from arena.sandbox import freeze

            freeze(self.box)
        elif self.pid is not None:
            _signal_group(self.pid, signal.SIGSTOP)

    def _thaw(self) -> None:
        if self.box is not None:
            from arena.sandbox import thaw

            thaw(self.box)
        elif self.pid is not None:
            _signal_group(self.pid, signal.SIGCONT)

    def _send(self, data: bytes, deadline: float) -> None:
        assert self.sock is not None
        try:
            protocol.send(self.sock, data, deadline)
        except protocol.ChannelTimeout:
            raise self._stop(Fault(TIMEOUT, "did not read its request in time")) from None
        except (protocol.ChannelClosed, OSError):
            raise self._died() from None

    def _receive(self, deadline: float, startup: bool = False) -> dict[str, Any]:
        assert self.sock is not None
        try:
            reply = protocol.receive(self.sock, deadline)
        except protocol.ChannelTimeout:
            if startup:
                raise self._stop(Fault(TIMEOUT, f"not ready after {self.limits.startup_seconds:g} s")) from None
            elapsed = time.monotonic() - (deadline - self.clock.allowance())
            raise self._stop(_timeout(elapsed, self.limits, self.clock.allowance())) from None
        except protocol.ProtocolError as error:
            raise self._stop(Fault(ILLEGAL, f"sent a malformed reply: {error}")) from None
        except (protocol.ChannelClosed, OSError):
            raise self._died() from None
        if not isinstance(reply, dict):
            raise self._stop(Fault(ILLEGAL, "sent a malformed reply"))
        return reply

    def _reply_fault(self, reply: dict[str, Any], startup: bool = False) -> Fault:
        """The fault a seat's error reply reports.

        The seat's process runs the agent's code, so its reply says what the agent chose: which of the three
        errors (its own seat's kind, nothing more) and all of the message.  The message follows the referee's
        words; the phase is the referee's, by the request the reply answers.  A failed load can only answer
        the start-up request (the seat loads its agent before it is ready), so answering a move with one is a
        malformed reply.
        """
        error = reply.get("error")
        # Written by the seat: shown by 'arena play' and kept in records, so no terminal escapes or controls.
        message = printable(str(reply.get("message", "")), 500)
        if error == "memory":
            return Fault(MEMORY, f"its process reported running out of memory (limit {self.limits.memory_mb} MB)")
        if error == "exception":
            call = reply.get("call")  # a notification that raised, named by the seat: its own fault either way
            return Fault(EXCEPTION, f"{call} raised {message}" if call in NOTIFICATIONS else f"raised {message}")
        if error == "load" and startup:  # the plugin's import failed in the seat's process, or registered no such agent
            return Fault(EXCEPTION, f"its process could not load the agent: {message}")
        if error == "malformed":
            return Fault(ILLEGAL, f"sent no action, its process reported: {message}")
        return Fault(ILLEGAL, "sent a malformed reply")

    def _died(self) -> Fault:
        """The process went away: a memory fault if it died of exhaustion under its limit, else a crash."""
        status = self.close()
        limit = self.limits.memory_mb
        if status.get("exit") == MEMORY_EXIT or status.get("memory_exceeded"):
            return Fault(MEMORY, f"ran out of memory (limit {limit} MB)")
        if "signal" in status:
            name = _signal_name(status["signal"])
            if limit and status["signal"] in (signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS):
                return Fault(MEMORY, f"the agent's process died of {name} under its {limit} MB memory limit")
            return Fault(CRASH, f"the agent's process was killed by {name}")
        code = status.get("exit")
        how = f" with status {code}" if code is not None else ""
        return Fault(CRASH, f"the agent's process exited{how}")

    def _stop(self, fault: Fault) -> Fault:
        self.close()
        return fault


def launch_all(seats: Sequence[ProcessSeat]) -> None:
    """Launch every seat: every preparation first, then every fork, then every placement.

    With cgroup v1, moving a process into a group waits for an RCU grace period, which moves made close
    together share: placed one by one between forks, each seat paid one (about 3 ms).
    """
    for seat in seats:  # a program's first build takes seconds: done before any seat's start-up clock runs
        seat.prepare()
    for seat in seats:
        seat.fork()
    for seat in seats:
        seat.place()


def reap_all(seats: Sequence[ProcessSeat]) -> None:
    """Kill every live seat at once, then reap them with one request per zygote (their teardowns overlap)."""
    live = [seat for seat in seats if seat.pid is not None and seat.zygote is not None]
    boxes = [seat.box for seat in live if seat.box is not None]
    if boxes:
        from arena.sandbox import kill

        for box in boxes:  # every sandboxed seat killed before any is waited for
            kill(box)
    memory = {id(seat): _kill(seat) for seat in live}
    by_zygote: dict[int, list[ProcessSeat]] = {}
    for seat in live:
        by_zygote.setdefault(id(seat.zygote), []).append(seat)
    for group in by_zygote.values():
        zygote = group[0].zygote
        assert zygote is not None
        statuses = zygote.reap([seat.pid for seat in group if seat.pid is not None])
        for seat in group:
            status = dict(statuses.get(seat.pid, {}))  # type: ignore[arg-type]
            status.update({key: value for key, value in memory[id(seat)].items() if value is not None})
            seat.closed(status)


def _kill(seat: ProcessSeat) -> dict[str, Any]:
    """Kill a seat at once, without waiting for the zygote: an isolated seat's process group by SIGKILL, a
    sandboxed seat's whole tree by ``arena.sandbox.reap`` (which also reports the tree's peak memory and
    whether it hit its limit, and removes its groups).

    The pid cannot have been reused: the zygote waits for its seats only when asked, after this.
    """
    seat.output = seat_log.keep(seat.log_path) or seat.output  # now: reaping removes the seat's folder
    if seat.box is not None:
        from arena.sandbox import SandboxError, reap

        try:
            report = reap(seat.box)
        except (SandboxError, OSError):
            return {}
        return {"maxrss_kb": report.get("maxrss_kb"), "memory_exceeded": report.get("memory_exceeded")}
    if seat.pid is not None:
        _signal_group(seat.pid, signal.SIGKILL)
    return {}


def _signal_group(pid: int, number: int) -> None:
    try:
        os.killpg(pid, number)
    except OSError:
        pass


def _descends_from(pid: int, ancestor: int | None, depth: int = 4) -> bool:
    """Whether process ``pid`` is ``ancestor`` 's child, grandchild... (at most ``depth`` generations)."""
    if ancestor is None or pid <= 1:
        return False
    current = pid
    for _ in range(depth):
        try:
            with open(f"/proc/{current}/stat") as stat:
                text = stat.read()
            current = int(text[text.rindex(")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            return False
        if current == ancestor:
            return True
    return False


def _action_from_json(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _timeout(elapsed: float, limits: Limits, allowance: float) -> Fault:
    """The fault of a decision that used up its ``allowance`` (the move time plus what the bank had left)."""
    seconds = max(elapsed, allowance)
    return Fault(TIMEOUT, f"no action after {seconds:.2f} s, all this decision had: "
                          f"{limits.describe_allowance(allowance)}; the process was killed", seconds)


def _signal_name(number: Any) -> str:
    try:
        return signal.Signals(number).name
    except (ValueError, TypeError):
        return f"signal {number}"
