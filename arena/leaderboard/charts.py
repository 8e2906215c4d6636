"""Leaderboard charts drawn with matplotlib, returned as inline SVG text.

Figures are built with ``matplotlib.figure.Figure`` on the Agg canvas (never pyplot), so
no GUI backend is touched and nothing global changes.  The SVG is made for embedding
several charts in one HTML page: deterministic (fixed hash salt, no date), glyphs as paths
(no fonts to fetch), raster images inline, and every ``id`` inside prefixed with the chart's
own id so that two charts never share an id.
"""

from __future__ import annotations

import html
import io
import math
import re
from typing import Any

import numpy as np

from arena.leaderboard.build import Leaderboard
from arena.leaderboard.head_to_head import HeadToHead

CHART_LIMIT = 100
"""The ratings chart shows at most this many agents (the best)."""

LABEL_LIMIT = 60
"""The heatmap names its rows and columns up to this many agents."""

ANNOTATE_LIMIT = 12
"""The heatmap writes the share in each cell up to this many agents."""

_SVG_RC: dict[Any, Any] = {"svg.fonttype": "path", "svg.hashsalt": "arena-leaderboard", "svg.image_inline": True}


def _figure(width: float, height: float):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _svg_text(figure, element_id: str, label: str) -> str:
    """Render ``figure`` as an ``<svg>`` element with id ``element_id``, prefixed inner ids and an aria label."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context(_SVG_RC):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    text = text[text.index("<svg") :]  # drop the XML declaration and doctype
    prefix = element_id + "-"
    text = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{prefix}{m.group(1)}"', text)
    text = re.sub(r'(xlink:href|href)="#([^"]+)"', lambda m: f'{m.group(1)}="#{prefix}{m.group(2)}"', text)
    text = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}{m.group(1)})", text)
    return text.replace("<svg", f'<svg id="{element_id}" role="img" aria-label="{html.escape(label)}"', 1)


def ratings_svg(leaderboard: Leaderboard, element_id: str = "ratings-chart-svg") -> str:
    """Ratings with their intervals as horizontal error bars, best at the top."""
    rows = [r for r in leaderboard.rows if math.isfinite(r.rating)][:CHART_LIMIT]
    count = max(len(rows), 1)
    figure = _figure(7.5, min(1.2 + 0.28 * count, 30.0))
    axes = figure.add_subplot()
    if rows:
        y = np.arange(len(rows))[::-1]
        lower = np.array([r.lower for r in rows])
        upper = np.array([r.upper for r in rows])
        rating = np.array([r.rating for r in rows])
        has_interval = np.isfinite(lower) & np.isfinite(upper)
        middle = np.where(has_interval, (lower + upper) / 2.0, rating)
        half = np.where(has_interval, (upper - lower) / 2.0, 0.0)
        # The bar is the interval and the dot the rating: not always the middle (a
        # bootstrap's percentile interval need not be symmetric).
        axes.errorbar(
            middle, y, xerr=half, fmt="none", ecolor="#4a6fa5", elinewidth=2, capsize=3,
            label=f"{leaderboard.level:.0%} interval",
        )
        axes.plot(rating, y, "o", color="#1b2a41", markersize=4, label="rating")
        axes.legend(loc="lower right", fontsize=7, framealpha=0.8)
        axes.set_yticks(y, [r.agent for r in rows], fontsize=8)
        axes.set_ylim(-0.7, len(rows) - 0.3)
    else:
        axes.text(0.5, 0.5, "no matches yet", ha="center", va="center", transform=axes.transAxes)
        axes.set_yticks([])
    axes.set_xlabel(f"{leaderboard.method} rating ({leaderboard.level:.0%} interval)")
    axes.grid(axis="x", alpha=0.3)
    shown = f" (best {len(rows)} of {len(leaderboard.rows)})" if len(leaderboard.rows) > len(rows) else ""
    axes.set_title(f"Ratings{shown}", fontsize=10)
    return _svg_text(figure, element_id, f"Ratings with {leaderboard.level:.0%} intervals")


def head_to_head_svg(table: HeadToHead, element_id: str = "head-to-head-svg") -> str:
    """Heatmap of ``share[i][j]`` (share of shared deals the row agent won), grey where they never met."""
    n = len(table.agents)
    size = min(max(3.5, 1.8 + 0.38 * n), 24.0)
    figure = _figure(size + 1.2, size)
    axes = figure.add_subplot()
    if n:
        import matplotlib

        share = np.ma.masked_invalid(table.share_matrix())
        colours = matplotlib.colormaps["RdBu"].with_extremes(bad="#d9d9d9")
        image = axes.imshow(share, cmap=colours, vmin=0.0, vmax=1.0, interpolation="nearest")
        figure.colorbar(image, ax=axes, shrink=0.8, label="share of shared deals won (row vs column)")
        if n <= LABEL_LIMIT:
            axes.set_xticks(range(n), table.agents, rotation=60, ha="right", fontsize=8)
            axes.set_yticks(range(n), table.agents, fontsize=8)
        else:
            axes.set_xticks([])
            axes.set_yticks([])
        if n <= ANNOTATE_LIMIT:
            for i in range(n):
                for j in range(n):
                    value = table.share[i][j]
                    if value is not None:
                        dark = abs(value - 0.5) > 0.3
                        axes.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=7,
                                  color="white" if dark else "black")
        axes.set_xlabel("opponent")
        axes.set_ylabel("agent")
    else:
        axes.text(0.5, 0.5, "no matches yet", ha="center", va="center", transform=axes.transAxes)
        axes.set_xticks([])
        axes.set_yticks([])
    axes.set_title("Head to head", fontsize=10)
    return _svg_text(figure, element_id, "Head-to-head heatmap: share of shared deals won")
