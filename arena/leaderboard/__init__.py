"""Leaderboards: ratings beside results and faults, head-to-head records, and their files.

* ``build_leaderboard(outcomes, method, **options)``: a ``Leaderboard`` (rows best first);
* ``head_to_head(outcomes)``: shared matches and finishing-order share for each pair;
* ``compare(outcomes, a, b, method)``: ``a`` against ``b`` and P(``a`` is stronger);
* ``write_leaderboard_files(leaderboard, head_to_head, directory, title)``: Markdown, CSV,
  JSON and a self-contained HTML page;
* ``render_rich(leaderboard)`` and ``render_comparison(comparison)`` for the terminal.
"""

from arena.leaderboard.build import Leaderboard, LeaderboardRow, build_leaderboard
from arena.leaderboard.files import FILE_NAMES, write_leaderboard_files
from arena.leaderboard.head_to_head import Comparison, HeadToHead, compare, head_to_head
from arena.leaderboard.terminal import render_comparison, render_rich

__all__ = [
    "FILE_NAMES",
    "Comparison",
    "HeadToHead",
    "Leaderboard",
    "LeaderboardRow",
    "build_leaderboard",
    "compare",
    "head_to_head",
    "render_comparison",
    "render_rich",
    "write_leaderboard_files",
]
