"""Rating methods: pure functions from match outcomes to a ``RatingTable``.

Each method is ``fit(outcomes, **options) -> RatingTable`` over a finished tournament;
choose one by name with ``arena.ratings.fit(outcomes, "elo")`` (which also takes
the match records ``arena.load_records`` returns).  Pass ``outcomes`` in the
order the matches were played (the store's schedule order): Elo, Plackett–Luce and score
do not depend on that order, TrueSkill does (it rates one match after another):

* ``"elo"``: Bradley–Terry over the pairs of seats in each match, on the Elo scale
  (``arena.ratings.elo``);
* ``"plackett-luce"``: Plackett–Luce over each match's finishing order, same scale
  (``arena.ratings.plackett_luce``);
* ``"trueskill"``: free-for-all TrueSkill for a batch (no dynamics, the observed draw
  rate), ranked by ``mu`` with a jackknife interval (``arena.ratings.trueskill``);
* ``"score"``: mean score per match with block-bootstrap intervals (``arena.ratings.score``);
* ``"luck"``: mean seats beaten per match less the luck of chance after the deal (Lovat's die), with the score's
  intervals (``arena.ratings.luck_adjusted``; the correction is ``arena.ratings.luck``'s).

Intervals account for the design (duplicate blocks: ``arena.ratings.design``); every table
also holds P(stronger) and the spread of each gap for every pair (``RatingTable.gap``).
docs/ratings.md says which method to use when, and how well each interval covers.

The input shape is ``MatchOutcome`` (``arena.ratings.data``); ``arena.ratings.simulate``
makes synthetic tournaments with known strengths.
"""

from arena.ratings.data import FAULT_KINDS, MatchArrays, MatchOutcome, as_arrays
from arena.ratings.records import fit, outcome_of  # fit: the registry's, also taking match records
from arena.ratings.registry import (
    DEFAULT_METHOD,
    METHODS,
    MethodSpec,
    RatingMethod,
    get_method,
    method_names,
    method_spec,
    register_method,
)
from arena.ratings.table import AgentRating, RatingTable

__all__ = [
    "DEFAULT_METHOD",
    "FAULT_KINDS",
    "METHODS",
    "AgentRating",
    "MethodSpec",
    "MatchArrays",
    "MatchOutcome",
    "RatingMethod",
    "RatingTable",
    "as_arrays",
    "fit",
    "get_method",
    "method_names",
    "method_spec",
    "outcome_of",
    "register_method",
]
