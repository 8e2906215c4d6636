"""Run a ladder: fit, choose a batch of blocks, store the choice, play it, store the results; again.

Each batch is chosen from one fit of every stored match (``arena.ladder.planner``) and recorded
before a match of it is played; its matches are then played and stored, each as it ends, by the
tournament's own loop, ``MatchPlayer`` (in this process, on a local Ray or on a cluster, as ``arena run``;
with the same start-up watch).  So the choice depends only on the store and the seed, the same on Ray as
serially, and a run killed at any moment (``kill -9`` included) leaves the store holding every chosen
match that had ended: ``--resume`` plays the rest of the chosen batch, then goes on choosing, and ends as
the uninterrupted run would have.  After every batch each entry's rating is recorded (the history).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.ladder.config import LadderConfig
from arena.ladder.field import (
    Ladder,
    LadderError,
    LadderRequestError,
    check_versions,
    open_ladder,
    read_ladder,
    start_ladder,
)
from arena.ladder.history import snapshot
from arena.ladder.planner import choose_tables, meeting_counts
from arena.ladder.standing import RETIRED, SETTLED, Standing, fit_standing, keep_verdicts
from arena.ladder.store import LadderStore
from arena.plugin_system.loading import DEFAULT_PLUGINS_DIR, load_registry
from arena.ratings.registry import BUILT_IN as BUILT_IN_METHODS
from arena.tournament.config import SCHEDULE_SEED
from arena.tournament.errors import StartupLimitError
from arena.tournament.player import MatchPlayer, StartupWatch
from arena.tournament.runner import TournamentError, entry_versions
from arena.tournament.schedule import Match, block_id, block_matches
from arena.tournament.store import DEFAULT_LEADERBOARDS


@dataclass(frozen=True, slots=True)
class LadderProgress:
    """What the live display shows after each stored batch of matches."""

    played: int  # matches this run has stored
    limit: int  # most matches it may play
    batch: int  # the batch being played
    settled: int  # active entries whose rank is settled (after the last fit)
    active: int  # active entries
    leader: str | None  # the best rated active entry


@dataclass(frozen=True, slots=True)
class LadderRunSummary:
    """What a finished run did."""

    name: str  # ladder name
    run: int  # run id
    played: int  # matches this run stored (an interrupted part included)
    limit: int  # most matches it could play
    outcome: str  # "settled", "matches" (played what was asked) or "budget" (not settled within it)
    seconds: float  # wall time of this invocation
    backend: str  # "serial" or "ray"
    workers: int  # parallel workers used
    stored: int  # matches in the store
    standing: Standing  # the active field at the end
    ladder: Ladder  # the ladder at the end


def run_ladder(
    ladder: LadderConfig | str,
    *,
    leaderboards: Path | str = DEFAULT_LEADERBOARDS,
    plugins_dir: Path | str | None = DEFAULT_PLUGINS_DIR,
    matches: int | None = None,
    until: str | None = None,
    resume: bool = False,
    workers: int | None = None,
    address: str | None = None,
    on_progress: Callable[[LadderProgress], None] | None = None,
) -> LadderRunSummary:
    """Play ladder ``ladder`` (a config, which starts it if new, or a stored ladder's name).

    ``matches`` is the most matches this run plays (whole blocks); ``until="settled"`` stops as soon as
    every active entry's rank is settled, within ``matches`` or else the config's ``budget``.  With
    ``resume`` an interrupted run is finished as it was asked.  ``LadderError`` (one line) for a run
    that cannot start.  The files (leaderboard, site, ``ladder.json``) are ``arena.leaderboard.publish.publish``'s job,
    which ``arena ladder run`` does next.
    """
    started = time.perf_counter()
    if until not in (None, SETTLED):
        raise LadderRequestError(f"--until {until}: the only stopping rule is 'settled'")
    if matches is not None and matches < 1:
        raise LadderRequestError(f"--matches {matches}: play at least one match")
    if isinstance(ladder, LadderConfig):
        store = start_ladder(ladder, leaderboards)
    else:
        store = open_ladder(leaderboards, ladder)
    with store:
        current = read_ladder(store)
        name = current.name
        run, limit, until = _the_run(store, current, matches, until, resume)
        playing = current.playing()
        if len(current.active) < current.config.seats:
            raise LadderError(f"ladder {name!r} has {len(current.active)} active entries; tables of "
                              f"{current.config.seats} need {current.config.seats}: add entries with "
                              f"'arena ladder add {name} ENTRY --plugin AGENT'")
        manager = load_registry(plugins_dir=plugins_dir)
        try:
            versions = entry_versions(playing, manager.registry)
        except TournamentError as error:
            raise LadderError(str(error)) from None
        check_versions(current, store.store.versions(), versions)  # the ladder's rule: as each entry joined
        store.store.record_versions(versions)
        if run is None:
            with store.transaction():
                run = store.start_run(limit, until)
        play = _Play(store, current, run, limit, until, on_progress)
        with MatchPlayer(playing.to_json(), plugins_dir, versions, manager, store.store, play.watch, workers=workers,
                         address=address) as player:
            outcome, standing = play.loop(player)
        with store.transaction():
            store.finish_run(run, outcome)
        played = store.run_matches(run)
        stored = store.store.count()
    return LadderRunSummary(name=name, run=run, played=played, limit=limit, outcome=outcome,
                            seconds=time.perf_counter() - started, backend=player.backend,
                            workers=player.workers, stored=stored, standing=standing, ladder=current)


def _the_run(store: LadderStore, ladder: Ladder, matches: int | None, until: str | None,
             resume: bool) -> tuple[int | None, int, str | None]:
    """The interrupted run to finish (``resume``), or the request of a new one: (run id or None, limit, until)."""
    runs = store.runs()
    last = runs[-1] if runs else None
    seats = ladder.config.seats
    if last is not None and not last.finished:
        done = store.run_matches(last.id)
        if not resume:
            raise LadderRequestError(f"run {last.id} of ladder {ladder.name!r} was interrupted after {done} of at most "
                                     f"{last.matches} matches; add --resume to finish it")
        return last.id, last.matches, last.until
    if resume:
        raise LadderRequestError(f"ladder {ladder.name!r} has no interrupted run to resume; run it without --resume")
    if matches is None and until is None:
        raise LadderRequestError("say how long to play: --matches N, --until settled, or both (--until settled "
                                 "stops within --matches, else within the config's budget of "
                                 f"{ladder.settings.budget})")
    asked = matches if matches is not None else ladder.settings.budget
    return None, max(seats, asked // seats * seats), until


class _Play:
    """The loop of one run: finish the chosen blocks, fit, record, stop or choose the next batch."""

    def __init__(self, store: LadderStore, ladder: Ladder, run: int, limit: int, until: str | None,
                 on_progress: Callable[[LadderProgress], None] | None) -> None:
        self.store = store
        self.ladder = ladder
        self.run = run
        self.limit = limit
        self.until = until
        self.on_progress = on_progress
        config = ladder.config.tournament
        self.seats = ladder.config.seats
        self.seed = config.seed if config.seed is not None else SCHEDULE_SEED
        self.secret = None if config.public_deals else store.store.secret
        self.watch = StartupWatch(config.max_startup_faults)
        self.watch.seen(row.to_json() for row in store.store.rows())  # the start-up streaks count every stored match
        self.settled = 0
        self.leader: str | None = None

    def loop(self, player: MatchPlayer) -> tuple[str, Standing]:
        """Play until the run's rule says stop; its outcome and the last standing."""
        settings = self.ladder.settings
        while True:
            self._finish_chosen(player)
            standing = self._fit_and_record()
            played = self.store.run_matches(self.run)
            if self.until == SETTLED and standing.settled(settings.level, settings.min_blocks):
                return SETTLED, standing
            if played + self.seats > self.limit:
                return ("budget" if self.until == SETTLED else "matches"), standing
            self._choose(standing, min(settings.batch_blocks, (self.limit - played) // self.seats))

    def _finish_chosen(self, player: MatchPlayer) -> None:
        """Play the chosen matches the store lacks (after an interruption, or the batch just chosen)."""
        planned = self.store.planned_count() * self.seats
        done = self.store.store.done_indices()  # not always a prefix: matches are stored as they end
        missing = set(range(planned)) - done
        if not missing:
            return
        matches: list[Match] = []
        active = set(self.ladder.active)
        for block in self.store.planned(since=min(missing) // self.seats):
            if not active.issuperset(block.entries):  # an entry retired since (it could not start): never played
                continue
            # A ladder table is its own group: its number keys the seating and seeds and names its ids
            # (``t0003-b05-r1``), exactly as a tournament table plays a block; a block is ``seats`` places.
            matches += [match for match in block_matches(self.seed, block.table_idx, block.table_idx, block.entries,
                                                         block.block, block.number * self.seats, self.secret)
                        if match.index in missing]
        # Whether a local Ray is worth starting is judged on what is surely left: the rest of the run for
        # --matches, only the chosen batch for --until settled (its budget is a bound, not a forecast).
        left = self.limit - self.store.run_matches(self.run) if self.until is None else len(matches)
        try:
            for _rows in player.play(matches, len(matches), left, self.store.planned_count() * self.seats):
                self._report()
        except StartupLimitError as error:  # an entry that cannot start
            raise LadderError(str(error), entry=error.entry, cause=error.cause) from None
        except TournamentError as error:  # a worker with another version
            raise LadderError(str(error)) from None

    def _report(self) -> None:
        if self.on_progress is not None:
            self.on_progress(LadderProgress(played=self.store.run_matches(self.run), limit=self.limit,
                                            batch=self.store.last_batch(), settled=self.settled,
                                            active=len(self.ladder.active), leader=self.leader))

    def _fit_and_record(self) -> Standing:
        """Fit every stored match; record the ratings after the last batch if not yet recorded."""
        settings = self.ladder.settings
        outcomes = self.store.store.outcomes()
        kept = self.store.verdicts()
        try:
            standing, table = fit_standing(outcomes, self.ladder.active, settings.method, kept)
        except Exception as error:  # a trusted plugin's method may raise anything; arena's own raising is a bug
            if settings.method in BUILT_IN_METHODS:
                raise
            message = " ".join(str(error).split())[:300]
            raise LadderError(f"rating method {settings.method!r} failed: {type(error).__name__}"
                              f"{': ' + message if message else ''}; the ladder schedules and stops by it, so "
                              "nothing more is played (every match so far is stored): fix the plugin, or set "
                              "another [ladder] method in a new ladder") from None
        # A verdict is kept from the first fit that reaches it (the test's bounds hold for its first crossing);
        # a resumed run refits the same stored matches at the same batch, so it keeps the same verdicts.
        standing = keep_verdicts(standing, settings.level, settings.min_blocks)
        reached = {pair: verdict for pair, verdict in standing.reached.items() if pair not in kept}
        batch = self.store.last_batch()
        history = bool(batch) and not self.store.has_history(batch)
        if history or reached:
            with self.store.transaction():
                self.store.add_verdicts(batch, reached)
                if history:
                    # A retired entry gets one retired point, not one every batch for ever: a served ladder
                    # retires an entry at every new version, and each would add a row to every later batch.
                    retired = [entry for entry in self.ladder.entries if not entry.active]
                    done = self.store.with_status(retired, RETIRED)
                    entries = [entry for entry in self.ladder.entries if entry.name not in done]
                    self.store.add_history(snapshot(batch, self.run, len(outcomes), entries, standing,
                                                    table, settings.level, settings.min_blocks))
        self.settled = sum(standing.status(name, settings.level, settings.min_blocks) == SETTLED
                           for name in standing.active)
        order = standing.order()
        self.leader = order[0] if order and order[0] in standing.ratings else None
        self._report()
        return standing

    def _choose(self, standing: Standing, count: int) -> None:
        """Choose and record the next batch of ``count`` blocks (one transaction: all of it, or none)."""
        settings = self.ladder.settings
        planned = self.store.planned()
        run_blocks: dict[str, int] = {}
        for block in planned:
            if block.run == self.run:
                for entry in block.entries:
                    run_blocks[entry] = run_blocks.get(entry, 0) + 1
        batch = self.store.last_batch() + 1
        choices = choose_tables(
            standing, self.seats, count, seed=self.seed, batch=batch, run_blocks=run_blocks,
            run_tables=sum(block.run == self.run for block in planned),
            meetings=meeting_counts([block.entries for block in planned]),
            fair_share=settings.fair_share, min_blocks=settings.min_blocks, level=settings.level,
        )
        with self.store.transaction():
            for choice in choices:
                table = self.store.table_index(choice.entries)
                number = self.store.next_block(table)
                self.store.plan(block_id(table, number), table, number, batch, self.run, choice.focus, choice.reason)


def summary_json(summary: LadderRunSummary) -> dict[str, Any]:
    """The ``arena ladder run --json`` output: the run, and each active entry's standing."""
    settings = summary.ladder.settings
    standing = summary.standing
    return {
        "ladder": summary.name, "run": summary.run, "outcome": summary.outcome, "played": summary.played,
        "limit": summary.limit, "stored": summary.stored, "seconds": round(summary.seconds, 3),
        "backend": summary.backend, "workers": summary.workers,
        "standing": [
            {"rank": rank, "entry": name, "rating": standing.ratings.get(name),
             "interval": list(standing.bounds[name]) if name in standing.bounds else None,
             "blocks": standing.blocks.get(name, 0), "confidence": standing.confidence(name, settings.level),
             "status": standing.status(name, settings.level, settings.min_blocks)}
            for rank, name in enumerate(standing.order(), start=1)
        ],
    }
