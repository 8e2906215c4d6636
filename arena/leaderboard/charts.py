"""Leaderboard charts as inline SVG text, written directly (``arena.leaderboard.svg``): no plotting library.

Each is made for embedding several charts in one HTML page: deterministic, no fonts or images to fetch,
every string escaped, every ``id`` inside prefixed with the chart's own id.
"""

from __future__ import annotations

import math

from arena.leaderboard import svg
from arena.leaderboard.build import Leaderboard
from arena.leaderboard.head_to_head import HeadToHead

CHART_LIMIT = 100
"""The ratings chart shows at most this many agents (the best)."""

LABEL_LIMIT = 60
"""The heatmap names its rows and columns up to this many agents."""

ANNOTATE_LIMIT = 12
"""The heatmap writes the share in each cell up to this many agents."""

ROW = 20.0
"""Height of one agent's row in the ratings chart, in pixels."""


def ratings_svg(leaderboard: Leaderboard, element_id: str = "ratings-chart-svg") -> str:
    """Ratings with their intervals as horizontal error bars, best at the top."""
    rows = [r for r in leaderboard.rows if math.isfinite(r.rating)][:CHART_LIMIT]
    shown = f" (best {len(rows)} of {len(leaderboard.rows)})" if len(leaderboard.rows) > len(rows) else ""
    left = 12 + svg.label_width([r.agent for r in rows])
    width, top = 560.0, 30.0
    right = width - 16
    bottom = top + ROW * max(len(rows), 1) + 8
    height = bottom + 60
    level = f"{leaderboard.level:.0%}"
    body = [svg.text(width / 2, 18, f"Ratings{shown}", anchor="middle", size=13)]
    if not rows:
        body.append(svg.text((left + right) / 2, (top + bottom) / 2, "no matches yet", anchor="middle"))
        body += svg.x_axis(left, right, bottom, top, 0.0, 1.0, f"{leaderboard.method} rating ({level} interval)")
        return svg.document(element_id, f"Ratings with {level} intervals", width, height, body)
    low, high = svg.padded([v for r in rows for v in (r.lower, r.upper, r.rating)])

    def x(value: float) -> float:
        return left + (value - low) / (high - low) * (right - left)

    body += svg.x_axis(left, right, bottom, top, low, high, f"{leaderboard.method} rating ({level} interval)")
    for index, row in enumerate(rows):
        y = top + ROW * (index + 0.5) + 4
        body.append(svg.text(left - 6, y + 3.5, svg.fit(row.agent, left - 12), anchor="end"))
        # The bar is the interval and the dot the rating: not always the middle (a bootstrap's percentile
        # interval need not be symmetric).  An infinite bound has no bar.
        if math.isfinite(row.lower) and math.isfinite(row.upper):
            body.append(svg.line(x(row.lower), y, x(row.upper), y, "#4a6fa5", 2))
            body += [svg.line(x(end), y - 3, x(end), y + 3, "#4a6fa5", 1.5) for end in (row.lower, row.upper)]
        body.append(f'<circle cx="{svg.number(x(row.rating))}" cy="{svg.number(y)}" r="3" fill="#1b2a41">'
                    f"<title>{svg.escape(row.agent)}: {row.rating:.4g} [{row.lower:.4g}, {row.upper:.4g}]"
                    "</title></circle>")
    legend_y = bottom + 48
    body += [svg.line(right - 190, legend_y - 4, right - 172, legend_y - 4, "#4a6fa5", 2),
             svg.text(right - 168, legend_y, f"{level} interval", size=10),
             f'<circle cx="{svg.number(right - 70)}" cy="{svg.number(legend_y - 4)}" r="3" fill="#1b2a41"/>',
             svg.text(right - 62, legend_y, "rating", size=10)]
    return svg.document(element_id, f"Ratings with {level} intervals", width, height, body)


def head_to_head_svg(table: HeadToHead, element_id: str = "head-to-head-svg") -> str:
    """Heatmap of ``share[i][j]`` (share of shared deals the row agent won), grey where they never met."""
    n = len(table.agents)
    labelled = 0 < n <= LABEL_LIMIT
    cell = min(max(360.0 / max(n, 1), 4.0), 40.0)
    margin = 40 + (svg.label_width(table.agents, 150) if labelled else 0)
    top = 30.0
    side = cell * max(n, 1)
    bottom_room = 40 + (svg.label_width(table.agents, 150) * 0.87 if labelled else 0)
    width = margin + side + 110
    height = top + side + bottom_room
    body = [svg.text(margin + side / 2, 18, "Head to head", anchor="middle", size=13)]
    if not n:
        body.append(svg.text(margin + side / 2, top + side / 2, "no matches yet", anchor="middle"))
        return svg.document(element_id, "Head-to-head heatmap: share of shared deals won", width, height, body)
    for i, agent in enumerate(table.agents):
        for j, opponent in enumerate(table.agents):
            value = table.share[i][j]
            x, y = margin + j * cell, top + i * cell
            colour = "#d9d9d9" if value is None else svg.diverging(value)
            said = "never met" if value is None else f"{value:.2f}"
            body.append(f'<rect class="cell" x="{svg.number(x)}" y="{svg.number(y)}" width="{svg.number(cell)}" '
                        f'height="{svg.number(cell)}" fill="{colour}"><title>{svg.escape(agent)} vs '
                        f"{svg.escape(opponent)}: {said}</title></rect>")
            if value is not None and n <= ANNOTATE_LIMIT:
                body.append(svg.text(x + cell / 2, y + cell / 2 + 3, f"{value:.2f}", anchor="middle", size=9,
                                     extra=f'fill="{"white" if svg.dark(value) else "black"}"'))
    if labelled:
        room = svg.label_width(table.agents, 150) - 10
        for index, agent in enumerate(table.agents):
            middle = top + (index + 0.5) * cell
            body.append(svg.text(margin - 6, middle + 3.5, svg.fit(agent, room), anchor="end", size=10))
            x, y = margin + (index + 0.5) * cell, top + side + 8
            body.append(svg.text(x, y, svg.fit(agent, room), anchor="end", size=10,
                                 extra=f'transform="rotate(-60 {svg.number(x)} {svg.number(y)})"'))
    body.append(svg.text(margin + side / 2, height - 6, "opponent", anchor="middle"))
    middle = top + side / 2
    body.append(svg.text(14, middle, "agent", anchor="middle",
                         extra=f'transform="rotate(-90 14 {svg.number(middle)})"'))
    body += _colour_bar(f"{element_id}-scale", margin + side + 24, top, side)
    return svg.document(element_id, "Head-to-head heatmap: share of shared deals won", width, height, body)


def _colour_bar(gradient_id: str, x: float, top: float, height: float) -> list[str]:
    """The heatmap's scale: 1 at the top, 0 at the bottom, and what it measures."""
    stops = "".join(f'<stop offset="{k / 10:.1f}" stop-color="{svg.diverging(1 - k / 10)}"/>' for k in range(11))
    parts = [f'<defs><linearGradient id="{svg.escape(gradient_id)}" x1="0" y1="0" x2="0" y2="1">{stops}'
             "</linearGradient></defs>",
             f'<rect x="{svg.number(x)}" y="{svg.number(top)}" width="14" height="{svg.number(height)}" '
             f'fill="url(#{svg.escape(gradient_id)})" stroke="#333333" stroke-width="0.5"/>']
    for value in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = top + (1 - value) * height
        parts.append(svg.line(x + 14, y, x + 18, y, "#333333"))
        parts.append(svg.text(x + 21, y + 3.5, f"{value:g}", size=10))
    middle = top + height / 2
    parts.append(svg.text(x + 58, middle, "share of shared deals won (row vs column)", anchor="middle", size=10,
                          extra=f'transform="rotate(90 {svg.number(x + 58)} {svg.number(middle)})"'))
    return parts
