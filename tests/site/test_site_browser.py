"""The site in headless Chromium, opened from file://: front page, match list, a match stepped through.

Driven over the DevTools protocol (tests/conftest.py): clicks are the page's own buttons and links, steps are
real key presses; no console error or uncaught exception may occur on the way.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import DevToolsPage


def test_front_page_to_match_list_to_a_match_stepped_with_keys_and_buttons(
        site: Path, devtools: DevToolsPage, png_rows: Callable[[bytes], Any]) -> None:
    page = devtools
    page.open((site / "index.html").as_uri())
    assert page.evaluate("document.querySelectorAll('#leaderboard-elo tbody tr').length") == 4
    assert page.evaluate("document.getElementById('method-score').hidden") is True
    page.evaluate("document.querySelector('.method-button[data-method=score]').click()")
    assert page.evaluate("[document.getElementById('method-score').hidden,"
                         " document.getElementById('method-elo').hidden]") == [False, True]
    assert png_rows(page.screenshot())[2] > 100, "the front page looks blank"

    page.follow("a[href='matches.html']")
    page.wait_for("location.pathname.endsWith('/matches.html')"
                  " && document.querySelectorAll('#matches-table tbody tr').length === 8")
    assert page.evaluate("document.getElementById('list-status').textContent") == "matches 1-8 of 8 (page 1 of 1)"
    faults = page.evaluate("[...document.querySelectorAll('#matches-table tbody tr td:last-child')]"
                           ".map(td => td.textContent)")
    assert all(" exception at move " in text for text in faults)
    page.evaluate("const s = document.getElementById('agent-filter'); s.value = '0';"
                  " s.dispatchEvent(new Event('change'))")  # the first agent: greedy
    page.wait_for("location.hash === '#agent=greedy'")
    assert page.evaluate("document.querySelectorAll('#matches-table tbody tr').length") == 8
    assert png_rows(page.screenshot())[2] > 100, "the match list looks blank"

    page.follow("#matches-table tbody tr a")
    page.wait_for("location.pathname.endsWith('/match.html') && document.querySelectorAll('#match-log li').length")
    assert page.evaluate("document.getElementById('match-title').textContent") == "Match t0000-b00-r0"
    total = page.evaluate("Number(document.getElementById('step-status').textContent.split(' of ')[1])")
    assert total > 10
    for _ in range(3):
        page.press("ArrowRight")
    assert page.evaluate("document.getElementById('step-status').textContent") == f"step 3 of {total}"
    page.evaluate("document.getElementById('step-next').click()")
    page.press("ArrowLeft")
    assert page.evaluate("document.getElementById('step-status').textContent") == f"step 3 of {total}"
    assert page.evaluate("document.querySelector('#hands td').textContent") == "hidden"
    page.evaluate("document.getElementById('show-hands').click()")
    hands = page.evaluate("[...document.querySelectorAll('#hands td')].map(td => td.textContent)")
    assert len(hands) == 4 and all("acorns" in h or "green" in h or "hearts" in h or "bells" in h for h in hands)
    page.press("End")
    assert page.evaluate("document.getElementById('settlement').hidden") is False
    assert page.evaluate("document.querySelectorAll('#result-table tbody tr').length") == 4
    assert page.evaluate("document.querySelectorAll('#match-log li.fault:not(.future)').length") == 1
    assert page.evaluate("document.getElementById('raw-record').href").startswith("blob:")
    page.evaluate("document.getElementById('match-next').click()")
    page.wait_for("document.getElementById('match-title').textContent === 'Match t0000-b00-r1'")
    width, height, distinct = png_rows(page.screenshot())
    assert (width, height) == (1200, 1400) and distinct > 100, "the match page looks blank"
    assert page.errors == []
