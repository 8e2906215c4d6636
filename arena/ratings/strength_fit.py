"""The fitting procedure shared by the maximum-likelihood strength models (Bradley–Terry, Plackett–Luce).

Each model supplies how to turn the packed outcomes into its data, how to fit
natural-log strengths to that data, how to reweight it for a block bootstrap,
and its per-block score contributions (for the sandwich intervals); this module
does the rest the same way for both: anchoring, intervals or bootstrap, and the
``RatingTable``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena.ratings import inference
from arena.ratings.bootstrap import replicate_estimates
from arena.ratings.data import MatchArrays, MatchOutcome, as_arrays
from arena.ratings.scale import Anchor, anchor_index, scale_description, strength_table
from arena.ratings.table import RatingTable, empty_table


@dataclass(frozen=True, slots=True)
class StrengthModel:
    """One maximum-likelihood strength model, as the shared procedure needs it."""

    method: str  # registry name, e.g. "elo"
    model: str  # model name for the scale description, e.g. "Bradley-Terry"
    description: str  # one sentence for the table's extras
    prepare: Callable[[MatchArrays], Any]  # packed outcomes -> the model's data
    reweight: Callable[[Any, MatchArrays, np.ndarray], Any]  # (data, arrays, (B,) block weights) -> weighted data
    fit_strengths: Callable[..., inference.MapFit]  # (data, prior_sd, x0=None) -> MAP fit
    # (theta, data, arrays) -> sandwich inputs
    block_scores: Callable[[np.ndarray, Any, MatchArrays], inference.BlockScores]
    details: Callable[[Any], dict[str, Any]]  # extra facts about the data for the table's extras


def fit_table(
    model: StrengthModel,
    outcomes: Sequence[MatchOutcome],
    *,
    prior_sd: float,
    anchor_agent: str | None,
    anchor_rating: float,
    intervals: str,
    bootstrap: int,
    seed: int,
    level: float,
) -> RatingTable:
    """Fit ``model`` to ``outcomes`` and report Elo-scale ratings with intervals (see ``elo.fit``)."""
    if intervals not in inference.INTERVAL_KINDS:
        raise ValueError(f"intervals={intervals!r} is not one of {', '.join(inference.INTERVAL_KINDS)}")
    arrays = as_arrays(outcomes)
    anchor = Anchor(anchor_agent, anchor_rating)
    if arrays.n_matches == 0 and anchor_agent is None:
        return empty_table(model.method, scale_description(model.model, anchor), level)
    anchor_index(anchor, arrays.agents)  # fail early on an unknown anchor
    data = model.prepare(arrays)
    result = model.fit_strengths(data, prior_sd)
    extras = {
        "model": model.description,
        "prior_sd": prior_sd,
        "intervals": f"bootstrap over duplicate blocks ({bootstrap} replicates)" if bootstrap else intervals,
        "iterations": result.iterations,
        "converged": result.converged,
        **model.details(data),
    }
    samples = spread = None
    if bootstrap:
        samples = replicate_estimates(
            len(arrays.blocks),
            bootstrap,
            seed,
            lambda weights: model.fit_strengths(model.reweight(data, arrays, weights), prior_sd, x0=result.theta).theta,
        )
    else:
        spread = inference.covariance(
            intervals, result.hessian, lambda: model.block_scores(result.theta, data, arrays), len(arrays.blocks),
            arrays,
        )
        extras.update(spread.details)
    return strength_table(
        method=model.method,
        model=model.model,
        agents=arrays.agents,
        games=arrays.games,
        theta=result.theta,
        anchor=anchor,
        level=level,
        covariance=None if spread is None else spread.covariance,
        floor=None if spread is None else spread.floor,
        samples=samples,
        extras=extras,
    )
