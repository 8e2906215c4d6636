"""The ``openskill`` rating method: OpenSkill's Weng-Lin Bayesian ratings, fitted match by match in the order played.

Every match is one free-for-all: each seat a team of one, ranked by the match's ranks (equal ranks are ties).
A rating is the posterior mean ``mu`` of the agent's skill, its interval ``mu -+ z sigma`` from the posterior
spread, and P(i stronger than j) ``Phi((mu_i - mu_j) / sqrt(sigma_i^2 + sigma_j^2))``.  The posterior treats
every match as independent, so on duplicate blocks (the same deal rotated round the seats) its intervals are
wider than the data warrants, as TrueSkill's own are (arena's ``trueskill`` method offers a jackknife).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from openskill.models import BradleyTerryFull, PlackettLuce, ThurstoneMostellerFull
from scipy.special import ndtr

from arena.ratings.data import MatchArrays, MatchOutcome, as_arrays
from arena.ratings.table import INTERVAL_LEVEL, RatingTable, empty_table, make_table, z_value

METHOD = "openskill"
"""The method's name in configs and on the command line."""

MODELS = {"plackett-luce": PlackettLuce, "bradley-terry": BradleyTerryFull,
          "thurstone-mosteller": ThurstoneMostellerFull}
"""OpenSkill's models by the name the ``model`` option takes."""


def fit(outcomes: Sequence[MatchOutcome] | MatchArrays, *, model: str = "plackett-luce",
        level: float = INTERVAL_LEVEL) -> RatingTable:
    """OpenSkill ratings of every agent after all matches, processed in the order played.

    Parameters
    ----------
    outcomes : sequence of MatchOutcome, or MatchArrays
        The matches, in the order played (the result depends on it, as with every online method).
    model : {"plackett-luce", "bradley-terry", "thurstone-mosteller"}, optional
        OpenSkill's model (``MODELS``).
    level : float, optional
        Coverage of the intervals (0.95: z = 1.96).

    Returns
    -------
    RatingTable
        ``rating`` is ``mu``; extras hold ``sigma`` and the conservative ``mu - 3 sigma`` per agent.
    """
    if model not in MODELS:
        raise ValueError(f"model={model!r} is not one of {', '.join(MODELS)}")
    engine = MODELS[model]()
    scale = f"OpenSkill {model} mu (prior mu {engine.mu:g}, sigma {engine.sigma:g})"
    arrays = as_arrays(outcomes)
    if arrays.n_matches == 0:
        return empty_table(METHOD, scale, level)
    ratings = [engine.rating(name=name) for name in arrays.agents]
    for match in np.argsort(arrays.played, kind="stable"):
        seats = int(arrays.seats[match])
        agents = [int(agent) for agent in arrays.seat_agent[match, :seats]]
        ranks = [float(rank) for rank in arrays.rank[match, :seats]]
        rated = engine.rate([[ratings[agent]] for agent in agents], ranks=ranks)
        for agent, (new,) in zip(agents, rated, strict=True):
            ratings[agent] = new
    mu = np.array([rating.mu for rating in ratings])
    sigma = np.array([rating.sigma for rating in ratings])
    spread = np.sqrt(sigma[:, None] ** 2 + sigma[None, :] ** 2)
    half = z_value(level) * sigma
    return make_table(
        method=METHOD, scale=scale, agents=arrays.agents, rating=mu, lower=mu - half, upper=mu + half,
        games=arrays.games, superiority=ndtr((mu[:, None] - mu[None, :]) / spread), contrast_sd=spread,
        extras={"model": model, "sigma": sigma.tolist(), "ordinal": (mu - 3 * sigma).tolist()}, level=level,
    )
