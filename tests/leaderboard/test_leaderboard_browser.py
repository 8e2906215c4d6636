"""The leaderboard page renders in a real browser: headless Chromium lays out the table and both charts.

Chromium comes from the system's packages; the fixture installs it (``apt-get install chromium``) when it is
missing and the tests run as root, which is how CI runs.
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from arena.leaderboard import build_leaderboard, head_to_head, write_leaderboard_files
from arena.ratings.simulate import simulate_outcomes

CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync")

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


@pytest.fixture(scope="session")
def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None and os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], check=True, capture_output=True, env=env)
        subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], check=True, capture_output=True, env=env)
        found = shutil.which("chromium")
    if found is None:
        pytest.skip("headless Chromium is not installed and cannot be installed here (needs root and apt-get)")
    return found


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    strengths = {"alpha": 1.5, "bravo": 1.0, "charlie": 0.5, "delta": 0.0, "echo": -0.5}
    outcomes = simulate_outcomes(strengths, blocks=12, players=4, seed=3)
    board = build_leaderboard(outcomes, "elo")
    folder = tmp_path_factory.mktemp("page")
    return write_leaderboard_files(board, head_to_head(outcomes), folder, title="browser test")["index.html"]


def browse(chromium: str, *args: str) -> subprocess.CompletedProcess[str]:
    profile = Path(os.environ.get("TMPDIR", "/tmp")) / f"arena-chromium-{os.getpid()}"
    return subprocess.run([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
                          capture_output=True, text=True, timeout=120)


def test_table_and_charts_are_laid_out(chromium: str, page: Path, tmp_path: Path) -> None:
    measured = tmp_path / "measured.html"
    text = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page.read_text())
    measured.write_text(text.replace("</body>", MEASURE + "</body>"))
    dom = browse(chromium, "--dump-dom", measured.as_uri()).stdout
    attributes = dict(re.findall(r'data-([a-z-]+)="([^"]*)"', re.search(r"<body[^>]*>", dom).group(0)))  # type: ignore[union-attr]
    assert attributes["rows"] == "5"
    for element in ("leaderboard-table", "ratings-chart-svg", "head-to-head-svg"):
        width, height = map(int, attributes[element].split("x"))
        assert width > 200 and height > 100, f"{element} laid out as {width}x{height}"
    assert int(attributes["marks"]) >= 5  # a mark per agent at least


def test_the_page_as_shipped_renders_non_blank(chromium: str, page: Path, tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    browse(chromium, f"--screenshot={shot}", "--window-size=1200,1600", page.as_uri())
    width, height, distinct = png_summary(shot.read_bytes())
    assert (width, height) == (1200, 1600)
    assert distinct > 20, "the screenshot is nearly blank: the charts did not render"


def png_summary(data: bytes) -> tuple[int, int, int]:
    """Width, height and the number of distinct pixel rows of an 8-bit RGB(A) PNG (enough to tell blank)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    position, chunks = 8, []
    while position < len(data):
        length = struct.unpack(">I", data[position:position + 4])[0]
        kind = data[position + 4:position + 8]
        if kind == b"IDAT":
            chunks.append(data[position + 8:position + 8 + length])
        position += 12 + length
    raw = zlib.decompress(b"".join(chunks))
    stride = len(raw) // height
    return width, height, len({raw[row * stride + 1:(row + 1) * stride] for row in range(height)})
