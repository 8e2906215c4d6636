"""Mean score per match (method ``"score"``), with block-bootstrap intervals.

The rating of an agent is its mean score over the matches it played, in whatever the game's scores
count (``unit``, e.g. "points per game": the game declares it, ``GameInfo.score``).  A match may be
several deals long, so its score grows with the number of deals; to compare tournaments with different
match lengths pass ``divisor``, the per-match number to divide the score by (e.g. the number of deals,
giving chips per deal).  Without it the score is used as it is: the caller decides.

Scores are only comparable between agents that met comparable opposition; in a
round-robin of duplicate blocks every agent meets the same deals from every seat, which is
what makes the mean meaningful.

The spread of the mean comes from ``bootstrap`` replicates that resample whole duplicate
blocks with replacement (seeded, so deterministic).  With ``k`` blocks behind an agent's
mean the bootstrap's spread is too small by about ``sqrt((k - 1) / k)`` and the normal
quantile too optimistic, which made the percentile interval cover about 90% with a few
dozen blocks; so the interval is ``mean -+ t_{k-1} sd sqrt(k / (k - 1))`` (Student's t,
``k`` the blocks the agent played), and P(stronger) is the t probability of the gap over
its bootstrap spread, corrected the same way (``k`` the fewer of the two agents' blocks),
with the gap's interval from the same t.  One block gives no interval and P one half; two
blocks, or a gap the same in every block, at most the sign test's P (``_without_spread``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from operator import attrgetter

import numpy as np
import scipy.sparse
import scipy.spatial.distance
from scipy.stats import t as student_t

from arena.ratings.bootstrap import BOOTSTRAP_REPLICATES, BOOTSTRAP_SEED, multiplicity_chunks
from arena.ratings.data import MatchArrays, MatchOutcome, as_arrays
from arena.ratings.design import blocks_per_agent
from arena.ratings.scale import contrast_sd_from_samples
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


OPPOSITION_TOLERANCE = 0.05
"""Most two agents' opposition may differ for their mean scores to be compared: the total variation distance
between their opponents' shares, and the difference of their shares against each other (see
``different_opposition``)."""


def different_opposition(arrays: MatchArrays) -> np.ndarray:
    """(N, N) bool: pairs whose mean scores are not comparable, because they met different opposition.

    A score depends on who else sits at the table, unlike a rank against a given agent: in real tournaments
    split by ``max_tables`` two entries of one agent were called different at a 5% level 20% of the time, one
    having sat with the weak entries more often.  Agent ``a``'s opposition, as far as ``b`` is concerned, is
    how its opponent seats other than ``b`` split among the other agents; ``a`` and ``b`` are comparable when
    the total variation distance between their two splits is at most ``OPPOSITION_TOLERANCE`` and the share
    of ``a``'s matches that ``b`` sat in is within it of the share of ``b``'s that ``a`` sat in.  A complete
    round-robin, one table of everyone, or the candidates of a gauntlet pass, at any size; agents of a
    sampled schedule, whose opponents differ by chance, or a candidate against the field, do not.
    """
    n = arrays.n_agents
    valid = arrays.valid
    matches = np.broadcast_to(np.arange(arrays.n_matches)[:, None], valid.shape)[valid]
    seated = scipy.sparse.coo_matrix((np.ones(matches.size), (matches, arrays.seat_agent[valid])),
                                     shape=(arrays.n_matches, n)).tocsc()
    together = (seated.T @ seated).toarray()
    np.fill_diagonal(together, 0.0)  # together[a, c]: matches a and c sat in together
    share = together / np.maximum(arrays.games, 1)[:, None]  # of a's matches, the share c sat in
    apart = np.abs(share - share.T) > OPPOSITION_TOLERANCE  # a's share against b, b's against a
    split = together / np.maximum(together.sum(axis=1), 1.0)[:, None]  # [a, c]: a's opponent seats that were c
    # The distance over every other agent c: all columns, less the two that are the pair itself (each row's
    # own column is zero).  One C loop over all pairs (scipy's cdist), not N passes of N x N in numpy.
    distance = scipy.spatial.distance.cdist(split, split, "cityblock") - split - split.T
    apart |= 0.5 * distance > OPPOSITION_TOLERANCE
    np.fill_diagonal(apart, False)
    return apart


T_MIN_BLOCKS = 3
"""Fewest blocks behind both agents for P(stronger) from Student's t; below, at most the sign test's."""


def _without_spread(
    superiority: np.ndarray, contrast: np.ndarray, gap: np.ndarray, pair_k: np.ndarray, level: float
) -> tuple[np.ndarray, np.ndarray]:
    """P(stronger) and the gap's spread where the bootstrap has too little spread to give.

    Below ``T_MIN_BLOCKS`` blocks behind either agent the t probability rests on the block means being
    normal, which two blocks cannot show (in simulated 8-agent fields its P >= 0.99 at two blocks was right
    95% of the time); P is then at most what the sign test can say, ``1 - 2^-k`` for ``k`` blocks (one
    block: one half, two: 0.75), and the gap's interval is unbounded.  Where every block gives the same
    gap (a spread of zero), the t probability would claim certainty from as few as two blocks; P is then
    the sign test's, and the gap's interval is unbounded until P passes the level's bound, so that the
    interval excludes zero exactly when P says so.
    """
    sign_test = 1.0 - 0.5**pair_k
    flat = ~(contrast > 0)  # zero, or NaN for an agent absent from the replicates
    superiority = np.where(flat, np.where(gap > 0, sign_test, np.where(gap < 0, 1.0 - sign_test, 0.5)),
                           superiority)
    few = pair_k < T_MIN_BLOCKS
    superiority = np.where(few, np.clip(superiority, 1.0 - sign_test, sign_test), superiority)
    unsure = flat & (sign_test <= 0.5 + level / 2.0)
    contrast = np.where(few | unsure, np.inf, np.where(flat, 0.0, contrast))
    return superiority, contrast


def fit(
    outcomes: Sequence[MatchOutcome],
    *,
    divisor: Divisor | None = None,
    bootstrap: int = BOOTSTRAP_REPLICATES,
    seed: int = BOOTSTRAP_SEED,
    level: float = INTERVAL_LEVEL,
    unit: str | None = None,
) -> RatingTable:
    """Mean score per match of every agent, with t intervals from a block bootstrap's spread.

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
    unit : str, optional
        What the (divided) scores count, for the scale's text: "points per game", "chips per deal".
        Without it the scale speaks of the score per match (over the divisor, if any).

    Returns
    -------
    RatingTable
        ``rating`` is the mean score per match (divided by ``divisor``).
    """
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, int) or bootstrap < 1:
        raise ValueError(f"bootstrap replicates must be at least 1, got {bootstrap}")
    if unit is None:
        unit = "score per match" if divisor is None else "score per match / divisor"
    scale = f"mean {unit}; t intervals from a block bootstrap's spread"
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
    k = blocks_per_agent(arrays).astype(float)
    with np.errstate(all="ignore"):
        sd = np.nanstd(samples, axis=0, ddof=1) * np.sqrt(k / (k - 1.0))
        half = np.where(k >= 2, student_t.ppf(0.5 + level / 2.0, k - 1.0) * sd, np.inf)  # one block: no spread
    lower, upper = mean - half, mean + half
    pair_k = np.minimum(k[:, None], k[None, :])
    gap = mean[:, None] - mean[None, :]
    with np.errstate(all="ignore"):
        contrast = contrast_sd_from_samples(samples) * np.sqrt(pair_k / (pair_k - 1.0))
        superiority = student_t.cdf(gap / contrast, pair_k - 1.0)
        quantile = np.where(pair_k >= 2, student_t.ppf(0.5 + level / 2.0, pair_k - 1.0), np.inf)
    superiority, contrast = _without_spread(superiority, contrast, gap, pair_k, level)
    apart = different_opposition(arrays)
    superiority = np.where(apart, 0.5, superiority)
    contrast = np.where(apart, np.inf, contrast)
    np.fill_diagonal(superiority, 0.5)
    return make_table(
        method=METHOD,
        scale=scale,
        agents=arrays.agents,
        rating=mean,
        lower=lower,
        upper=upper,
        games=arrays.games,
        superiority=superiority,
        contrast_sd=contrast,
        gap_quantile=quantile,
        extras={
            "bootstrap": bootstrap, "seed": seed, "divisor": divisor is not None, "interval_kind": "bootstrap-t",
            "interval_reason": (
                f"block bootstrap ({bootstrap} replicates), Student's t for the blocks each agent played "
                f"(fewest {int(k.min())}; an agent with one block has no interval, a gap with fewer than "
                f"{T_MIN_BLOCKS} behind it at most the sign test's P)"
                + (f"; no verdict for {int(np.triu(apart, 1).sum())} pairs that met different opposition "
                   "(Elo compares them)" if apart.any() else "")
            ),
        },
        level=level,
    )
