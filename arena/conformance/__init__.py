"""The conformance kits: what checks that an agent or a game keeps arena's contracts.

* ``arena.conformance.agents``: the agent kit, ``check_agent`` and ``assert_agent_conforms``
  (``arena check-agent``); importable from this package as ``from arena.conformance import check_agent``
  (docs/writing-agents.md);
* ``arena.conformance.report``: what ``arena check-agent`` reports, and its text;
* ``arena.conformance.coverage``: the cases of a game an agent is driven through (``CoveragePlan``, which a
  game declares; also ``arena.coverage``);
* ``arena.conformance.games``: the game kit, ``check_game`` (also ``arena.testing``, docs/writing-games.md).

A game imports ``coverage`` and the game kit only reads games, while the agent kit runs the referee and the
plugin system: so this package imports none of them itself, and the agent kit's names are looked up only
when asked for (a game importing its coverage plan never loads the referee).
"""

from __future__ import annotations

from typing import Any

_AGENT_KIT = "arena.conformance.agents"


def __getattr__(name: str) -> Any:
    """The agent kit's names (``check_agent``, ``assert_agent_conforms``, ...), imported when first asked for."""
    import importlib

    if name.startswith("__"):
        raise AttributeError(f"module 'arena.conformance' has no attribute {name!r}")
    try:
        return getattr(importlib.import_module(_AGENT_KIT), name)
    except AttributeError:
        raise AttributeError(f"module 'arena.conformance' has no attribute {name!r}") from None
