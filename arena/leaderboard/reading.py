"""How to read a leaderboard: which interval it shows and why, and the pairwise P(stronger) matrix.

Every view (terminal, Markdown, HTML) takes its wording from here, so that they say the same:

* ``interval_note``: the interval kind the method used and why (e.g. clustered by
  duplicate block, or conservative because some agent played few blocks);
* ``subtracted_note``: what the method subtracted from the results, if anything (the luck method's);
* ``OVERLAP_NOTE``: overlapping intervals are not a test;
* ``RETIRED_NOTE``: a ladder's retired entries, listed apart, hold no rank;
* ``superiority_rows``: the P(stronger) matrix, row agent over column agent, best first (ranked rows only);
* ``conservative_ratings``: TrueSkill's conservative ``mu - 3 sigma``, for an optional column.
"""

from __future__ import annotations

import math

from arena.leaderboard.build import Leaderboard

TERMINAL_MATRIX_LIMIT = 12
"""The terminal shows the P(stronger) matrix up to this many agents (files and HTML always do)."""

OVERLAP_NOTE = (
    "Overlapping intervals are not a test: each interval is one agent's rating against the field, and two can "
    "overlap while one agent is almost surely the stronger. Read P(stronger) (the matrix) or the gap's own "
    "interval (arena leaderboard NAME --vs A B)."
)
"""The warning every view prints beside the intervals."""


def interval_note(leaderboard: Leaderboard) -> str:
    """One sentence: the interval kind the method used and why."""
    extras = leaderboard.table.extras
    reason = extras.get("interval_reason")
    if reason:
        return f"{leaderboard.level:.0%} intervals: {reason}."
    kind = extras.get("intervals")
    if kind:
        return f"{leaderboard.level:.0%} intervals: {kind}."
    return f"{leaderboard.level:.0%} intervals."


def subtracted_note(leaderboard: Leaderboard) -> str | None:
    """One line: what the method subtracted from the results before rating them (``luck``), or None."""
    note = leaderboard.table.extras.get("subtracted")
    return str(note) if note else None


def superiority_rows(leaderboard: Leaderboard) -> list[list[float]]:
    """P(row agent stronger than column agent), rows and columns in leaderboard order (best first): the ranked
    rows only, so a ladder's retired entries (``Leaderboard.retired``) are left out as they are of the ranks."""
    matrix = leaderboard.table.superiority
    if not matrix:
        return []
    order = [leaderboard.table.index(agent) for agent in leaderboard.agents]
    return [[matrix[i][j] for j in order] for i in order]


def probability_cell(p: float) -> str:
    """A probability for a matrix cell: two decimals, a dash on the diagonal's 0.5 left to the caller."""
    if not math.isfinite(p):
        return "-"
    if p > 0.995 and p < 1.0:
        return ">.99"
    if p < 0.005 and p > 0.0:
        return "<.01"
    return f"{p:.2f}"


def conservative_ratings(leaderboard: Leaderboard) -> dict[str, float] | None:
    """TrueSkill's conservative ``mu - 3 sigma`` per agent (None for other methods)."""
    values = leaderboard.table.extras.get("conservative")
    return dict(values) if isinstance(values, dict) else None


RETIRED_NOTE = (
    "Retired entries play no more and hold no rank. Their ratings are frozen: they add no matches, and move only "
    "as the entries they met are rated anew (their matches still count in every rating)."
)
"""What a leaderboard says of a ladder's retired entries, which it lists apart (``Leaderboard.retired``)."""

CONSERVATIVE_LABEL = "Conservative μ−3σ"
"""Header of the optional conservative column (a lower bound that ranks uncertain agents low, not an estimate)."""
