"""What a Lorum playout is worth to the searching seat: its chips plus its expected standing at the end.

A game is ranked by chips (S-17), and the arena's ratings count, for every pair of
seats, who finished ahead.  So chips are worth most where they change who finishes
ahead of whom: a deal's outcome is valued as the seat's chip change plus
``RANK_WEIGHT`` times the number of seats it is expected to finish ahead of (a tie
counts half).  After the last deal that number is exact; with ``r`` deals still to
come a lead of ``d`` chips over a seat counts ``Phi(d / (SPREAD * sqrt(r)))``, the
chance that it survives ``r`` more deals.  The chips keep every decision informed
where the standing cannot change (a lead far too large or too small to matter).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

SPREAD = 20.0
"""Standard deviation of the difference of two seats' chip changes over one deal (19.5 measured over
1,200 deals between greedy agents)."""

RANK_WEIGHT = 30.0
"""Chips one place in the standing is worth (measured: 30 and 80 gained the same pairwise wins, 80 lost chips)."""


def standing(me: int, balances: Sequence[int], changes: Sequence[int], remaining: int) -> float:
    """Expected number of other seats ``me`` finishes ahead of (ties half), after this deal's ``changes``.

    ``balances`` are the chips per seat before the deal, ``remaining`` the deals still to come after it.
    """
    mine = balances[me] + changes[me]
    value = 0.0
    if remaining <= 0:
        for seat, balance in enumerate(balances):
            if seat != me:
                other = balance + changes[seat]
                value += 1.0 if mine > other else 0.5 if mine == other else 0.0
        return value
    # Phi(d / s) = (1 + erf(d / (s * sqrt 2))) / 2 with s = SPREAD * sqrt(remaining).
    scale = 1.0 / (SPREAD * math.sqrt(2.0 * remaining))
    for seat, balance in enumerate(balances):
        if seat != me:
            value += 0.5 * (1.0 + math.erf((mine - balance - changes[seat]) * scale))
    return value


def deal_value(me: int, balances: Sequence[int], changes: Sequence[int], remaining: int) -> float:
    """The search's value of a played-out deal for ``me``: chip change plus ``RANK_WEIGHT`` times the standing."""
    return changes[me] + RANK_WEIGHT * standing(me, balances, changes, remaining)
