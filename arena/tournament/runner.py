"""Run a tournament: play the schedule's missing matches, serially or on Ray, and store them in order.

By default play starts in the driver at once; a local Ray is started in the
background only for a run long enough to win back its start-up, and the driver
hands the rest of the schedule to it when it is up (``_Execution``).  Work goes
out in batches of matches described by plain data (the config as
JSON, match ids and seeds: never live plugin objects); each worker process
loads the plugins itself and keeps them, with its zygote for isolated agents,
for every batch it plays.  Finished batches are committed in schedule order,
not completion order, so fast matches bias nothing and an interrupted run
leaves a prefix-consistent store that ``resume`` completes.  Ray retries the
batch of a worker or node that dies; the store's primary key guarantees that
no match is ever counted twice.

Before anything is played the driver checks every entry's options against
its agent's declaration and binds each entry's version and plugin files hash
to the store (a changed one refuses ``resume``).  Reporter plugins hear each
match on the driver, after it is committed, in schedule order: a retried
batch is committed once, so it is reported once.  An entry that fails to
start in its first ``max_startup_faults`` matches in a row stops the run.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import sys
import threading
import time
import traceback
import zlib
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, TextIO

from arena.options import OptionError
from arena.plugins import DEFAULT_PLUGINS_DIR, PluginManager, Registry, load_registry
from arena.provenance import files_hash, plugin_source
from arena.referee import AgentHost, Limits, RefereeError, SeatPlan, play_match
from arena.tournament.cluster import ClusterError, connection_problem, probe
from arena.tournament.config import TournamentConfig
from arena.tournament.ray_output import RAY_LOG, RAY_THREAD_PREFIX, all_output_to, ray_output_to
from arena.tournament.schedule import Match, Schedule
from arena.tournament.store import DEFAULT_LEADERBOARDS, Store, pack_record, store_path

MAX_BATCH = 32
"""Most matches in one batch: enough to make Ray's cost per task small next to the matches."""

BATCHES_PER_WORKER = 2
"""Batch size is what is left to play over this many batches per worker (at most ``MAX_BATCH``): batches
shrink towards the end of a run, so that the workers finish together instead of one waiting on the
other's last big batch."""

RAY_TASK_RETRIES = 3
"""How often Ray re-runs the batch of a worker or node that died."""

RAY_WORTH_SECONDS = 30.0
"""By default a local Ray is started only when the matches left would take at least this long in the
driver.  Starting Ray and its workers takes 5-15 s of wall time on a 2-core machine and slows the driver
meanwhile (Ray's processes start on the same cores).  Measured on shared cores, 13-19 s runs that
started Ray (at a threshold of 15 s) took 5-8 s longer than serial play; on idle cores a run of about
twice Ray's start-up should gain, by the start-up time and the parallel efficiency that
benchmarks/tournament.py measures (an estimate, not a measurement)."""


class TournamentError(Exception):
    """A tournament that cannot run (bad agent at run time, Ray unreachable...); one-line message."""


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


def run_tournament(
    config: TournamentConfig,
    *,
    leaderboards: Path | str = DEFAULT_LEADERBOARDS,
    plugins_dir: Path | str | None = DEFAULT_PLUGINS_DIR,
    workers: int | None = None,
    address: str | None = None,
    resume: bool = False,
    on_progress: Callable[[Progress], None] | None = None,
) -> RunSummary:
    """Play every match of ``config``'s schedule that the store lacks, and store it.

    ``workers=1`` without an ``address`` plays serially in this process.  By default
    (no ``workers``, no ``address``) play starts at once in this process, and a local
    Ray on all cores is started in the background only if the matches left would take
    ``RAY_WORTH_SECONDS`` or more; the rest of the schedule goes to it once it is up.
    An explicit ``workers`` above 1 plays everything on a local Ray of that many cores;
    an ``address`` (or ``RAY_ADDRESS``) or a Ray already running in this process, on it.
    Results are the same whichever way the matches are played.
    """
    started = time.perf_counter()
    schedule = config.schedule()
    total = schedule.match_count
    path = store_path(leaderboards, config.name)
    plugins = None if plugins_dir is None else str(Path(plugins_dir).resolve())
    address = address or os.environ.get("RAY_ADDRESS") or None
    manager = load_registry(plugins_dir=plugins_dir)
    versions = entry_versions(config, manager.registry, plugins_dir)  # checks every entry's options first
    if address is not None:
        try:
            probe(address)  # before the store is touched: a dead or wrong address changes nothing
        except ClusterError as error:
            raise TournamentError(str(error)) from None
    serial = address is None and workers == 1
    with Store(path) as store:
        if not config.public_deals:  # deal and agent seeds keyed by the store's secret: no agent can compute them
            schedule = schedule.with_secret(store.secret)
        if store.bind(config.to_json(), schedule.design.to_json(), total, resume):
            _check_prefix(store, schedule)  # more blocks: only appended matches, or refuse
            store.extend(config.to_json(), schedule.design.to_json(), total)
        done = store.done_indices()
        pending = total - len(done)
        if pending:
            store.bind_versions(versions)  # a changed entry refuses before anything is played
        serial = serial or not pending  # nothing to play: no need to start Ray
        tracker = _Tracker(len(done), total, on_progress)
        watch = StartupWatch(config.max_startup_faults)
        for row in store.rows():  # the leader and the start-up streaks count every stored match
            tracker.count(row.agents, row.ranks)
            watch.first_failure([row.to_json()])
        tracker.report()
        context = {"config": config.to_json(), "plugins_dir": plugins}
        parallel = 1 if serial else (workers or os.cpu_count() or 1)
        # Matches stream from the schedule into batches and out to the store: memory stays flat.
        batches = _batches((match for match in schedule.iter_matches() if match.index not in done), pending, parallel)
        with _Execution(serial, workers, address, path.parent / RAY_LOG) as execution:
            for rows in execution.play(context, batches, pending):
                _check_worker_versions(rows, versions)
                failure = watch.first_failure(rows)
                if failure is not None:
                    store.add(rows[:failure.position])  # the store stays a prefix of the schedule
                    raise TournamentError(failure.message(store.count(), total))
                store.add(rows)
                tracker.add(rows)
                _report(manager, rows)
    return RunSummary(
        name=config.name, total=total, played=pending, seconds=time.perf_counter() - started,
        workers=execution.cpus, backend=execution.backend, store=path, in_driver=execution.in_driver,
    )


def entry_versions(config: TournamentConfig, registry: Registry, plugins_dir: Path | str | None
                   ) -> dict[str, dict[str, str]]:
    """Each entry's agent, plugin, version and plugin files hash; ``TournamentError`` for an entry that cannot play.

    Checks that every entry's agent is installed, plays the game and accepts the entry's options (as the
    config loader does, for configs built in Python), before the store is touched.
    """
    versions = {}
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
        versions[entry.name] = {"agent": spec.name, "plugin": plugin, "version": spec.version,
                                "files": files_hash(plugin_source(plugin, plugins_dir))}
    return versions


def _check_worker_versions(rows: Sequence[Mapping[str, Any]], versions: Mapping[str, Mapping[str, str]]) -> None:
    """Refuse results played with another version of an entry's agent than the driver's (a node with an
    older plugin installed), before they are stored under the driver's version."""
    for row in rows:
        for entry, version in zip(row["agents"], row["versions"]):
            expected = versions[entry]["version"]
            if version != expected:
                raise TournamentError(
                    f"match {row['id']}: a worker played entry {entry!r} with {versions[entry]['agent']} {version}, "
                    f"but this machine has {expected}; install the same plugin version on every node "
                    "(docs/cluster.md), then run again with --resume"
                )


def _report(manager: PluginManager, rows: Sequence[Mapping[str, Any]]) -> None:
    """Tell the reporter plugins about committed matches, in order (records unpacked only if someone listens)."""
    if not manager.pm.hook.arena_match_finished.get_hookimpls():
        return
    for row in rows:
        manager.match_finished(json.loads(zlib.decompress(row["record"])))


@dataclass(frozen=True, slots=True)
class StartupFailure:
    """An entry that failed to start in each of its first matches."""

    entry: str  # the entry name
    matches: int  # how many first matches in a row it failed to start in
    cause: str  # the last start-up fault's message
    position: int  # index in the batch of the match that reached the limit

    def message(self, stored: int, total: int) -> str:
        """The one line the run stops with."""
        return (f"entry {self.entry!r} failed to start in its first {self.matches} matches "
                f"({' '.join(self.cause.split())[:200]}); the run stopped with {stored} of {total} matches stored "
                "and nothing after them: fix the agent (try 'arena check-agent'), then run again with --resume")


class StartupWatch:
    """Counts each entry's start-up faults in a row from its first match, until it once starts cleanly."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.streak: dict[str, int] = {}
        self.started: set[str] = set()

    def first_failure(self, rows: Sequence[Mapping[str, Any]]) -> StartupFailure | None:
        """Feed committed-to-be rows in order; the first one at which an entry reaches the limit, if any."""
        for position, row in enumerate(rows):
            causes = {fault["seat"]: fault["message"] for fault in row["faults"]
                      if str(fault["message"]).startswith("start-up")}
            for seat, entry in enumerate(row["agents"]):
                if entry in self.started:
                    continue
                if seat not in causes:
                    self.started.add(entry)
                    continue
                self.streak[entry] = self.streak.get(entry, 0) + 1
                if self.streak[entry] >= self.limit:
                    return StartupFailure(entry, self.streak[entry], causes[seat], position)
        return None


def _check_prefix(store: Store, schedule: Schedule) -> None:
    """After adding blocks: every stored match must still be the same match (id and deal) at the same place.

    Stored rows and the schedule both come in schedule order, so they are walked side by side.
    """
    matches = schedule.iter_matches()
    for row in store.rows():
        match = next((match for match in matches if match.index >= row.idx), None)
        if match is None or (match.index, match.id, match.deal_seed) != (row.idx, row.id, row.deal_seed):
            raise TournamentError(
                f"{store.path}: with the added blocks, stored match {row.id} is no longer at place {row.idx}; "
                "give the tournament a new name instead"
            )


def batch_size(remaining: int, workers: int) -> int:
    """Matches in the next batch when ``remaining`` are left: a share of what is left, at most ``MAX_BATCH``."""
    return max(1, min(MAX_BATCH, remaining // (workers * BATCHES_PER_WORKER)))


def _batches(matches: Iterator[Match], pending: int, workers: int) -> Iterator[list[dict[str, Any]]]:
    """Consecutive runs of the ``pending`` matches, as plain data, sized by ``batch_size``."""
    batch: list[dict[str, Any]] = []
    size = batch_size(pending, workers)
    for match in matches:
        batch.append(match.to_json())
        if len(batch) == size:
            yield batch
            pending -= size
            batch = []
            size = batch_size(pending, workers)
    if batch:
        yield batch


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


# -- playing matches (in this process, or in a Ray worker) ----------------------------------------


class _Worker:
    """What one process keeps between batches: the registry and the zygotes of the plugins' agents."""

    cached: ClassVar[dict[str | None, _Worker]] = {}

    def __init__(self, plugins_dir: str | None) -> None:
        self.registry: Registry = load_registry(plugins_dir=plugins_dir).registry
        self.host = AgentHost()

    @classmethod
    def for_plugins(cls, plugins_dir: str | None) -> _Worker:
        if plugins_dir not in cls.cached:
            cls.cached[plugins_dir] = cls(plugins_dir)
        return cls.cached[plugins_dir]


def _play_batch(context: Mapping[str, Any], batch: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Play a batch of matches described by plain data; return their store rows."""
    worker = _Worker.for_plugins(context["plugins_dir"])
    return [play_scheduled_match(context["config"], worker.registry, match, worker.host) for match in batch]


def play_scheduled_match(
    config: Mapping[str, Any], registry: Registry, match: Mapping[str, Any], host: AgentHost | None = None
) -> dict[str, Any]:
    """Play one scheduled match (config and match as JSON data) and return its store row (record packed)."""
    game = registry.game(config["game"])
    entries = {entry["name"]: entry for entry in config["agents"]}
    seats = []
    for seat, name in enumerate(match["seats"]):
        entry = entries[name]
        try:
            spec = registry.agent(entry["plugin"])
        except KeyError as error:
            raise TournamentError(f"entry {name!r}: {error.args[0]}") from None
        isolation = entry.get("isolation") or config["isolation"]
        seats.append(SeatPlan(name=name, spec=spec, options=entry.get("options", {}),
                              seed=match["agent_seeds"][seat], isolation=isolation))
    started = time.perf_counter()
    try:
        result = play_match(
            game, config["game_options"], match["deal_seed"], seats, substitute=registry.agent("random"),
            match_id=match["id"], limits=Limits(**config["limits"]), isolation=config["isolation"], host=host,
        )
    except RefereeError as error:
        raise TournamentError(f"match {match['id']}: {error}") from None
    record = result.record
    record["deals"] = "public" if config["seed"] is not None else "secret"  # see docs/records.md
    return {
        "idx": match["index"], "id": match["id"], "block_id": match["block_id"], "table_idx": match["table"],
        "block": match["block"], "rotation": match["rotation"], "deal_seed": match["deal_seed"],
        "agents": list(match["seats"]), "scores": record["result"]["scores"], "ranks": record["result"]["ranks"],
        "faults": record["faults"], "think_seconds": result.think_seconds,
        "wall_seconds": time.perf_counter() - started, "record": pack_record(record),
        "versions": [plan.spec.version for plan in seats],  # as this worker has them; the driver compares
    }


# -- where batches are played: the driver, Ray, or the driver until a local Ray is up ---------------


def _ray_is_running() -> bool:
    """Whether this process is connected to a Ray already (asked without importing Ray, which takes a second)."""
    ray = sys.modules.get("ray")
    return ray is not None and ray.is_initialized()


def _init_ray(address: str | None, workers: int | None) -> None:
    """Start a local Ray on ``workers`` cores (default: all), or join the cluster at ``address``."""
    import ray

    if address is None:
        # "local": a new Ray of our own, never a cluster someone else started on this machine
        # (a bare ray.init() joins the last `ray start` recorded in Ray's temp folder).
        ray.init(address="local", num_cpus=workers or os.cpu_count(), include_dashboard=False, log_to_driver=False,
                 configure_logging=False)
    else:
        ray.init(address=address, log_to_driver=False, configure_logging=False)


class _RayStart:
    """A local Ray started in a background thread while the driver plays.

    The thread's name starts with ``ray_``, so whatever is printed from it goes to the run's Ray log
    (``arena.tournament.ray_output``), like the output of Ray's own driver threads.  It lives until Ray is
    stopped: Ray's processes are bound to the thread that started them (they are killed when it ends).
    """

    def __init__(self, log_path: Path) -> None:
        self.log_path = log_path
        self.error: BaseException | None = None
        self.over = threading.Event()  # the start is over: Ray is up, or ``error`` says why not
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._start, name=f"{RAY_THREAD_PREFIX}arena_start", daemon=True)
        self.thread.start()

    def _start(self) -> None:
        try:
            _init_ray(None, None)
        except BaseException as error:
            self.error = error
            traceback.print_exc()  # from this thread: to the Ray log
        finally:
            self.over.set()
        self.stopped.wait()

    def ready(self) -> bool:
        """Whether the start is over (Ray is up, or failed to start: ``wait`` says which), without waiting."""
        return self.over.is_set()

    def wait(self) -> bool:
        """Wait until the start is over; whether Ray is up."""
        self.over.wait()
        return self.error is None

    def stop(self, log: TextIO) -> None:
        """Stop Ray once its start is over (Ray's messages meanwhile to ``log``), then end the thread."""
        import ray

        self.over.wait()
        try:
            if self.error is None:
                with all_output_to(log):
                    ray.shutdown()
        finally:
            self.stopped.set()
            self.thread.join()


class _Execution:
    """Plays the batches, in schedule order, serially, on Ray, or in the driver first while a local Ray starts.

    ``workers=None`` without an ``address`` (the default) starts in the driver at once and starts a local Ray
    in the background only when the matches left would take ``RAY_WORTH_SECONDS`` or more in the driver (at
    the cost per match of the last batch played); the driver hands the rest to Ray when it is up.  An
    explicit ``workers`` above 1, an ``address`` or a Ray already running in this process put every batch on
    Ray, as asked.  A context manager: leaving it (also on an error or Ctrl-C) stops a Ray started for the run.
    """

    def __init__(self, serial: bool, workers: int | None, address: str | None, log_path: Path) -> None:
        self.serial = serial
        self.workers = workers
        self.address = address
        self.log_path = log_path
        self.backend = "serial"  # "ray" once batches go to Ray
        self.cpus = 1  # parallel workers used
        self.in_driver = 0  # matches played in this process
        self._start: _RayStart | None = None
        self._log: TextIO | None = None
        self._exit = contextlib.ExitStack()

    def __enter__(self) -> _Execution:
        return self

    def __exit__(self, *exc_info: Any) -> bool | None:
        return self._exit.__exit__(*exc_info)

    def play(self, context: Mapping[str, Any], batches: Iterator[list[dict[str, Any]]], pending: int
             ) -> Iterator[list[dict[str, Any]]]:
        """Yield the store rows of every batch, in schedule order."""
        if self.serial:
            for batch in batches:
                yield self._play_in_driver(context, batch, lambda: False)
            return
        if self.workers is None and self.address is None and not _ray_is_running():
            batches = yield from self._head_start(context, batches, pending)
            if self._start is None:
                return  # played to the end in the driver
            if not self._start.wait():  # Ray could not start (the Ray log says why): the driver plays on
                for batch in batches:
                    yield self._play_in_driver(context, batch, lambda: False)
                return
        yield from self._on_ray(context, batches)

    def _play_in_driver(self, context: Mapping[str, Any], batch: Sequence[Mapping[str, Any]],
                        stop: Callable[[], bool]) -> list[dict[str, Any]]:
        """Play ``batch`` in this process until ``stop()`` says so before a match; the rows played."""
        worker = _Worker.for_plugins(context["plugins_dir"])
        rows = []
        for match in batch:
            if stop():
                break
            rows.append(play_scheduled_match(context["config"], worker.registry, match, worker.host))
            self.in_driver += 1
        return rows

    def _head_start(self, context: Mapping[str, Any], batches: Iterator[list[dict[str, Any]]], pending: int
                    ) -> Generator[list[dict[str, Any]], None, Iterator[list[dict[str, Any]]]]:
        """Play in the driver until a local Ray is up, starting Ray once the matches left look worth it.

        Returns the batches left for Ray (the unplayed rest of a batch first).
        """
        ray_is_up = lambda: self._start is not None and self._start.ready()  # noqa: E731
        for batch in batches:
            started = time.perf_counter()
            rows = self._play_in_driver(context, batch, ray_is_up)
            if rows:
                yield rows
            if len(rows) < len(batch):
                return itertools.chain([batch[len(rows):]], batches)
            seconds_left = (pending - self.in_driver) * (time.perf_counter() - started) / len(batch)
            if self._start is None and seconds_left >= RAY_WORTH_SECONDS and (os.cpu_count() or 1) > 1:
                self._log = self._exit.enter_context(ray_output_to(self.log_path))
                self._start = _RayStart(self.log_path)
                self._exit.callback(self._stop_ray)
        return iter(())

    def _on_ray(self, context: Mapping[str, Any], batches: Iterator[list[dict[str, Any]]]
                ) -> Iterator[list[dict[str, Any]]]:
        """Play ``batches`` on Ray: the one started in the background, a running one, or one started now."""
        import ray

        if self._start is None:
            self._log = self._exit.enter_context(ray_output_to(self.log_path))
            if not ray.is_initialized():
                try:
                    with all_output_to(self._log):
                        _init_ray(self.address, self.workers)
                except ClusterError as error:
                    raise TournamentError(str(error)) from None
                except Exception as error:  # Ray raises several kinds for an unreachable cluster
                    raise TournamentError(connection_problem(self.address, error, self.log_path)) from None
                self._exit.callback(self._stop_ray)
        self.backend = "ray"
        self.cpus = int(ray.cluster_resources().get("CPU", 1))
        # After a head start the driver goes on playing until the first batch comes back from Ray.
        driver = None if self._start is None else lambda batch: self._play_in_driver(context, batch, lambda: False)
        yield from _ray_batches(context, batches, self.cpus, driver)

    def _stop_ray(self) -> None:
        """Stop the Ray this run started (after its start is over, if it was still starting)."""
        import ray

        assert self._log is not None
        if self._start is not None:
            self._start.stop(self._log)
            return
        with all_output_to(self._log):
            ray.shutdown()


def _ray_batches(context: Mapping[str, Any], batches: Iterator[list[dict[str, Any]]], cpus: int,
                 driver: Callable[[list[dict[str, Any]]], list[dict[str, Any]]] | None = None
                 ) -> Iterator[list[dict[str, Any]]]:
    """Play batches on Ray and yield their rows in schedule order, whatever order they finish in.

    With ``driver``, batches are also played in this process by ``driver`` as long as no batch has come back
    from Ray (its worker processes are still starting), so that the driver's core does not sit idle.
    """
    import ray

    remote = ray.remote(num_cpus=1, max_retries=RAY_TASK_RETRIES, retry_exceptions=False)(_play_batch)
    context_ref = ray.put(dict(context))
    window = max(2, 2 * cpus)
    in_flight: dict[Any, int] = {}
    finished: dict[int, list[dict[str, Any]]] = {}
    submitted = 0
    committed = 0
    exhausted = False
    while not exhausted or committed < submitted:
        # Finished batches wait for their turn to commit: bound how far ahead work is handed out.
        while not exhausted and len(in_flight) < window and submitted - committed < 4 * window:
            batch = next(batches, None)
            if batch is None:
                exhausted = True
                break
            in_flight[remote.remote(context_ref, batch)] = submitted  # type: ignore[arg-type]  # Ray's refs are invariant
            submitted += 1
        if not in_flight:
            continue
        ready, _ = ray.wait(list(in_flight), num_returns=1, timeout=0 if driver is not None else None)
        if not ready and driver is not None:  # the workers are not there yet: the driver plays meanwhile
            batch = next(batches, None) if submitted - committed < 4 * window else None
            if batch is not None:
                finished[submitted] = driver(batch)
                submitted += 1
                continue
            ready, _ = ray.wait(list(in_flight), num_returns=1)
        driver = None if ready else driver
        for ref in ready:
            position = in_flight.pop(ref)
            try:
                finished[position] = ray.get(ref)
            except ray.exceptions.RayTaskError as error:
                raise TournamentError(f"a match failed on a worker: {_cause(error)}") from None
            except ray.exceptions.RayError as error:  # worker or node lost more often than Ray retries
                raise TournamentError(
                    f"batch {position} was lost {RAY_TASK_RETRIES + 1} times: {_cause(error)}"
                ) from None
        while committed in finished:
            yield finished.pop(committed)
            committed += 1


def _cause(error: Exception) -> str:
    cause = getattr(error, "cause", None) or error
    return " ".join(f"{type(cause).__name__}: {cause}".split())[:300]
