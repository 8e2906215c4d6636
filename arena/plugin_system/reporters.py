"""Calling reporter plugins (``arena_match_finished``) one by one, so that a failing one silences no other.

pluggy's own hook call stops at the first implementation that raises; a
reporter is third-party code and may raise anything, so each implementation
is called on its own and its failure reported as one line naming the plugin.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any, TextIO

import pluggy


def call_each_reporter(pm: pluggy.PluginManager, record: Mapping[str, Any], stream: TextIO | None = None) -> int:
    """Call every ``arena_match_finished`` implementation with ``record``; return how many failed.

    Each failure is one line on ``stream`` (default stderr): the plugin, the match and the error.
    """
    failed = 0
    arguments = {"record": record}
    for implementation in pm.hook.arena_match_finished.get_hookimpls():
        try:
            implementation.function(**{name: arguments[name] for name in implementation.argnames})
        except Exception as error:  # a reporter may raise anything; the others still hear the match
            failed += 1
            message = " ".join(str(error).split())
            print(f"arena: reporter plugin {implementation.plugin_name!r} failed on match "
                  f"{record.get('match', '?')}: {type(error).__name__}{': ' + message if message else ''}",
                  file=stream or sys.stderr)
    return failed
