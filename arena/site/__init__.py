"""The tournament site: ``leaderboards/<name>/`` as pages a browser opens from disk or any static host.

* ``index.html``: every configured method's leaderboard (switchable) with versions, faults, time per move and
  isolation; results by seat; P(stronger); head to head per deal; the rating history; the config;
* ``matches.html``: every match, filterable by agent, a page at a time;
* ``match.html#IDX``: one match stepped through (``arena.records.log``, the log ``arena replay --log`` prints).

``build_site`` writes it (``arena.leaderboard.publish`` calls it); the data the pages load lives in ``data/``
as scripts (``arena.site.chunks``), the numbers beside the ratings come from ``arena.site.stats``.
"""

from arena.site.build import PAGES, build_site

__all__ = ["PAGES", "build_site"]
