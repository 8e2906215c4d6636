"""Leaderboards and comparisons as ``rich`` renderables for the terminal."""

from __future__ import annotations

import math

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from arena.leaderboard.build import Leaderboard, LeaderboardRow
from arena.leaderboard.head_to_head import Comparison
from arena.leaderboard.reading import (
    OVERLAP_NOTE,
    RETIRED_NOTE,
    TERMINAL_MATRIX_LIMIT,
    interval_note,
    probability_cell,
    subtracted_note,
    superiority_rows,
)
from arena.ratings.registry import rating_digits  # a method's digits are the method's (re-exported)


def format_number(x: float, digits: int = 1) -> str:
    """A rating or score for display; a dash for a missing (non-finite) value."""
    return f"{x:.{digits}f}" if math.isfinite(x) else "-"




AGENT_WIDTH = 16
"""Agent names up to this long are never wrapped in the terminal table."""

FAULT_LABELS: tuple[tuple[str, str], ...] = (
    ("timeouts", "T/O"), ("illegal", "illegal"), ("exceptions", "exc"), ("crashes", "crash"), ("memory", "mem"),
)
"""(``LeaderboardRow`` attribute, short label) of each fault kind, in the order the Faults column lists them."""


FLAG = "! "
"""Marks the faults of an entry that faulted in more than the tournament's ``fault_share`` of its matches."""

FLAG_NOTE = "! = faults in more than the tournament's fault_share of the entry's matches"
"""The legend every view that shows ``FLAG`` prints."""


def caption_lines(leaderboard: Leaderboard) -> list[str]:
    """The lines under the terminal table: the scale and data, the interval used, how to compare."""
    subtracted = subtracted_note(leaderboard)
    return [
        f"{leaderboard.scale}; {leaderboard.data_line}",
        *([subtracted] if subtracted else []),
        interval_note(leaderboard),
        OVERLAP_NOTE,
        *([RETIRED_NOTE] if leaderboard.retired else []),
    ] + ([FLAG_NOTE] if any(row.flagged for row in (*leaderboard.rows, *leaderboard.retired)) else [])


def render_rich(leaderboard: Leaderboard, title: str | None = None) -> RenderableType:
    """The leaderboard for the terminal: one row per agent, best first (a ladder's retired entries after the ranked
    ones, unranked), then P(stronger) for up to 12 agents.

    Narrow enough for an 80-column terminal or a CI log: light borders and one Faults column
    ("0", or the counts by kind: T/O timeouts, illegal actions, exc exceptions, crash, mem memory limit).
    The caption says which interval was used and that overlapping intervals are not a test.
    """
    digits = rating_digits(leaderboard.method)
    table = Table(
        title=title or f"Leaderboard ({leaderboard.method})",
        caption="\n".join(caption_lines(leaderboard)),
        caption_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
    )
    table.add_column("#", justify="right")
    # Names are identifiers: keep them whole (up to AGENT_WIDTH) and let the numbers' headers wrap instead.
    longest = max((len(row.agent) for row in (*leaderboard.rows, *leaderboard.retired)), default=5)
    table.add_column("Agent", overflow="fold", min_width=min(AGENT_WIDTH, longest))  # name, then its version
    table.add_column("Rating", justify="right", no_wrap=True)
    table.add_column(f"{leaderboard.level:.0%} interval", justify="right", no_wrap=True)
    table.add_column("Games", justify="right")
    # The game's currency: "Points/game" (Lovat), "Chips/deal" (Lorum), as its score method counts it.
    table.add_column(leaderboard.score_unit.replace(" per ", "/").capitalize(), justify="right")
    table.add_column("Wins", justify="right")  # share of matches finished first (ties shared)
    table.add_column("Faults", justify="right", overflow="fold")
    for row in (*leaderboard.rows, *leaderboard.retired):
        table.add_row(
            "-" if row.rank is None else str(row.rank),
            Text(row.agent) + (Text(f" {row.version}", style="dim") if row.version else "")
            + (Text(" (trusted)", style="yellow") if row.agent in leaderboard.trusted else "")
            + (Text(" (retired)", style="dim") if row.rank is None else ""),
            format_number(row.rating, digits),
            f"{format_number(row.lower, digits)} to {format_number(row.upper, digits)}",
            str(row.games),
            format_number(row.mean_score, 2),
            f"{row.win_share:.1%}" if math.isfinite(row.win_share) else "-",
            fault_cell(row),
            end_section=bool(leaderboard.retired) and leaderboard.rows[-1:] == (row,),
        )
    matrix = render_superiority(leaderboard)
    return table if matrix is None else Group(table, matrix)


def render_superiority(leaderboard: Leaderboard) -> Table | None:
    """P(row agent stronger than column agent) for up to ``TERMINAL_MATRIX_LIMIT`` agents (None beyond)."""
    rows = superiority_rows(leaderboard)
    if not rows or len(rows) > TERMINAL_MATRIX_LIMIT:
        return None
    matrix = Table(
        title="P(row stronger than column)", box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True,
        caption=f"columns: {', '.join(f'{i} {a}' for i, a in enumerate(leaderboard.agents, start=1))}",
        caption_justify="left",
    )
    matrix.add_column("", overflow="fold")
    for i in range(1, len(rows) + 1):
        matrix.add_column(str(i), justify="right", no_wrap=True)
    for i, (agent, row) in enumerate(zip(leaderboard.agents, rows)):
        cells = ["" if i == j else probability_cell(p) for j, p in enumerate(row)]
        matrix.add_row(f"{i + 1} {agent}", *cells)
    return matrix


def fault_cell(row: LeaderboardRow) -> str:
    """``"0"``, or the non-zero fault counts by kind in red, e.g. ``"2 T/O, 1 exc"``."""
    counts = [(getattr(row, name), label) for name, label in FAULT_LABELS]
    found = ", ".join(f"{count} {label}" for count, label in counts if count)
    flag = FLAG if row.flagged else ""
    return f"[bold red]{flag}{found}[/]" if found else "0"


def render_comparison(comparison: Comparison) -> Table:
    """A comparison of two agents as a ``rich.table.Table``."""
    c = comparison
    digits = rating_digits(c.method)
    table = Table(title=f"{c.a} vs {c.b} ({c.method})", show_header=True)
    table.add_column("", style="bold")
    table.add_column(c.a, justify="right")
    table.add_column(c.b, justify="right")
    table.add_row("Rating", format_number(c.rating_a.rating, digits), format_number(c.rating_b.rating, digits))
    table.add_row(
        f"{c.level:.0%} interval",
        f"{format_number(c.rating_a.lower, digits)} to {format_number(c.rating_a.upper, digits)}",
        f"{format_number(c.rating_b.lower, digits)} to {format_number(c.rating_b.upper, digits)}",
    )
    table.add_row("Games (all)", str(c.rating_a.games), str(c.rating_b.games))
    table.add_row("Deals won (shared deals)", str(c.wins), str(c.losses))
    table.add_row("Deals drawn", str(c.draws), str(c.draws))
    score = c.score
    table.add_row(
        "Score in shared deals",
        "-" if score is None else f"{score:.1%}",
        "-" if score is None else f"{1.0 - score:.1%}",
    )
    table.add_row(
        "P(stronger)", f"{c.probability_a_stronger:.1%}", f"{1.0 - c.probability_a_stronger:.1%}"
    )
    table.caption = "\n".join(comparison_lines(c))
    table.caption_justify = "left"
    return table


def comparison_lines(c: Comparison) -> list[str]:
    """The gap with its interval, the deal record with the rotations as detail, and the scale."""
    digits = rating_digits(c.method)
    record = f"{c.games} shared deals: {c.a} won {c.wins}, drew {c.draws}, lost {c.losses}"
    rotations = f" ({c.matches} matches: ahead {c.match_wins}, tied {c.match_draws}, behind {c.match_losses})"
    if not c.games:  # e.g. two candidates of a gauntlet, each against the field: only the ratings compare them
        record, rotations = f"{c.a} and {c.b} never sat at one table: no head-to-head record; the gap compares them", ""
    return [
        f"Gap {c.a} - {c.b}: {format_number(c.gap, digits)} ({c.level:.0%} interval "
        f"{format_number(c.gap_lower, digits)} to {format_number(c.gap_upper, digits)}); "
        f"P({c.a} stronger) = {c.probability_a_stronger:.1%}",
        record + rotations,
        c.scale,
    ] + ([c.subtracted] if c.subtracted else [])
