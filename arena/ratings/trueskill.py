"""TrueSkill for free-for-all matches (method ``"trueskill"``).

Every seat is a team of one.  A match is the TrueSkill factor graph of Herbrich, Minka and
Graepel (2007): each agent's skill (its current rating, widened by the dynamics ``TAU``)
produces a performance with noise ``BETA``; the seats are sorted by rank and each adjacent
pair's performance difference is constrained by a truncation factor: greater than the
draw margin for a win, within it for a draw (equal ranks).  The chain of differences is
solved by expectation propagation: the difference messages are swept forward and back,
each truncation replaced by the moment-matched Gaussian of the truncated one, until the
largest change of a difference marginal in a sweep is at most ``MIN_DELTA`` (at most
``MAX_SWEEPS`` sweeps).  This is exactly the schedule of the reference implementation
(the ``trueskill`` package, which the tests compare against to 1e-6).

TrueSkill is an online method, and this is its batch use: a finished tournament is rated
once, so the defaults differ from the package's (which are for ratings that follow players
over time):

* ``tau = 0`` (``TAU``): no dynamics.  The package's ``sigma / 100`` is added to every
  sigma before every match, which keeps sigma from shrinking below about 0.7 however many
  matches are played, so the ranking stops improving after a few hundred matches per
  agent.  Agents' strengths are fixed within a tournament, so every match should count.
* ``draw_probability = "observed"``: the share of tied pairs of seats in the data (see
  ``observed_draw_probability``).  A fixed 0.10 where a third of pairs tie (as in Lorum)
  makes every tie look like strong evidence of equality and shrinks the scale.
* Matches are processed in the order they were played: the order of the input sequence
  (``MatchArrays.played``; the store yields its rows in schedule order).  The result
  depends on that order, unlike every other method: with ``tau = 0`` the dependence is
  small (each match is weighed against the evidence before it, not after), but it is not
  zero, so the same matches in another order can move mu by a fraction of sigma and swap
  close neighbours.  ``trueskill.TrueSkill().rate`` called match by match in the same
  order gives the same numbers (the tests compare to 1e-9).

Speed: the per-match update lives in ``trueskill_match`` (plain Python, about 20 µs a
4-seat match: about twenty truncation steps, four per sweep over about five sweeps) and,
for large fits, in ``trueskill_compiled`` (the same arithmetic compiled by numba, about
1 µs a match; 10^6 matches in about a second).  Updating independent matches in numpy
waves is exact too but no faster: the waves of real tournaments are a few matches each.

The reported rating is ``mu``, re-centred on the field (``centre``), and agents are ranked
by it; the interval comes from a grouped jackknife over duplicate blocks (``jackknife``):
TrueSkill's own sigma treats every match as independent, so it cannot see what duplicate
blocks gain, nor the spread an online fit adds (see ``fit``).  The
conservative ``mu - 3 sigma`` (the package's leaderboard number) is kept in the extras as
``conservative``: a lower bound that ranks uncertain agents low, not an estimate.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import norm
from scipy.stats import t as student_t

from arena.ratings import trueskill_match
from arena.ratings.data import MatchArrays, MatchOutcome, as_arrays, seat_pairs
from arena.ratings.design import CLUSTER_MIN_BLOCKS, blocks_per_agent
from arena.ratings.scale import contrast_sd_from_covariance, superiority_from_covariance, z_value
from arena.ratings.table import INTERVAL_LEVEL, RatingTable, empty_table, make_table

METHOD = "trueskill"

MU = 25.0
"""Prior mean of a skill."""

SIGMA = MU / 3.0
"""Prior standard deviation of a skill."""

BETA = SIGMA / 2.0
"""Performance noise: a skill gap of BETA gives about a 76% chance of finishing ahead."""

TAU = 0.0
"""Dynamics: added (in quadrature) to every skill's sigma before each match (the package's is SIGMA / 100)."""

PACKAGE_TAU = SIGMA / 100.0
"""The ``trueskill`` package's default dynamics (for ratings that follow players over time)."""

DRAW_PROBABILITY = "observed"
"""Default draw probability: estimated from the data (``observed_draw_probability``)."""

PACKAGE_DRAW_PROBABILITY = 0.10
"""The ``trueskill`` package's default draw probability."""

MIN_DELTA = 1e-4
"""Stop sweeping a match once no difference marginal changed by more than this (trueskill's DELTA)."""

MAX_SWEEPS = 10
"""Sweeps of the difference chain per match at most (as in the trueskill package)."""

CONSERVATIVE_SIGMAS = 3.0
"""The conservative rating (extras ``conservative``) is mu minus this many sigmas."""


TRUESKILL_INTERVALS: tuple[str, ...] = ("jackknife", "posterior")
"""Interval kinds of the TrueSkill method (see ``fit``)."""

MAX_OBSERVED_DRAW_PROBABILITY = 0.9
"""An observed tie share above this is capped (a draw probability near 1 makes the margin infinite)."""

COMPILED_FROM = 20_000
"""Fits of at least this many matches (jackknife replicates included) run in the compiled kernel
(``trueskill_compiled``); smaller ones in plain Python, about 20 µs a match, which spares them
loading numba (about half a second) and, on a machine's first large fit, compiling it (seconds)."""


@dataclass(frozen=True, slots=True)
class Environment:
    """TrueSkill constants (the same meaning as ``trueskill.TrueSkill``'s arguments)."""

    mu: float = MU  # prior mean
    sigma: float = SIGMA  # prior standard deviation
    beta: float = BETA  # performance noise
    tau: float = TAU  # dynamics per match
    draw_probability: float = PACKAGE_DRAW_PROBABILITY  # draw probability of two equal agents
    min_delta: float = MIN_DELTA  # convergence threshold of the sweeps
    max_sweeps: int = MAX_SWEEPS  # sweeps per match at most

    def draw_margin(self) -> float:
        """Draw margin between two teams of one: ``Phi^-1((p + 1) / 2) sqrt(2) beta``."""
        return float(norm.ppf((self.draw_probability + 1.0) / 2.0) * math.sqrt(2.0) * self.beta)


def rate(arrays: MatchArrays, env: Environment = Environment()) -> tuple[np.ndarray, np.ndarray]:
    """Run every match through TrueSkill in the order played; return ``(mu, sigma)`` per agent.

    Each match is rated against what the earlier matches of its agents left, exactly as
    ``trueskill.TrueSkill().rate`` called match by match.  Up to ``COMPILED_FROM`` matches
    in plain Python (``trueskill_match``), above in the compiled kernel
    (``trueskill_compiled``): the same arithmetic, equal to float rounding.

    Parameters
    ----------
    arrays : MatchArrays
        The matches (``played`` gives their order).
    env : Environment, optional
        The constants.

    Returns
    -------
    mu, sigma : numpy.ndarray
        (N,) posterior mean and standard deviation of each agent's skill.
    """
    mu = np.full(arrays.n_agents, env.mu, dtype=float)
    sigma = np.full(arrays.n_agents, env.sigma, dtype=float)
    if arrays.n_matches == 0:
        return mu, sigma
    order = np.argsort(arrays.rank, axis=1, kind="stable")  # trueskill sorts seats stably by rank
    ranked_agent = np.take_along_axis(arrays.seat_agent, order, axis=1)
    ranked_rank = np.take_along_axis(arrays.rank, order, axis=1)
    draws = ranked_rank[:, 1:] == ranked_rank[:, :-1]
    sequence = np.argsort(arrays.played, kind="stable")
    constants = (env.tau**2, env.beta**2, env.draw_margin(), env.min_delta, env.max_sweeps)
    compiled = _compiled() if arrays.n_matches >= COMPILED_FROM else None
    if compiled is not None:
        compiled.rate_in_order(sequence, ranked_agent, arrays.seats.astype(np.int64), draws, mu, sigma,
                                         *constants)
        return mu, sigma
    # Python floats and lists: the scalar path is an order of magnitude slower on numpy scalars.
    mu_of, sigma_of = mu.tolist(), sigma.tolist()
    trueskill_match.rate_in_order(sequence.tolist(), ranked_agent.tolist(), arrays.seats.tolist(), draws.tolist(),
                                  mu_of, sigma_of, *constants)
    return np.array(mu_of), np.array(sigma_of)


def _compiled() -> Any:
    """The compiled kernel module (loads numba: only for fits that win it back), or None where numba cannot
    be imported (a Python newer than numba's wheels, say): the plain update gives the same numbers, slower."""
    try:
        from arena.ratings import trueskill_compiled
    except ImportError:
        return None
    return trueskill_compiled


def centre(mu: np.ndarray, level: float) -> np.ndarray:
    """``mu`` shifted so that the field's mean is ``level`` (per row of a stack of replicates).

    Only differences of skill are identified by results; TrueSkill's common level is pinned
    by the prior and then wanders with the online updates of multi-seat matches (by about a
    sigma of the prior's scale, however many matches are played).  The reported rating
    removes that wander: ranks, gaps and P(stronger) do not change.
    """
    return mu - mu.mean(axis=-1, keepdims=True) + level


JACKKNIFE_GROUPS = 20
"""Groups of duplicate blocks the jackknife leaves out one at a time (fewer when there are fewer blocks)."""


JACKKNIFE_MAX_MATCHES = 50_000
"""Above this many matches the jackknife (``JACKKNIFE_GROUPS`` more fits) is skipped for the posterior."""


def jackknife(arrays: MatchArrays, env: Environment, full: np.ndarray) -> tuple[np.ndarray, int]:
    """Grouped jackknife covariance of ``mu`` over duplicate blocks, and the number of groups.

    Blocks are dealt to ``G = min(JACKKNIFE_GROUPS, blocks)`` groups in turn (block ``b``
    to group ``b mod G``); each group is left out once and the rest re-rated in the same
    order (all ``G`` replicates in one pass: ``_left_out``).  The covariance is
    ``(G - 1) / G * sum_g (mu_g - mean)(mu_g - mean)^T``: it sees everything that moves
    ``mu`` from one tournament to the next (the deals, the correlation within a block, and
    the path of an online fit), which TrueSkill's own sigma does not.  An agent absent from a
    replicate (all its blocks left out) takes the full fit's ``mu`` there.  Costs about ``G``
    fits' arithmetic (in the compiled kernel once the replicates hold ``COMPILED_FROM`` matches).
    """
    n_blocks = len(arrays.blocks)
    groups = min(JACKKNIFE_GROUPS, n_blocks)
    if groups < 2:
        return np.diag(np.full(arrays.n_agents, np.inf)), max(groups, 1)
    group = arrays.block % groups
    replicates = rate(_left_out(arrays, group, groups), env)[0].reshape(groups, arrays.n_agents)
    played = np.stack([np.bincount(arrays.seat_agent[group != g].ravel() + 1, minlength=arrays.n_agents + 1)[1:]
                       for g in range(groups)])
    replicates = centre(np.where(played > 0, replicates, full), env.mu)
    centred = replicates - replicates.mean(axis=0)
    return (groups - 1) / groups * centred.T @ centred, groups


def _left_out(arrays: MatchArrays, group: np.ndarray, groups: int) -> MatchArrays:
    """Every leave-one-group-out replicate as one set of matches between ``groups * N`` agents.

    Replicate ``g`` keeps the matches outside group ``g``, between its own copies of the
    agents (agent ``a`` becomes ``g * N + a``), in the same order.  The copies share no
    agent, so rating them in one pass gives what rating each replicate alone would, at the
    cost of one fit of ``G`` times the matches.
    """
    n = arrays.n_agents
    kept = [np.flatnonzero(group != g) for g in range(groups)]
    rows = np.concatenate(kept)
    replicate = np.repeat(np.arange(groups), [k.size for k in kept])
    seat_agent = arrays.seat_agent[rows]
    seat_agent = np.where(seat_agent >= 0, seat_agent + (replicate * n)[:, None], -1)
    order = np.lexsort((replicate, arrays.played[rows]))  # the order played, replicates side by side
    played = np.empty(rows.size, dtype=np.int64)
    played[order] = np.arange(rows.size)
    games = np.bincount(seat_agent[seat_agent >= 0], minlength=groups * n).astype(np.int64)
    return dataclasses.replace(
        arrays,
        agents=tuple(map(str, range(groups * n))),  # labels of the copies, never shown
        match_ids=tuple(map(str, range(rows.size))),
        seat_agent=seat_agent,
        score=arrays.score[rows],
        rank=arrays.rank[rows],
        seats=arrays.seats[rows],
        block=arrays.block[rows],
        games=games,
        fault_counts=np.zeros((groups * n, arrays.fault_counts.shape[1]), dtype=np.int64),
        played=played,
    )


def observed_draw_probability(arrays: MatchArrays) -> float:
    """The share of pairs of seats that tied (equal ranks), over every pair of seats of every match.

    TrueSkill's ``draw_probability`` is the chance that two equal agents draw; the share
    of all pairs that tie is a slight underestimate of it (unequal agents tie less often),
    which errs towards reading a tie as less evidence of equality.
    """
    tied = total = 0
    for _, _, present, _, _, result in seat_pairs(arrays):
        draws = result == 0.5
        tied += int(np.count_nonzero(draws if present is None else draws & present))
        total += arrays.n_matches if present is None else int(np.count_nonzero(present))
    return tied / total if total else 0.0


def fit(
    outcomes: Sequence[MatchOutcome],
    *,
    mu: float = MU,
    sigma: float = SIGMA,
    beta: float = BETA,
    tau: float = TAU,
    draw_probability: float | str = DRAW_PROBABILITY,
    min_delta: float = MIN_DELTA,
    max_sweeps: int = MAX_SWEEPS,
    intervals: str = "jackknife",
    level: float = INTERVAL_LEVEL,
) -> RatingTable:
    """TrueSkill ratings of every agent after all matches, processed in the order played.

    Parameters
    ----------
    outcomes : sequence of MatchOutcome
        In the order the matches were played (the store's schedule order); the result
        depends on it (see the module's notes).
    mu, sigma, beta, tau : float, optional
        TrueSkill constants (``MU``, ``SIGMA``, ``BETA``, ``TAU`` = 0).
    draw_probability : float or "observed", optional
        Probability of a draw between two equal agents; "observed" (the default) takes the
        share of tied pairs of seats in the data (``observed_draw_probability``).
    min_delta : float, optional
        Convergence threshold of each match's sweeps (``MIN_DELTA``).
    max_sweeps : int, optional
        Sweeps per match at most (``MAX_SWEEPS``).
    intervals : {"jackknife", "posterior"}, optional
        "jackknife" (the default): ``mu -+ t sd`` with ``sd`` the grouped jackknife over
        duplicate blocks (``jackknife``) and ``t`` Student's quantile for its degrees of
        freedom; "posterior": ``mu -+ z sigma``, TrueSkill's own posterior, which treats
        every match as independent: it reports the same spread for duplicate blocks as
        for independent deals, too wide for the first (see docs/ratings.md).
    level : float, optional
        Coverage of the interval (0.95: z = 1.96).

    Returns
    -------
    RatingTable
        ``rating`` is ``mu`` re-centred so that the field's mean is the prior mean
        (``centre``; agents are ranked by it); ``lower``/``upper`` the interval;
        ``superiority[i][j] = Phi((mu_i - mu_j) / sqrt(s_i^2 + s_j^2))`` with ``s`` the
        interval's standard deviations (the t of the interval in place of Phi for the jackknife, so
        that a gap's interval excludes zero exactly when P says so); extras hold ``mu``, ``sigma``, the conservative
        ``mu - 3 sigma`` per agent, the constants and the interval kind.
    """
    if intervals not in TRUESKILL_INTERVALS:
        raise ValueError(f"intervals={intervals!r} is not one of {', '.join(TRUESKILL_INTERVALS)}")
    if isinstance(draw_probability, str):
        if draw_probability != "observed":
            raise ValueError(f"draw_probability must be a number in [0, 1) or 'observed', got {draw_probability!r}")
    elif not 0.0 <= draw_probability < 1.0:
        raise ValueError(f"draw_probability must be in [0, 1), got {draw_probability}")
    scale = f"TrueSkill skill mu (prior mu {mu:g}, sigma {sigma:g}, beta {beta:g})"
    arrays = as_arrays(outcomes)
    if arrays.n_matches == 0:
        return empty_table(METHOD, scale, level)
    if isinstance(draw_probability, str):  # "observed"
        draw_probability = min(observed_draw_probability(arrays), MAX_OBSERVED_DRAW_PROBABILITY)
    elif draw_probability == 0.0:
        ranks = np.sort(arrays.rank, axis=1)
        if np.any((ranks[:, 1:] == ranks[:, :-1]) & (ranks[:, 1:] != arrays.PAD_RANK)):
            raise ValueError("these matches have draws (equal ranks), which need draw_probability > 0")
    env = Environment(mu, sigma, beta, tau, float(draw_probability), min_delta, max_sweeps)
    post_mu, post_sigma = rate(arrays, env)
    agents = arrays.agents
    rating = centre(post_mu, mu)
    df: float | None = None  # the degrees of freedom of the t the intervals and P(stronger) use (None: normal)
    if intervals == "posterior" or arrays.n_matches > JACKKNIFE_MAX_MATCHES:
        covariance, z = np.diag(post_sigma**2), z_value(level)
        skipped = "" if intervals == "posterior" else f"; no jackknife above {JACKKNIFE_MAX_MATCHES} matches"
        found: dict[str, Any] = {
            "intervals": "posterior",
            "interval_kind": "posterior",
            "interval_reason": (
                f"TrueSkill's posterior sigma, blind to the duplicate blocks (see docs/ratings.md){skipped}"
            ),
        }
    else:
        covariance, groups = jackknife(arrays, env, post_mu)
        df = max(groups - 1, 1)
        z = float(student_t.ppf(0.5 + level / 2.0, df))
        # An agent behind few blocks: the jackknife's spread of it is too small (P >= 0.99 was right 84% of the
        # time with two blocks each), so its variance is at least the posterior's, which ignores the blocks.
        few = blocks_per_agent(arrays) < CLUSTER_MIN_BLOCKS
        covariance = covariance + np.diag(np.where(few, np.clip(post_sigma**2 - np.diag(covariance), 0.0, None),
                                                   0.0))
        floor = (f"; at least the posterior sigma for the {int(few.sum())} agents behind fewer than "
                 f"{CLUSTER_MIN_BLOCKS} blocks") if few.any() else ""
        found = {
            "intervals": "jackknife",
            "interval_kind": "jackknife",
            "jackknife_groups": groups,
            "interval_reason": (
                f"grouped jackknife over duplicate blocks ({groups} groups, Student's t with {groups - 1} "
                f"degrees of freedom){floor}"
            ),
        }
    spread = np.sqrt(np.clip(np.diag(covariance), 0.0, None))
    extras = {
        "mu": dict(zip(agents, post_mu.tolist())),
        "sigma": dict(zip(agents, post_sigma.tolist())),
        "conservative": dict(zip(agents, (post_mu - CONSERVATIVE_SIGMAS * post_sigma).tolist())),
        "environment": {
            "mu": mu,
            "sigma": sigma,
            "beta": beta,
            "tau": tau,
            "draw_probability": draw_probability,
            "draw_margin": env.draw_margin(),
            "min_delta": min_delta,
            "max_sweeps": max_sweeps,
        },
        "order": "matches rated in the order played (the input order)",
        **found,
    }
    return make_table(
        method=METHOD,
        scale=scale,
        agents=agents,
        rating=rating,
        lower=rating - z * spread,
        upper=rating + z * spread,
        games=arrays.games,
        superiority=superiority_from_covariance(rating, covariance, df),
        contrast_sd=contrast_sd_from_covariance(covariance),
        gap_quantile=np.full((len(agents), len(agents)), z),
        extras=extras,
        level=level,
    )
