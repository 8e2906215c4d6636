"""Slovak Lorum for learners: a fixed-size encoding of one seat's ``LorumObservation`` and a fixed action space.

Built from the observation alone (S-18: hands are private), so it cannot show
another seat's cards.  Seats are relative to the observer: relative seat ``r``
is ``(seat + r) % 4``, so ``r = 0`` is the observer and ``r = 1`` plays next.

**Action space** (35 indices, every decision is one step): ``0..31`` play the
card ``DECK[i]`` (suits a g h b, ranks A K O U 10 9 8 7); ``32`` pass,
``33`` small, ``34`` big (S-5).

**Observation** (262 ``float32`` values in [-1, 1]; ``LAYOUT`` gives every block's offset):

| block | size | meaning |
|---|---|---|
| ``hand`` | 32 | 1 for each card in the observer's hand |
| ``played`` | 32 | 1 for each card played this deal (the current trick included) |
| ``trick`` | 4 x 32 | the current trick's cards, by relative seat of who played them |
| ``phase`` | 3 | bid, play, over |
| ``contract`` | 4 | none yet, regular, small, big |
| ``bidder`` | 5 | none, then relative seat 0..3 |
| ``bids`` | 4 x 3 | per relative seat, its call this deal: pass, small, big |
| ``leader`` | 4 | relative seat leading the current trick |
| ``lead_suit`` | 4 | suit of the current trick's first card |
| ``void`` | 4 x 4 | per relative seat and suit: it has failed to follow that suit this deal (public, S-6) |
| ``dealer`` | 4 | relative seat of the dealer |
| ``points`` | 4 | card points taken this deal / 20, the deal's total (S-9) |
| ``tricks_won`` | 4 | tricks taken this deal / 8 |
| ``balances`` | 4 | chips / 100, clipped to [-1, 1] (S-10) |
| ``hand_sizes`` | 4 | cards held / 8 |
| ``pot`` | 1 | chips in the pot / 100, clipped |
| ``deal`` | 1 | current deal / number of deals |
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from arena.env.encoding import Encoding, LegalMasks
from arena.games.base import Action, Observation
from arena.games.lorum.cards import CARDS_PER_HAND, DECK, INDEX, SUITS, TOTAL_POINTS, TRICKS_PER_DEAL
from arena.games.lorum.observation import LorumObservation
from arena.games.lorum.rules import BIG, PASS, PLAYERS, SMALL

CALLS: tuple[str, ...] = (PASS, SMALL, BIG)
"""The bidding calls, in action-index order after the 32 cards."""

ACTIONS: tuple[str, ...] = DECK + CALLS
"""Label of every action index."""

ACTION_INDEX: dict[str, int] = {label: index for index, label in enumerate(ACTIONS)}
"""Engine action -> action index."""

PHASES: tuple[str, ...] = ("bid", "play", "over")
CONTRACTS: tuple[str | None, ...] = (None, "regular", SMALL, BIG)
CARDS_PER_SUIT = len(DECK) // len(SUITS)
CHIP_SCALE = 100.0
"""Balances and the pot are divided by this, then clipped to [-1, 1]."""


def _layout() -> dict[str, tuple[int, int]]:
    sizes = (
        ("hand", 32), ("played", 32), ("trick", 4 * 32), ("phase", 3), ("contract", 4), ("bidder", 5),
        ("bids", 4 * 3), ("leader", 4), ("lead_suit", 4), ("void", 4 * 4), ("dealer", 4),
        # The values (not 0/1 flags) last, in one block: they are written with one slice assignment.
        ("points", 4), ("tricks_won", 4), ("balances", 4), ("hand_sizes", 4), ("pot", 1), ("deal", 1),
    )
    layout, offset = {}, 0
    for name, size in sizes:
        layout[name] = (offset, size)
        offset += size
    return layout


LAYOUT: dict[str, tuple[int, int]] = _layout()
"""Block name -> (offset, size) in the observation vector."""

SIZE = sum(size for _offset, size in LAYOUT.values())
"""Length of the observation vector."""

_O = {name: offset for name, (offset, _size) in LAYOUT.items()}
_PHASE = {phase: _O["phase"] + i for i, phase in enumerate(PHASES)}
_CONTRACT = {contract: _O["contract"] + i for i, contract in enumerate(CONTRACTS)}
_VALUES = _O["points"]
"""Where the value block (points .. deal) starts."""
_HAND_SIZES = _O["hand_sizes"]
"""Where the values that change within a trick (hand sizes, pot, deal) start."""
_ROTATION = [[(me + relative) % 4 for relative in range(4)] for me in range(4)]
"""Per observer: the seat at each relative seat."""


def _rotation(me: int) -> np.ndarray:
    """Position in ``me``'s vector -> position in seat 0's: relative seat ``r`` is seat ``(me + r) % 4``."""
    source = np.arange(SIZE)
    for block, width in (("void", 4), ("points", 1), ("tricks_won", 1), ("balances", 1)):
        start = _O[block]
        for relative in range(4):
            seat = (me + relative) % 4
            source[start + relative * width:start + (relative + 1) * width] = range(
                start + seat * width, start + (seat + 1) * width)
    return source


_ROTATE = [_rotation(me) for me in range(4)]
"""Per observer: the gather that turns seat 0's vector of completed tricks and settled deals into its own."""
_PLAYED_AT = {card: _O["played"] + INDEX[card] for card in DECK}
_TRICK_AT = [[{card: _O["trick"] + (seat - me) % 4 * 32 + INDEX[card] for card in DECK} for seat in range(4)]
             for me in range(4)]
_BID_AT = [[{call: _O["bids"] + (seat - me) % 4 * 3 + i for i, call in enumerate(CALLS)} for seat in range(4)]
           for me in range(4)]
"""Per observer: the position of each card played / call made by each seat."""
_LEGAL_MASKS = LegalMasks(ACTION_INDEX, len(ACTIONS))
_SUIT_OF = tuple(index // CARDS_PER_SUIT for index in range(len(DECK)))  # DECK is suit by suit
"""Card index -> suit index."""


class LorumEncoding(Encoding):
    """The Lorum encoding (see the module docstring); one decision is always one step."""

    players = PLAYERS
    observation_size = SIZE
    actions = ACTIONS

    def __init__(self) -> None:
        # What the deal's completed tricks and the settled deals show (played cards, void flags, points, tricks
        # won, balances) as seen from seat 0: (last trick, last settled deal, vector).  Tricks and settled deals
        # are immutable tuples shared by every observation of a game, so the same last ones (by identity) mean
        # the same ones before them.  Each seat observes once per trick, so the vector is made once per trick
        # for all seats, and a step rotates it to its observer with one gather (``_ROTATE``).
        self._base: tuple[Any, Any, np.ndarray] = (None, None, np.zeros(0, dtype=np.float32))

    def encode(self, observation: Observation, steps: tuple[int, ...] = ()) -> np.ndarray:
        """The observer's information set as a vector (``steps`` play no part: every decision is one step)."""
        obs: LorumObservation = observation  # type: ignore[assignment]
        me = obs.seat
        tricks, trick = obs.tricks, obs.trick
        trick_at, bid_at = _TRICK_AT[me], _BID_AT[me]
        ones = [
            *[INDEX[card] for card in obs.hand],
            *[_PLAYED_AT[card] for _seat, card in trick],
            *[trick_at[seat][card] for seat, card in trick],
            *[bid_at[seat][call] for seat, call in obs.bids],
            *_voids(trick, me),
            _PHASE[obs.phase],
            _CONTRACT[obs.contract],
            _O["bidder"] + (0 if obs.bidder is None else 1 + (obs.bidder - me) % 4),
            _O["dealer"] + (obs.dealer - me) % 4,
        ]
        if obs.leader is not None:
            ones.append(_O["leader"] + (obs.leader - me) % 4)
        if trick:
            ones.append(_O["lead_suit"] + _SUIT_OF[INDEX[trick[0][1]]])
        vector = self._completed(obs)[_ROTATE[me]]
        vector[ones] = 1.0
        # S-3: a hand starts a deal with 8 cards and gives one to each trick.
        left = CARDS_PER_HAND - len(tricks)
        in_trick = [seat for seat, _card in trick]
        vector[_HAND_SIZES:] = (
            *[(left - (seat in in_trick)) / CARDS_PER_HAND for seat in _ROTATION[me]],
            _clip(obs.pot / CHIP_SCALE),
            obs.deal / obs.deals,
        )
        return vector

    def _completed(self, obs: LorumObservation) -> np.ndarray:
        """Seat 0's view of the completed tricks and settled deals (made once per trick, shared by every seat)."""
        tricks, past = obs.tricks, obs.past_deals
        last_trick = tricks[-1] if tricks else None
        last_deal = past[-1] if past else None
        cached_trick, cached_deal, base = self._base
        if cached_trick is last_trick and cached_deal is last_deal and len(base):
            return base
        base = np.zeros(SIZE, dtype=np.float32)
        base[[_PLAYED_AT[card] for plays, _winner in tricks for _seat, card in plays]] = 1.0
        base[[flag for plays, _winner in tricks for flag in _voids(plays, 0)]] = 1.0
        base[_VALUES:_HAND_SIZES] = (
            *[points / TOTAL_POINTS for points in obs.points],
            *[won / TRICKS_PER_DEAL for won in obs.tricks_won],
            *[_clip(balance / CHIP_SCALE) for balance in obs.balances],
        )
        self._base = (last_trick, last_deal, base)
        return base

    def mask(self, observation: Observation, steps: tuple[int, ...] = ()) -> np.ndarray:
        """1 for each legal card or call in ``observation.legal``; all 0 when the seat is not to move."""
        if observation.legal and not steps:
            return _LEGAL_MASKS(observation.legal)
        return np.zeros(len(ACTIONS), dtype=np.int8)

    def decode(self, observation: Observation, steps: tuple[int, ...]) -> Action | None:
        """The card name or call of the single step."""
        if len(steps) != 1:
            raise ValueError(f"a Lorum decision is one step, not {len(steps)}")
        return ACTIONS[steps[0]]

    def steps_of(self, observation: Observation, action: Action) -> tuple[int, ...]:
        """``(index,)`` of the card name or call."""
        try:
            return (ACTION_INDEX[action],)  # type: ignore[index]
        except (KeyError, TypeError):
            raise ValueError(f"{action!r} is not a Lorum action (a card name such as 'Og', or a call)") from None


def _clip(value: float) -> float:
    """``value`` limited to [-1, 1]."""
    return -1.0 if value < -1.0 else 1.0 if value > 1.0 else value


def _voids(plays: tuple[tuple[int, str], ...], me: int) -> list[int]:
    """The void flags a trick reveals: each seat that did not follow the led suit (S-6)."""
    if not plays:
        return []
    led = _SUIT_OF[INDEX[plays[0][1]]]
    return [_O["void"] + (seat - me) % 4 * 4 + led for seat, card in plays[1:] if _SUIT_OF[INDEX[card]] != led]


ENCODING = LorumEncoding()
"""The one Lorum encoding (Lorum is always 4 players; the number of deals changes no size)."""


def encoding(options: Mapping[str, Any]) -> LorumEncoding:
    """The encoding for resolved ``options`` (the same for every number of deals)."""
    return ENCODING
