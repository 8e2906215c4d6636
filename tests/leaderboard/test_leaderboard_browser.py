"""The leaderboard page renders in a real browser: headless Chromium lays out the table and both charts.

The Chromium fixtures live in tests/conftest.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.leaderboard import build_leaderboard, head_to_head, write_leaderboard_files
from arena.ratings.simulate import simulate_outcomes

# Appended to a copy of the page (without its no-script policy): writes what the browser laid out into the DOM.
MEASURE = """<script>
for (const id of ["leaderboard-table", "ratings-chart-svg", "head-to-head-svg"]) {
  const box = document.getElementById(id).getBoundingClientRect();
  document.body.setAttribute("data-" + id, Math.round(box.width) + "x" + Math.round(box.height));
}
document.body.setAttribute("data-rows", document.querySelectorAll("#leaderboard-table tbody tr").length);
document.body.setAttribute("data-marks",
  document.querySelectorAll("#ratings-chart-svg path, #ratings-chart-svg use, #ratings-chart-svg line").length);
</script>
"""


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    strengths = {"alpha": 1.5, "bravo": 1.0, "charlie": 0.5, "delta": 0.0, "echo": -0.5}
    outcomes = simulate_outcomes(strengths, blocks=12, players=4, seed=3)
    board = build_leaderboard(outcomes, "elo")
    folder = tmp_path_factory.mktemp("page")
    return write_leaderboard_files(board, head_to_head(outcomes), folder, title="browser test")["index.html"]


def test_table_and_charts_are_laid_out(browse: Callable[..., Any], page: Path, tmp_path: Path) -> None:
    measured = tmp_path / "measured.html"
    text = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page.read_text())
    measured.write_text(text.replace("</body>", MEASURE + "</body>"))
    dom = browse("--dump-dom", measured.as_uri()).stdout
    body = re.search(r"<body[^>]*>", dom)
    assert body is not None, dom[:300]
    attributes = dict(re.findall(r'data-([a-z-]+)="([^"]*)"', body.group(0)))
    assert attributes["rows"] == "5"
    for element in ("leaderboard-table", "ratings-chart-svg", "head-to-head-svg"):
        width, height = map(int, attributes[element].split("x"))
        assert width > 200 and height > 100, f"{element} laid out as {width}x{height}"
    assert int(attributes["marks"]) >= 5  # a mark per agent at least


def test_the_page_as_shipped_renders_non_blank(browse: Callable[..., Any], png_rows: Callable[[bytes], Any],
                                               page: Path, tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    browse(f"--screenshot={shot}", "--window-size=1200,1600", page.as_uri())
    width, height, distinct = png_rows(shot.read_bytes())
    assert (width, height) == (1200, 1600)
    assert distinct > 20, "the screenshot is nearly blank: the charts did not render"
