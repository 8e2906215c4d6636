"""What one seat sees: ``LorumObservation`` and ``build_observation``, the one place hidden cards are removed.

S-18: bids, every card played and who won each trick are public; hands are
private.  An observation holds the observer's own hand, the public history of
the current deal (enough for the sampler to rebuild the whole state from
sampled hidden hands) and the settled outcome of earlier deals.  It never holds
a reference to a state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from arena.games.base import Observation, fast_constructor, from_json
from arena.games.lorum.cards import mask_names
from arena.games.lorum.rules import GAME_ID, PLAYERS

if TYPE_CHECKING:
    from arena.games.lorum.state import LorumState

Play = tuple[int, str]
"""One card played: ``(seat, card name)``."""

Trick = tuple[tuple[Play, ...], int]
"""A completed trick: ``(plays in order, winning seat)``."""

PastDeal = tuple[int, int, str, int | None, str, tuple[int, ...], int, int]
"""A settled deal: ``(deal, dealer, contract, bidder, case, chip change per seat, pot before, pot after)``."""


@dataclass(frozen=True, slots=True)
class LorumObservation(Observation):
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
    hands = state.hands
    # Field order of LorumObservation (checked against the dataclass at import, see fast_constructor).
    return _build(
        GAME_ID,
        seat,
        PLAYERS,
        state.phase,
        state.legal_actions(seat),
        state.to_act,
        state.deal,
        state.deals,
        state.dealer,
        mask_names(hands[seat]),
        # Every hand starts the deal with 8 cards (S-3) and loses one per card played, so a hand's
        # size is the number of cards in its mask.
        tuple(map(int.bit_count, hands)),
        state.bids,
        state.contract,
        state.bidder,
        state.leader,
        state.trick,
        state.tricks,
        state.played,
        tuple(state.points),
        tuple(state.tricks_won),
        tuple(state.balances),
        state.pot,
        state.past_deals,
    )


_build = fast_constructor(LorumObservation)
"""``LorumObservation(*values)``, fields in declaration order, without the frozen ``__init__``'s cost."""


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
