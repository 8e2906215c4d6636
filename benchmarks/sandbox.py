"""The sandbox's cost: a seat's start-up and teardown beside an isolated fork, then (``sandbox_match``) its cost
per decision, per notification and per match, with the breakdown of a sandboxed match.

Three ways of starting one seat's process and ending it, each driven from this
process (the referee) through a zygote process over a socket, as in a match:

* **isolated** (today's mode): the zygote forks a child that exits at once,
  and waits for it.
* **sandboxed, cgroups**: a confined zygote calls ``spawn_seat`` (new PID,
  network, IPC and UTS namespaces, a nested Landlock domain), the referee
  ``place``s it (makes its cgroups and moves it in), the seat's ``run()``
  returns at once, the zygote and the referee each ``reap`` it.
* **sandboxed, no cgroups** (the path without root): ``spawn_seat`` and
  ``reap`` only.

Each one seat alone and a match's 4 seats together.  Also ``confine``
itself, once per zygote.  Times are wall time seen from the referee (several
processes take part) and, for a match, CPU time (the zygote's, every seat
process's once reaped, the referee's own calls): on shared cores the wall time
also counts every wait for a busy core, five of them per seat (referee,
zygote, init, agent process, back), where the CPU time is what the machine
pays.  Medians over ``repeats`` rounds, the modes interleaved so that a busy
neighbour slows all of them.  The target is 15 ms per seat (start-up +
teardown) on 2 cores, so that a 1,000-match tournament of 4 seats pays under a
minute.

    .venv/bin/python benchmarks/sandbox.py            # default sizes
    .venv/bin/python benchmarks/sandbox.py --quick    # a few seats (smoke test)
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import socket
import tempfile
import time
from collections.abc import Callable, Sequence

if __package__ in (None, ""):
    import common  # type: ignore[import-not-found]  # run as a script: benchmarks/ is on sys.path
    import sandbox_match  # type: ignore[import-not-found]
else:
    from benchmarks import common, sandbox_match

from arena import sandbox

REPEATS = {"quick": 5, "default": 40, "full": 200}
"""Seats per mode."""

MATCH_SEATS = 4
"""Seats started together in the per-match rows."""

TARGET_MS = 15.0
"""Start-up plus teardown per seat, on 2 cores."""


def _cpu_seconds() -> float:
    """CPU time of this process and of its children it has waited for (each seat's whole tree, once reaped)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _plain_zygote(control: socket.socket) -> None:
    while (request := control.recv(16)).startswith(b"spawn"):
        cpu = _cpu_seconds()
        pids = []
        for _ in range(int(request[5:])):
            pid = os.fork()
            if pid == 0:
                os._exit(0)
            pids.append(pid)
        control.send(json.dumps([{"pid": pid} for pid in pids]).encode())
        control.recv(16)
        for pid in pids:
            os.waitpid(pid, 0)
        control.send(str(_cpu_seconds() - cpu).encode())


def _seat_zygote(control: socket.socket, policy: sandbox.Policy, temp_root: str, placed: bool) -> None:
    sandbox.confine(policy, temp_root=temp_root, require="none")
    while (request := control.recv(16)).startswith(b"spawn"):
        cpu = _cpu_seconds()
        boxes = [sandbox.spawn_seat(lambda: 0, policy, [], await_placement=placed) for _ in range(int(request[5:]))]
        control.send(json.dumps([box.to_json() for box in boxes]).encode())
        control.recv(16)
        for box in boxes:
            os.waitid(os.P_PID, box.pid, os.WEXITED | os.WNOWAIT)  # the seat ran and ended by itself
            sandbox.reap(box)
        control.send(str(_cpu_seconds() - cpu).encode())


def _start(zygote: Callable[[socket.socket], None], others: Sequence[socket.socket]) -> tuple[socket.socket, int]:
    """Fork a zygote running ``zygote(control)``; it closes ``others`` (other zygotes' sockets) so they see EOF."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    pid = os.fork()
    if pid == 0:
        for other in (ours, *others):
            other.close()
        try:
            zygote(theirs)
        finally:
            os._exit(0)
    theirs.close()
    return ours, pid


def _seat_round(control: socket.socket, zygote: int, policy: sandbox.Policy, temp_root: str,
                placed: bool, seats: int) -> tuple[float, float]:
    """Start-up plus teardown of ``seats`` seats started together (as a match's), per seat: wall time seen from
    the referee, and CPU time (the zygote, every seat process, and the referee's own part)."""
    started, referee_cpu = time.perf_counter(), time.process_time()
    control.send(b"spawn%d" % seats)
    replies = json.loads(control.recv(1 << 16))
    boxes = []
    if placed:  # each placed in turn, then all reaped
        boxes = [sandbox.place(sandbox.SeatBox.from_json(reply), policy, parent=zygote, temp_root=temp_root)
                 for reply in replies]
    control.send(b"reap")
    zygote_cpu = float(control.recv(64))
    for box in boxes:
        sandbox.reap(box)
    cpu = zygote_cpu + time.process_time() - referee_cpu
    return (time.perf_counter() - started) / seats, cpu / seats


def _confine_seconds(policy: sandbox.Policy, temp_root: str) -> float:
    """How long ``confine`` takes in a fresh child."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        started = time.perf_counter()
        sandbox.confine(policy, temp_root=temp_root, require="none")
        os.write(write, str(time.perf_counter() - started).encode())
        os._exit(0)
    os.close(write)
    seconds = float(os.read(read, 64))
    os.close(read)
    os.waitpid(pid, 0)
    return seconds


def measure(size: str) -> list[common.Row]:
    """Every row of this section at ``size`` ("quick", "default" or "full")."""
    capabilities = sandbox.probe()
    repeats = REPEATS[size]
    if capabilities.level == "none":
        return [common.Row("sandbox", "sandboxed seat", "not available", "",
                           "this machine offers no sandbox: run 'arena doctor'")]
    policy = sandbox.Policy(sandbox.default_read_paths(), memory_mb=256, label="bench")
    temp_root = tempfile.mkdtemp(prefix="arena-bench-sandbox-")
    modes: dict[str, tuple[socket.socket, int, bool | None]] = {}
    try:
        def sockets() -> list[socket.socket]:
            return [control for control, _pid, _placed in modes.values()]

        modes["isolated"] = (*_start(_plain_zygote, sockets()), None)
        if capabilities.memory_limit or capabilities.freezer:
            modes["cgroups"] = (*_start(lambda c: _seat_zygote(c, policy, temp_root, True), sockets()), True)
        modes["plain"] = (*_start(lambda c: _seat_zygote(c, policy, temp_root, False), sockets()), False)
        times: dict[str, list[float]] = {name: [] for name in modes}
        match_times: dict[str, list[float]] = {name: [] for name in modes}
        cpu_times: dict[str, list[float]] = {name: [] for name in modes}
        for _ in range(repeats):
            for name, (control, pid, placed) in modes.items():
                times[name].append(_seat_round(control, pid, policy, temp_root, bool(placed), 1)[0])
                wall, cpu = _seat_round(control, pid, policy, temp_root, bool(placed), MATCH_SEATS)
                match_times[name].append(wall)
                cpu_times[name].append(cpu)
        confine_times = [_confine_seconds(policy, temp_root) for _ in range(max(3, repeats // 4))]
    finally:
        for control, pid, _placed in modes.values():
            control.close()
            os.waitpid(pid, 0)
        shutil.rmtree(temp_root, ignore_errors=True)
    how = f"median of {repeats} rounds, modes interleaved; wall time; the referee drives a zygote over a socket"
    rows: list[common.Row] = []
    overheads = []
    for label, table, together in (("one seat alone", times, 1), (f"a match of {MATCH_SEATS} seats", match_times,
                                                                  MATCH_SEATS)):
        fork = common.median(table["isolated"])
        rows.append(common.Row("sandbox", f"isolated (today): fork + exit + wait, per seat, {label}", common.ms(fork),
                               "1×", how))
        for name, case in (("cgroups", "sandboxed with cgroups: spawn_seat + place + reap"),
                           ("plain", "sandboxed without cgroups (no root): spawn_seat + reap")):
            if name not in table:
                rows.append(common.Row("sandbox", f"{case}, per seat, {label}", "not available", "",
                                       "no usable cgroup: run 'arena doctor'"))
                continue
            seat = common.median(table[name])
            if together > 1:
                overheads.append(seat - fork)
            rows.append(common.Row("sandbox", f"{case}, per seat, {label}", common.ms(seat),
                                   f"{common.ratio(seat / fork)} isolated; "
                                   + common.target(seat * 1e3 <= TARGET_MS, f"≤ {TARGET_MS:g} ms"),
                                   f"{how}; level {capabilities.level}"))
    fork_cpu = common.median(cpu_times["isolated"])
    cpu_overheads = []
    for name in modes:
        cpu = common.median(cpu_times[name])
        if name != "isolated":
            cpu_overheads.append(cpu - fork_cpu)
        rows.append(common.Row("sandbox", f"CPU per seat, a match of {MATCH_SEATS} seats: {name}", common.ms(cpu),
                               f"{common.ratio(cpu / fork_cpu)} isolated"
                               + ("" if name == "isolated" else "; " + common.target(cpu * 1e3 <= TARGET_MS,
                                                                                     f"≤ {TARGET_MS:g} ms")),
                               "CPU time of the zygote, every seat process and the referee's calls: what the "
                               "cores pay, whatever the waits for a busy core (kernel workers not counted)"))
    for clock, overhead in (("wall", max(overheads)), ("CPU", max(cpu_overheads))):
        tournament = overhead * MATCH_SEATS * 1000
        rows.append(common.Row("sandbox", f"sandbox overhead of a 1,000-match, 4-seat tournament, {clock} time",
                               common.secs(tournament), common.target(tournament < 60, "< 1 minute"),
                               "4,000 seats x (slowest sandboxed mode - isolated), seats started a match at a time"
                               + ("; run serially, so every wait for a busy core counts" if clock == "wall" else "")))
    confine = common.median(confine_times)
    rows.append(common.Row("sandbox", "confine, once per zygote", common.ms(confine),
                           f"{common.ratio(confine / common.median(times['isolated']))} an isolated seat",
                           f"median of {len(confine_times)} fresh processes; namespaces, maps, Landlock"))
    return rows + sandbox_match.measure(size)


def main(argv: Sequence[str] | None = None) -> None:
    """Run this script's measurements at the size the command line asks for and print the table."""
    size = common.size_from_args(__doc__, argv)
    common.print_table("Sandbox", measure(size))


if __name__ == "__main__":
    main()
