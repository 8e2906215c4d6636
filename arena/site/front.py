"""The site's front page: every configured method's leaderboard (switchable), results by seat, time per move,
P(stronger), head to head per deal, the rating history and the config.

Rendered here in full, so the page reads without scripts; ``site.js`` only switches between methods.  Every
name and message is HTML-escaped: entry names come from the config, versions from plugins.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

from arena.leaderboard.build import Leaderboard, LeaderboardRow
from arena.leaderboard.charts import head_to_head_svg, ratings_svg
from arena.leaderboard.files import subtracted_html, superiority_html
from arena.leaderboard.head_to_head import HeadToHead
from arena.leaderboard.reading import OVERLAP_NOTE, RETIRED_NOTE, conservative_ratings, interval_note
from arena.leaderboard.terminal import FAULT_LABELS, FLAG, FLAG_NOTE, format_number, rating_digits
from arena.site.history import history_svg
from arena.site.ladder import ladder_section
from arena.site.pages import escape, page
from arena.site.stats import MoveTimes, SeatResults


def seconds_text(value: float | None) -> str:
    """A decision time in the unit that shows it: ``"35 µs"``, ``"4.2 ms"``, ``"1.25 s"``; ``"-"`` if none."""
    if value is None or not math.isfinite(value):
        return "-"
    if value < 0.001:
        return f"{value * 1e6:.0f} µs"
    return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"


def fault_text(row: LeaderboardRow) -> str:
    """``"0"`` or the non-zero fault counts by kind, e.g. ``"2 T/O, 1 exc"`` (as the terminal's Faults column)."""
    return ", ".join(f"{getattr(row, name)} {label}" for name, label in FAULT_LABELS if getattr(row, name)) or "0"


def _board_row(row: LeaderboardRow, board: Leaderboard, times: MoveTimes, levels: Mapping[str, Sequence[str]],
               conservative: Mapping[str, float] | None) -> str:
    digits = rating_digits(board.method)
    agent = escape(row.agent)
    trusted = " <small>(trusted)</small>" if row.agent in board.trusted else ""
    flagged = f' data-flagged="true" title="{escape(FLAG_NOTE)}"' if row.flagged else ""
    faults = f'<td class="num{" fault" if row.faults else ""}">{escape(fault_text(row))}</td>'
    cells = [
        f'<td class="num">{"-" if row.rank is None else row.rank}</td>',
        f'<th scope="row">{FLAG if row.flagged else ""}'
        f'<a href="matches.html#agent={escape(quote(row.agent))}">{agent}</a>{trusted}</th>',
        f"<td>{escape(row.version or '-')}</td>",
        f'<td class="num">{format_number(row.rating, digits)}</td>',
        f'<td class="num">{format_number(row.lower, digits)} to {format_number(row.upper, digits)}</td>',
        f'<td class="num">{row.games}</td>',
        f'<td class="num">{format_number(row.mean_score, 2)}</td>',
        f'<td class="num">{row.win_share:.1%}</td>' if math.isfinite(row.win_share) else '<td class="num">-</td>',
        faults,
        f'<td class="num">{seconds_text(times.mean(row.agent))}</td>',
        f'<td class="num">{seconds_text(times.longest.get(row.agent))}</td>',
        f"<td>{escape(', '.join(levels.get(row.agent, ())) or '-')}</td>",
    ]
    if conservative:
        cells.append(f'<td class="num">{format_number(conservative.get(row.agent, math.nan), digits)}</td>')
    return f'<tr data-agent="{agent}"{flagged}>{"".join(cells)}</tr>'


def method_section(board: Leaderboard, times: MoveTimes, levels: Mapping[str, Sequence[str]], first: bool) -> str:
    """One method's leaderboard table, notes, a ladder's retired entries (apart, unranked), P(stronger) matrix and
    ratings chart."""
    method = escape(board.method)
    conservative = conservative_ratings(board)
    headers = ["#", "Agent", "Version", "Rating", f"{board.level:.0%} interval", "Games",
               board.score_unit.capitalize(), "Win share", "Faults", "Mean time/move", "Max time/move",
               "Isolation/sandbox"]
    if conservative:
        headers.append("Conservative μ−3σ")
    text = {"Agent", "Version", "Isolation/sandbox"}
    head = "".join(f'<th scope="col"{"" if h in text else " class=num"}>{escape(h)}</th>' for h in headers)
    body = "\n".join(_board_row(row, board, times, levels, conservative) for row in board.rows) or \
        f'<tr class="empty"><td colspan="{len(headers)}">No matches yet.</td></tr>'
    hidden = "" if first else " hidden"
    retired = "\n".join(_board_row(row, board, times, levels, conservative) for row in board.retired)
    retired_table = "" if not retired else f"""
<h3>Retired: {method}</h3>
<p class="meta">{escape(RETIRED_NOTE)}</p>
<div class="scroll"><table class="leaderboard-table retired-table" id="retired-{method}">
<thead><tr>{head}</tr></thead>
<tbody>
{retired}
</tbody>
</table></div>"""
    subtracted = subtracted_html(board, f"subtracted-{board.method}")  # the luck method's: what it took out
    return f"""<section class="method" id="method-{method}" data-method="{method}"{hidden}>
<h2>Leaderboard: {method}</h2>
<p class="meta">{escape(board.scale)}. {escape(board.data_line)}.</p>{subtracted}
<div class="scroll"><table class="leaderboard-table" id="leaderboard-{method}">
<thead><tr>{head}</tr></thead>
<tbody>
{body}
</tbody>
</table></div>
<p class="meta">{escape(interval_note(board))} {escape(OVERLAP_NOTE)}</p>{retired_table}
<h3>P(stronger): {method}</h3>
<p class="meta">Probability that the row agent is stronger than the column agent (columns numbered by rank order).</p>
<div class="scroll">{superiority_html(board, f"superiority-{method}")}</div>
<h3>Ratings: {method}</h3>
{ratings_svg(board, f"ratings-{method}-svg")}
</section>"""


def seat_section(seats: SeatResults) -> str:
    """Mean score (and matches) of every agent in every seat position, with every agent's together."""
    head = "".join(f'<th scope="col" class="num">Seat {seat}</th>' for seat in range(seats.players))

    def cell(mean: float | None, games: int, share: float | None) -> str:
        if mean is None:
            return '<td class="num">-</td>'
        title = f"{games} matches, {share or 0:.0%} won"
        return f'<td class="num" title="{title}">{mean:.2f} <small>({games})</small></td>'

    rows = "\n".join(
        f'<tr data-agent="{escape(agent)}"><th scope="row">{escape(agent)}</th>'
        + "".join(cell(m, g, w) for m, g, w in zip(seats.mean_score[i], seats.games[i], seats.win_share[i]))
        + "</tr>"
        for i, agent in enumerate(seats.agents))
    every = "".join(f'<td class="num">{"-" if m is None else f"{m:.2f}"}</td>' for m in seats.all_mean_score)
    return f"""<section id="seats">
<h2>Results by seat</h2>
<p class="meta">Mean score per match in each seat position (matches in brackets; hover for the share won). Seat 0
is the first seat of the table; who deals and who leads depends on the deal, so a seat's advantage shows in the
last row, every agent together.</p>
<div class="scroll"><table id="seat-results">
<thead><tr><th scope="col">Agent</th>{head}</tr></thead>
<tbody>
{rows}
<tr class="total"><th scope="row">every agent</th>{every}</tr>
</tbody>
</table></div>
</section>"""


def config_section(config: Mapping[str, Any], versions: Mapping[str, Mapping[str, str]],
                   levels: Mapping[str, Sequence[str]], when: Mapping[str, str]) -> str:
    """The config in brief: game and options, format, seed, limits, isolation, and every entry."""
    seed = config.get("seed")
    facts = [
        ("Game", f"{config.get('game')} {json.dumps(config.get('game_options', {}), sort_keys=True)}"),
        ("Format", f"{config.get('format')}, {config.get('blocks')} duplicate blocks per table"),
        ("Deals", "secret (from the store's key)" if seed is None else f"public: every deal follows from seed {seed}"),
        ("Limits", ", ".join(f"{key} {value}" for key, value in config.get("limits", {}).items())),
        ("Isolation", str(config.get("isolation"))),
        ("Rating methods", ", ".join(config.get("ratings", []))),
        *when.items(),
    ]
    facts_html = "\n".join(f"<tr><th scope=\"row\">{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in facts)
    entries = "\n".join(
        f'<tr data-agent="{escape(entry.get("name"))}"><th scope="row">{escape(entry.get("name"))}</th>'
        f'<td>{escape(entry.get("plugin"))}</td>'
        f'<td>{escape(versions.get(entry.get("name", ""), {}).get("version", "-"))}</td>'
        f'<td>{escape(json.dumps(entry.get("options", {}), sort_keys=True))}</td>'
        f'<td>{escape(entry.get("isolation") or config.get("isolation"))}</td>'
        f'<td>{escape(", ".join(levels.get(entry.get("name", ""), ())) or "-")}</td></tr>'
        for entry in config.get("agents", []))
    return f"""<section id="config">
<h2>Config</h2>
<table id="config-table"><tbody>
{facts_html}
</tbody></table>
<h3>Entries</h3>
<div class="scroll"><table id="entries-table">
<thead><tr><th scope="col">Entry</th><th scope="col">Plugin</th><th scope="col">Version</th>
<th scope="col">Options</th><th scope="col">Isolation (config)</th>
<th scope="col">Ran as (isolation/sandbox)</th></tr></thead>
<tbody>
{entries}
</tbody></table></div>
</section>"""


def front_page(title: str, boards: Mapping[str, Leaderboard], table: HeadToHead, seats: SeatResults,
               times: MoveTimes, levels: Mapping[str, Sequence[str]], history: Mapping[str, Any],
               config: Mapping[str, Any], versions: Mapping[str, Mapping[str, str]], when: Mapping[str, str],
               ladder: Mapping[str, Any] | None = None) -> str:
    """The whole front page (``index.html``); ``ladder`` (``arena.ladder.ladder_history``) adds its section."""
    first = next(iter(boards.values()))
    buttons = "".join(
        f'<button type="button" class="method-button" data-method="{escape(m)}" aria-pressed="{str(i == 0).lower()}">'
        f"{escape(m)}</button>" for i, m in enumerate(boards))
    sections = "\n".join(method_section(board, times, levels, i == 0) for i, board in enumerate(boards.values()))
    same = set(table.agents) == set(first.agents)
    ordered = table.reordered(first.agents) if same else table
    body = f"""<nav class="methods" id="methods" aria-label="rating method">Rating method: {buttons}</nav>
{sections}
{seat_section(seats)}
<section id="head-to-head">
<h2>Head to head per deal</h2>
<p class="meta">Share of shared deals (duplicate blocks, all rotations of one deal together) that the row agent
won against the column agent, a drawn deal counting half; grey where two agents never met.</p>
{head_to_head_svg(ordered)}
</section>
<section id="history">
<h2>Rating history ({escape(history.get("method", ""))})</h2>
<p class="meta">Each agent's rating and interval after the first n matches in schedule order, fitted at
{len(history.get("matches", []))} points: whether the ratings have settled.</p>
{history_svg(history)}
</section>
{"" if ladder is None else ladder_section(ladder)}
{config_section(config, versions, levels, when)}"""
    return page(title, "front", body, subtitle=f"{first.matches} matches; "
                f'<a href="matches.html">every match</a>')
