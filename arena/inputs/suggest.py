"""Did-you-mean for names a user typed: one place that decides what counts as close."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def closest(word: object, known: Iterable[str]) -> str | None:
    """The known name closest to ``word`` if one is close enough to be a likely misspelling, else None."""
    close = difflib.get_close_matches(str(word), sorted(known), n=1, cutoff=0.65)
    return close[0] if close else None
