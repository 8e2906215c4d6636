"""Which interval a fit reports, given the design of the matches.

Matches in a duplicate block replay one deal with the agents rotated through the seats, so
the deal's luck cancels within the block: the block's results are negatively correlated,
and the ratings are more precise than the same number of independent deals would make
them.  The model curvature (the inverse Hessian, or TrueSkill's posterior sigma) cannot
see that; the cluster-robust sandwich, clustered by block, can.  Their ratio over all
rating contrasts is the *design effect* (``arena.ratings.inference.design_effect``): above
1 when results within a block agree more than the model expects (several seats of one
match, a deal that favours no one consistently), below 1 when blocks cancel luck.

The sandwich is only trustworthy when every agent has played enough blocks: with few, it
is too narrow and the measured design effect is noisy.  So:

* ``clustered``: every agent played at least ``CLUSTER_MIN_BLOCKS`` blocks; the curvature is
  scaled by the measured design effect, below 1 included, so the reported spread shows
  what duplicate blocks gained;
* ``conservative``: some agent played fewer; the design effect is floored at 1, which
  never narrows the curvature: wider than needed under duplicate blocks, the safe side.

Even with many blocks the clustered factor is floored at ``MIN_DESIGN_EFFECT``.  The
measured effect is a trace over all contrasts, so it is dominated by the least identified
agent; in a lopsided field (an agent that loses every match) that agent's outcomes barely
vary, its block scores are near zero, and the ratio collapses (0.02 at 40 blocks of a
random agent among search agents), which would make every interval in the field far too
narrow.  Duplicate blocks cut the variance of rating differences by at most about 3.6x
in the fidelity study (design effect 0.28), so the floor never takes away credit the
blocks really earn there.

Whichever kind is chosen, no gap is reported narrower than its own sandwich
(``arena.ratings.inference.covariance``): the factor is one number for the field, and in a
lopsided one the strong agent's contrasts set it, while the weak agents' order among
themselves gains less from the blocks (identical random agents were called different 9-12%
of the time at a 5% level without that floor).

``CLUSTER_MIN_BLOCKS`` was found by simulation (``python -m benchmarks --only fidelity``;
docs/ratings.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from arena.ratings.data import MatchArrays

CLUSTER_MIN_BLOCKS = 8
"""Fewest blocks every agent must have played for the clustered interval (found by simulation)."""

MIN_DESIGN_EFFECT = 0.25
"""Smallest variance factor the clustered interval applies (see the module docstring)."""

KINDS: tuple[str, ...] = ("clustered", "conservative")
"""The interval kinds ``choose`` picks between."""


@dataclass(frozen=True, slots=True)
class IntervalChoice:
    """The interval kind chosen for a fit, the variance factor it applies, and why."""

    kind: str  # "clustered" or "conservative"
    factor: float  # the variance factor applied to the curvature
    measured: float  # the design effect measured with the sandwich
    fewest_blocks: int  # fewest duplicate blocks any agent played
    reason: str  # one sentence for the leaderboard

    def extras(self) -> dict[str, Any]:
        """The choice as a table's extras."""
        return {
            "interval_kind": self.kind,
            "interval_reason": self.reason,
            "design_effect": self.factor,
            "measured_design_effect": self.measured,
            "fewest_blocks": self.fewest_blocks,
        }


def blocks_per_agent(arrays: MatchArrays) -> np.ndarray:
    """(N,) number of distinct duplicate blocks each agent played in."""
    valid = arrays.valid
    agent = arrays.seat_agent[valid]
    block = np.broadcast_to(arrays.block[:, None], valid.shape)[valid]
    width = max(len(arrays.blocks), 1)
    pairs = np.unique(agent * width + block)
    return np.bincount(pairs // width, minlength=arrays.n_agents).astype(np.int64)


def fewest_blocks(arrays: MatchArrays) -> int:
    """The fewest distinct duplicate blocks any agent played in (0 without matches)."""
    return int(blocks_per_agent(arrays).min()) if arrays.n_agents else 0


def choose(arrays: MatchArrays, measured: float) -> IntervalChoice:
    """Clustered (the measured design effect, floored at ``MIN_DESIGN_EFFECT``) with enough blocks, else
    conservative (floored at 1)."""
    fewest = fewest_blocks(arrays)
    if fewest >= CLUSTER_MIN_BLOCKS:
        factor = max(MIN_DESIGN_EFFECT, measured)
        floored = "" if factor == measured else f", floored at {MIN_DESIGN_EFFECT:g} (a lopsided field)"
        reason = (
            f"clustered by duplicate block: every agent played at least {CLUSTER_MIN_BLOCKS} blocks "
            f"(fewest {fewest}); design effect {measured:.2f}{floored}"
        )
        return IntervalChoice("clustered", factor, measured, fewest, reason)
    factor = max(1.0, measured)
    reason = (
        f"conservative: an agent played only {fewest} blocks (clustering needs {CLUSTER_MIN_BLOCKS}), "
        f"so the design effect ({measured:.2f}) is floored at 1, never narrowing the model's own spread"
    )
    return IntervalChoice("conservative", factor, measured, fewest, reason)

