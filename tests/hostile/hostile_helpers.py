"""Helpers for the hostile suite: play a Lorum match with attackers seated, read what an attacker reported, craft a
bytecode cache that Python takes for its source."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import marshal
import os
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest

from arena.agent import Agent
from arena.plugins import Registry
from arena.records.seeding import derive_seed
from arena.referee import AgentHost, Limits, MatchResult, SeatPlan, play_match
from arena.referee.confinement import sandbox_level
from arena.referee.sandboxed import ProcessSeat

HOSTILE = Path(__file__).resolve().parent / "plugins"

CACHES = ("timestamp", "checked-hash", "unchecked-hash")
"""The three kinds of bytecode cache header Python accepts (PEP 552): each passes for the source it was made for."""

LIMITS = Limits(move_seconds=2.0, bank_seconds=2.0, startup_seconds=10.0, memory_mb=256)
"""Generous time limits: an attack must fail because it is stopped, never because the machine is slow."""


def needs_sandbox() -> str:
    """The machine's sandbox level; skips the test (naming ``arena doctor``) where there is none."""
    level = sandbox_level()
    if level == "none":
        pytest.skip("this machine offers no sandbox for third-party agents: run 'arena doctor' to see what is missing")
    return level


def play(registry: Registry, host: AgentHost, names: Sequence[str], seed: int = 3,
         isolation: Sequence[str] | str = "auto", options: dict[int, dict[str, Any]] | None = None,
         limits: Limits = LIMITS) -> MatchResult:
    """One 4-player Lorum match with ``names`` seated in order."""
    modes = [isolation] * len(names) if isinstance(isolation, str) else list(isolation)
    game = registry.game("lorum")
    seats = [SeatPlan(name=name, spec=registry.agent(name), seed=derive_seed(seed, "agent", seat),
                      options=(options or {}).get(seat, {}), isolation=modes[seat])
             for seat, name in enumerate(names)]
    return play_match(game, game.info.resolve_options(len(names), {}), seed, seats,
                      substitute=registry.agent("random"), limits=limits, host=host)


def report_of(match: MatchResult, seat: int) -> dict[str, Any]:
    """What the attacker at ``seat`` reported; asserts that its fault is the match's only one."""
    faults = match.record["faults"]
    assert [fault["seat"] for fault in faults] == [seat], faults
    found = re.search(r"REPORT (\{.*\}) \(at ", faults[0]["message"])
    assert found is not None, faults[0]["message"]
    return json.loads(found.group(1))


def processes_named(name: str) -> list[int]:
    """Pids of live processes whose command name is ``name``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            comm = (entry / "comm").read_text().strip()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if comm == name and state != "Z":
            found.append(int(entry.name))
    return found


def craft_cache(source: Path, imposter: str, kind: str) -> None:
    """Write Python's cache of ``source`` holding ``imposter``'s code under a header that passes for ``source``."""
    data = source.read_bytes()
    if kind == "timestamp":
        stat = source.stat()
        header = bytes(4) + (int(stat.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little") + \
            (stat.st_size & 0xFFFFFFFF).to_bytes(4, "little")
    else:
        flags = 0b11 if kind == "checked-hash" else 0b01  # hash-based; 0b10 set: Python checks the hash
        header = flags.to_bytes(4, "little") + importlib.util.source_hash(data)
    code = compile(imposter, str(source), "exec")
    cache = Path(importlib.util.cache_from_source(str(source)))
    cache.parent.mkdir(exist_ok=True)
    cache.write_bytes(importlib.util.MAGIC_NUMBER + header + marshal.dumps(code))
    # The attack is real: Python's own loader takes the cache for the source.
    assert importlib.machinery.SourceFileLoader("probe", str(source)).get_code("probe") == code


class Victim(Agent):
    """Thinks for a while each turn and measures how much CPU the spinning seat got meanwhile."""

    spinners: ClassVar[list[ProcessSeat]] = []
    stolen: ClassVar[list[float]] = []

    def act(self, observation: Any) -> Any:
        before = sum(cpu_seconds(seat.pid) for seat in self.spinners if seat.pid)
        time.sleep(0.05)
        after = sum(cpu_seconds(seat.pid) for seat in self.spinners if seat.pid)
        Victim.stolen.append(after - before)
        return observation.legal[0]


def cpu_seconds(root: int) -> float:
    """CPU seconds used by process ``root`` and every descendant of it, from /proc."""
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            for task in Path(f"/proc/{pid}/task").iterdir():
                todo += [int(child) for child in (task / "children").read_text().split()]
        except (OSError, ValueError, IndexError):
            continue
    return total
