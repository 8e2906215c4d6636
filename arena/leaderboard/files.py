"""Leaderboard files: Markdown, CSV, JSON and one self-contained HTML page.

``arena.leaderboard.views`` registers each as a view and writes them all into a directory.  The page needs no network:
styles are inline, there are no scripts, the two charts are inline SVG (written directly by
``arena.leaderboard.svg``) and a Content-Security-Policy forbids fetching anything.  Elements a browser
test can find: the table ``#leaderboard-table`` (one ``<tr data-agent=...>`` per agent in
its ``<tbody>``), the notes ``#interval-note`` and ``#overlap-note``, the P(stronger) matrix
``#superiority-table`` in section ``#superiority``, the sections ``#ratings-chart`` and
``#head-to-head`` and their SVGs ``#ratings-chart-svg`` and ``#head-to-head-svg``.
The Markdown page carries the same notes and matrix; TrueSkill boards add a last column,
its conservative ``mu - 3 sigma``, labelled as such.
"""

from __future__ import annotations

import csv
import html
import io
import json
import math

from arena.leaderboard.build import Leaderboard, LeaderboardRow
from arena.leaderboard.charts import head_to_head_svg, ratings_svg
from arena.leaderboard.head_to_head import HeadToHead
from arena.leaderboard.reading import (
    CONSERVATIVE_LABEL,
    OVERLAP_NOTE,
    RETIRED_NOTE,
    conservative_ratings,
    interval_note,
    probability_cell,
    subtracted_note,
    superiority_rows,
)
from arena.leaderboard.terminal import FLAG, FLAG_NOTE, format_number, rating_digits

CSV_COLUMNS: tuple[str, ...] = (
    "rank",
    "agent",
    "rating",
    "lower",
    "upper",
    "games",
    "mean_score",
    "win_share",
    "timeouts",
    "illegal",
    "exceptions",
    "crashes",
    "memory",
    "version",
    "flagged",
    "retired",
)
"""Columns of ``leaderboard.csv``, in order: the LeaderboardRow fields, then whether the entry is a ladder's retired
one (listed after the ranked ones, its rank empty)."""


def _cell(row: LeaderboardRow, column: str) -> object:
    value = getattr(row, column)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else ""
    return "" if value is None else value


def to_csv(leaderboard: Leaderboard) -> str:
    """One header line and one line per agent, the ranked ones first, then the retired; floats at full precision,
    empty if missing."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    fields = CSV_COLUMNS[:-1]
    for row in leaderboard.rows:
        writer.writerow([*(_cell(row, c) for c in fields), False])
    for row in leaderboard.retired:
        writer.writerow([*(_cell(row, c) for c in fields), True])
    return buffer.getvalue()


def to_json(leaderboard: Leaderboard, head_to_head: HeadToHead | None, title: str) -> str:
    """The leaderboard (rows and rating table) and the head-to-head table as JSON."""
    data = {"title": title, **leaderboard.to_json()}
    data["head_to_head"] = None if head_to_head is None else head_to_head.to_json()
    return json.dumps(data, indent=2, allow_nan=False) + "\n"


def _markdown_text(text: str) -> str:
    """Text safe inside a Markdown table cell: HTML escaped, pipes and backslashes escaped."""
    return html.escape(text, quote=False).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def to_markdown(leaderboard: Leaderboard, title: str) -> str:
    """A Markdown page: title, what the ratings mean, the table, how to compare, and P(stronger)."""
    digits = rating_digits(leaderboard.method)
    conservative = conservative_ratings(leaderboard)
    lines = [
        f"# {_markdown_text(title)}",
        "",
        f"Method: `{leaderboard.method}`. {_markdown_text(leaderboard.scale)}.",
        f"{_markdown_text(leaderboard.data_line)}; intervals cover {leaderboard.level:.0%}."
        + (f" {FLAG_NOTE}." if any(row.flagged for row in (*leaderboard.rows, *leaderboard.retired)) else ""),
        "",
        *([_markdown_text(subtracted), ""] if (subtracted := subtracted_note(leaderboard)) else []),
        _markdown_text(interval_note(leaderboard)),
        "",
        *_markdown_head(leaderboard, conservative),
    ]
    lines += [_markdown_row(r, leaderboard, digits, conservative) for r in leaderboard.rows]
    lines += ["", _markdown_text(OVERLAP_NOTE), *_retired_markdown(leaderboard, digits, conservative),
              *_superiority_markdown(leaderboard)]
    return "\n".join(lines) + "\n"


def _markdown_head(leaderboard: Leaderboard, conservative: dict[str, float] | None) -> list[str]:
    """The header lines of a Markdown leaderboard table."""
    return [
        f"| # | Agent | Version | Rating | Interval | Games | {leaderboard.score_unit.capitalize()} | Win share "
        "| Timeouts | Illegal | Exceptions "
        "| Crashes | Memory |" + (f" {CONSERVATIVE_LABEL} |" if conservative else ""),
        "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|" + ("---:|" if conservative else ""),
    ]


def _markdown_row(r: LeaderboardRow, leaderboard: Leaderboard, digits: int,
                  conservative: dict[str, float] | None) -> str:
    """One agent's line of a Markdown table (a retired entry's rank a dash)."""
    return (
        f"| {'-' if r.rank is None else r.rank} | {FLAG if r.flagged else ''}{_markdown_text(r.agent)}"
        f"{' (trusted)' * (r.agent in leaderboard.trusted)} | {_markdown_text(r.version or '-')} | "
        f"{format_number(r.rating, digits)} | "
        f"{format_number(r.lower, digits)} to {format_number(r.upper, digits)} | {r.games} | "
        f"{format_number(r.mean_score, 2)} | {r.win_share:.1%} | {r.timeouts} | {r.illegal} | "
        f"{r.exceptions} | {r.crashes} | {r.memory} |"
        + (f" {format_number(conservative.get(r.agent, math.nan), digits)} |" if conservative else "")
    )


def _retired_markdown(leaderboard: Leaderboard, digits: int, conservative: dict[str, float] | None) -> list[str]:
    """A ladder's retired entries, apart and unranked (nothing when there are none)."""
    if not leaderboard.retired:
        return []
    return ["", "## Retired", "", _markdown_text(RETIRED_NOTE), "", *_markdown_head(leaderboard, conservative),
            *(_markdown_row(r, leaderboard, digits, conservative) for r in leaderboard.retired)]


def _superiority_markdown(leaderboard: Leaderboard) -> list[str]:
    """The P(stronger) matrix as a Markdown table (rows and columns best first)."""
    rows = superiority_rows(leaderboard)
    if not rows:
        return []
    lines = [
        "",
        "## P(stronger)",
        "",
        "Probability that the row agent is stronger than the column agent (columns numbered by rank order).",
        "",
        "| | " + " | ".join(str(i) for i in range(1, len(rows) + 1)) + " |",
        "|---|" + "---:|" * len(rows),
    ]
    for i, (agent, row) in enumerate(zip(leaderboard.agents, rows)):
        cells = " | ".join("" if i == j else probability_cell(p) for j, p in enumerate(row))
        lines.append(f"| {_markdown_text(agent)} ({i + 1}) | {cells} |")
    return lines


_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 72rem;
       padding: 0 1rem; color: #1b2a41; }
h1 { margin-bottom: 0.2rem; }
.meta { color: #555; margin-top: 0; }
table { border-collapse: collapse; width: 100%; font-size: 0.9rem; }
th, td { padding: 0.3rem 0.5rem; border-bottom: 1px solid #ddd; }
th { text-align: left; background: #f3f5f8; position: sticky; top: 0; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.fault { color: #b00020; font-weight: bold; }
section { margin-top: 2rem; overflow-x: auto; }
svg { max-width: 100%; height: auto; }
"""


def _row_html(row: LeaderboardRow, digits: int, trusted: bool = False,
              conservative: dict[str, float] | None = None) -> str:
    agent = html.escape(row.agent)
    mark = " <small>(trusted)</small>" if trusted else ""
    faults = "".join(
        f'<td class="num{" fault" if count else ""}">{count}</td>'
        for count in (row.timeouts, row.illegal, row.exceptions, row.crashes, row.memory)
    )
    flagged = f' data-flagged="true" title="{html.escape(FLAG_NOTE)}"' if row.flagged else ""
    rank = "-" if row.rank is None else str(row.rank)
    return (
        f'<tr data-agent="{agent}" data-rank="{rank}"{flagged}>'
        f'<td class="num">{rank}</td><th scope="row">{FLAG if row.flagged else ""}{agent}{mark}</th>'
        f'<td>{html.escape(row.version or "-")}</td>'
        f'<td class="num">{format_number(row.rating, digits)}</td>'
        f'<td class="num">{format_number(row.lower, digits)} to {format_number(row.upper, digits)}</td>'
        f'<td class="num">{row.games}</td><td class="num">{format_number(row.mean_score, 2)}</td>'
        f'<td class="num">{row.win_share:.1%}</td>{faults}'
        + (f'<td class="num">{format_number(conservative.get(row.agent, math.nan), digits)}</td>'
           if conservative else "")
        + "</tr>"
    )


def superiority_html(leaderboard: Leaderboard, element_id: str = "superiority-table") -> str:
    """The P(stronger) matrix as an HTML table with id ``element_id`` (rows and columns best first)."""
    rows = superiority_rows(leaderboard)
    if not rows:
        return '<p class="meta">No matches yet.</p>'
    head = "".join(f'<th scope="col" class="num">{i}</th>' for i in range(1, len(rows) + 1))
    body = "\n".join(
        f'<tr data-row-agent="{html.escape(agent)}"><th scope="row">{i + 1} {html.escape(agent)}</th>'
        + "".join(f'<td class="num">{"" if i == j else probability_cell(p)}</td>' for j, p in enumerate(row))
        + "</tr>"
        for i, (agent, row) in enumerate(zip(leaderboard.agents, rows))
    )
    return f"""<table id="{html.escape(element_id)}">
<thead><tr><th scope="col">Agent</th>{head}</tr></thead>
<tbody>
{body}
</tbody>
</table>"""


def subtracted_html(leaderboard: Leaderboard, element_id: str = "subtracted") -> str:
    """What the method subtracted, as a paragraph of its own ("" when nothing: every method but ``luck``)."""
    note = subtracted_note(leaderboard)
    return f'\n<p class="meta" id="{html.escape(element_id)}">{html.escape(note)}</p>' if note else ""


def _table(element_id: str, head: str, body: str) -> str:
    """A table of leaderboard rows: its header cells ``head`` and its rows ``body``."""
    return f"""<table id="{element_id}">
<thead><tr>{head}</tr></thead>
<tbody>
{body}
</tbody>
</table>"""


def to_html(leaderboard: Leaderboard, head_to_head: HeadToHead, title: str) -> str:
    """One self-contained page: the table, the ratings chart and the head-to-head heatmap."""
    digits = rating_digits(leaderboard.method)
    same_agents = set(head_to_head.agents) == set(leaderboard.agents)
    ordered = head_to_head.reordered(leaderboard.agents) if same_agents else head_to_head
    conservative = conservative_ratings(leaderboard)
    headers: tuple[str, ...] = ("#", "Agent", "Version", "Rating", f"{leaderboard.level:.0%} interval", "Games",
                                leaderboard.score_unit.capitalize(), "Win share", "Timeouts", "Illegal",
                                "Exceptions", "Crashes", "Memory")
    headers += (CONSERVATIVE_LABEL,) if conservative else ()
    numeric = ' class="num"'
    head = "".join(f'<th scope="col"{"" if h in ("Agent", "Version") else numeric}>{html.escape(h)}</th>'
                   for h in headers)
    body = "\n".join(_row_html(row, digits, row.agent in leaderboard.trusted, conservative) for row in leaderboard.rows)
    if not leaderboard.rows:
        body = f'<tr class="empty"><td colspan="{len(headers)}">No matches yet.</td></tr>'
    retired = "\n".join(_row_html(row, digits, row.agent in leaderboard.trusted, conservative)
                        for row in leaderboard.retired)
    retired_section = "" if not retired else f"""
<section id="retired">
<h2>Retired</h2>
<p class="meta">{html.escape(RETIRED_NOTE)}</p>
{_table("retired-table", head, retired)}
</section>"""
    escaped_title = html.escape(title)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escaped_title}</title>
<style>{_STYLE}</style>
</head>
<body>
<header>
<h1>{escaped_title}</h1>
<p class="meta">Method <code>{html.escape(leaderboard.method)}</code>: {html.escape(leaderboard.scale)}.
{html.escape(leaderboard.data_line)}.</p>{subtracted_html(leaderboard)}
</header>
<main>
<section id="leaderboard">
<h2>Leaderboard</h2>
{_table("leaderboard-table", head, body)}
<p class="meta" id="interval-note">{html.escape(interval_note(leaderboard))}</p>
<p class="meta" id="overlap-note">{html.escape(OVERLAP_NOTE)}</p>
</section>{retired_section}
<section id="superiority">
<h2>P(stronger)</h2>
<p class="meta">Probability that the row agent is stronger than the column agent (columns numbered by rank
order).</p>
{superiority_html(leaderboard)}
</section>
<section id="ratings-chart">
<h2>Ratings</h2>
{ratings_svg(leaderboard)}
</section>
<section id="head-to-head">
<h2>Head to head</h2>
<p class="meta">Share of shared deals (duplicate blocks, all rotations of one deal together) that the row agent
won against the column agent, a drawn deal counting half; grey where two agents never met.</p>
{head_to_head_svg(ordered)}
</section>
</main>
</body>
</html>
"""
