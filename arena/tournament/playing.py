"""Playing scheduled matches from plain data, in whichever process plays them (the driver or a Ray worker).

Work is described by plain data (the config as JSON, match ids and seeds: never live plugin
objects); each process loads the plugins itself, once, and keeps them with its zygotes for
isolated agents (``Worker``), so no plugin code runs in the process's own interpreter (see
docs/security.md).  The batches a run hands out are consecutive runs of the schedule
(``batches``), sized by ``batch_size``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar

from arena.plugin_system.loading import Registry, load_registry
from arena.referee import AgentHost, Limits, RefereeError, SeatPlan, play_match
from arena.tournament.errors import TournamentError
from arena.tournament.luck import record_luck
from arena.tournament.schedule import Match
from arena.tournament.store import pack_record

MAX_BATCH = 64
"""Most matches in one batch: enough to make the cost of handing out a batch (a fraction of a
millisecond on a Ray worker) small next to the matches, few enough that the workers finish together."""

PART_SECONDS = 0.05
"""A Ray worker sends what it has played back to the driver, to be stored, at least this often (and at the end of
its batch): every slower match as soon as it ends, quicker ones together, since each part costs about half a
millisecond of wall time (benchmarks/tournament.py).  So a stopped run loses at most the matches being played and
those its workers finished in the last ``PART_SECONDS``.  The driver stores the matches it plays one by one."""

BATCHES_PER_WORKER = 2
"""Batch size is what is left to play over this many batches per worker (at most ``MAX_BATCH``): batches
shrink towards the end of a run, so that the workers finish together instead of one waiting on the
other's last big batch."""


def batch_size(remaining: int, workers: int) -> int:
    """Matches in the next batch when ``remaining`` are left: a share of what is left, at most ``MAX_BATCH``."""
    return max(1, min(MAX_BATCH, remaining // (workers * BATCHES_PER_WORKER)))


def batches(matches: Iterator[Match], pending: int, workers: int) -> Iterator[list[dict[str, Any]]]:
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


class Worker:
    """What one process keeps between batches: the registry and the zygotes of the plugins' agents."""

    cached: ClassVar[dict[str | None, Worker]] = {}

    def __init__(self, plugins_dir: str | None) -> None:
        self.registry: Registry = load_registry(plugins_dir=plugins_dir).registry
        self.host = AgentHost()

    @classmethod
    def for_plugins(cls, plugins_dir: str | None) -> Worker:
        """The process's worker for ``plugins_dir``, made on first use and kept."""
        if plugins_dir not in cls.cached:
            cls.cached[plugins_dir] = cls(plugins_dir)
        return cls.cached[plugins_dir]


def play_each(context: Mapping[str, Any], batch: Sequence[Mapping[str, Any]]) -> Iterator[dict[str, Any]]:
    """Play a batch of matches described by plain data, yielding each one's store row as soon as it is played."""
    worker = Worker.for_plugins(context["plugins_dir"])
    for match in batch:
        yield play_scheduled_match(context["config"], worker.registry, match, worker.host,
                                   luck=context.get("luck", False))


def play_in_parts(context: Mapping[str, Any], batch: Sequence[Mapping[str, Any]],
                  seconds: float = PART_SECONDS) -> Iterator[list[dict[str, Any]]]:
    """Play a batch, yielding the rows played so far whenever ``seconds`` have passed since the last part (and
    the last rows at the end): a match slower than that is a part of its own, quick ones go together."""
    part: list[dict[str, Any]] = []
    since = time.perf_counter()
    for row in play_each(context, batch):
        part.append(row)
        if time.perf_counter() - since >= seconds:
            yield part
            part, since = [], time.perf_counter()
    if part:
        yield part


def play_scheduled_match(
    config: Mapping[str, Any], registry: Registry, match: Mapping[str, Any], host: AgentHost | None = None,
    luck: bool = False,
) -> dict[str, Any]:
    """Play one scheduled match (config and match as JSON data) and return its store row (record packed).

    With ``luck`` (a configured rating method subtracts it) the row holds the match's luck correction, computed
    here from the record at hand (``arena.tournament.luck``), or None for a game that declares no chance to value.
    """
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
            game, config["game_options"], match["deal_seed"], seats,
            match_id=match["id"], limits=Limits(**config["limits"]), isolation=config["isolation"], host=host,
        )
    except RefereeError as error:
        raise TournamentError(f"match {match['id']}: {error}") from None
    record = result.record
    record["deals"] = "public" if config["seed"] is not None else "secret"  # see docs/records.md
    # Each decision's time, for the site's match pages and time-per-move columns (microseconds are plenty).
    record["move_seconds"] = [[round(seconds, 6) for seconds in times] for times in result.move_seconds]
    return {
        "idx": match["index"], "id": match["id"], "block_id": match["block_id"], "table_idx": match["table"],
        "block": match["block"], "rotation": match["rotation"], "deal_seed": match["deal_seed"],
        "agents": list(match["seats"]), "scores": record["result"]["scores"], "ranks": record["result"]["ranks"],
        "faults": record["faults"], "think_seconds": result.think_seconds,
        "wall_seconds": time.perf_counter() - started, "record": pack_record(record),
        "versions": [plan.spec.version for plan in seats],  # as this worker has them; the driver compares
        "logs": {seat: log for seat, log in enumerate(result.logs) if log},  # private: stored apart from the record
        "luck": record_luck(registry, game, record) if luck else None,
    }
