"""Keep the server's worker processes (the checker and the player) running while it serves.

A worker that ends while the server serves (killed, out of memory, a bug) is started again at once, with
one line on the server's standard error saying which worker ended, how, and the restart; everything it
had done is recorded (arena.serve.db, the ladder's store), and the new worker resumes.  A worker that
keeps ending is not restarted without end: past ``RESTARTS`` restarts of one kind within ``WINDOW``
seconds the supervisor gives up, and the server stops with one line (``Supervisor.failure``).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable

RESTARTS = 5
"""Restarts of one kind of worker allowed within ``WINDOW`` seconds; one more ending stops the server."""
WINDOW = 600.0
"""Seconds over which restarts are counted."""
POLL = 0.5
"""Seconds between two looks at the workers."""
STOP_SECONDS = 30.0
"""How long a worker asked to stop (SIGTERM) may take to store what it finished before it is killed."""


def how_it_ended(status: int) -> str:
    """A worker's exit status in words: ``killed by SIGKILL``, ``exit status 1``."""
    if status < 0:
        try:
            return f"killed by {signal.Signals(-status).name}"
        except ValueError:
            return f"killed by signal {-status}"
    return f"exit status {status}"


class Supervisor:
    """The workers of one server, started by ``start(kind)``, watched from a thread of their own."""

    def __init__(self, start: Callable[[str], subprocess.Popen[bytes]], kinds: tuple[str, ...],
                 on_failure: Callable[[], None], restarts: int = RESTARTS, window: float = WINDOW,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._start = start
        self._kinds = kinds
        self._on_failure = on_failure
        self._restarts = restarts
        self._window = window
        self._clock = clock
        self._lock = threading.Lock()  # the watcher restarts, the server stops: never both at once
        self._stopping = threading.Event()
        self._stopped = threading.Event()  # every worker has ended: the watching thread may end too
        self._thread: threading.Thread | None = None
        self.workers: dict[str, subprocess.Popen[bytes]] = {}
        self.ended: dict[str, deque[float]] = {kind: deque() for kind in kinds}  # kind -> when it was restarted
        self.failure: str | None = None  # why the supervisor gave up, if it did

    def start(self) -> None:
        """Start every worker, and the thread that watches them.

        The workers are started from the watching thread: each asks the kernel for a signal when the thread
        that started it ends (``PR_SET_PDEATHSIG`` follows the thread), so all of them must come from the
        one thread that lives as long as the server serves."""
        ready = threading.Event()
        self._thread = threading.Thread(target=self._watch, args=(ready,), name="arena-serve-supervisor",
                                        daemon=True)
        self._thread.start()
        ready.wait()

    def _watch(self, ready: threading.Event) -> None:
        with self._lock:
            for kind in self._kinds:
                self.workers[kind] = self._start(kind)
        ready.set()
        while not self._stopping.wait(POLL):
            if not self.check():
                self._on_failure()
                break
        # Outlive the workers: the kernel would send them SIGTERM when this thread ends, a second one after
        # stop()'s, which a worker takes as "stop at once" rather than "store what you finished".
        self._stopped.wait()

    def check(self) -> bool:
        """Start again every worker that ended; False (and ``failure`` set) once one ended too often."""
        with self._lock:
            if self._stopping.is_set():
                return True
            for kind, worker in list(self.workers.items()):
                status = worker.poll()
                if status is None:
                    continue
                now = self._clock()
                recent = self.ended[kind]
                while recent and now - recent[0] > self._window:
                    recent.popleft()
                if len(recent) >= self._restarts:
                    self.failure = (f"the {kind} worker ended {len(recent) + 1} times within {self._window:g} s "
                                    f"(last: {how_it_ended(status)}); the server stops (the lines above say why "
                                    "it ended)")
                    return False
                recent.append(now)
                self.workers[kind] = self._start(kind)
                _log(f"the {kind} worker (pid {worker.pid}) ended ({how_it_ended(status)}); started it again as "
                     f"pid {self.workers[kind].pid} (restart {len(recent)} of at most {self._restarts} within "
                     f"{self._window:g} s)")
        return True

    def quiet(self) -> None:
        """Restart no worker from now on: the server is stopping (a Ctrl-C reaches the workers too, and they end
        before the server does)."""
        with self._lock:
            self._stopping.set()

    def stop(self) -> None:
        """Stop watching, then stop every worker (SIGTERM: each stores what it finished), killing one that lingers."""
        self.quiet()
        with self._lock:
            workers = list(self.workers.values())
        for worker in workers:
            if worker.poll() is None:
                worker.send_signal(signal.SIGTERM)
        for worker in workers:
            try:
                worker.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()
        self._stopped.set()
        if self._thread is not None:
            self._thread.join(timeout=5)


def _log(message: str) -> None:
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())
    print(f"{stamp} arena serve: {message}", file=sys.stderr, flush=True)
