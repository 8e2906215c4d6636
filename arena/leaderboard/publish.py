"""Turn a tournament's stored results into leaderboards: rated tables, files and terminal output.

``rate_stored`` only reads (``arena leaderboard``); ``publish`` also writes the files under
``leaderboards/<name>/`` (``arena run`` when it finishes, and ``arena publish``).  Every view carries each
entry's version and flags an entry with faults in more than the tournament's ``fault_share`` of its matches.
"""

from __future__ import annotations

import dataclasses
import json
import shlex
import sys
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, cast

from rich import box
from rich.console import Console
from rich.table import Table

from arena.games.catalog import installed_game, luck_spec, score_spec
from arena.ladder.history import HISTORY_FILE as LADDER_FILE
from arena.ladder.history import stored_history, write_history
from arena.ladder.store import is_ladder, retired_names
from arena.leaderboard import Leaderboard, build_leaderboard, head_to_head, render_rich, write_leaderboard_files
from arena.leaderboard.build import set_apart
from arena.leaderboard.reading import subtracted_note
from arena.leaderboard.terminal import format_number, rating_digits
from arena.plugin_system.loading import DEFAULT_PLUGINS_DIR
from arena.ratings.data import MatchOutcome
from arena.ratings.registry import BUILT_IN as BUILT_IN_METHODS
from arena.ratings.registry import method_spec, needs_luck
from arena.site import build_site
from arena.site.chunks import write_atomic
from arena.site.stats import history_method, rating_history
from arena.tournament.config import DEFAULT_FAULT_SHARE
from arena.tournament.store import DEFAULT_LEADERBOARDS, MatchRow, Store, StoreError, StoreRequestError, store_path

RATINGS_FILE = "ratings.json"
"""Every configured method's leaderboard side by side, beside the default method's files."""

HISTORY_FILE = "history.json"
"""The rating history the site's chart draws (``arena.site.stats.rating_history``)."""


class RatedConfig(Protocol):
    """What rating and publishing read of a tournament's config: a ``TournamentConfig``, or ``StoredConfig``."""

    @property
    def name(self) -> str:
        """The tournament's name (its folder under the leaderboards)."""

    @property
    def game(self) -> str:
        """The game played."""

    @property
    def game_options(self) -> Mapping[str, Any]:
        """The game's options (the score's divisor may be one)."""

    @property
    def ratings(self) -> Sequence[str]:
        """The configured rating methods, the default first."""

    @property
    def fault_share(self) -> float:
        """Entries with faults in more than this share of their matches are flagged."""

    @property
    def seed(self) -> int | None:
        """The public seed, or None for secret deals."""

    def trusted_entries(self) -> frozenset[str]:
        """Entries run ``trusted`` (unconfined), which the leaderboards mark."""


@dataclass(frozen=True, slots=True)
class StoredConfig:
    """A stored tournament's config as read back from its store (``stored_config``), for rating it again."""

    name: str
    game: str
    game_options: Mapping[str, Any]
    ratings: tuple[str, ...]
    fault_share: float = DEFAULT_FAULT_SHARE
    seed: int | None = None
    trusted: frozenset[str] = frozenset()

    def trusted_entries(self) -> frozenset[str]:
        """Entries the stored config ran ``trusted``."""
        return self.trusted


@dataclass(frozen=True, slots=True)
class Published:
    """A tournament's leaderboards, one per rating method, the first being the default."""

    name: str  # tournament name
    game: str  # the game played (names the score's unit)
    leaderboards: Path  # the folder of tournament folders it was read from
    boards: Mapping[str, Leaderboard]  # method -> leaderboard, in the config's order
    files: Mapping[str, Path]  # file name -> path written
    matches: int  # matches rated
    public_seed: int | None = None  # the config's seed when its deals were public (computable from it)

    @property
    def default(self) -> Leaderboard:
        """The first configured method's leaderboard."""
        return next(iter(self.boards.values()))

    def print(self, console: Console) -> None:
        """The default leaderboard in full, then every method's rating side by side."""
        console.print(render_rich(self.default, title=f"{self.name}: {self.default.method}"))
        if len(self.boards) > 1:
            where = "" if self.leaderboards == DEFAULT_LEADERBOARDS else f" --leaderboards {self.leaderboards}"
            console.print(side_by_side(self.boards, f"{self.name}{where}", self.game))
        if self.public_seed is not None:
            console.print(public_deals_note(self.public_seed))
        if self.files:
            console.print(f"leaderboard files: {', '.join(str(path) for path in self.files.values())}")


def public_deals_note(seed: int) -> str:
    """The caption of a tournament whose config set ``seed``: anyone with the config can compute its deals."""
    return f"public deals: every deal follows from the config's seed ({seed})"


def score_options(game: str, game_options: Mapping[str, Any]) -> dict[str, Any]:
    """Options for the score method: the score per what the game declares (``GameInfo.score``), e.g. per deal,
    and the unit it is in, so that the scale names the game's own currency."""
    spec = score_spec(game)
    divisor = spec.divisor(game_options)
    if divisor:
        return {"divisor": lambda outcome, divisor=divisor: divisor, "unit": spec.label}
    return {"unit": f"{spec.unit} per game"}


def luck_options(game: str) -> dict[str, Any]:
    """Options for a method that subtracts the luck corrections: what the game's correction values, for its note
    (nothing for a game that declares no chance to value: no match then carries a correction)."""
    spec = luck_spec(game)
    return {} if spec is None else {"chance": f"{spec.text} valued by {spec.reference}'s play-outs"}


def check_luck(config: RatedConfig, leaderboards: Path | str, outcomes: Sequence[MatchOutcome],
               methods: Sequence[str]) -> None:
    """Refuse in one line to rate with a method that subtracts the luck corrections matches stored without one,
    naming the command that computes them (a run computes them only when its config lists such a method)."""
    if not needs_luck(methods) or luck_spec(config.game) is None:
        return
    missing = sum(outcome.luck is None for outcome in outcomes)
    if missing:
        where = [] if Path(leaderboards) == DEFAULT_LEADERBOARDS else ["--leaderboards", str(leaderboards)]
        raise StoreRequestError(
            f"{store_path(leaderboards, config.name)}: {missing} of {len(outcomes)} stored matches have no luck "
            "correction, which the luck method subtracts (their run's config listed no method that needs it); "
            f"compute them with '{shlex.join(['arena', 'luck', config.name, *where])}', then rate again")


def method_options(method: str, game: str, game_options: Mapping[str, Any], bootstrap: int = 0) -> dict[str, Any]:
    """Options for one rating method: the score's per-deal divisor, what the luck correction values, or a block
    bootstrap."""
    spec = method_spec(method)
    if spec.game_score:
        return score_options(game, game_options)
    if spec.luck:
        return luck_options(game)
    if spec.bootstraps and bootstrap:
        return {"bootstrap": bootstrap}
    return {}


class NothingRated(Exception):
    """Every rating method asked for failed (each a plugin's: arena's own never fails quietly); the message names
    each method and its error, in one line."""


def rate(outcomes: Sequence[MatchOutcome], methods: Sequence[str], game: str,
         game_options: Mapping[str, Any], bootstrap: int = 0) -> dict[str, Leaderboard]:
    """One leaderboard per method, in the given order.

    A plugin's method that raises is left out with one line on stderr, and the others are rated (as a plugin's
    view that raises skips its own file: ``arena.leaderboard.views``); ``NothingRated`` when none is left, whose
    one line says why each failed (the caller shows it; nothing else is printed then).
    """
    boards: dict[str, Leaderboard] = {}
    failed: dict[str, Exception] = {}
    score = score_spec(game)
    for method in methods:
        try:
            board = build_leaderboard(outcomes, method, **method_options(method, game, game_options, bootstrap))
            boards[method] = board.per_score(score.label, score.divisor(game_options))
        except Exception as error:  # a plugin's method may raise anything; arena's own raising is a bug to see
            if method in BUILT_IN_METHODS:
                raise
            failed[method] = error
    if not boards:
        reasons = "; ".join(f"{method!r} ({error_text(failure)})" for method, failure in failed.items())
        raise NothingRated(f"no leaderboard: every rating method asked for failed: {reasons}")
    for method, failure in failed.items():
        method_failed(method, "left out of the leaderboards", failure)
    return boards


def error_text(error: Exception) -> str:
    """A plugin's exception in one line: its type and at most 300 characters of its message."""
    message = " ".join(str(error).split())[:300]
    return f"{type(error).__name__}{': ' + message if message else ''}"


def method_failed(method: str, what: str, error: Exception) -> None:
    """One line on stderr: a plugin's rating ``method`` raised ``error``, so ``what`` happened instead."""
    print(f"arena: rating method {method!r} failed, {what}: {error_text(error)}", file=sys.stderr)


def history_of(outcomes: Sequence[MatchOutcome], methods: Sequence[str], game: str,
               game_options: Mapping[str, Any]) -> dict[str, Any]:
    """The rating history (``rating_history``) with the method ``history_method`` picks of ``methods``; a plugin's
    method that raises on it is passed over (one line) for the next pick."""
    method = history_method(methods)
    try:
        return rating_history(outcomes, method, method_options(method, game, game_options))
    except Exception as error:  # as in ``rate``
        if method in BUILT_IN_METHODS:
            raise
        method_failed(method, "its rating history not drawn", error)
        return history_of(outcomes, [other for other in methods if other != method], game, game_options)


def fault_flags(rows: Iterable[MatchRow], share: float) -> set[str]:
    """Entries that faulted in more than ``share`` of their matches (a match with several faults counts once)."""
    games: dict[str, int] = {}
    faulted: dict[str, int] = {}
    for row in rows:
        seats = {int(fault["seat"]) for fault in row.faults}
        for seat, entry in enumerate(row.agents):
            games[entry] = games.get(entry, 0) + 1
            faulted[entry] = faulted.get(entry, 0) + (seat in seats)
    return {entry for entry, count in faulted.items() if count > share * games[entry]}


def annotate(board: Leaderboard, versions: Mapping[str, Mapping[str, str]], flagged: set[str]) -> Leaderboard:
    """The leaderboard with each row's entry version and fault flag filled in."""
    rows = tuple(dataclasses.replace(row, version=versions.get(row.agent, {}).get("version", ""),
                                     flagged=row.agent in flagged) for row in board.rows)
    return dataclasses.replace(board, rows=rows)


def rate_stored(config: RatedConfig, leaderboards: Path | str, methods: Sequence[str] | None = None,
                bootstrap: int = 0) -> tuple[Published, list[MatchOutcome]]:
    """Rate the stored results without writing anything; also return the outcomes rated.

    ``config`` is a ``TournamentConfig`` or a ``StoredConfig`` read back (``RatedConfig``); ``methods``
    overrides its ``ratings``;
    ``bootstrap`` > 0 takes Elo and Plackett-Luce intervals from that many bootstrap replicates over
    duplicate blocks.
    """
    with Store.open_readonly(store_path(leaderboards, config.name)) as store:
        rows = list(store.rows())
        versions = store.versions()
        scheduled = scheduled_total(store)
        retired = retired_names(store.db)
    return rate_rows(config, leaderboards, rows, versions, methods, bootstrap, scheduled, retired)


def scheduled_total(store: Store) -> int | None:
    """The number of matches the stored tournament scheduled (None for a store that does not say, e.g. a ladder's)."""
    total = store.meta("total")
    return total if isinstance(total, int) and not isinstance(total, bool) and total >= 0 else None


def rate_rows(config: RatedConfig, leaderboards: Path | str, rows: Sequence[MatchRow],
              versions: Mapping[str, Mapping[str, str]], methods: Sequence[str] | None = None,
              bootstrap: int = 0, scheduled: int | None = None,
              retired: Collection[str] = ()) -> tuple[Published, list[MatchOutcome]]:
    """``rate_stored`` on the rows and entry versions already read from the tournament's store (which scheduled
    ``scheduled`` matches, where known: the leaderboards say when fewer were played).  A ladder's ``retired``
    entries are listed apart and unranked (``set_apart``): they play no more.

    ``StoreError`` when a row seats an entry the store holds no version of (where it holds versions): every
    entry the runner seats is recorded first, so such a row was written by something else and must not be rated.
    """
    for row in rows if versions else ():  # a store from before versions were kept has none to check against
        strangers = [agent for agent in row.agents if agent not in versions]
        if strangers:
            raise StoreError(f"{store_path(leaderboards, config.name)}: match {row.id!r} seats {strangers[0]!r}, an "
                             "entry the store holds no version of: the store was altered, so it is not rated")
    outcomes = [row.outcome() for row in rows]
    flagged = fault_flags(rows, config.fault_share)
    chosen = list(methods or config.ratings)
    check_luck(config, leaderboards, outcomes, chosen)
    trusted = config.trusted_entries()
    boards = {method: set_apart(dataclasses.replace(annotate(board, versions, flagged), trusted=trusted,
                                                    scheduled=scheduled), retired)
              for method, board in rate(outcomes, chosen, config.game, config.game_options, bootstrap).items()}
    published = Published(name=config.name, game=config.game, leaderboards=Path(leaderboards), boards=boards,
                          files={}, matches=len(outcomes), public_seed=config.seed)
    return published, outcomes


def publish(config: RatedConfig, leaderboards: Path | str, methods: Sequence[str] | None = None,
            bootstrap: int = 0, plugins_dir: Path | str | None = DEFAULT_PLUGINS_DIR,
            progress: Callable[[int, int], None] | None = None) -> Published:
    """Rate the stored results (``rate_stored``) and write ``leaderboards/<name>/``: the first method's files
    (Markdown, CSV, JSON), every method's ratings (``ratings.json``), the rating history (``history.json``)
    and the site (``arena.site``, with a ladder section for a ladder's store, whose history also goes to
    ``ladder.json``; its match pages replay the records with the game from ``plugins_dir``).
    ``progress(done, total)`` follows the site's match chunks.
    """
    folder = Path(leaderboards) / config.name
    # One read of the store: the site shows exactly the matches rated (the rows are read once, not per step).
    with Store.open_readonly(store_path(leaderboards, config.name)) as store:
        rows = list(store.rows())
        versions = store.versions()
        published, outcomes = rate_rows(config, leaderboards, rows, versions, methods, bootstrap,
                                        scheduled_total(store), retired_names(store.db))
        # The site's title is the name and the game; its config section says whether the deals are public.
        title = f"{config.name} ({config.game})"
        deals = "" if published.public_seed is None else f"; {public_deals_note(published.public_seed)}"
        history = history_of(outcomes, list(published.boards), config.game, config.game_options)
        ladder = stored_history(store, config.name, recent=True) if is_ladder(store.db) else None
        # The site first, then the leaderboard files: a reader that goes by leaderboard.json's match count (a
        # served competition's pages link the matches it counts) then always finds them in the site.
        pages = build_site(folder, title, store.meta("config") or {}, published.boards, rows, outcomes, store,
                           installed_game(config.game, plugins_dir), versions, history, progress, ladder)
        files = write_leaderboard_files(published.default, head_to_head(outcomes), folder, title=f"{title}{deals}",
                                        page=False)
        ratings_path = folder / RATINGS_FILE
        write_atomic(ratings_path, json.dumps({method: board.to_json() for method, board in published.boards.items()},
                                              indent=1))  # readers (a site, a script) never see half a file
        history_path = folder / HISTORY_FILE
        write_atomic(history_path, json.dumps(history, indent=1, allow_nan=False))
    # A ladder's ladder.json is written from the same read as its site, so the two never disagree.
    ladder_files = {} if ladder is None else {LADDER_FILE: write_history(leaderboards, config.name, ladder)}
    return dataclasses.replace(published, files={**files, RATINGS_FILE: ratings_path, HISTORY_FILE: history_path,
                                                 **ladder_files, **pages})


def side_by_side(boards: Mapping[str, Leaderboard], name: str, game: str) -> Table:
    """Each agent's rating under every method, in the default method's order, a ladder's retired entries last
    (intervals: one method at a time).

    ``name`` is the tournament as ``arena leaderboard`` takes it (with ``--leaderboards DIR`` when not the default).
    """
    notes = [note for board in boards.values() if (note := subtracted_note(board))]
    table = Table(title="Ratings by method", box=box.SIMPLE_HEAD, caption_justify="left",
                  caption="\n".join([f"each method's intervals: arena leaderboard {name} --method METHOD", *notes]))
    table.add_column("agent", overflow="fold")
    for method, board in boards.items():
        table.add_column(f"{method}\n{_short_scale(board.method, game)}", justify="right")
    first = next(iter(boards.values()))
    lookup = {method: {row.agent: row for row in (*board.rows, *board.retired)} for method, board in boards.items()}
    for agent in (*first.agents, *(row.agent for row in first.retired)):
        rows = [lookup[method].get(agent) for method in boards]
        retired = " (retired)" if any(row.agent == agent for row in first.retired) else ""
        table.add_row(f"{agent}{retired}", *("-" if row is None else format_number(row.rating, rating_digits(method))
                               for method, row in zip(boards, rows)))
    return table


def _short_scale(method: str, game: str) -> str:
    return method_spec(method).column_label(score_spec(game).label)  # the game's unit: see score_options


def summary_json(config: RatedConfig, summary: Any, published: Published) -> dict[str, Any]:
    """The ``arena run --json`` output."""
    return {
        "tournament": config.name,
        "game": config.game,
        "matches": summary.total,
        "played": summary.played,
        "seconds": round(summary.seconds, 3),
        "backend": summary.backend,
        "workers": summary.workers,
        "store": str(summary.store),
        "changed": {name: list(changes) for name, changes in summary.changed.items()},
        "deals": "public" if published.public_seed is not None else "secret",
        "leaderboards": {method: board.to_json()["rows"] for method, board in published.boards.items()},
        "files": {name: str(path) for name, path in published.files.items()},
    }


def stored_config(leaderboards: Path | str, name: str) -> dict[str, Any]:
    """The config a stored tournament was started with (JSON)."""
    with Store.open_readonly(store_path(leaderboards, name)) as store:
        return cast(dict[str, Any], store.meta("config"))
