"""Build a tournament's site in its folder: the front page, the match list, the match viewer and their data."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.games.base import Game
from arena.leaderboard.build import Leaderboard
from arena.leaderboard.head_to_head import head_to_head
from arena.ratings.data import MatchOutcome
from arena.site.chunks import LIST_CHUNK, MATCH_CHUNK, agents_in, write_atomic, write_list_chunks, write_match_chunks
from arena.site.front import front_page
from arena.site.pages import copy_assets, match_page, matches_page
from arena.site.stats import seat_results
from arena.tournament.store import MatchRow, Store

PAGE_SIZE = 100
"""Rows per page of the match list."""

PAGES = ("index.html", "matches.html", "match.html")
"""The site's pages, in the tournament's folder beside its data folder."""


def _utc(timestamp: float) -> str:
    return datetime.datetime.fromtimestamp(timestamp, datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")


def build_site(folder: Path, title: str, config: Mapping[str, Any], boards: Mapping[str, Leaderboard],
               rows: Sequence[MatchRow], outcomes: Sequence[MatchOutcome], store: Store, game: Game | None,
               versions: Mapping[str, Mapping[str, str]], history: Mapping[str, Any],
               progress: Callable[[int, int], None] | None = None,
               ladder: Mapping[str, Any] | None = None) -> dict[str, Path]:
    """Write the site into ``folder`` and return each page's path.

    ``rows`` and ``outcomes`` are the stored matches in schedule order; ``store`` is open to read their
    records; ``game`` (None if not installed) replays them for the match pages; ``history`` is
    ``arena.site.stats.rating_history`` output; ``progress(done, total)`` follows the match chunks; ``ladder``
    (``arena.ladder.ladder_history`` output, for a ladder's store) adds the front page's ladder section.
    """
    folder.mkdir(parents=True, exist_ok=True)
    times, levels = write_match_chunks(folder, rows, store, game, progress)
    agents = agents_in(rows)
    summary = write_list_chunks(folder, rows, agents)
    when = {"Results stored": _utc(store.path.stat().st_mtime),
            "Site built": _utc(datetime.datetime.now(datetime.UTC).timestamp())}
    pages = {
        "index.html": front_page(title, boards, head_to_head(outcomes), seat_results(rows), times, levels, history,
                                 config, versions, when, ladder),
        "matches.html": matches_page(title, {"agents": agents, "chunks": summary, "page_size": PAGE_SIZE,
                                             "chunk_rows": LIST_CHUNK}),
        "match.html": match_page(title, {"chunk_size": MATCH_CHUNK,
                                         "first": rows[0].idx if rows else 0, "last": rows[-1].idx if rows else -1,
                                         "faces": _faces(game)}),
    }
    written = {}
    for name, text in pages.items():
        write_atomic(folder / name, text)
        written[name] = folder / name
    copy_assets(folder)
    return written


def _faces(game: Game | None) -> dict[str, Any] | None:
    """How the game's cards look, for the match viewer's drawing (None: the game is not installed)."""
    return None if game is None else {card: face.to_json() for card, face in game.card_faces().items()}
