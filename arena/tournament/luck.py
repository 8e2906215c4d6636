"""Each match's luck correction, computed where its record is at hand, for the rating methods that subtract it.

A run whose config lists such a method (``MethodSpec.luck``) computes the correction in the process that played
the match, right after it (``arena.ratings.luck.match_luck``: it costs about 10 ms of CPU per 3-player Lovat match,
about 3, 8 and 16 times that with 4, 5 and 6 players), and the store keeps it beside the result, so that resuming,
``arena publish`` and rating again read it back.  ``fill_luck`` computes it for matches stored without it
(``arena luck NAME``).

The reference agent that values the chance is the game's choice (``GameInfo.luck``); it plays thousands of
decisions per match in this process, so it must be arena's own code (``is_builtin``), never a plugin's.
"""

from __future__ import annotations

import multiprocessing
import signal
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from arena.games.base import Game, GameError
from arena.plugin_system.loading import Registry, is_builtin
from arena.ratings.luck import Policy, match_luck
from arena.sandbox.process import die_with_parent
from arena.tournament.errors import TournamentError
from arena.tournament.store import Store

FILL_SECONDS = 2.0
"""``fill_luck`` stores what it has computed at least this often, so that a stop loses little."""


def reference_policy(registry: Registry, game: Game, players: int) -> Policy:
    """The game's reference agent in every seat of a ``players``-seat match, as one policy; ``TournamentError``
    (one line) when the game declares no luck, or its reference is not installed or not arena's own."""
    spec = game.info.luck
    if spec is None:
        raise TournamentError(f"{game.info.name} declares no chance after the deal to value (GameInfo.luck)")
    try:
        agent = registry.agent(spec.reference)
    except KeyError as error:
        raise TournamentError(f"{game.info.name}'s luck reference: {error.args[0]}") from None
    if not is_builtin(agent) or not agent.plays(game.info.name):
        raise TournamentError(f"{game.info.name}'s luck reference {spec.reference!r} must be an agent of arena's own "
                              f"that plays {game.info.name}: it plays every seat of the play-outs in arena's process")
    # Seed 0 and no options: the reference is the same in every match (greedy is deterministic).
    seats = [agent.factory(seat=seat, game=game.info, players=players, seed=0, options={}) for seat in range(players)]
    return lambda observation: seats[observation.seat].act(observation)


def record_luck(registry: Registry, game: Game, record: Mapping[str, Any]) -> list[float] | None:
    """Per seat, the luck correction of the match ``record`` (docs/records.md); None for a game that declares no
    chance to value.  ``TournamentError`` (one line) when the record cannot be replayed or valued."""
    if game.info.luck is None:
        return None
    try:
        players = game.info.resolve_options(None, record.get("options", {}))["players"]
        found = match_luck(game, record, reference_policy(registry, game, players))
    except (GameError, ValueError, KeyError, TypeError) as error:
        raise TournamentError(f"match {record.get('match')}: cannot value its luck: {error}") from None
    return None if found is None else list(found)


def fill_luck(store: Store, registry: Registry, game: Game,
              progress: Callable[[int, int], None] | None = None, workers: int = 1) -> int:
    """Compute and store the luck correction of every stored match without one; how many were computed.

    Each is computed from the match's stored record, in schedule order, on ``workers`` processes (forked from
    this one, so they share its loaded game and reference agent; the store is read and written here alone),
    and stored in batches every ``FILL_SECONDS`` (``progress(done, total)`` after each), so a stopped run keeps
    what it computed.  The corrections depend on the records alone: any number of workers stores the same.
    """
    if game.info.luck is None:
        return 0
    missing = store.without_luck()
    chunk = max(1, workers) * CHUNK_PER_WORKER
    batch: dict[str, list[float]] = {}
    since = time.perf_counter()
    with _valuer(registry, game, workers) as value:
        for start in range(0, len(missing), chunk):
            ids = missing[start:start + chunk]
            for match_id, found in zip(ids, value([store.record(match_id) for match_id in ids])):
                if found is not None:
                    batch[match_id] = found
            done = start + len(ids)
            if time.perf_counter() - since >= FILL_SECONDS or done == len(missing):
                store.set_luck(batch)
                batch, since = {}, time.perf_counter()
                if progress is not None:
                    progress(done, len(missing))
    return len(missing)


CHUNK_PER_WORKER = 4
"""Records read from the store per worker at a time: enough to keep each busy, few enough to hold in memory."""

Valuer = Callable[[list[Mapping[str, Any]]], list[list[float] | None]]
"""Records in, their corrections out, in order."""

_FORKED: tuple[Registry, Game] | None = None
"""What a forked worker values with: set in the parent just before the fork, inherited by the children."""


def _value_forked(record: Mapping[str, Any]) -> list[float] | None:
    """``record_luck`` in a forked worker, with the registry and game it inherited."""
    assert _FORKED is not None, "set before the workers were forked"
    return record_luck(*_FORKED, record)


@contextmanager
def _valuer(registry: Registry, game: Game, workers: int) -> Iterator[Valuer]:
    """A function valuing a list of records: in this process for one worker, else on a pool of forked ones."""
    if workers <= 1:
        yield lambda records: [record_luck(registry, game, record) for record in records]
        return
    global _FORKED
    _FORKED = (registry, game)
    # Forked, not spawned: a child needs the loaded game and reference agent (a game may be a plugin's, loaded
    # from --plugins-dir), and nothing here runs threads that a fork would cut in half.
    pool = multiprocessing.get_context("fork").Pool(workers, initializer=_plain_signals)
    try:
        yield lambda records: pool.map(_value_forked, records)
        pool.close()  # every record is valued: let the workers finish and leave
    finally:
        pool.terminate()  # after close(), only reaps; on a stop or an error, ends the workers at once
        pool.join()
        _FORKED = None


def _plain_signals() -> None:
    """In a forked worker: the default action for the signals that stop a command (the parent's handlers turn
    them into an exception, which would leave a worker stuck where the pool ends it), Ctrl-C left to the
    parent, which ends the pool, and death with the parent: a parent killed outright (``kill -9``) ends no
    pool, and its workers would value on, then each print a traceback on finding the parent's pipe broken."""
    die_with_parent()
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
