"""What one seat sees: ``LorumObservation`` and ``build_observation``, the one place hidden cards are removed.

S-18: bids, every card played and who won each trick are public; hands are
private.  An observation holds the observer's own hand, the public history of
the current deal (enough for the sampler to rebuild the whole state from
sampled hidden hands) and the settled outcome of earlier deals.  It never holds
a reference to a state.

Built by ``arena/games/lazy.py``: every field but five is a reference to the
state's immutable public record; ``hand`` (named from the seat's hand mask,
kept in the observation's private snapshot), ``hand_sizes``, ``points``,
``tricks_won`` and ``balances`` (all four public, derived from ``trick``,
``tricks`` and ``past_deals``) are computed on first access.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from arena.games.base import from_json
from arena.games.lazy import PENDING, LazyObservation, lazy_constructor
from arena.games.lorum.cards import CARDS_PER_HAND, INDEX, POINTS, mask_names
from arena.games.lorum.rules import BID, GAME_ID, PLAYERS

if TYPE_CHECKING:
    from arena.games.lorum.state import LorumState

Play = tuple[int, str]
"""One card played: ``(seat, card name)``."""

Trick = tuple[tuple[Play, ...], int]
"""A completed trick: ``(plays in order, winning seat)``."""

PastDeal = tuple[int, int, str, int | None, str, tuple[int, ...], int, int]
"""A settled deal: ``(deal, dealer, contract, bidder, case, chip change per seat, pot before, pot after)``."""


@dataclass(frozen=True, slots=True)
class LorumObservation(LazyObservation):
    """What ``seat`` may know at one moment of a Slovak Lorum game.

    ``phase`` is ``"bid"``, ``"play"`` or ``"over"``; ``legal`` holds the calls
    (``"pass"``, ``"small"``, ``"big"``) or card names open to ``seat`` now, and
    is empty when it is not ``seat``'s turn.
    """

    to_move: int | None  # the seat whose decision is pending; None when the game is over
    deal: int  # the current deal, 1-based (the last deal once the game is over)
    deals: int  # number of deals in the game (S-16)
    dealer: int  # dealer of the current deal; the first bidder is (dealer + 1) % 4
    hand: tuple[str, ...]  # the observer's own cards, canonical order (suits a g h b, ace down)
    hand_sizes: tuple[int, ...]  # per seat: number of cards still held (public)
    bids: tuple[Play, ...]  # (seat, call) of this deal's bidding so far, in order
    contract: str | None  # None while bidding, then "regular", "big" or "small"
    bidder: int | None  # the seat that called big or small; None while bidding and in a regular game
    leader: int | None  # the seat that leads / led the current trick; None while bidding and when over
    trick: tuple[Play, ...]  # the current trick's plays in order, (seat, card)
    tricks: tuple[Trick, ...]  # this deal's completed tricks in order: (plays, winner)
    played: tuple[str, ...]  # every card played this deal, in order
    points: tuple[int, ...]  # card points taken per seat this deal (S-9)
    tricks_won: tuple[int, ...]  # tricks taken per seat this deal
    balances: tuple[int, ...]  # chips per seat now (S-10)
    pot: int  # chips in the pot now (S-10)
    past_deals: tuple[PastDeal, ...]  # every settled deal (see ``PastDeal``)


FIELD_NAMES = frozenset(f.name for f in fields(LorumObservation))
"""The JSON keys of an observation."""


def build_observation(state: LorumState, seat: int) -> LorumObservation:
    """The observation of ``seat``: its own hand and public information only (S-18)."""
    # The exact-int test first (the common case, fast); bool and other int subclasses fall to the second.
    if (type(seat) is not int or not 0 <= seat < PLAYERS) and (
        isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < PLAYERS
    ):
        raise ValueError(f"seat must be 0..{PLAYERS - 1}, not {seat!r}")
    if state.to_act != seat:
        legal: tuple[str, ...] = ()
    elif state.phase == BID:
        legal = state.bid_calls()
    else:
        legal = mask_names(state.legal_mask())
    # Field order of LorumObservation (checked against the dataclass at import, see lazy_constructor).
    return _build(
        GAME_ID, seat, PLAYERS, state.phase, legal, state.to_act, state.deal, state.deals, state.dealer, PENDING,
        PENDING, state.bids, state.contract, state.bidder, state.leader, state.trick, state.tricks, state.played,
        PENDING, PENDING, PENDING, state.pot, state.past_deals, state.hands[seat],
    )


def _hand_sizes(obs: LorumObservation) -> tuple[int, ...]:
    """S-3: every hand starts a deal with 8 cards and gives one to each trick, so a size is 8 minus the seat's plays."""
    left = CARDS_PER_HAND - len(obs.tricks)
    in_trick = {seat for seat, _card in obs.trick}
    return tuple(left - (seat in in_trick) for seat in range(PLAYERS))


def _points(obs: LorumObservation) -> tuple[int, ...]:
    """S-9: the card points of the tricks each seat has taken this deal."""
    points = [0] * PLAYERS
    for plays, winner in obs.tricks:
        points[winner] += sum(POINTS[INDEX[card]] for _seat, card in plays)
    return tuple(points)


def _tricks_won(obs: LorumObservation) -> tuple[int, ...]:
    """The tricks each seat has taken this deal."""
    won = [0] * PLAYERS
    for _plays, winner in obs.tricks:
        won[winner] += 1
    return tuple(won)


def _balances(obs: LorumObservation) -> tuple[int, ...]:
    """S-10: every game starts at 0 chips a seat, so a balance is the sum of the seat's changes over settled deals."""
    balances = [0] * PLAYERS
    for record in obs.past_deals:
        for seat, change in enumerate(record[5]):
            balances[seat] += change
    return tuple(balances)


_build = lazy_constructor(LorumObservation, {
    "hand": lambda obs: mask_names(obs._snapshot),  # the snapshot is the seat's own hand mask
    "hand_sizes": _hand_sizes,
    "points": _points,
    "tricks_won": _tricks_won,
    "balances": _balances,
})
"""``LorumObservation(*fields)`` with its lazy fields ``PENDING``, then the snapshot: the seat's hand mask."""


def observation_from_json(data: Mapping[str, Any]) -> LorumObservation:
    """Rebuild an observation from ``to_json()`` output: the exact inverse."""
    keys = set(data)
    if keys != FIELD_NAMES:
        missing = ", ".join(sorted(FIELD_NAMES - keys)) or "none"
        extra = ", ".join(sorted(keys - FIELD_NAMES)) or "none"
        raise ValueError(f"not a Lorum observation: missing fields {missing}; unknown fields {extra}")
    if data["game"] != GAME_ID:
        raise ValueError(f"observation is for game {data['game']!r}, not {GAME_ID!r}")
    return LorumObservation(**{key: from_json(value) for key, value in data.items()})
