"""The data shapes every rating method reads: match outcomes, and their compact array form.

A rating method is a pure function of a sequence of ``MatchOutcome`` (what the tournament
store produces, in schedule order: the order the matches were played).  Methods never loop
over outcomes in Python: they call ``as_arrays`` once, which validates the input, puts the
matches in a canonical order (sorted by ``match_id``, so that shuffling the input cannot
change a batch method's result, not even in the last bit), packs them into padded numpy
arrays and keeps each match's position in the input (``played``) for the one method that
depends on order (TrueSkill processes matches in the order they were played).
"""

from __future__ import annotations

import gc
import itertools
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import chain
from operator import attrgetter

import numpy as np

FAULT_KINDS: tuple[str, ...] = ("timeout", "illegal", "exception", "crash", "memory")
"""Fault kinds a match can record against a seat, in the column order of ``fault_counts``."""


@dataclass(frozen=True, slots=True)
class MatchOutcome:
    """The result of one match, as far as ratings are concerned."""

    match_id: str  # stable id of the match
    block: str  # duplicate block id: matches in a block share a deal (the luck cancels within it)
    agents: tuple[str, ...]  # agent name per seat (an agent appears at most once per match)
    scores: tuple[float, ...]  # per seat: points (Lovat) or chips (Lorum)
    ranks: tuple[int, ...]  # per seat: 1 = best; equal results share a rank
    # (seat, kind) pairs: kind in "timeout", "illegal", "exception", "crash", "memory"
    faults: tuple[tuple[int, str], ...] = ()
    # per seat: seats beaten that chance after the deal was worth (arena.ratings.luck); None when not computed
    luck: tuple[float, ...] | None = None


@dataclass(frozen=True, slots=True)
class MatchArrays:
    """Match outcomes packed into numpy arrays, in canonical (``match_id``) order.

    ``M`` matches, ``P`` = the largest number of seats, ``N`` agents.  Seats beyond a
    match's own seat count are padding: agent ``-1``, score ``nan``, rank ``PAD_RANK``.
    All arrays are read-only.
    """

    agents: tuple[str, ...]  # agent names, sorted; agent index i is agents[i]
    match_ids: tuple[str, ...]  # match ids, sorted; match index m is match_ids[m]
    blocks: tuple[str, ...]  # duplicate block ids, sorted; block index b is blocks[b]
    seat_agent: np.ndarray  # (M, P) int64: agent index per seat, -1 for padding
    score: np.ndarray  # (M, P) float64: score per seat, nan for padding
    rank: np.ndarray  # (M, P) int64: rank per seat (1 = best), PAD_RANK for padding
    seats: np.ndarray  # (M,) int64: number of seats of each match
    block: np.ndarray  # (M,) int64: block index of each match
    games: np.ndarray  # (N,) int64: matches played by each agent
    fault_counts: np.ndarray  # (N, len(FAULT_KINDS)) int64: faults per agent and kind
    played: np.ndarray  # (M,) int64: position of each match in the input sequence (the order played)
    luck: np.ndarray  # (M, P) float64: each seat's luck correction, nan for padding and for a match without one

    PAD_RANK = np.iinfo(np.int64).max // 4

    @property
    def n_matches(self) -> int:
        """Number of matches ``M``."""
        return len(self.match_ids)

    @property
    def n_agents(self) -> int:
        """Number of distinct agents ``N``."""
        return len(self.agents)

    @property
    def valid(self) -> np.ndarray:
        """(M, P) bool: True where the seat exists."""
        return self.seat_agent >= 0


@dataclass(frozen=True, slots=True)
class PairwiseArrays:
    """Every pair of seats inside every match, as one comparison per pair."""

    match: np.ndarray  # (R,) int64: match index of the comparison
    first: np.ndarray  # (R,) int64: agent index at the lower-numbered seat of the pair
    second: np.ndarray  # (R,) int64: agent index at the higher-numbered seat
    result: np.ndarray  # (R,) float64: 1 if first finished ahead, 0.5 if tied, 0 if behind


def _readonly(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


@contextmanager
def _collection_paused():
    """Pause the cyclic garbage collector while building many small containers.

    Packing 10^6 outcomes creates millions of short-lived lists and tuples; each allocation
    burst makes the collector rescan every live outcome object, which costs a third of the
    time.  Nothing built here forms reference cycles.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def as_arrays(outcomes: Sequence[MatchOutcome] | MatchArrays) -> MatchArrays:
    """Validate outcomes and pack them into ``MatchArrays`` (sorted by ``match_id``).

    Parameters
    ----------
    outcomes : sequence of MatchOutcome, or MatchArrays
        In the order they were played (only ``played`` depends on it; every other array is
        in canonical order).  ``MatchArrays`` (already packed)
        are returned as they are, so that a caller who needs the arrays too (the
        leaderboard) can pack once and hand them to a method.

    Returns
    -------
    MatchArrays

    Raises
    ------
    ValueError
        On a duplicate match id, mismatched per-seat tuple lengths, fewer than two seats,
        an agent seated twice in one match, a rank below 1, a non-finite score or an
        unknown fault; the message names the match and the fix.
    """
    if isinstance(outcomes, MatchArrays):
        return outcomes
    with _collection_paused():
        return _as_arrays(outcomes)


def _as_arrays(outcomes: Sequence[MatchOutcome]) -> MatchArrays:
    outcomes = list(outcomes)
    ids = list(map(attrgetter("match_id"), outcomes))
    positions = sorted(range(len(outcomes)), key=ids.__getitem__)
    ordered = [outcomes[i] for i in positions]
    n_matches = len(ordered)
    match_ids = tuple(o.match_id for o in ordered)
    for previous, current in itertools.pairwise(match_ids):
        if previous == current:
            raise ValueError(f"match id {current!r} appears twice in the outcomes; give every match a unique match_id")

    agents_of, scores_of, ranks_of = (list(map(attrgetter(f), ordered)) for f in ("agents", "scores", "ranks"))
    seats = np.fromiter(map(len, agents_of), dtype=np.int64, count=n_matches)
    n_scores = np.fromiter(map(len, scores_of), dtype=np.int64, count=n_matches)
    n_ranks = np.fromiter(map(len, ranks_of), dtype=np.int64, count=n_matches)
    bad = np.flatnonzero((n_scores != seats) | (n_ranks != seats))
    if bad.size:
        o = ordered[bad[0]]
        raise ValueError(
            f"match {o.match_id!r}: {len(o.agents)} agents but {len(o.scores)} scores and {len(o.ranks)} ranks; "
            "give one score and one rank per seat"
        )
    bad = np.flatnonzero(seats < 2)
    if bad.size:
        raise ValueError(f"match {match_ids[bad[0]]!r} has {seats[bad[0]]} seat(s); a rated match needs at least two")

    flat_agents = list(chain.from_iterable(agents_of))
    names = tuple(sorted(set(flat_agents)))
    index = {name: i for i, name in enumerate(names)}
    total = len(flat_agents)
    flat_codes = np.fromiter(map(index.__getitem__, flat_agents), dtype=np.int64, count=total)
    flat_scores = np.fromiter(chain.from_iterable(scores_of), dtype=np.float64, count=total)
    flat_ranks = np.fromiter(chain.from_iterable(ranks_of), dtype=np.int64, count=total)

    width = int(seats.max()) if n_matches else 2
    ends = np.cumsum(seats)
    if total == n_matches * width:
        # Every match has the same number of seats (the usual case): the flat arrays are
        # already the rows, laid end to end.
        seat_agent = flat_codes.reshape(n_matches, width)
        score = flat_scores.reshape(n_matches, width)
        rank = flat_ranks.reshape(n_matches, width)
    else:
        row = np.repeat(np.arange(n_matches), seats)
        col = np.arange(total) - np.repeat(ends - seats, seats)
        seat_agent = np.full((n_matches, width), -1, dtype=np.int64)
        score = np.full((n_matches, width), np.nan)
        rank = np.full((n_matches, width), MatchArrays.PAD_RANK, dtype=np.int64)
        seat_agent[row, col] = flat_codes
        score[row, col] = flat_scores
        rank[row, col] = flat_ranks

    def match_of(flat: np.ndarray) -> int:
        """The match of the first flagged entry of the flat (seat-by-seat) arrays."""
        return int(np.searchsorted(ends, np.flatnonzero(flat)[0], side="right"))

    if not np.all(np.isfinite(flat_scores)):
        m = match_of(~np.isfinite(flat_scores))
        raise ValueError(f"match {match_ids[m]!r} has a non-finite score; scores must be finite numbers")
    if total and flat_ranks.min() < 1:
        m = match_of(flat_ranks < 1)
        raise ValueError(f"match {match_ids[m]!r} has a rank below 1; ranks start at 1 for the best seat")
    sorted_agents = np.sort(seat_agent, axis=1)
    repeated = (sorted_agents[:, 1:] == sorted_agents[:, :-1]) & (sorted_agents[:, 1:] >= 0)
    if repeated.any():
        m = int(np.flatnonzero(repeated.any(axis=1))[0])
        raise ValueError(f"match {match_ids[m]!r} seats the same agent twice; an agent plays at most one seat")

    block_names = list(map(attrgetter("block"), ordered))
    blocks = tuple(sorted(set(block_names)))
    block_index = {name: b for b, name in enumerate(blocks)}
    block = np.fromiter(map(block_index.__getitem__, block_names), dtype=np.int64, count=n_matches)

    luck = _luck(ordered, seats, width)

    games = np.bincount(flat_codes, minlength=len(names)).astype(np.int64)
    fault_counts = np.zeros((len(names), len(FAULT_KINDS)), dtype=np.int64)
    kind_index = {kind: k for k, kind in enumerate(FAULT_KINDS)}
    # Faults are rare: one pass of any() in C usually spares the scan for faulty matches.
    faulty = (m for m, o in enumerate(ordered) if o.faults) if any(map(attrgetter("faults"), ordered)) else ()
    for m in faulty:
        o = ordered[m]
        for fault in o.faults:
            seat, kind = fault
            if kind not in kind_index:
                raise ValueError(
                    f"match {o.match_id!r}: unknown fault kind {kind!r}; use one of {', '.join(FAULT_KINDS)}"
                )
            if not 0 <= seat < seats[m]:
                raise ValueError(f"match {o.match_id!r}: fault at seat {seat}, but seats run 0..{seats[m] - 1}")
            fault_counts[seat_agent[m, seat], kind_index[kind]] += 1

    return MatchArrays(
        agents=names,
        match_ids=match_ids,
        blocks=blocks,
        seat_agent=_readonly(seat_agent),
        score=_readonly(score),
        rank=_readonly(rank),
        seats=_readonly(seats),
        block=_readonly(block),
        games=_readonly(games),
        fault_counts=_readonly(fault_counts),
        played=_readonly(np.array(positions, dtype=np.int64).reshape(n_matches)),
        luck=_readonly(luck),
    )


def _luck(ordered: Sequence[MatchOutcome], seats: np.ndarray, width: int) -> np.ndarray:
    """(M, P) each seat's luck correction, nan where a match has none (and for padding); ``ValueError`` for a
    correction that is not one finite number per seat."""
    luck = np.full((len(ordered), width), np.nan)
    given = np.array([m for m, outcome in enumerate(ordered) if outcome.luck is not None], dtype=np.int64)
    if not given.size:  # none computed (most stores)
        return luck
    values = [ordered[m].luck or () for m in given]
    counts = np.fromiter(map(len, values), dtype=np.int64, count=given.size)
    flat = np.fromiter(chain.from_iterable(values), dtype=np.float64, count=int(counts.sum()))
    owner = np.repeat(np.arange(given.size), counts)
    wrong = (counts != seats[given]) | (np.bincount(owner, weights=~np.isfinite(flat), minlength=given.size) > 0)
    if wrong.any():
        outcome = ordered[given[np.flatnonzero(wrong)[0]]]
        raise ValueError(f"match {outcome.match_id!r}: its luck correction must be one finite number per seat "
                         f"({len(outcome.agents)}), got {list(outcome.luck or ())[:8]}")
    luck[given[owner], np.arange(flat.size) - np.repeat(np.cumsum(counts) - counts, counts)] = flat
    return luck


def seat_pairs(arrays: MatchArrays):
    """Yield ``(s, t, present, first, second, result)`` for every pair of seats ``s < t``.

    ``first`` and ``second`` are the (M,) agent columns of the two seats, ``present`` the
    matches that have both seats (None when every match does), ``result`` 1 where seat
    ``s`` finished ahead, 0.5 on a tie and 0 behind.  Column slices keep this fast.
    """
    width = arrays.seat_agent.shape[1]
    padded = bool((arrays.seats < width).any())
    for s in range(width):
        for t in range(s + 1, width):
            first = arrays.seat_agent[:, s]
            second = arrays.seat_agent[:, t]
            present = ((first >= 0) & (second >= 0)) if padded else None
            rank_s, rank_t = arrays.rank[:, s], arrays.rank[:, t]
            result = (rank_s < rank_t) + 0.5 * (rank_s == rank_t)
            yield s, t, present, first, second, result


def pairwise(arrays: MatchArrays) -> PairwiseArrays:
    """Split every match into its pairwise comparisons (each pair of seats once).

    A tie in rank gives ``result = 0.5``: a draw, half a win to each side.
    """
    parts = []
    every = np.arange(arrays.n_matches)
    for _, _, present, first, second, result in seat_pairs(arrays):
        match = every if present is None else every[present]
        if present is not None:
            first, second, result = first[present], second[present], result[present]
        parts.append((match, first, second, result))
    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        return PairwiseArrays(match=empty, first=empty, second=empty, result=np.zeros(0))
    match, first, second, result = (np.concatenate(column) for column in zip(*parts))
    return PairwiseArrays(match=match, first=first, second=second, result=result.astype(float))
