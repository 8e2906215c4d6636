"""The site's page skeleton and its two data-driven pages: the match list and the match viewer.

Every page links ``site.css`` and ``site.js`` (shipped in ``arena/site/assets/``, copied beside the pages) and
nothing else: a Content-Security-Policy forbids any other source, so the site works offline, from ``file://``
or any static host.  Pages that show data load it as scripts from ``data/`` (``arena.site.chunks``).
"""

from __future__ import annotations

import html
import json
from importlib import resources
from pathlib import Path
from typing import Any

ASSETS = ("site.css", "site.js")
"""Files copied from ``arena/site/assets/`` into every site."""

POLICY = ("default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src data:; "
          "connect-src 'none'; form-action 'none'; base-uri 'none'")
"""Scripts and styles from the site's own folder, inline chart styles and data images; nothing from anywhere else."""


def escape(value: object) -> str:
    """``value`` as text for HTML: ``<``, ``>``, ``&`` and quotes escaped (names come from configs and plugins)."""
    return html.escape(str(value))


def page(title: str, kind: str, body: str, subtitle: str = "", settings: dict[str, Any] | None = None) -> str:
    """A whole HTML page: ``kind`` tells ``site.js`` which page it runs on; ``settings`` go to it as JSON."""
    escaped = html.escape(title)
    data = "" if settings is None else \
        f'\n<script type="application/json" id="site-settings">{_json_in_html(settings)}</script>'
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{POLICY}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escaped}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="site.css">
<script src="site.js" defer></script>
</head>
<body data-page="{kind}">
<header>
<h1><a href="index.html">{escaped}</a></h1>
<p class="meta">{subtitle}</p>
</header>
<main>
{body}
</main>{data}
</body>
</html>
"""


def _json_in_html(data: Any) -> str:
    """JSON that cannot end its ``<script>`` element early (``</`` and ``<!--`` escaped)."""
    return json.dumps(data, separators=(",", ":")).replace("<", "\\u003c").replace(">", "\\u003e")


def matches_page(title: str, settings: dict[str, Any]) -> str:
    """The match list: a filter by agent, pager buttons and a table filled from ``data/l*.js``."""
    body = """<section id="match-list">
<h2>Matches</h2>
<form id="filter" class="toolbar">
<label>Agent <select id="agent-filter"><option value="">every agent</option></select></label>
<button type="button" id="list-prev">&larr; previous page</button>
<span id="list-status" aria-live="polite"></span>
<button type="button" id="list-next">next page &rarr;</button>
</form>
<div class="scroll"><table id="matches-table">
<thead><tr><th scope="col">Match</th><th scope="col" class="num">Table</th><th scope="col" class="num">Block</th>
<th scope="col" class="num">Rotation</th><th scope="col">Seats: agent (score, rank)</th><th scope="col">Faults</th></tr>
</thead>
<tbody></tbody>
</table></div>
<noscript><p>The match list is loaded by a script: allow scripts for this page.</p></noscript>
</section>"""
    return page(title, "matches", body, subtitle='<a href="index.html">leaderboard</a>', settings=settings)


def match_page(title: str, settings: dict[str, Any]) -> str:
    """The match viewer: one match (``match.html#IDX``) stepped through with buttons or the arrow keys."""
    body = """<section id="match">
<h2 id="match-title">Match</h2>
<p class="meta" id="match-meta"></p>
<div class="toolbar">
<a id="match-prev" href="#">&larr; previous match</a>
<button type="button" id="step-first" title="Home">|&larr;</button>
<button type="button" id="step-prev" title="left arrow">&larr; step</button>
<span id="step-status" aria-live="polite"></span>
<button type="button" id="step-next" title="right arrow">step &rarr;</button>
<button type="button" id="step-last" title="End">&rarr;|</button>
<a id="match-next" href="#">next match &rarr;</a>
<label><input type="checkbox" id="show-hands"> show every hand</label>
<a id="raw-record" download>raw record (JSON)</a>
</div>
<figure id="table-drawing" hidden></figure>
<div class="match-grid">
<div>
<h3>This step</h3>
<div id="current-step"></div>
<h3>Hands</h3>
<table id="hands"><tbody></tbody></table>
<div id="settlement" hidden>
<h3>Result</h3>
<table id="result-table"><thead><tr><th scope="col">Rank</th><th scope="col">Seat</th>
<th scope="col" class="num">Score</th></tr></thead><tbody></tbody></table>
</div>
</div>
<div>
<h3>Log</h3>
<ol id="match-log"></ol>
</div>
</div>
<noscript><p>The match is loaded by a script: allow scripts for this page.</p></noscript>
</section>"""
    links = '<a href="index.html">leaderboard</a> · <a href="matches.html">matches</a>'
    return page(title, "match", body, subtitle=links, settings=settings)


def copy_assets(folder: Path) -> None:
    """Copy ``site.css`` and ``site.js`` into the site's folder."""
    source = resources.files("arena.site") / "assets"
    for name in ASSETS:
        (folder / name).write_text((source / name).read_text(encoding="utf-8"), encoding="utf-8")
