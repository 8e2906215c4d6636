"""Where a run's batches are played: the driver, Ray, or the driver until a local Ray is up.

By default play starts in the driver at once; a local Ray is started in the background only for a
run long enough to win back its start-up (``RAY_WORTH_SECONDS``), and the driver hands the rest of
the schedule to Ray's workers (``arena.tournament.ray_pool``) when it is up.  Whatever plays them,
the rows come back as the matches end (each match's alone from the driver, in parts from Ray's
workers), for the caller to store at once.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from arena.sandbox import lease
from arena.tournament.cluster import ClusterError, connection_problem
from arena.tournament.errors import TournamentError
from arena.tournament.playing import Worker, play_scheduled_match
from arena.tournament.ray_output import RAY_THREAD_PREFIX, all_output_to, ray_output_to
from arena.tournament.ray_pool import forget_pools, play_on_ray

RAY_WORTH_SECONDS = 30.0
"""By default a local Ray is started only when the matches left would take at least this long in the
driver.  Starting Ray and its workers takes 5-15 s of wall time on a 2-core machine and slows the driver
meanwhile (Ray's processes start on the same cores).  Measured on shared cores, 13-19 s runs that
started Ray (at a threshold of 15 s) took 5-8 s longer than serial play; on idle cores a run of about
twice Ray's start-up should gain, by the start-up time and the parallel efficiency that
benchmarks/tournament.py measures (an estimate, not a measurement)."""


WORKER_NICENESS = 0
"""Niceness of a local Ray's worker processes relative to the driver (Ray's own default is 15)."""


def ray_is_running() -> bool:
    """Whether this process is connected to a Ray already (asked without importing Ray, which takes a second)."""
    ray = sys.modules.get("ray")
    return ray is not None and ray.is_initialized()


def init_ray(address: str | None, workers: int | None) -> None:
    """Start a local Ray on ``workers`` cores (default: all), or join the cluster at ``address``.

    A local Ray is this process's to stop: its session folder is leased (``arena.sandbox.lease``), so that
    if this process dies before ``stop_local_ray``, its janitor ends every process of that Ray.  Ray's own
    handler for SIGTERM is not kept: the run's (``arena.cli.stopping``) says what was stored, then stops Ray.
    """
    import ray

    handlers = {number: signal.getsignal(number) for number in (signal.SIGTERM, signal.SIGINT)} \
        if threading.current_thread() is threading.main_thread() else {}
    try:
        if address is None:
            lease.current().note("processes", local_ray_sessions())
            # "local": a new Ray of our own, never a cluster someone else started on this machine
            # (a bare ray.init() joins the last `ray start` recorded in Ray's temp folder).  Ray runs its
            # workers 15 steps nicer than the driver by default; here the workers do the run's work, so they
            # keep the driver's priority (on shared cores, nice 15 left them a fraction of a serial run's share).
            ray.init(address="local", num_cpus=workers or os.cpu_count(), include_dashboard=False,
                     log_to_driver=False, configure_logging=False, _system_config={"worker_niceness": WORKER_NICENESS})
        else:
            ray.init(address=address, log_to_driver=False, configure_logging=False)
    finally:
        for number, handler in handlers.items():
            if handler is not None:
                signal.signal(number, handler)


def local_ray_sessions() -> str:
    """The session folders (a glob pattern) of a local Ray this process starts: Ray names each
    ``session_DATE_PID`` after the process that starts it, in its temporary folder."""
    temp = os.environ.get("RAY_TMPDIR") or os.environ.get("TMPDIR") or "/tmp"
    return os.path.join(temp, "ray", f"session_*_{os.getpid()}")


def stop_local_ray() -> None:
    """Stop the local Ray this process started, and end whatever of it outlives ``ray.shutdown`` (its agents)."""
    import ray

    try:
        ray.shutdown()
    finally:
        lease.current().end_processes(local_ray_sessions())


class RayStart:
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
            init_ray(None, None)
        except BaseException as error:  # the driver plays on without Ray
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
        self.over.wait()
        try:
            with all_output_to(log):
                if self.error is None:
                    stop_local_ray()
                else:  # a start that failed half-way may have left processes
                    lease.current().end_processes(local_ray_sessions())
        finally:
            self.stopped.set()
            self.thread.join()


class Execution:
    """Plays the batches serially, on Ray, or in the driver first while a local Ray starts; rows as they end.

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
        self._start: RayStart | None = None
        self._log: TextIO | None = None
        self._exit = contextlib.ExitStack()

    def __enter__(self) -> Execution:
        return self

    def __exit__(self, *exc_info: Any) -> bool:
        return bool(self._exit.__exit__(*exc_info))

    def play(self, context: Mapping[str, Any], batches: Iterator[list[dict[str, Any]]], pending: int
             ) -> Iterator[list[dict[str, Any]]]:
        """Yield the store rows of the batches as they are played: each match's alone when the driver plays it,
        in parts from Ray's workers (``ray_pool.play_on_ray``), in whatever order they finish."""
        if self.serial:
            for batch in batches:
                yield from self._play_in_driver(context, batch, lambda: False)
            return
        if self.workers is None and self.address is None and not ray_is_running():
            batches = yield from self._head_start(context, batches, pending)
            if self._start is None:
                return  # played to the end in the driver
            if not self._start.wait():  # Ray could not start (the Ray log says why): the driver plays on
                for batch in batches:
                    yield from self._play_in_driver(context, batch, lambda: False)
                return
        yield from self._on_ray(context, batches)

    def _play_in_driver(self, context: Mapping[str, Any], batch: Sequence[Mapping[str, Any]],
                        stop: Callable[[], bool]) -> Iterator[list[dict[str, Any]]]:
        """Play ``batch`` in this process until ``stop()`` says so before a match, yielding each match's row."""
        worker = Worker.for_plugins(context["plugins_dir"])
        for match in batch:
            if stop():
                break
            row = play_scheduled_match(context["config"], worker.registry, match, worker.host,
                                       luck=context.get("luck", False))
            self.in_driver += 1
            yield [row]

    def _head_start(self, context: Mapping[str, Any], batches: Iterator[list[dict[str, Any]]], pending: int
                    ) -> Generator[list[dict[str, Any]], None, Iterator[list[dict[str, Any]]]]:
        """Play in the driver until a local Ray is up, starting Ray once the matches left look worth it.

        Returns the batches left for Ray (the unplayed rest of a batch first).
        """
        ray_is_up = lambda: self._start is not None and self._start.ready()  # noqa: E731
        for batch in batches:
            started = time.perf_counter()
            played = 0
            for rows in self._play_in_driver(context, batch, ray_is_up):
                played += 1
                yield rows
            if played < len(batch):
                return itertools.chain([batch[played:]], batches)
            seconds_left = (pending - self.in_driver) * (time.perf_counter() - started) / len(batch)
            if self._start is None and seconds_left >= RAY_WORTH_SECONDS and (os.cpu_count() or 1) > 1:
                self._log = self._exit.enter_context(ray_output_to(self.log_path))
                self._start = RayStart(self.log_path)
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
                        init_ray(self.address, self.workers)
                except ClusterError as error:
                    raise TournamentError(str(error)) from None
                except Exception as error:  # Ray raises several kinds for an unreachable cluster
                    raise TournamentError(connection_problem(self.address, error, self.log_path)) from None
                self._exit.callback(self._stop_ray)
        self.backend = "ray"
        self.cpus = int(ray.cluster_resources().get("CPU", 1))
        # After a head start the driver goes on playing until the first batch comes back from Ray.
        driver = None if self._start is None else lambda batch: self._play_in_driver(context, batch, lambda: False)
        yield from play_on_ray(context, batches, driver)

    def _stop_ray(self) -> None:
        """Stop the Ray this run started (after its start is over, if it was still starting)."""
        import ray

        assert self._log is not None
        forget_pools()
        if self._start is not None:
            self._start.stop(self._log)
            return
        with all_output_to(self._log):
            if self.address is None:
                stop_local_ray()
            else:
                ray.shutdown()
