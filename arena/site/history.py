"""The rating history chart: each agent's rating and interval as matches accumulate, as inline SVG."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from arena.leaderboard import svg

HISTORY_LIMIT = 12
"""The history chart draws at most this many agents (the best at the last checkpoint)."""

# Ten colours far apart (matplotlib's tab10, the dark half of tab20); past ten, the colours repeat with dashes.
# tab20 alternated dark and light shades of one hue, so agents ranked next to each other looked alike.
LINE_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
                "#17becf")
LINE_DASHES = ("-", "--", ":")

_DASH_ARRAYS = {"-": "", "--": ' stroke-dasharray="5,3"', ":": ' stroke-dasharray="1.5,2"'}
"""Each line style as an SVG stroke attribute."""


def line_style(number: int) -> tuple[str, str]:
    """The colour and line style of the ``number``-th agent drawn (0 = the best): no two of the first
    ``HISTORY_LIMIT`` share both."""
    return LINE_COLOURS[number % len(LINE_COLOURS)], LINE_DASHES[number // len(LINE_COLOURS) % len(LINE_DASHES)]


def history_svg(history: Mapping[str, Any], element_id: str = "history-svg") -> str:
    """A line per agent (its rating at each checkpoint) in a band (its interval), best agents first."""
    matches = list(history.get("matches", []))
    series: Mapping[str, list[Any]] = history.get("agents", {})

    def final(agent: str) -> float:
        last = series[agent][-1] if series[agent] else None
        return last[0] if last else float("-inf")

    shown = sorted(series, key=final, reverse=True)[:HISTORY_LIMIT]
    more = f" (best {len(shown)} of {len(series)})" if len(series) > len(shown) else ""
    label = "Rating history: each agent's rating and interval as matches accumulate"
    lines = {agent: [(n, value) for n, value in zip(matches, series[agent]) if value is not None] for agent in shown}
    drawn = {agent: points for agent, points in lines.items() if points}  # no rating at any checkpoint: no line
    legend = svg.label_width(list(drawn), 160) + 24 if drawn else 0
    left, top, width, height = 64.0, 30.0, 560.0 + legend, 320.0
    right, bottom = width - legend - 12, height - 44
    body = [svg.text((left + right) / 2, 18, f"Rating history{more}", anchor="middle", size=13)]
    if not (matches and drawn):
        body.append(svg.text((left + right) / 2, (top + bottom) / 2, "no matches yet", anchor="middle"))
        return svg.document(element_id, label, width, height, body)
    x_low, x_high = svg.padded([n for points in drawn.values() for n, _ in points], 0.02)
    y_low, y_high = svg.padded([v for points in drawn.values() for _, value in points for v in value[:3]])

    def x(value: float) -> float:
        return left + (value - x_low) / (x_high - x_low) * (right - left)

    def y(value: float) -> float:
        clipped = min(max(value, y_low), y_high) if math.isfinite(value) else (y_high if value > 0 else y_low)
        return bottom - (clipped - y_low) / (y_high - y_low) * (bottom - top)

    body += svg.x_axis(left, right, bottom, top, x_low, x_high, "matches rated")
    body += svg.y_axis(left, right, bottom, top, y_low, y_high, f"{history.get('method', '')} rating")
    for number, (agent, points) in enumerate(drawn.items()):
        colour, dashes = line_style(number)
        entry_y = top + 6 + number * 16
        body.append(svg.line(right + 12, entry_y, right + 26, entry_y, colour, 2, _DASH_ARRAYS[dashes].strip()))
        body.append(svg.text(right + 30, entry_y + 3.5, svg.fit(agent, legend - 24), size=10))
        band = [f"{svg.number(x(n))},{svg.number(y(v[2]))}" for n, v in points]
        band += [f"{svg.number(x(n))},{svg.number(y(v[1]))}" for n, v in reversed(points)]
        body.append(f'<polygon points="{" ".join(band)}" fill="{colour}" fill-opacity="0.15"/>')
        path = " ".join(f"{svg.number(x(n))},{svg.number(y(v[0]))}" for n, v in points)
        body.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="1.2"'
                    f"{_DASH_ARRAYS[dashes]}><title>{svg.escape(agent)}</title></polyline>")
        body += [f'<circle cx="{svg.number(x(n))}" cy="{svg.number(y(v[0]))}" r="1.6" fill="{colour}"/>'
                 for n, v in points]
    return svg.document(element_id, label, width, height, body)
