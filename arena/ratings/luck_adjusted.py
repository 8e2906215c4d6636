"""Seats beaten per match less the luck of chance after the deal (method ``"luck"``), with block-bootstrap intervals.

Each seat of a match beats the seats that finished behind it, a tie counting half (Elo's currency, per match).
Duplicate blocks cancel the deal's luck between agents but not later chance (Lovat's die); each match's correction
(``arena.ratings.luck``: what that chance was worth in seats beaten, valued by a fixed reference's play-outs) is
subtracted from it, and an agent's rating is the mean of what is left.  Every term of a correction has expectation
zero whatever the agents do (the chance is fair and drawn after the decisions before it), so the rating estimates
the same expected seats beaten as without it, only with less noise (docs/ratings.md, "Luck").

Intervals and P(stronger) are the ``score`` method's (a block bootstrap with Student's t, no verdict between agents
that met different opposition): the corrected seats beaten are rated as a score.  Matches without a correction
rate as they are only when none has one (a game with no chance after the deal); then the table says that nothing
was subtracted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from arena.ratings import score
from arena.ratings.bootstrap import BOOTSTRAP_REPLICATES, BOOTSTRAP_SEED
from arena.ratings.data import MatchArrays, MatchOutcome, as_arrays, seat_pairs
from arena.ratings.table import INTERVAL_LEVEL, RatingTable

METHOD = "luck"

LISTED_AGENTS = 8
"""The note names each agent's mean correction up to this many agents; beyond, the lowest and the highest."""


class MissingLuck(ValueError):
    """Some matches carry no luck correction (stored before it was computed): ``count`` of ``matches``."""

    def __init__(self, count: int, matches: int, first: str) -> None:
        super().__init__(f"{count} of {matches} matches carry no luck correction (the first: {first!r}); compute "
                         "them before rating with the luck method")
        self.count = count
        self.matches = matches


def seats_beaten(arrays: MatchArrays) -> np.ndarray:
    """(M, P) the seats each seat finished ahead of, a tie counting half; nan for padding."""
    beaten = np.zeros(arrays.seat_agent.shape)
    for s, t, present, _first, _second, result in seat_pairs(arrays):
        both = 1.0 if present is None else present
        beaten[:, s] += both * result
        beaten[:, t] += both * (1.0 - result)
    return np.where(arrays.valid, beaten, np.nan)


def fit(
    outcomes: Sequence[MatchOutcome],
    *,
    chance: str | None = None,
    bootstrap: int = BOOTSTRAP_REPLICATES,
    seed: int = BOOTSTRAP_SEED,
    level: float = INTERVAL_LEVEL,
) -> RatingTable:
    """Mean seats beaten per match less each match's luck correction, with t intervals from a block bootstrap.

    Parameters
    ----------
    outcomes : sequence of MatchOutcome
        Any order; the result does not depend on it.
    chance : str, optional
        What the corrections value, as the game declares it (``GameInfo.luck``), for the note every view shows:
        "Lovat's die (L-14) valued by greedy play-outs".  With it every match must carry its correction.
        Without it, the matches' corrections are subtracted if they carry them, all or none.
    bootstrap, seed, level
        As for ``score``: replicates over duplicate blocks, their seed, the intervals' coverage.

    Returns
    -------
    RatingTable
        ``rating`` is the mean corrected seats beaten per match; ``extras["subtracted"]`` says in one line what
        was subtracted, with each agent's mean correction (``extras["mean_luck"]``).

    Raises
    ------
    MissingLuck
        When ``chance`` is given and a match carries no correction, or when some matches carry one and others not.
    """
    arrays = as_arrays(outcomes)
    missing = arrays.valid[:, 0] & np.isnan(arrays.luck[:, 0])
    count = int(missing.sum())
    if count and (chance is not None or count < arrays.n_matches):
        raise MissingLuck(count, arrays.n_matches, arrays.match_ids[int(np.flatnonzero(missing)[0])])
    subtracting = arrays.n_matches > 0 and not count
    corrected = seats_beaten(arrays) - (arrays.luck if subtracting else 0.0)
    scale = (f"mean seats beaten per match (a tie half){', less its chance luck' if subtracting else ''}; t intervals "
             "from a block bootstrap's spread")
    table = score.fit(replace(arrays, score=corrected), bootstrap=bootstrap, seed=seed, level=level)  # type: ignore[arg-type]
    if subtracting:
        means = _mean_luck(arrays)
        what = chance or "each match's stored luck correction"
        note = f"luck: {what} subtracted, in seats beaten; {_listed(means)}"
    else:
        means = {}
        note = ("luck: nothing subtracted, no match carries a luck correction (the game declares no chance after the "
                "deal to value): these are the raw seats beaten")
    extras = {**table.extras, "subtracted": note, "mean_luck": means}
    return replace(table, method=METHOD, scale=scale, extras=extras)


def _mean_luck(arrays: MatchArrays) -> dict[str, float]:
    """Each agent's mean correction over its matches (expectation zero: a check any reader can make)."""
    valid = arrays.valid
    totals = np.bincount(arrays.seat_agent[valid], weights=arrays.luck[valid], minlength=arrays.n_agents)
    return {agent: float(total / max(games, 1)) for agent, total, games in zip(arrays.agents, totals, arrays.games)}


def _listed(means: dict[str, float]) -> str:
    """Each agent's mean correction, or for a large field the lowest and the highest."""
    if len(means) <= LISTED_AGENTS:
        return "mean correction per agent: " + ", ".join(f"{agent} {value:+.3f}" for agent, value in means.items())
    low, high = min(means, key=means.__getitem__), max(means, key=means.__getitem__)
    return (f"mean correction per agent from {means[low]:+.3f} ({low}) to {means[high]:+.3f} ({high}) over "
            f"{len(means)} agents")
