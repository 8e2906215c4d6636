"""The rating history chart: each agent's rating and interval as matches accumulate, as inline SVG."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.leaderboard.charts import new_figure, svg_text

HISTORY_LIMIT = 12
"""The history chart draws at most this many agents (the best at the last checkpoint)."""


# Ten colours far apart (matplotlib's tab10, the dark half of tab20); past ten, the colours repeat with dashes.
# tab20 alternated dark and light shades of one hue, so agents ranked next to each other looked alike.
LINE_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
                "#17becf")
LINE_DASHES = ("-", "--", ":")


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
    figure = new_figure(7.5, 4.2)
    axes = figure.add_subplot()
    if matches and shown:
        for number, agent in enumerate(shown):
            points = [(n, value) for n, value in zip(matches, series[agent]) if value is not None]
            if not points:
                continue
            x = [n for n, _ in points]
            colour, dashes = line_style(number)
            axes.fill_between(x, [v[1] for _, v in points], [v[2] for _, v in points], color=colour, alpha=0.15,
                              linewidth=0)
            axes.plot(x, [v[0] for _, v in points], marker="o", linestyle=dashes, color=colour, markersize=2.5,
                      linewidth=1.2, label=agent)
        if axes.lines:  # an agent without a rating at any checkpoint draws no line (a tiny field)
            axes.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
        axes.set_xlabel("matches rated")
        axes.set_ylabel(f"{history.get('method', '')} rating")
        axes.grid(alpha=0.3)
    else:
        axes.text(0.5, 0.5, "no matches yet", ha="center", va="center", transform=axes.transAxes)
    more = f" (best {len(shown)} of {len(series)})" if len(series) > len(shown) else ""
    axes.set_title(f"Rating history{more}", fontsize=10)
    return svg_text(figure, element_id, "Rating history: each agent's rating and interval as matches accumulate")
