"""Synthetic tournaments with known strengths, for tests, benchmarks and demonstrations.

With ``design="blocks"`` (the default) each duplicate block draws ``players`` distinct
agents and one deal, then plays the deal once per rotation of the agents through the seats
(``players`` matches).  With ``design="independent"`` each of those ``players`` matches
deals its own cards instead (same agents, same seatings, fresh luck per match, every match
its own block): the design duplicate blocks are measured against.  A seat's performance in
a match is

    strength[agent] + luck[block, seat] + noise

where ``luck`` (standard deviation ``luck``) belongs to the deal and seat, so under
duplicate blocks it is shared by the block's rotations and cancels within the block, and ``noise`` is independent per
match and seat: standard Gumbel for ``model="plackett-luce"`` (with ``luck=0`` the
finishing order is then exactly Plackett–Luce with log-strengths ``strength``, and every
pairwise marginal is Bradley–Terry) or standard normal for ``model="thurstone"``.

With ``die`` each seat of each match also adds a roll of a fair six-faced die (faces evenly spaced, standard
deviation ``die``), drawn afresh per match as Lovat's die is reached on different paths by a deal's rotations; each
outcome then carries its exact luck correction (``MatchOutcome.luck``, what ``arena.ratings.luck`` computes for a
real game): each seat's expected seats beaten given the rolls, less its expectation over every fall of the dice,
``v`` taking every agent as equal (the reference knows nothing of the strengths, as greedy knows nothing of the
agents).

The score is the performance itself, optionally rounded to a multiple of ``score_step``
(which produces ties); ranks are competition ranks of the scores (1 = highest, ties share
the better rank).  The expected score of agent ``i`` in a match is ``strength[i] +
NOISE_MEAN[model]`` (without rounding).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import scipy.special

from arena.ratings.data import MatchOutcome

DESIGNS: tuple[str, ...] = ("blocks", "independent")
"""Deal designs: duplicate blocks (one deal per block, rotated) or an independent deal per match."""

MODELS: tuple[str, ...] = ("plackett-luce", "thurstone")
"""Noise models: Gumbel noise (Plackett–Luce orders) or normal noise (Thurstone case V)."""

NOISE_MEAN: Mapping[str, float] = {"plackett-luce": float(np.euler_gamma), "thurstone": 0.0}
"""Mean of the per-match noise of each model (the standard Gumbel's mean is Euler's gamma)."""

DIE_FACES = (np.arange(6) - 2.5) / np.sqrt(35.0 / 12.0)
"""A die of standard deviation 1: six evenly spaced faces of mean 0 (scaled by ``die``)."""


def _ahead(gap: np.ndarray, model: str) -> np.ndarray:
    """P(a seat finishes ahead of another | its performance leads by ``gap`` before the noise), agents equal: the
    difference of two standard Gumbels is logistic, of two standard normals normal with variance 2."""
    if model == "plackett-luce":
        return 1.0 / (1.0 + np.exp(-gap))
    return scipy.special.ndtr(gap / np.sqrt(2.0))


def simulate_outcomes(
    strengths: Mapping[str, float],
    *,
    blocks: int,
    players: int,
    seed: int = 0,
    model: str = "plackett-luce",
    luck: float = 0.0,
    score_step: float | None = None,
    design: str = "blocks",
    die: float = 0.0,
) -> list[MatchOutcome]:
    """Play ``blocks`` duplicate blocks of ``players``-seat matches between synthetic agents.

    Parameters
    ----------
    strengths : mapping of str to float
        Natural-log strength of each agent (at least ``players`` agents).
    blocks : int
        Number of duplicate blocks; the result has ``blocks * players`` matches.
    players : int
        Seats per match (at least 2).
    seed : int, optional
        Seed of the generator; the same seed gives the same outcomes.
    model : {"plackett-luce", "thurstone"}, optional
        Distribution of the per-match noise.
    luck : float, optional
        Standard deviation of the per-deal seat luck shared by a block.
    score_step : float, optional
        Round scores to multiples of this (creates ties); None keeps them continuous.
    design : {"blocks", "independent"}, optional
        One deal per block, rotated through the seats, or a fresh deal per match.
    die : float, optional
        Standard deviation of each seat's die roll, afresh per match; with it every outcome carries its luck
        correction.

    Returns
    -------
    list of MatchOutcome
        In the order played.  Group ``b`` is ``"b{b:06d}"``; its matches are
        ``"b{b:06d}-r{rotation}"`` and their block is the group under ``design="blocks"``,
        the match itself under ``design="independent"``.
    """
    if model not in MODELS:
        raise ValueError(f"model={model!r} is not one of {', '.join(MODELS)}")
    if design not in DESIGNS:
        raise ValueError(f"design={design!r} is not one of {', '.join(DESIGNS)}")
    names = list(strengths)
    n = len(names)
    if players < 2 or players > n:
        raise ValueError(f"players={players} needs 2 <= players <= {n} (the number of agents)")
    rng = np.random.default_rng(seed)
    strength = np.array([strengths[a] for a in names], dtype=float)
    chosen = np.argsort(rng.random((blocks, n)), axis=1)[:, :players]  # (blocks, players)
    deals = (blocks, 1, players) if design == "blocks" else (blocks, players, players)
    seat_luck = rng.normal(0.0, luck, size=deals) if luck > 0 else np.zeros(deals)
    rotation = (np.arange(players)[None, :] + np.arange(players)[:, None]) % players  # [r, seat]
    agent = chosen[:, rotation]  # (blocks, rotations, seats)
    if model == "plackett-luce":
        noise = rng.gumbel(size=agent.shape)
    else:
        noise = rng.normal(size=agent.shape)
    score = strength[agent] + seat_luck + noise
    correction = np.zeros(agent.shape)
    if die > 0:
        rolled = die * DIE_FACES[rng.integers(0, 6, size=agent.shape)]
        score = score + rolled
        # Seats beaten expected from the rolls, agents equal; each pair's expectation over the dice is one half.
        ahead = _ahead(rolled[..., :, None] - rolled[..., None, :], model)
        correction = ahead.sum(axis=-1) - 0.5 * players  # the seat's own "pair" is one half: taken out with the rest
    if score_step is not None:
        score = np.round(score / score_step) * score_step
    rank = 1 + (score[..., None, :] > score[..., :, None]).sum(axis=-1)
    names_array = np.array(names, dtype=object)
    outcomes = []
    for b in range(blocks):
        block_id = f"b{b:06d}"
        for r in range(players):
            match_id = f"{block_id}-r{r}"
            outcomes.append(
                MatchOutcome(
                    match_id=match_id,
                    block=block_id if design == "blocks" else match_id,
                    agents=tuple(names_array[agent[b, r]]),
                    scores=tuple(score[b, r].tolist()),
                    ranks=tuple(rank[b, r].tolist()),
                    luck=tuple(correction[b, r].tolist()) if die > 0 else None,
                )
            )
    return outcomes
