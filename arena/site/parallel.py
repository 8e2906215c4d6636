"""Building a large site's match chunks on every core: one forked process per core, where forking is safe.

A match chunk (``arena.site.chunks``) replays its 100 matches for their pages: a tenth to half a second of
CPU, independent of every other chunk.  A build with many chunks to write hands them to a pool of
processes forked from this one, which inherit the game, each open the store read-only and die with this
process (a pool whose parent is killed would wait for chunks for good); the caller gets each chunk's result
as it is done.  Forking copies only the calling thread, so a process running other
threads (a Ray driver, a server) builds in its own thread alone, as does a small build, where starting the
pool would cost more than it saves.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from arena.games.base import Game
from arena.sandbox.process import die_with_parent
from arena.tournament.store import MatchRow, Store

PARALLEL_CHUNKS = 4
"""Chunks to write from which a build uses every core (below, starting processes costs more than it saves)."""

Job = tuple[Path, int, Sequence[MatchRow]]
"""One chunk to write: its file, its number and its matches."""

Build = Callable[[Path, int, Sequence[MatchRow], Store, "Game | None"], dict[str, Any]]
"""What writes one chunk and returns its manifest entry (``arena.site.chunks._build_match_chunk``)."""


def workers(chunks: int) -> int:
    """How many processes write ``chunks`` chunks: every core this process may use for a large build in a
    process with no other thread (a fork copies only the calling thread, and a lock another thread held
    would stay locked for good in the copy), else one: this process itself."""
    if chunks < PARALLEL_CHUNKS or threading.active_count() != 1 or not hasattr(os, "fork"):
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    return max(1, min(cores, chunks))


def build_chunks(jobs: Sequence[Job], store: Store, game: Game | None, build: Build,
                 done: Callable[[int, dict[str, Any]], None]) -> None:
    """Write every chunk of ``jobs`` with ``build``; ``done(number, entry)`` as each is written (in any order
    when several processes write them)."""
    count = workers(len(jobs))
    if count == 1:
        for path, number, members in jobs:
            done(number, build(path, number, members, store, game))
        return
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(count, mp_context=context, initializer=_open, initargs=(store.path, game)) as pool:
        futures = {pool.submit(_build, build, path, number, members): number for path, number, members in jobs}
        for future in as_completed(futures):
            done(futures[future], future.result())


_worker: dict[str, Any] = {}  # in a pool process: its own read-only store and the game it inherited


def _open(path: Path, game: Game | None) -> None:
    # A parent killed outright (kill -9) shuts no pool down: its workers would wait for more chunks for good,
    # or write an old build's chunks over a newer build's.
    die_with_parent()
    _worker["store"] = Store(path, readonly=True)  # never the parent's connection: SQLite's is not fork-safe
    _worker["game"] = game


def _build(build: Build, path: Path, number: int, members: Sequence[MatchRow]) -> dict[str, Any]:
    return build(path, number, members, _worker["store"], _worker["game"])
