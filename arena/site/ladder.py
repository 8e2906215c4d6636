"""The front page's ladder section: every entry's dates, status and path from added to settled, batch by batch.

Rendered from ``arena.ladder.ladder_history`` output.  Entry names come from configs and plugins, so every value
is HTML-escaped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.ladder.history import rating_text
from arena.leaderboard.terminal import format_number
from arena.site.pages import escape


def _number(value: float | None) -> str:
    return "-" if value is None else format_number(value, 1)


def _status(entry: Mapping[str, Any]) -> str:
    settled = entry.get("settled_after")
    after = "" if settled is None else f" (first settled after {settled} matches)"
    return f"{entry.get('status')}{after}"


def _path_table(entry: Mapping[str, Any]) -> str:
    rows = "\n".join(
        f'<tr data-status="{escape(point["status"])}"><td class="num">{escape(point["batch"])}</td>'
        f'<td class="num">{escape(point["matches"])}</td><td class="num">{_number(point["rating"])}</td>'
        f'<td class="num">{_number(point["lower"])} to {_number(point["upper"])}</td>'
        f'<td class="num">{escape(point["rank"] if point["rank"] is not None else "-")}</td>'
        f'<td>{escape(point["status"])}</td></tr>'
        for point in entry.get("path", []))
    if not rows:
        return '<p class="meta">Not rated yet.</p>'
    shown, batches = len(entry.get("path", [])), entry.get("batches", 0)
    cut = "" if batches <= shown else (f'<p class="meta ladder-cut">The latest {shown} of {escape(f"{batches:,}")} '
                                       "batches ('arena ladder history' shows every one).</p>")
    return (f'{cut}<div class="scroll"><table class="ladder-path"><thead><tr><th scope="col" class=num>Batch</th>'
            '<th scope="col" class=num>Matches</th><th scope="col" class=num>Rating</th>'
            '<th scope="col" class=num>Interval</th><th scope="col" class=num>Rank</th><th scope="col">Status</th>'
            f"</tr></thead>\n<tbody>\n{rows}\n</tbody></table></div>")


def ladder_section(history: Mapping[str, Any]) -> str:
    """The ladder section: a summary row per entry, then each entry's rating and interval after every batch (the
    latest ones of a long path: ``stored_history`` with ``recent``, whose ``batches`` says how many there are)."""
    entries = history.get("entries", [])
    summary = "\n".join(
        f'<tr data-agent="{escape(entry["name"])}"><th scope="row">{escape(entry["name"])}</th>'
        f'<td>{escape(entry.get("added_at") or "-")} (after {escape(entry.get("added_after"))} matches)</td>'
        f'<td>{escape(entry.get("retired_at") or "-")}</td><td class="ladder-status">{escape(_status(entry))}</td>'
        f'<td class="num ladder-rating">{escape(rating_text(entry))}</td></tr>'
        for entry in entries)
    paths = "\n".join(
        f'<details class="ladder-entry" data-agent="{escape(entry["name"])}"><summary>{escape(entry["name"])}: '
        f"{escape(_status(entry))}</summary>\n{_path_table(entry)}\n</details>"
        for entry in entries)
    return f"""<section id="ladder">
<h2>Ladder</h2>
<p class="meta">Each entry's arrival, retirement, status and latest rating and rank among the active entries (a
retired entry holds no rank: its rating is the one it retired with, frozen); open an entry for its rating,
interval and rank after every batch: a newcomer's path from added to settled.</p>
<div class="scroll"><table id="ladder-entries">
<thead><tr><th scope="col">Entry</th><th scope="col">Added</th><th scope="col">Retired</th>
<th scope="col">Status</th><th scope="col" class=num>Rating (rank)</th></tr></thead>
<tbody>
{summary}
</tbody></table></div>
{paths}
</section>"""
