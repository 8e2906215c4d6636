"""Run a tournament: play the schedule's missing matches, serially or on Ray, and store each as it ends.

By default play starts in the driver at once; a local Ray is started in the
background only for a run long enough to win back its start-up, and the driver
hands the rest of the schedule to it when it is up (``execution.Execution``); the loop that plays
and commits is ``player.MatchPlayer``, which the ladder uses too.  Work goes
out in batches of matches described by plain data (the config as
JSON, match ids and seeds: never live plugin objects); each worker process
loads the plugins itself and keeps them, with its zygote for isolated agents,
for every batch it plays.  Every match is committed as soon as it comes back
(``playing.PART_SECONDS``), whatever order the workers finish in, so a stopped
run loses only the matches being played, and ``resume`` plays exactly the
missing ones.  Order is kept where it is read: the store yields its rows by
schedule position, so fast matches bias nothing and the results are the same
serially or on Ray.  The unplayed matches of a Ray worker or node that dies go
to the other workers (``ray_pool``); the store's primary key guarantees that no
match is ever counted twice.

Before anything is played the driver checks every entry's options against
its agent's declaration and binds each entry's version and plugin files hash
to the store (a changed one refuses ``resume``).  Reporter plugins hear each
match on the driver, after it is committed, in the order the matches were asked
for: a match played again is committed once, so it is reported once.  An entry that fails to
start in its first ``max_startup_faults`` matches in a row stops the run.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.plugin_system.loading import DEFAULT_PLUGINS_DIR, PluginManager, Registry, load_registry
from arena.plugin_system.provenance import ProvenanceError, files_hash, source_root
from arena.seating.options import OptionError
from arena.tournament.cluster import ClusterError, probe
from arena.tournament.config import TournamentConfig
from arena.tournament.errors import TournamentError, TournamentRequestError
from arena.tournament.execution import RAY_WORTH_SECONDS
from arena.tournament.player import MatchPlayer, StartupWatch
from arena.tournament.playing import MAX_BATCH, batch_size, play_scheduled_match
from arena.tournament.schedule import Schedule
from arena.tournament.store import DEFAULT_LEADERBOARDS, Store, store_path

__all__ = [
    "MAX_BATCH",
    "RAY_WORTH_SECONDS",
    "Progress",
    "RunSummary",
    "StartupWatch",
    "TournamentError",
    "batch_size",
    "entry_versions",
    "play_scheduled_match",
    "run_tournament",
]


@dataclass(frozen=True, slots=True)
class Progress:
    """What the live display shows after each committed batch."""

    done: int  # matches stored, this run and earlier
    total: int  # matches in the schedule
    played_now: int  # matches played by this run
    faults: int  # faults recorded by this run
    leader: str | None  # the entry with the best mean rank so far (every stored match)


@dataclass(frozen=True, slots=True)
class RunSummary:
    """What a finished run did."""

    name: str  # tournament name
    total: int  # matches in the schedule
    played: int  # matches played by this run (the rest were already stored)
    seconds: float  # wall time of this run
    workers: int  # parallel workers used (1 = serial, no Ray)
    backend: str  # "serial" or "ray" (Ray played some or all of the matches)
    store: Path  # the results database
    in_driver: int = 0  # matches played in this process (all of them when serial; the head start on Ray)
    changed: Mapping[str, Sequence[str]] = field(default_factory=dict)  # a complete tournament's entries that
    # changed since their matches were stored (what changed): its leaderboard rates the stored versions


def run_tournament(
    config: TournamentConfig,
    *,
    leaderboards: Path | str = DEFAULT_LEADERBOARDS,
    plugins_dir: Path | str | None = DEFAULT_PLUGINS_DIR,
    workers: int | None = None,
    address: str | None = None,
    resume: bool = False,
    on_progress: Callable[[Progress], None] | None = None,
    plugins: PluginManager | None = None,
) -> RunSummary:
    """Play every match of ``config``'s schedule that the store lacks, and store it.

    ``workers=1`` without an ``address`` plays serially in this process.  By default
    (no ``workers``, no ``address``) play starts at once in this process, and a local
    Ray on all cores is started in the background only if the matches left would take
    ``RAY_WORTH_SECONDS`` or more; the rest of the schedule goes to it once it is up.
    An explicit ``workers`` above 1 plays everything on a local Ray of that many cores;
    an ``address`` (or ``RAY_ADDRESS``) or a Ray already running in this process, on it.
    Results are the same whichever way the matches are played.  ``plugins`` is the caller's loaded registry
    (``arena.plugins.load_registry`` of ``plugins_dir``), loaded here when not given.
    """
    started = time.perf_counter()
    schedule = config.schedule()
    total = schedule.match_count
    path = store_path(leaderboards, config.name)
    address = address or os.environ.get("RAY_ADDRESS") or None
    manager = plugins if plugins is not None else load_registry(plugins_dir=plugins_dir)
    versions = entry_versions(config, manager.registry)  # checks every entry's options first
    if address is not None:
        try:
            probe(address)  # before the store is touched: a dead or wrong address changes nothing
        except ClusterError as error:
            raise TournamentError(str(error)) from None
    with Store(path) as store:
        if not config.public_deals:  # deal and agent seeds keyed by the store's secret: no agent can compute them
            schedule = schedule.with_secret(store.secret)
        grown = store.bind(config.to_json(), schedule.design.to_json(), total, resume)
        if grown:
            _check_prefix(store, schedule)  # more blocks: only appended matches, or refuse
        done = store.done_indices()
        pending = total - len(done)
        changed = {} if pending else {name: changes for name, (_, changes) in store.changed_entries(versions).items()}
        if pending:
            store.bind_versions(versions)  # a changed entry refuses before anything is played (or stored)
        if grown:  # only once nothing refuses: a refused run leaves the store's config as it was
            store.extend(config.to_json(), schedule.design.to_json(), total)
        tracker = _Tracker(len(done), total, on_progress)
        watch = StartupWatch(config.max_startup_faults)
        for row in store.rows():  # the leader and the start-up streaks count every stored match
            tracker.count(row.agents, row.ranks)
            watch.seen([row.to_json()])
        tracker.report()
        # Matches stream from the schedule into batches and out to the store: memory stays flat.
        missing = (match for match in schedule.iter_matches() if match.index not in done)
        with MatchPlayer(config.to_json(), plugins_dir, versions, manager, store, watch, workers=workers,
                         address=address) as player:
            for rows in player.play(missing, pending, pending, total):
                tracker.add(rows)
    return RunSummary(
        name=config.name, total=total, played=pending, seconds=time.perf_counter() - started,
        workers=player.workers, backend=player.backend, store=path, in_driver=player.in_driver, changed=changed,
    )


def entry_versions(config: TournamentConfig, registry: Registry) -> dict[str, dict[str, str]]:
    """Each entry's agent, plugin, version and plugin files hash; ``TournamentError`` for an entry that cannot play.

    Checks that every entry's agent is installed, plays the game and accepts the entry's options (as the
    config loader does, for configs built in Python), before the store is touched.
    """
    versions = {}
    hashes: dict[str, str] = {}  # by plugin: several entries of one plugin read its files once
    for entry in config.agents:
        try:
            spec = registry.agent(entry.plugin)
            spec.options.check(entry.options, spec.name, config.game)
        except KeyError as error:
            raise TournamentError(f"entry {entry.name!r}: {error.args[0]}") from None
        except OptionError as error:
            raise TournamentError(f"entry {entry.name!r}: {error}") from None
        if not spec.plays(config.game):
            raise TournamentError(f"entry {entry.name!r}: agent {spec.name!r} does not play {config.game}")
        plugin = registry.agent_plugin.get(spec.name, "unknown")
        if plugin not in hashes:
            source = registry.sources.get(plugin)  # what this registry loads: the hash covers what runs
            try:
                hashes[plugin] = files_hash(source_root(source) if source else None)
            except ProvenanceError as error:
                raise TournamentError(f"entry {entry.name!r}: {error}") from None
        versions[entry.name] = {"agent": spec.name, "plugin": plugin, "version": spec.version,
                                "files": hashes[plugin]}
    return versions


def _check_prefix(store: Store, schedule: Schedule) -> None:
    """After adding blocks: every stored match must still be the same match (id and deal) at the same place.

    Stored rows and the schedule both come in schedule order, so they are walked side by side.
    """
    matches = schedule.iter_matches()
    for row in store.rows():
        match = next((match for match in matches if match.index >= row.idx), None)
        if match is None or (match.index, match.id, match.deal_seed) != (row.idx, row.id, row.deal_seed):
            raise TournamentRequestError(
                f"{store.path}: with the added blocks, stored match {row.id} is no longer at place {row.idx}; "
                "give the tournament a new name instead"
            )


class _Tracker:
    """Counts what this run stored and reports progress."""

    def __init__(self, done: int, total: int, on_progress: Callable[[Progress], None] | None) -> None:
        self.done = done
        self.total = total
        self.played = 0
        self.faults = 0
        self.rank_sum: dict[str, float] = {}
        self.games: dict[str, int] = {}
        self.on_progress = on_progress

    def add(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Count newly stored rows and report."""
        for row in rows:
            self.done += 1
            self.played += 1
            self.faults += len(row["faults"])
            self.count(row["agents"], row["ranks"])
        self.report()

    def count(self, agents: Sequence[str], ranks: Sequence[int]) -> None:
        """Add one stored match to the leader's tally."""
        for agent, rank in zip(agents, ranks):
            self.rank_sum[agent] = self.rank_sum.get(agent, 0.0) + rank
            self.games[agent] = self.games.get(agent, 0) + 1

    def report(self) -> None:
        if self.on_progress is None:
            return
        leader = min(self.games, key=lambda agent: (self.rank_sum[agent] / self.games[agent], agent), default=None)
        self.on_progress(Progress(self.done, self.total, self.played, self.faults, leader))


