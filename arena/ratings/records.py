"""Rating input from match records: ``fit`` takes what ``arena.load_records`` returns, as well as outcomes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from arena.ratings import registry
from arena.ratings.data import MatchOutcome
from arena.ratings.table import RatingTable


def outcome_of(match: MatchOutcome | Mapping[str, Any]) -> MatchOutcome:
    """A ``MatchOutcome`` as is, or the outcome of a finished match record (docs/records.md).

    A record's duplicate block is its deal: the matches of a block share their
    ``seed``.  ``ValueError`` for a record without a result or a match id.
    """
    if isinstance(match, MatchOutcome):
        return match
    if not isinstance(match, Mapping) or "result" not in match or "match" not in match:
        raise ValueError("rating input must be MatchOutcome objects or finished match records with a match id "
                         f"(as arena.load_records returns), not {type(match).__name__}")
    result = match["result"]
    return MatchOutcome(
        match_id=str(match["match"]),
        block=f"deal-{match['seed']}",
        agents=tuple(seat["agent"] for seat in match["seats"]),
        scores=tuple(result["scores"]),
        ranks=tuple(result["ranks"]),
        faults=tuple((int(fault["seat"]), str(fault["kind"])) for fault in match.get("faults", ())),
    )


def fit(matches: Iterable[MatchOutcome | Mapping[str, Any]], method: str = registry.DEFAULT_METHOD,
        **options: Any) -> RatingTable:
    """Rate ``matches`` (outcomes or match records) with the method called ``method`` (``registry.fit``)."""
    return registry.fit([outcome_of(match) for match in matches], method, **options)
