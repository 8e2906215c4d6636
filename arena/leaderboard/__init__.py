"""Leaderboards: ratings beside results and faults, head-to-head records, and their files.

* ``build_leaderboard(outcomes, method, **options)``: a ``Leaderboard`` (rows best first);
* ``head_to_head(outcomes)``: shared matches and finishing-order share for each pair;
* ``compare(outcomes, a, b, method)``: ``a`` against ``b`` and P(``a`` is stronger);
* ``write_leaderboard_files(leaderboard, head_to_head, directory, title)``: every view's file (Markdown,
  CSV, JSON, a self-contained HTML page, and any ``register_view`` added: ``arena.leaderboard.views``);
* ``render_rich(leaderboard)`` and ``render_comparison(comparison)`` for the terminal.
"""

from arena.leaderboard.build import Leaderboard, LeaderboardRow, build_leaderboard
from arena.leaderboard.head_to_head import Comparison, HeadToHead, compare, head_to_head
from arena.leaderboard.terminal import render_comparison, render_rich
from arena.leaderboard.views import FILE_NAMES, View, register_view, write_leaderboard_files

__all__ = [
    "FILE_NAMES",
    "Comparison",
    "HeadToHead",
    "Leaderboard",
    "LeaderboardRow",
    "View",
    "build_leaderboard",
    "compare",
    "head_to_head",
    "register_view",
    "render_comparison",
    "render_rich",
    "write_leaderboard_files",
]
