"""Leaderboard views by name: each is one file a published leaderboard writes, and how it is written.

A ``View`` carries what publishing needs of it (its file name, whether it is the one-page card that only a
folder without the site gets), so nothing else names the files.  The built-ins are Markdown, CSV, JSON and the
HTML card (``arena.leaderboard.files``); ``register_view`` adds one, as a trusted plugin does through
``arena_register_views`` (``arena.plugin_system.extensions``), and every publish from then on writes it too.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from arena.leaderboard.build import Leaderboard
from arena.leaderboard.files import to_csv, to_html, to_json, to_markdown
from arena.leaderboard.head_to_head import HeadToHead

Render = Callable[[Leaderboard, HeadToHead, str], str]
"""(leaderboard, head-to-head records, title) -> the file's text."""


@dataclass(frozen=True, slots=True)
class View:
    """One leaderboard view: a file written beside the tournament's store."""

    name: str  # registry name: "markdown", also what a plugin's view is refused under if taken
    file_name: str  # the file it writes in the tournament's folder: "leaderboard.md"
    render: Render  # its text
    page: bool = False  # the one-page HTML card: not written where the whole site stands (``arena publish``)


_VIEWS: dict[str, View] = {
    view.name: view
    for view in (
        View("markdown", "leaderboard.md", lambda board, _pairs, title: to_markdown(board, title)),
        View("csv", "leaderboard.csv", lambda board, _pairs, _title: to_csv(board)),
        View("json", "leaderboard.json", to_json),
        View("page", "index.html", to_html, page=True),
    )
}

FILE_NAMES: tuple[str, ...] = tuple(view.file_name for view in _VIEWS.values())
"""The files the built-in views write."""
BUILT_IN = frozenset(_VIEWS)
"""The names of arena's own views: any other is a plugin's, whose failure skips its file only."""


def register_view(view: View) -> View:
    """Add a leaderboard view (e.g. from a trusted plugin); ``ValueError`` if its name or file is taken."""
    if view.name in _VIEWS:
        raise ValueError(f"leaderboard view {view.name!r} is already registered; give the new view another name")
    taken = {other.file_name: other.name for other in _VIEWS.values()}
    if view.file_name in taken or "/" in view.file_name or view.file_name.startswith("."):
        raise ValueError(f"leaderboard view {view.name!r}: file {view.file_name!r} is taken or not a plain file "
                         f"name (taken: {', '.join(sorted(taken))})")
    _VIEWS[view.name] = view
    return view


def views() -> tuple[View, ...]:
    """Every registered view, built-ins first."""
    return tuple(_VIEWS.values())


def write_leaderboard_files(
    leaderboard: Leaderboard, head_to_head: HeadToHead, directory: str | Path, title: str, page: bool = True
) -> dict[str, Path]:
    """Write every view's file (``leaderboard.md``, ``.csv``, ``.json``, with ``page`` ``index.html``, then any
    registered view's; one that raises is skipped with one line on stderr).

    A tournament's folder gets the whole site instead of the one-page card (``arena.site``), so
    ``arena publish`` passes ``page=False``.

    Parameters
    ----------
    leaderboard : Leaderboard
        From ``build_leaderboard``.
    head_to_head : HeadToHead
        From ``head_to_head`` (same outcomes).
    directory : str or Path
        Created if missing; existing files of these names are replaced.
    title : str
        Page and document title.

    Returns
    -------
    dict of str to Path
        Each file name and the path written.
    """
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    written = {}
    for view in views():
        if view.page and not page:
            continue
        path = folder / view.file_name
        temporary = path.with_name(f".{view.file_name}.tmp")
        try:
            text = view.render(leaderboard, head_to_head, title)
        except Exception as error:  # a plugin's view may raise anything; the other files are still written
            if view.name in BUILT_IN:
                raise
            message = " ".join(str(error).split())[:300]
            print(f"arena: leaderboard view {view.name!r} failed, {view.file_name} not written: "
                  f"{type(error).__name__}{': ' + message if message else ''}", file=sys.stderr)
            continue
        temporary.write_text(text, encoding="utf-8")
        temporary.replace(path)  # readers never see a half-written file
        written[view.file_name] = path
    return written
