"""Playing batches on Ray: long-lived worker actors that are handed batches as they finish them.

One actor (``MatchWorker``) per CPU of every node, pinned to its node, plays batch after batch in
its own process: it loads the plugins and starts its zygotes once (``playing.Worker``), and
sends each batch's rows back as they are played, in compressed parts (a Ray generator: a slow
match alone, quick ones together, ``playing.PART_SECONDS``), which the driver unpacks and stores
at once.  Actor calls skip the lease and scheduling of a Ray task, so a batch costs a fraction of
a millisecond beyond its matches.  Each actor holds up to ``DEPTH`` batches: when it returns one, the driver
hands it the next one of the schedule, so work goes to whichever worker is free, and a fast
worker is never idle waiting for the driver.

The actors outlive a run (``pool``): a later run on the same Ray reuses them, warm, as Ray's task
workers were reused before.  They hold no CPU between calls (Ray's default for actors: one CPU
to place, none to run), so other work on the same Ray is never blocked by an idle pool.

A worker that dies (its node lost, its process killed) loses the matches it had not sent back;
they go back to the front of the queue for the other workers, at most ``RAY_TASK_RETRIES`` times
per batch, and the store's primary key guarantees that nothing is counted twice.
"""

from __future__ import annotations

import collections
import os
import pickle
import zlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any, cast

from arena.tournament.errors import TournamentError
from arena.tournament.playing import Worker, play_in_parts

DEPTH = 2
"""Batches each worker holds at once: the one it plays and the next, so that it never waits for the driver."""

LOOKAHEAD = 4 * DEPTH
"""How many batches per worker the work may run ahead of the earliest batch not yet played to its end."""

RAY_TASK_RETRIES = 3
"""How often a batch whose worker died is handed to another worker before the run gives up."""

COMPRESSION = 1
"""zlib level of a batch's rows: the records are packed already, the rest (names, faults) is repetitive."""

Rows = list[dict[str, Any]]


class MatchWorker:
    """A Ray actor that plays batches of matches in its own process and sends their rows back compressed."""

    def play(self, context: Mapping[str, Any], batch: list[dict[str, Any]]) -> Iterator[bytes]:
        """Play ``batch`` (plain data) under ``context``, sending its rows back in parts as they are played
        (``playing.play_in_parts``: a Ray generator, each part packed by ``pack_rows``)."""
        for part in play_in_parts(context, batch):
            yield pack_rows(part)

    def warm(self, plugins_dir: str | None) -> int:
        """Load the plugins and start the zygotes ahead of the first batch; this process's id."""
        Worker.for_plugins(plugins_dir)
        return os.getpid()


def pack_rows(rows: Rows) -> bytes:
    """A batch's rows as one compressed blob (pickled: they come from arena's own code in the worker)."""
    return zlib.compress(pickle.dumps(rows, protocol=pickle.HIGHEST_PROTOCOL), COMPRESSION)


def unpack_rows(blob: bytes) -> Rows:
    """The rows ``pack_rows`` packed."""
    rows: Rows = pickle.loads(zlib.decompress(blob))
    return rows


_pools: dict[tuple[str, str | None], list[tuple[str, Any]]] = {}
"""The workers of each Ray session (driver's node and job) and plugins folder, as (node id, actor handle)."""


def pool(plugins_dir: str | None) -> list[Any]:
    """The workers of the running Ray for ``plugins_dir``: one per CPU of each live node, made on first use.

    New workers start loading the plugins at once (``MatchWorker.warm``), while the driver goes on.
    """
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    workers = _pools.setdefault(_session(plugins_dir), [])
    per_node = collections.Counter(node for node, _ in workers)
    remote: Any = ray.remote(max_restarts=0, max_task_retries=0)(MatchWorker)
    for node in ray.nodes():
        if not node.get("Alive"):
            continue
        for _ in range(int(node.get("Resources", {}).get("CPU", 0)) - per_node[node["NodeID"]]):
            strategy = NodeAffinitySchedulingStrategy(node["NodeID"], soft=False)
            worker: Any = remote.options(scheduling_strategy=strategy).remote()
            worker.warm.remote(plugins_dir)
            workers.append((node["NodeID"], worker))
    return [worker for _, worker in workers]


def _session(plugins_dir: str | None) -> tuple[str, str | None]:
    import ray

    context = ray.get_runtime_context()
    return context.get_node_id() + context.get_job_id(), plugins_dir


def _drop(plugins_dir: str | None, dead: Any) -> None:
    """Take a worker that died out of its pool (the next run makes its node's worker again, if the node lives)."""
    workers = _pools.get(_session(plugins_dir), [])
    workers[:] = [(node, worker) for node, worker in workers if worker is not dead]


def worker_pids(plugins_dir: str | None) -> list[int]:
    """The process ids of the pool's workers (for the benchmarks' CPU accounting)."""
    import ray

    return sorted(ray.get([worker.warm.remote(plugins_dir) for worker in pool(plugins_dir)]))


def forget_pools() -> None:
    """Drop every pool (the Ray they lived on was stopped)."""
    _pools.clear()


def play_on_ray(context: Mapping[str, Any], batches: Iterator[Rows],
                driver: Callable[[Rows], Iterator[Rows]] | None = None) -> Iterator[Rows]:
    """Play batches on the pool's workers and yield their rows as they come back, part by part, in whatever order
    the workers finish them (each worker sends its batch's rows in parts: ``MatchWorker.play``).

    With ``driver``, batches are also played in this process by ``driver`` (which yields the rows of each match
    as it ends) as long as no part has come back from a worker (the workers are still starting), so that the
    driver's core does not sit idle.  Work goes at most ``LOOKAHEAD`` batches per worker past the earliest batch
    not yet finished, so that the caller, which puts rows back in schedule order, holds a bounded number.
    """
    import ray

    workers = pool(context["plugins_dir"])
    if not workers:
        raise TournamentError("the Ray cluster has no CPU to play on")
    context_ref = ray.put(dict(context))
    held: dict[Any, _Held] = {}  # a worker's generator of parts -> what it plays
    load = {id(worker): 0 for worker in workers}
    retry: collections.deque[tuple[int, Rows]] = collections.deque()  # unplayed rest of dead workers' batches
    lost: collections.Counter[int] = collections.Counter()
    unfinished: set[int] = set()  # positions of the batches handed out and not yet played to the end
    submitted = 0
    exhausted = False

    def next_batch() -> tuple[int, Rows] | None:
        nonlocal submitted, exhausted
        if retry:
            return retry.popleft()
        if exhausted or (unfinished and submitted - min(unfinished) >= LOOKAHEAD * len(workers)):
            return None
        batch = next(batches, None)
        if batch is None:
            exhausted = True
            return None
        submitted += 1
        unfinished.add(submitted - 1)
        return submitted - 1, batch

    while True:
        for worker in workers:
            while load[id(worker)] < DEPTH:
                item = next_batch()
                if item is None:
                    break
                held[worker.play.remote(context_ref, item[1])] = _Held(worker, *item)
                load[id(worker)] += 1
        if not held:
            if retry or not exhausted:
                raise TournamentError("every Ray worker was lost")
            break
        ready, _ = ray.wait(list(held), num_returns=1, timeout=0 if driver is not None else None)
        if not ready and driver is not None:  # the workers are not there yet: the driver plays meanwhile
            item = next_batch()
            if item is not None:
                yield from driver(item[1])
                unfinished.discard(item[0])
                continue
            ready, _ = ray.wait(list(held), num_returns=1)
        driver = None if ready else driver
        for parts in ready:
            work = held[parts]
            try:
                rows = unpack_rows(ray.get(next(cast(Any, parts))))
            except StopIteration:  # the batch is played to its end
                del held[parts]
                load[id(work.worker)] -= 1
                unfinished.discard(work.position)
                continue
            except ray.exceptions.RayActorError as error:  # the worker died: the rest of its batch goes elsewhere
                del held[parts]
                workers = [other for other in workers if other is not work.worker]
                _drop(context["plugins_dir"], work.worker)
                lost[work.position] += 1
                if lost[work.position] > RAY_TASK_RETRIES:
                    raise TournamentError(f"batch {work.position} was lost {lost[work.position]} times: "
                                          f"{_cause(error)}") from None
                retry.append((work.position, work.batch[work.received:]))
                continue
            except ray.exceptions.RayTaskError as error:
                raise TournamentError(f"a match failed on a worker: {_cause(error)}") from None
            work.received += len(rows)
            yield rows


class _Held:
    """A batch a worker is playing: the worker, the batch's place among the batches, and how many of its
    matches have come back (a retry plays only the rest)."""

    __slots__ = ("batch", "position", "received", "worker")

    def __init__(self, worker: Any, position: int, batch: Rows) -> None:
        self.worker = worker
        self.position = position
        self.batch = batch
        self.received = 0


def _cause(error: Exception) -> str:
    cause = getattr(error, "cause", None) or error
    return " ".join(f"{type(cause).__name__}: {cause}".split())[:300]
