"""Small charts written directly as SVG text: axes, ticks, colours and escaping for ``charts`` and the site.

Drawing a chart this way costs well under a millisecond, where importing matplotlib alone cost half a second
of every publish.  Every string from a plugin or a user (agent names, titles) goes through ``escape``; every
``id`` inside a chart is prefixed with the chart's own id, so that several charts share one page.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

FONT = "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\""
"""Local fonts only: the page's Content-Security-Policy forbids fetching one."""

CHAR_WIDTH = 6.2
"""Estimated width of one character at 11 px, to leave room for labels."""

_RDBU = ("#67001f", "#b2182b", "#d6604d", "#f4a582", "#fddbc7", "#f7f7f7", "#d1e5f0", "#92c5de", "#4393c3",
         "#2166ac", "#053061")
"""The diverging red-white-blue scale: 0 red (lost every shared deal), 0.5 white, 1 blue (won every one)."""


def escape(text: object) -> str:
    """``text`` safe inside SVG text and attribute values."""
    return html.escape(str(text), quote=True)


def number(value: float) -> str:
    """A coordinate, short and locale-free."""
    return f"{value:.1f}".rstrip("0").rstrip(".") if math.isfinite(value) else "0"


def diverging(value: float) -> str:
    """The colour of ``value`` in [0, 1] on the red-white-blue scale."""
    position = min(max(value, 0.0), 1.0) * (len(_RDBU) - 1)
    low = min(int(position), len(_RDBU) - 2)
    fraction = position - low
    start, end = _RDBU[low], _RDBU[low + 1]
    channels = (round(int(start[k:k + 2], 16) * (1 - fraction) + int(end[k:k + 2], 16) * fraction)
                for k in (1, 3, 5))
    return "#" + "".join(f"{channel:02x}" for channel in channels)


def dark(value: float) -> bool:
    """Whether a cell of ``value`` is dark enough to need white text."""
    return abs(value - 0.5) > 0.3


def ticks(low: float, high: float, count: int = 6) -> list[float]:
    """About ``count`` round values spanning [low, high] (1, 2 or 5 times a power of ten apart)."""
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        return [low] if math.isfinite(low) else []
    raw = (high - low) / max(count - 1, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step - 1e-9)
    values = []
    index = first
    while index * step <= high + step * 1e-9:
        values.append(round(index * step, 10))
        index += 1
    return values


def tick_label(value: float) -> str:
    """A tick's label: no trailing zeros, no ``-0``."""
    text = f"{value:.6g}"
    return "0" if text in ("-0", "0") else text


def padded(values: Sequence[float], share: float = 0.05) -> tuple[float, float]:
    """The span of the finite ``values`` with ``share`` of it added at each end (a unit span if flat)."""
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return 0.0, 1.0
    low, high = min(finite), max(finite)
    if high - low < 1e-12:
        return low - 0.5, high + 0.5
    margin = (high - low) * share
    return low - margin, high + margin


def label_width(labels: Sequence[str], most: float = 180.0) -> float:
    """Room for the widest of ``labels`` at 11 px, at most ``most`` (longer ones are cut with an ellipsis)."""
    return min(max((len(label) for label in labels), default=0) * CHAR_WIDTH + 10, most)


def fit(label: str, width: float) -> str:
    """``label`` cut to fit ``width`` pixels at 11 px."""
    room = max(int(width / CHAR_WIDTH) - 1, 1)
    return label if len(label) <= room else label[: room - 1] + "…"


def document(element_id: str, label: str, width: float, height: float, body: list[str]) -> str:
    """The ``<svg>`` element: its id, size, aria label and title, and ``body``."""
    return (f'<svg id="{escape(element_id)}" role="img" aria-label="{escape(label)}" '
            f'xmlns="http://www.w3.org/2000/svg" width="{number(width)}" height="{number(height)}" '
            f'viewBox="0 0 {number(width)} {number(height)}" {FONT} font-size="11">'
            f"<title>{escape(label)}</title>" + "".join(body) + "</svg>")


def text(x: float, y: float, content: str, *, anchor: str = "start", size: float = 11, extra: str = "") -> str:
    """A ``<text>`` element (``content`` escaped here)."""
    return (f'<text x="{number(x)}" y="{number(y)}" text-anchor="{anchor}" font-size="{number(size)}"'
            f'{" " + extra if extra else ""}>{escape(content)}</text>')


def line(x1: float, y1: float, x2: float, y2: float, stroke: str, width: float = 1.0, extra: str = "") -> str:
    """A ``<line>`` element."""
    return (f'<line x1="{number(x1)}" y1="{number(y1)}" x2="{number(x2)}" y2="{number(y2)}" stroke="{stroke}" '
            f'stroke-width="{number(width)}"{" " + extra if extra else ""}/>')


def x_axis(left: float, right: float, bottom: float, top: float, low: float, high: float, title: str) -> list[str]:
    """Grid lines, ticks and labels of a horizontal axis mapping [low, high] to [left, right], and its title."""
    parts = [line(left, bottom, right, bottom, "#333333")]
    for value in ticks(low, high):
        x = left + (value - low) / (high - low) * (right - left)
        parts.append(line(x, top, x, bottom, "#000000", 1, 'stroke-opacity="0.12"'))
        parts.append(line(x, bottom, x, bottom + 4, "#333333"))
        parts.append(text(x, bottom + 15, tick_label(value), anchor="middle", size=10))
    parts.append(text((left + right) / 2, bottom + 32, title, anchor="middle"))
    return parts


def y_axis(left: float, right: float, bottom: float, top: float, low: float, high: float, title: str) -> list[str]:
    """Grid lines, ticks and labels of a vertical axis mapping [low, high] to [bottom, top], and its title."""
    parts = [line(left, top, left, bottom, "#333333")]
    for value in ticks(low, high):
        y = bottom - (value - low) / (high - low) * (bottom - top)
        parts.append(line(left, y, right, y, "#000000", 1, 'stroke-opacity="0.12"'))
        parts.append(line(left - 4, y, left, y, "#333333"))
        parts.append(text(left - 6, y + 3.5, tick_label(value), anchor="end", size=10))
    middle = (top + bottom) / 2
    parts.append(text(14, middle, title, anchor="middle", extra=f'transform="rotate(-90 14 {number(middle)})"'))
    return parts
