"""Bootstrap over duplicate blocks: the unit of resampling is a whole block.

Matches in a duplicate block replay one deal with the agents rotated through the seats, so
their results are correlated (the luck of the deal cancels *within* the block).  Resampling
single matches would break that structure and understate the uncertainty; resampling whole
blocks with replacement keeps it.  A replicate is a vector of block multiplicities
(how often each block was drawn); every method turns it into match weights.

The generator is ``numpy.random.default_rng(seed)`` and replicates are drawn one after
the other in a fixed way, so a seed gives the same replicates whatever the chunking, and
(because blocks are indexed in sorted order) whatever the order of the input outcomes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

BOOTSTRAP_SEED = 0
"""Default seed of the bootstrap generator."""

BOOTSTRAP_REPLICATES = 1000
"""Default number of bootstrap replicates where a method always bootstraps (``score``)."""


CHUNK_VALUES = 1 << 22
"""Block multiplicities held at once (a chunk of replicates is at most this many floats)."""


def multiplicity_chunks(n_blocks: int, replicates: int, seed: int, chunk: int = 64) -> Iterator[np.ndarray]:
    """Yield block multiplicities, ``chunk`` replicates at a time, as (c, n_blocks) float arrays.

    Parameters
    ----------
    n_blocks : int
        Number of duplicate blocks ``B``.
    replicates : int
        Total number of replicates ``R``.
    seed : int
        Seed of the generator.
    chunk : int, optional
        Replicates per yielded array at most (fewer when ``chunk * B`` exceeds ``CHUNK_VALUES``).

    Yields
    ------
    numpy.ndarray
        Each row sums to ``B``: a resample of the blocks with replacement.  The array is
        reused: the next chunk overwrites it, so copy it to keep it.
    """
    if replicates < 1:
        raise ValueError(f"bootstrap replicates must be at least 1, got {replicates}")
    rng = np.random.default_rng(seed)
    chunk = max(1, min(chunk, replicates, CHUNK_VALUES // max(n_blocks, 1)))
    # One buffer for every chunk: a fresh array of up to CHUNK_VALUES floats (32 MB) per
    # chunk would be page-faulted in anew each time.
    buffer = np.empty((chunk, n_blocks))
    done = 0
    while done < replicates:
        size = min(chunk, replicates - done)
        rows = buffer[:size]
        for r in range(size):
            rows[r] = np.bincount(rng.integers(0, n_blocks, size=n_blocks), minlength=n_blocks)
        done += size
        yield rows


def percentile_intervals(samples: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Percentile intervals of each column of ``samples`` (R, N) with central coverage ``level``.

    NaN entries (an agent absent from a replicate) are ignored; a column with no finite
    entry gives NaN bounds.
    """
    tail = (1.0 - level) / 2.0
    samples = np.asarray(samples, dtype=float)
    if np.isnan(samples).any():
        with np.errstate(all="ignore"):
            finite = np.isfinite(samples).any(axis=0)
            lower, upper = np.full(samples.shape[1], np.nan), np.full(samples.shape[1], np.nan)
            if finite.any():
                lower[finite], upper[finite] = np.nanquantile(samples[:, finite], [tail, 1.0 - tail], axis=0)
        return lower, upper
    lower, upper = np.quantile(samples, [tail, 1.0 - tail], axis=0)
    return lower, upper


def superiority_from_samples(samples: np.ndarray) -> np.ndarray:
    """``P[i, j]`` = share of replicates in which column ``i`` exceeds column ``j`` (ties count half).

    Only replicates where both columns are finite count; with none, ``P[i, j] = 0.5``.
    ``P[j, i] = 1 - P[i, j]``, so only the upper triangle is counted.
    """
    # One row per column of samples, so that each comparison streams through contiguous
    # memory: with 1,000 agents and 1,000 replicates this takes about half the time.
    by_agent = np.ascontiguousarray(np.asarray(samples, dtype=float).T)
    n, count = by_agent.shape
    finite = np.isfinite(by_agent)
    complete = bool(finite.all())
    p = np.full((n, n), 0.5)
    for i in range(n - 1):
        row = by_agent[i]
        rest = by_agent[i + 1 :]
        ahead = row > rest
        behind = row < rest
        if complete:
            wins = np.count_nonzero(ahead, axis=1)
            share = (wins + 0.5 * (count - wins - np.count_nonzero(behind, axis=1))) / count
        else:
            both = finite[i] & finite[i + 1 :]
            counted = np.count_nonzero(both, axis=1)
            wins = np.count_nonzero(ahead & both, axis=1)
            ties = counted - wins - np.count_nonzero(behind & both, axis=1)
            share = np.where(counted > 0, (wins + 0.5 * ties) / np.maximum(counted, 1), 0.5)
        p[i, i + 1 :] = share
        p[i + 1 :, i] = 1.0 - share
    return p


def replicate_estimates(
    n_blocks: int,
    replicates: int,
    seed: int,
    estimate: Callable[[np.ndarray], np.ndarray],
) -> np.ndarray:
    """Run ``estimate(block_weights)`` on each bootstrap replicate and stack the results (R, N)."""
    rows = [estimate(weights) for chunk in multiplicity_chunks(n_blocks, replicates, seed) for weights in chunk]
    return np.asarray(rows, dtype=float)
