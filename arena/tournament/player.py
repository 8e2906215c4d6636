"""The one loop that plays scheduled matches and commits them to a store: for ``run_tournament`` and the ladder.

``run_tournament`` plays a schedule fixed by its config; a ladder chooses its next blocks from the
results stored so far.  Both hand their matches to a ``MatchPlayer``: the backends (the driver, a local
Ray brought in for a long run, ``workers``, a cluster at ``address``: ``arena.tournament.execution``),
the batches, and the commit of each match as soon as it comes back, in whatever order the workers
finish them (so that a stop loses only the matches being played; readers sort by schedule position):
each worker's agent versions checked against the driver's, the store, then, in the order the matches
were asked for, the start-up watch (an entry that fails to start in its first ``max_startup_faults``
matches stops the run) and the reporter plugins, told of each match once it is stored.
"""

from __future__ import annotations

import collections
import json
import os
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.plugin_system.data import printable
from arena.plugin_system.registration import Registrar
from arena.ratings.registry import needs_luck
from arena.referee import STARTUP, fault_phase
from arena.tournament.errors import StartupLimitError, TournamentError
from arena.tournament.execution import Execution
from arena.tournament.luck import reference_policy
from arena.tournament.playing import batches
from arena.tournament.ray_output import RAY_LOG
from arena.tournament.schedule import Match
from arena.tournament.store import Store


@dataclass(frozen=True, slots=True)
class StartupFailure:
    """An entry that failed to start in each of its first matches."""

    entry: str  # the entry name
    matches: int  # how many first matches in a row it failed to start in
    cause: str  # the last start-up fault's kind and message
    position: int  # index in the batch of the match that reached the limit

    def message(self, stored: int, total: int) -> str:
        """The one line the run stops with."""
        return (f"entry {self.entry!r} failed to start in its first {self.matches} matches "
                f"({printable(' '.join(self.cause.split()), 200)}); the run stopped with {stored} of {total} matches "
                "stored, none of them with this entry: fix the agent (try 'arena check-agent'), then run again "
                "with --resume")


class StartupWatch:
    """Counts each entry's start-up faults in a row from its first match, until it once starts cleanly.

    A start-up fault is one the referee recorded in phase ``startup`` (``arena.referee.fault_phase``: for
    records stored before faults carried a phase, read from the message as it was then).
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.streak: dict[str, int] = {}
        self.started: set[str] = set()

    def seen(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """Feed the rows a store already held, in order: they count toward each entry's streak, but the run
        that stored them already stopped where it had to."""
        for row in rows:
            self.first_failure([row])

    def first_failure(self, rows: Sequence[Mapping[str, Any]]) -> StartupFailure | None:
        """Feed committed-to-be rows in order; the first one at which an entry reaches the limit, if any."""
        for position, row in enumerate(rows):
            # By the phase the referee recorded, never by the message, whose text the agent partly wrote.
            causes = {fault["seat"]: f"{fault['kind']}: {fault['message']}" for fault in row["faults"]
                      if fault_phase(fault) == STARTUP}
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


class MatchPlayer:
    """Plays scheduled matches and commits them to a store batch by batch, in their order.

    A context manager: leaving it stops a Ray it started.
    """

    def __init__(self, config: Mapping[str, Any], plugins_dir: Path | str | None,
                 versions: Mapping[str, Mapping[str, str]], manager: Registrar, store: Store,
                 watch: StartupWatch, *, workers: int | None = None, address: str | None = None) -> None:
        """``config`` is the tournament-shaped config (JSON) naming every entry the matches seat; ``versions``
        each entry's agent version as this machine has it (``entry_versions``); ``watch`` has seen every match
        ``store`` held before (the caller reads the stored rows once, for its own tallies too)."""
        address = address or os.environ.get("RAY_ADDRESS") or None
        serial = address is None and workers == 1
        self.parallel = 1 if serial else (workers or os.cpu_count() or 1)
        self.context = {"config": dict(config),
                        "plugins_dir": None if plugins_dir is None else str(Path(plugins_dir).resolve()),
                        "luck": needs_luck(config["ratings"])}  # each match's correction computed where it is played
        game = manager.registry.games.get(config["game"])
        if self.context["luck"] and game is not None and game.info.luck is not None:
            players = game.info.resolve_options(None, config["game_options"])["players"]
            reference_policy(manager.registry, game, players)  # a reference it cannot use is refused before a match
        self.versions = versions
        self.manager = manager
        self.store = store
        self.watch = watch
        self.execution = Execution(serial, workers, address, store.path.parent / RAY_LOG)

    def __enter__(self) -> MatchPlayer:
        self.execution.__enter__()
        return self

    def __exit__(self, *exc_info: Any) -> bool:
        return bool(self.execution.__exit__(*exc_info))

    @property
    def backend(self) -> str:
        """``"serial"``, or ``"ray"`` once batches went to Ray."""
        return self.execution.backend

    @property
    def workers(self) -> int:
        """Parallel workers used."""
        return self.execution.cpus

    @property
    def in_driver(self) -> int:
        """Matches played in this process."""
        return self.execution.in_driver

    def play(self, matches: Iterable[Match], count: int, expected: int, total: int) -> Iterator[list[dict[str, Any]]]:
        """Play the ``count`` ``matches``, store each as soon as it comes back, and yield the rows stored.

        ``expected`` is how many matches the caller will ask for in all from this call on, which decides
        (with the pace so far) whether a local Ray is worth starting; ``total`` is what the stop message
        counts stored matches against.  Rows come back in whatever order the workers finish them and are
        stored at once (reads sort by schedule position); the start-up watch and the reporter plugins see
        them in the order asked.  Raises ``TournamentError`` (one line) when a worker played another version
        of an entry's agent, or when an entry reaches the start-up limit: the matches asked before that one
        are stored, it and those after it are not, unless another worker had already finished them.
        """
        if count == 0:
            return  # nothing to play: no Ray is started for it
        order = InOrder()
        chosen = batches(order.note(iter(matches)), count, self.parallel)
        # The execution weighs what the driver played over every call against what was pending in all.
        pending = max(expected, count) + self.execution.in_driver
        for rows in self.execution.play(self.context, chosen, pending):
            _check_worker_versions(rows, self.versions)
            released = order.arrive(rows)  # the rows whose turn has come, in the order asked
            failure = self.watch.first_failure(released)
            if failure is not None:
                barred = {row["idx"] for row in released[failure.position:]}
                self.store.add([row for row in rows if row["idx"] not in barred])
                self.store.drop_matches_of(failure.entry)  # stored as they ended: the substitute's, not its own
                raise StartupLimitError(failure.message(self.store.count(), total), failure.entry, failure.cause)
            self.store.add(rows)
            self._report(released)
            yield rows

    def _report(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Tell the reporter plugins about stored matches, in order (records unpacked only if someone listens)."""
        if not self.manager.has_reporters():
            return
        for row in rows:
            self.manager.match_finished(json.loads(zlib.decompress(row["record"])))


class InOrder:
    """Puts rows that come back in any order into the order their matches were asked for."""

    def __init__(self) -> None:
        self.asked: collections.deque[int] = collections.deque()  # schedule positions handed out, not yet released
        self.waiting: dict[int, dict[str, Any]] = {}  # rows that came back before their turn

    def note(self, matches: Iterator[Match]) -> Iterator[Match]:
        """Pass ``matches`` through, noting the order in which they are handed out."""
        for match in matches:
            self.asked.append(match.index)
            yield match

    def arrive(self, rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """Take rows that came back; the rows (these or earlier ones) whose turn has now come, in order."""
        for row in rows:
            self.waiting[row["idx"]] = row
        released = []
        while self.asked and self.asked[0] in self.waiting:
            released.append(self.waiting.pop(self.asked.popleft()))
        return released


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
