"""Each match's luck correction, computed where its record is at hand, for the rating methods that subtract it.

A run whose config lists such a method (``MethodSpec.luck``) computes the correction in the process that played
the match, right after it (``arena.ratings.luck.match_luck``: it costs about 10 ms of CPU per 3-player Lovat match,
80 ms with 4 players, 0.7 s with 5), and the store keeps it beside the result, so that resuming, ``arena publish``
and rating again read it back.  ``fill_luck`` computes it for matches stored without it (``arena luck NAME``).

The reference agent that values the chance is the game's choice (``GameInfo.luck``); it plays thousands of
decisions per match in this process, so it must be arena's own code (``is_builtin``), never a plugin's.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from arena.games.base import Game, GameError
from arena.plugin_system.loading import Registry, is_builtin
from arena.ratings.luck import Policy, match_luck
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
              progress: Callable[[int, int], None] | None = None) -> int:
    """Compute and store the luck correction of every stored match without one; how many were computed.

    Each is computed from the match's stored record, in schedule order, and stored in batches every
    ``FILL_SECONDS`` (``progress(done, total)`` after each), so a stopped run keeps what it computed.
    """
    if game.info.luck is None:
        return 0
    missing = store.without_luck()
    batch: dict[str, list[float]] = {}
    since = time.perf_counter()
    for done, match_id in enumerate(missing, start=1):
        found = record_luck(registry, game, store.record(match_id))
        if found is not None:
            batch[match_id] = found
        if time.perf_counter() - since >= FILL_SECONDS or done == len(missing):
            store.set_luck(batch)
            batch, since = {}, time.perf_counter()
            if progress is not None:
                progress(done, len(missing))
    return len(missing)
