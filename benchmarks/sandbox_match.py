"""What a third-party agent costs per decision, per notification and per match, beside the same agent in-process.

Part of the ``sandbox`` section (``python -m benchmarks --only sandbox``).  The
agents are ``trivial`` (``benchmarks/plugins/trivial.py``: the first legal
action, so what is measured is the seat, not the agent) and, when it is
installed, the example plugin's ``example``.  Each is seated in every mode this
machine offers: in-process (``trusted``), ``isolated``, ``sandboxed`` with its
cgroups, and ``sandboxed`` without them (the path of a machine where the arena
may not make groups: the seat is frozen by its own init with SIGSTOP).

* **Per decision**: one seat asked to act on the same Lorum observation, over
  and over (the referee's round trip, waking and freezing included); the
  comparison is the in-process seat of the same agent in the same run.
* **Per notification**: the same, with ``EVENTS`` public events queued before
  each decision; the cost per event is the difference over ``EVENTS``.
* **A match**: Lorum, 4 deals, four ``trivial`` seats, and its breakdown:
  every call of the referee into its process seats is timed (each part
  without the parts it calls), and what is left of the match's wall time is
  the referee's own work (the game, observations, the record).

Wall time, medians (a match: the mean of the parts over ``matches`` matches,
so that they add up).
"""

from __future__ import annotations

import collections
import contextlib
import functools
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    import common  # type: ignore[import-not-found]  # run as a script: benchmarks/ is on sys.path
else:
    from benchmarks import common

from arena.games.base import Game, Observation
from arena.plugins import Registry, load_registry
from arena.referee import AgentHost, Limits, SeatPlan, affinity, play_match, sandboxed
from arena.referee import host as host_module
from arena.referee import match as match_module
from arena.referee.seats import ISOLATED, SANDBOXED, TRUSTED, Seat, close_all
from arena.referee.trusted import TrustedSeat
from arena.sandbox import cgroups

PLUGINS = Path(__file__).resolve().parent / "plugins"
"""The folder of the ``trivial`` agent."""

SIZES = {"quick": (4, 200), "default": (20, 2000), "full": (60, 10000)}
"""Per size: matches per mode, decisions per seat."""

EVENTS = 8
"""Public events queued before each decision of the per-notification rows (about a trick's worth)."""

DECISION_TARGET_US = 100.0
"""A sandboxed seat's cost per decision and per notification over the agent's own time."""

MATCH_TARGET = 10.0
"""A match of four sandboxed trivial agents, over the same match in-process."""

LIMITS = Limits(move_seconds=5.0, bank_seconds=5.0, startup_seconds=30.0)
"""Generous: a busy machine must not turn a slow round trip into a fault."""

MODES: tuple[tuple[str, str, bool], ...] = (
    ("in-process", TRUSTED, True),
    ("isolated", ISOLATED, True),
    ("sandboxed, cgroups", SANDBOXED, True),
    ("sandboxed, no cgroups", SANDBOXED, False),
)
"""(label, isolation, whether the referee may make cgroups)."""

PARTS: tuple[tuple[str, str], ...] = (
    ("zygote", "seat start-up: the zygote forks the seat"),
    ("place", "seat start-up: the referee places it in its groups"),
    ("startup", "seat start-up: the agent is built (its process loads the plugin)"),
    ("decision", "decisions: request, agent, reply (waking and freezing apart)"),
    ("freeze", "waking and freezing between turns"),
    ("event", "notifications (queued; they ride with the next request)"),
    ("result", "the result: sent, and the agent's acknowledgement"),
    ("teardown", "teardown: killing and reaping the seats"),
)
"""The parts of a match's breakdown, in the order of a match."""

TIMED: tuple[tuple[Any, str, str], ...] = (
    (host_module.Zygote, "spawn", "zygote"),
    (sandboxed.ProcessSeat, "launch", "startup"),
    (sandboxed.ProcessSeat, "start", "startup"),
    (sandboxed.ProcessSeat, "act", "decision"),
    (sandboxed.ProcessSeat, "event", "event"),
    (sandboxed.ProcessSeat, "_freeze", "freeze"),
    (sandboxed.ProcessSeat, "_thaw", "freeze"),
    (sandboxed.ProcessSeat, "finish", "result"),
    (sandboxed.ProcessSeat, "collect", "result"),
    (match_module, "close_all", "teardown"),
)
"""What the breakdown times: (owner, attribute, part).  ``arena.sandbox.place`` is timed too ("place")."""


class Breakdown:
    """Exclusive wall time per part: a timed call's time without the timed calls it makes."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = collections.defaultdict(float)
        self.calls: collections.Counter[str] = collections.Counter()
        self._stack: list[float] = []  # per open call, the time its timed callees took

    def wrap(self, function: Callable[..., Any], part: str) -> Callable[..., Any]:
        """``function``, timed as ``part``."""

        @functools.wraps(function)
        def timed(*args: Any, **kwargs: Any) -> Any:
            self._stack.append(0.0)
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                elapsed = time.perf_counter() - started
                inner = self._stack.pop()
                self.seconds[part] += elapsed - inner
                self.calls[part] += 1
                if self._stack:
                    self._stack[-1] += elapsed

        return timed

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        """Time every call of ``TIMED`` (and the sandbox's ``place``) while the block runs."""
        import arena.sandbox

        targets = [*TIMED, (arena.sandbox, "place", "place")]
        originals = [(owner, name, getattr(owner, name)) for owner, name, _part in targets]
        try:
            for owner, name, part in targets:
                setattr(owner, name, self.wrap(getattr(owner, name), part))
            yield
        finally:
            for owner, name, original in originals:
                setattr(owner, name, original)


@contextlib.contextmanager
def cgroups_allowed(allowed: bool) -> Iterator[None]:
    """While the block runs, whether the referee finds a hierarchy to make seat groups in (as without root)."""
    if allowed:
        yield
        return
    found = cgroups.find
    cgroups.find = lambda: cgroups.Hierarchy("none", {})  # type: ignore[assignment]
    try:
        yield
    finally:
        cgroups.find = found


def _registry() -> Registry:
    return load_registry(plugins_dir=PLUGINS).registry


def _observation(game: Game) -> tuple[Observation, list[Any]]:
    """A mid-deal Lorum observation (a trick under way) and the public events of the deal so far."""
    state = game.new_state(7, game.info.resolve_options(4, {}))
    while len(state.events()) < 12 or state.observation(state.to_move()[0]).phase != "play":
        seat = state.to_move()[0]
        state.apply(seat, state.observation(seat).legal[0])
    return state.observation(state.to_move()[0]), list(state.events())


def _seat(registry: Registry, agent: str, mode: str, host: AgentHost, seat: int) -> Seat:
    game = registry.game("lorum")
    plan = SeatPlan(name=agent, spec=registry.agent(agent), seed=seat)
    if mode == TRUSTED:
        return TrustedSeat(plan, game, seat, 4, LIMITS)
    level = "full" if mode == SANDBOXED else "none"
    return sandboxed.ProcessSeat(plan, game, seat, 4, LIMITS, host, mode, level)


def seat_costs(registry: Registry, agent: str, mode: str, host: AgentHost, decisions: int) -> tuple[float, float]:
    """Median wall seconds of one decision of a seat of ``agent`` in ``mode``, and the cost of one queued event."""
    observation, events = _observation(registry.game("lorum"))
    batch = (events * EVENTS)[:EVENTS]
    seat = _seat(registry, agent, mode, host, observation.seat)
    bare: list[float] = []
    loaded: list[float] = []
    with affinity.one_core(mode != TRUSTED) as core:  # as play_match does
        if isinstance(seat, sandboxed.ProcessSeat):
            seat.core = core
        _decide(seat, observation, batch, decisions, bare, loaded)
    return common.median(bare), (common.median(loaded) - common.median(bare)) / EVENTS


def _decide(seat: Seat, observation: Observation, batch: list[Any], decisions: int, bare: list[float],
            loaded: list[float]) -> None:
    """Launch ``seat``, time ``decisions`` decisions without events into ``bare`` and with ``batch`` into ``loaded``."""
    try:
        seat.launch()
        seat.start()
        for _ in range(decisions):
            started = time.perf_counter()
            seat.act(observation)
            bare.append(time.perf_counter() - started)
            started = time.perf_counter()
            for event in batch:
                seat.event(event)
            seat.act(observation)
            loaded.append(time.perf_counter() - started)
    finally:
        close_all([seat])


def match_costs(registry: Registry, mode: str, host: AgentHost, matches: int) -> tuple[float, Breakdown]:
    """Mean wall seconds of a Lorum match of four ``trivial`` seats in ``mode``, and its breakdown (summed)."""
    game = registry.game("lorum")
    options = game.info.resolve_options(4, {})
    seats = [SeatPlan(name=f"trivial-{seat}", spec=registry.agent("trivial"), seed=seat, isolation=mode)
             for seat in range(4)]
    play_match(game, options, 0, seats, limits=LIMITS, host=host)  # the zygote starts: not a match's cost
    breakdown = Breakdown()
    with breakdown.installed():
        started = time.perf_counter()
        for seed in range(1, matches + 1):
            result = play_match(game, options, seed, seats, limits=LIMITS, host=host)
            assert not result.record["faults"], result.record["faults"]
        total = time.perf_counter() - started
    return total / matches, breakdown


def measure(size: str) -> list[common.Row]:
    """The per-decision, per-notification and per-match rows at ``size`` ("quick", "default" or "full")."""
    matches, decisions = SIZES[size]
    registry = _registry()
    agents = [name for name in ("trivial", "example") if name in registry.agents]
    rows: list[common.Row] = []
    match_seconds: dict[str, float] = {}
    breakdowns: dict[str, Breakdown] = {}
    per_decision: dict[tuple[str, str], tuple[float, float]] = {}
    with AgentHost() as host:
        for label, mode, allowed in MODES:
            with cgroups_allowed(allowed):
                for agent in agents:
                    per_decision[agent, label] = seat_costs(registry, agent, mode, host, decisions)
                match_seconds[label], breakdowns[label] = match_costs(registry, mode, host, matches)
    note = f"median of {decisions} decisions of one seat, the same observation; wall time"
    for agent in agents:
        base_decision, base_event = per_decision[agent, "in-process"]
        for label, _mode, _allowed in MODES:
            decision, event = per_decision[agent, label]
            over = (decision - base_decision) * 1e6
            rows.append(common.Row("sandbox", f"{agent} agent, {label}: per decision", common.us(decision),
                                   "" if label == "in-process" else
                                   f"+{over:,.0f} µs over in-process; "
                                   + common.target(over <= DECISION_TARGET_US, f"≤ +{DECISION_TARGET_US:g} µs"),
                                   note))
        for label, _mode, _allowed in MODES:
            decision, event = per_decision[agent, label]
            over = (event - base_event) * 1e6
            rows.append(common.Row("sandbox", f"{agent} agent, {label}: per notification", common.us(event),
                                   "" if label == "in-process" else
                                   f"+{over:,.1f} µs over in-process; "
                                   + common.target(over <= DECISION_TARGET_US, f"≤ +{DECISION_TARGET_US:g} µs"),
                                   f"{EVENTS} events queued before a decision, the difference over {EVENTS}"))
    base = match_seconds["in-process"]
    for label, _mode, _allowed in MODES:
        seconds = match_seconds[label]
        sandboxed_mode = label.startswith("sandboxed")
        rows.append(common.Row("sandbox", f"a Lorum match (4 deals) of 4 trivial agents, {label}", common.ms(seconds),
                               "" if label == "in-process" else f"{common.ratio(seconds / base)} in-process"
                               + ("; " + common.target(seconds <= MATCH_TARGET * base, f"≤ {MATCH_TARGET:g}×")
                                  if sandboxed_mode else ""),
                               f"mean of {matches} matches, wall time; "
                               f"{3600 / seconds:,.0f} matches per hour on one core"))
    for label in ("sandboxed, cgroups", "sandboxed, no cgroups"):
        breakdown, total = breakdowns[label], match_seconds[label]
        parts = {part: breakdown.seconds[part] / matches for part, _text in PARTS}
        for part, text in PARTS:
            calls = breakdown.calls[part] / matches
            each = f"{calls:,.0f} calls, {common.us(parts[part] / calls)} each" if calls else "not called"
            rows.append(common.Row("sandbox", f"breakdown, {label}: {text}", common.ms(parts[part]),
                                   f"{parts[part] / total:.0%} of the match", f"per match; {each}"))
        own = total - sum(parts.values())
        rows.append(common.Row("sandbox", f"breakdown, {label}: the referee's own work (game, record)",
                               common.ms(own), f"{own / total:.0%} of the match",
                               f"per match: the match's time less every part above (in-process match: "
                               f"{common.ms(base)})"))
    return rows


def main() -> None:
    """Run this script's measurements at the size the command line asks for and print the table."""
    size = common.size_from_args(__doc__, None)
    common.print_table("Sandboxed seats", measure(size))


if __name__ == "__main__":
    main()
