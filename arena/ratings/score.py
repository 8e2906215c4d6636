"""Mean score per match (method ``"score"``), with block-bootstrap intervals.

The rating of an agent is its mean score over the matches it played: points in Lovat,
chips in Lorum.  A Lorum match is several deals long (the ``deals`` option), so chips per
match grow with the number of deals; to compare tournaments with different match lengths
pass ``divisor``, the per-match number to divide the score by (e.g. the number of deals,
giving chips per deal).  Without it the score is used as it is: the caller decides.

Scores are only comparable between agents that met comparable opposition; in a
round-robin of duplicate blocks every agent meets the same deals from every seat, which is
what makes the mean meaningful.

The interval is the percentile interval of the mean over ``bootstrap`` replicates that
resample whole duplicate blocks with replacement (seeded, so deterministic); the
superiority matrix is the share of replicates in which one agent's mean beats the other's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from operator import attrgetter

import numpy as np
import scipy.sparse

from arena.ratings.bootstrap import (
    BOOTSTRAP_REPLICATES,
    BOOTSTRAP_SEED,
    multiplicity_chunks,
    percentile_intervals,
    superiority_from_samples,
)
from arena.ratings.data import MatchArrays, MatchOutcome, as_arrays
from arena.ratings.table import INTERVAL_LEVEL, RatingTable, empty_table, make_table

METHOD = "score"

Divisor = Mapping[str, float] | Callable[[MatchOutcome], float]
"""Per-match divisor: a mapping from match id, or a function of the outcome."""


def _divisors(outcomes: Sequence[MatchOutcome], match_ids: Sequence[str], divisor: Divisor | None) -> np.ndarray:
    """(M,) divisor of each match in canonical order (ones when there is none)."""
    if divisor is None:
        return np.ones(len(match_ids))
    if isinstance(divisor, Mapping):
        missing = [m for m in match_ids if m not in divisor]
        if missing:
            raise ValueError(f"divisor has no entry for match {missing[0]!r}; give one per match id")
        values = np.array([float(divisor[m]) for m in match_ids])
    else:
        if isinstance(outcomes, MatchArrays):
            raise TypeError("a callable divisor needs the MatchOutcome objects; pass {match_id: divisor} instead")
        ordered = sorted(outcomes, key=attrgetter("match_id"))
        values = np.array([float(divisor(o)) for o in ordered])
    bad = np.flatnonzero(~(values > 0) | ~np.isfinite(values))
    if bad.size:
        raise ValueError(f"divisor of match {match_ids[bad[0]]!r} is {values[bad[0]]}; divisors must be positive")
    return values


def fit(
    outcomes: Sequence[MatchOutcome],
    *,
    divisor: Divisor | None = None,
    bootstrap: int = BOOTSTRAP_REPLICATES,
    seed: int = BOOTSTRAP_SEED,
    level: float = INTERVAL_LEVEL,
) -> RatingTable:
    """Mean score per match of every agent, with percentile intervals from a block bootstrap.

    Parameters
    ----------
    outcomes : sequence of MatchOutcome
        Any order; the result does not depend on it.
    divisor : mapping or callable, optional
        Per-match divisor of the scores (``{match_id: deals}`` or ``lambda outcome: ...``).
    bootstrap : int, optional
        Bootstrap replicates (``BOOTSTRAP_REPLICATES``).
    seed : int, optional
        Seed of the bootstrap (``BOOTSTRAP_SEED``).
    level : float, optional
        Coverage of the intervals (0.95).

    Returns
    -------
    RatingTable
        ``rating`` is the mean score per match (divided by ``divisor``).
    """
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, int) or bootstrap < 1:
        raise ValueError(f"bootstrap replicates must be at least 1, got {bootstrap}")
    unit = "score per match" if divisor is None else "score per match / divisor"
    scale = f"mean {unit} (points in Lovat, chips in Lorum); percentile intervals from a block bootstrap"
    arrays = as_arrays(outcomes)
    if arrays.n_matches == 0:
        return empty_table(METHOD, scale, level)
    per_match = _divisors(outcomes, arrays.match_ids, divisor)
    valid = arrays.valid
    score = (arrays.score / per_match[:, None])[valid]
    agent = arrays.seat_agent[valid]
    block = np.broadcast_to(arrays.block[:, None], valid.shape)[valid]
    n, n_blocks = arrays.n_agents, len(arrays.blocks)
    # Per-block sums of scores (columns 0..N-1) and of games (columns N..2N-1): a replicate's
    # sums are the block multiplicities times this matrix.
    columns = np.concatenate([agent, agent + n])
    values = np.concatenate([score, np.ones_like(score)])
    per_block = scipy.sparse.coo_matrix(
        (values, (np.concatenate([block, block]), columns)), shape=(n_blocks, 2 * n)
    ).tocsr()
    sums = np.asarray(per_block.sum(axis=0)).ravel()
    mean = sums[:n] / sums[n:]
    by_agent = per_block.T  # CSC: streams through the blocks in order
    samples = np.empty((bootstrap, n))
    transposed = np.empty(0)  # the chunk transposed, as the sparse product wants it; reused like the chunk
    done = 0
    with np.errstate(invalid="ignore", divide="ignore"):
        for chunk in multiplicity_chunks(n_blocks, bootstrap, seed):
            if transposed.shape != chunk.shape[::-1]:
                transposed = np.empty(chunk.shape[::-1])
            np.copyto(transposed, chunk.T)
            resampled = by_agent @ transposed  # (2N, c)
            samples[done : done + len(chunk)] = (resampled[:n] / resampled[n:]).T
            done += len(chunk)
    samples[~np.isfinite(samples)] = np.nan  # an agent absent from a replicate
    lower, upper = percentile_intervals(samples, level)
    return make_table(
        method=METHOD,
        scale=scale,
        agents=arrays.agents,
        rating=mean,
        lower=lower,
        upper=upper,
        games=arrays.games,
        superiority=superiority_from_samples(samples),
        extras={"bootstrap": bootstrap, "seed": seed, "divisor": divisor is not None},
        level=level,
    )
