"""Lovat for learners: a fixed-size encoding of one seat's ``LovatObservation`` and a fixed action space.

Built from the observation alone (L-9), so it cannot show another seat's cards,
keep or face-down discards.  Seats are relative to the observer: relative seat
``r`` is ``(seat + r) % players``.

**Action space** (89 indices for every player count):

| index | action |
|---|---|
| ``0..79`` | the card ``CARD_IDS[i]``: play it, discard it on a void turn, or add it to the keep |
| ``80..84`` | name a colour, in ``COLOURS`` order |
| ``85``, ``86`` | declare ``pass``, ``play`` |
| ``87`` | ``counter``: discard a counter on a void turn |
| ``88`` | ``keep``: finish the keep with the cards added so far |

**The keep card by card** (L-5).  A keep is chosen in steps: add dealt cards in
ascending ``CARD_IDS`` order (the order of a sorted keep), then ``keep``.  A card
is open only if the keep can still be completed with it (some choice of the
remaining, higher dealt cards reaches the level sum within the size limits);
``keep`` is open only when the cards added so far are a legal keep.  So every
sequence of open steps ends in a legal keep, and every legal keep is reached by
exactly one sequence: the steps enumerate the engine's legal keeps.

**Observation** (``size(players)`` = 506 + 9 x players ``float32`` values in [-1, 1]; ``layout(players)``):

| block | size | meaning |
|---|---|---|
| ``phase`` | 6 | keep, colour, declare, play, void, over |
| ``hand`` | 80 | own cards in hand |
| ``dealt`` | 80 | own dealt cards |
| ``keeping`` | 80 | own keep: the cards added so far in the keep steps, or the keep once made |
| ``seen`` | 80 | every card shown face up so far (this turn's plays included) |
| ``table`` | 80 | this turn's plays |
| ``strength`` | 80 | own cards in hand: strength in this turn's colour / 50 (0 before a colour) |
| ``colour`` | 5 | this turn's colour |
| ``die`` | 6 | this turn's die face (5 colours, blank) |
| ``scalars`` | 9 | the nine values listed below |
| ``seats`` | 9 x players | nine fields, each over the relative seats 0..players-1, listed below |

The ``scalars``: own counters / dealt; turn / turns; round / rounds; die round;
keep level so far / level sum; keep size so far / most cards; best strength on
the table / 50; own point cards / turns; own level of point cards / (3 x turns).

The ``seats`` fields: hand size / dealt, counters / dealt, point cards / turns,
passed this turn, declared play this turn, showing the best card this turn,
active, first player, dealer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

import numpy as np

from arena.env.encoding import Encoding, LegalMasks
from arena.games.base import Action, Observation
from arena.games.lovat.deck import CARD_IDS, COLOUR_INDEX, COLOURS, LEVEL, STRENGTH
from arena.games.lovat.observation import LovatObservation
from arena.games.lovat.rules import BLANK, COUNTER, FACES, KEEP, PASS, PHASES, PLAY_DECISION, VARIANTS

DONE = "keep"
"""Label of the step that finishes a keep."""

ACTIONS: tuple[str, ...] = CARD_IDS + COLOURS + (PASS, PLAY_DECISION, COUNTER, DONE)
"""Label of every action index."""

ACTION_INDEX: dict[str, int] = {label: index for index, label in enumerate(ACTIONS)}
"""Engine action (or ``keep``) -> action index."""

CARDS = len(CARD_IDS)
DONE_INDEX = ACTION_INDEX[DONE]
_LEGAL_MASKS = LegalMasks(ACTION_INDEX, len(ACTIONS))
MAX_STRENGTH = 50.0
"""The strongest strength in any colour (``deck.csv``): strengths are divided by it."""

LEVELS: tuple[int, ...] = tuple(LEVEL[card] for card in CARD_IDS)
"""Card index -> level."""

SCALARS = 9
SEAT_FIELDS = 9
_FIXED = (
    ("phase", len(PHASES)), ("hand", CARDS), ("dealt", CARDS), ("keeping", CARDS), ("seen", CARDS),
    ("table", CARDS), ("strength", CARDS), ("colour", len(COLOURS)), ("die", len(FACES)), ("scalars", SCALARS),
)


@cache
def layout(players: int) -> dict[str, tuple[int, int]]:
    """Block name -> (offset, size) in the observation vector for ``players`` seats."""
    blocks, offset = {}, 0
    for name, size in (*_FIXED, ("seats", SEAT_FIELDS * players)):
        blocks[name] = (offset, size)
        offset += size
    return blocks


def size(players: int) -> int:
    """Length of the observation vector for ``players`` seats."""
    return sum(block for _offset, block in layout(players).values())


_O = {name: offset for name, (offset, _size) in layout(3).items() if name != "seats"}
_SEATS = _O["scalars"] + SCALARS
_PHASE = {phase: i for i, phase in enumerate(PHASES)}
_CARD = {card: i for i, card in enumerate(CARD_IDS)}
_AT_HAND, _AT_KEEPING = _O["hand"], _O["keeping"]
_AT_DEALT, _AT_SEEN, _AT_TABLE = (
    {card: _O[block] + i for card, i in _CARD.items()} for block in ("dealt", "seen", "table")
)
"""Card id -> its position in the block: one dict look-up per card."""
_NO_POSITIONS = np.zeros(0, dtype=np.intp)
_STRENGTHS = np.array([[STRENGTH[card][colour] for card in CARD_IDS] for colour in range(len(COLOURS))],
                      dtype=np.float32)
"""Colour index -> every card's strength in it (card index order)."""
_AT_SCALARS = range(_O["scalars"], _O["scalars"] + SCALARS)


def keep_extends(chosen: tuple[int, ...], dealt: Sequence[int], observation: LovatObservation) -> list[int]:
    """The dealt card indices (``dealt`` ascending) that may follow ``chosen`` with a legal keep still reachable."""
    level = sum(LEVELS[card] for card in chosen)
    count = len(chosen)
    last = chosen[-1] if chosen else -1
    low, high = observation.min_size, observation.max_size
    left = observation.level_sum - level
    n1 = n2 = n3 = 0  # cards per level above the candidate: one pass from the highest card down
    open_cards = []
    for card in reversed(dealt):
        if card <= last:
            break
        card_level = LEVELS[card]
        if _completable(left - card_level, count + 1, n1, n2, n3, low, high):
            open_cards.append(card)
        if card_level == 1:
            n1 += 1
        elif card_level == 2:
            n2 += 1
        else:
            n3 += 1
    open_cards.reverse()
    return open_cards


@cache
def _completable(needed: int, count: int, n1: int, n2: int, n3: int, low: int, high: int) -> bool:
    """Whether some a1, a2, a3 (at most n1, n2, n3) reach level ``needed`` with ``count`` + a1 + a2 + a3 cards in
    ``low``..``high``.  Cached: the arguments are small integers, so a game's keeps ask the same few questions."""
    if needed < 0:
        return False
    for a3 in range(min(n3, needed // 3) + 1):
        for a2 in range(min(n2, (needed - 3 * a3) // 2) + 1):
            a1 = needed - 3 * a3 - 2 * a2
            if a1 <= n1 and low <= count + a1 + a2 + a3 <= high:
                return True
    return False


def keep_done(chosen: tuple[int, ...], observation: LovatObservation) -> bool:
    """Whether the cards ``chosen`` are a legal keep (L-5)."""
    return (sum(LEVELS[card] for card in chosen) == observation.level_sum
            and observation.min_size <= len(chosen) <= observation.max_size)


class LovatEncoding(Encoding):
    """The Lovat encoding for one player count (see the module docstring)."""

    actions = ACTIONS

    def __init__(self, players: int) -> None:
        self.players = players
        self.observation_size = size(players)
        variant = VARIANTS[players]
        # Values are written raw (counts, strengths) and scaled by one multiplication at the end.
        scale = np.ones(self.observation_size, dtype=np.float32)
        scale[_O["strength"]:_O["strength"] + CARDS] = 1 / MAX_STRENGTH
        scale[_AT_SCALARS] = (
            1 / variant.dealt, 1 / variant.turns, 1 / variant.rounds, 1, 1 / variant.level_sum, 1 / variant.max_keep,
            1 / MAX_STRENGTH, 1 / variant.turns, 1 / (3 * variant.turns),
        )
        for field, divisor in enumerate((variant.dealt, variant.dealt, variant.turns)):
            scale[_SEATS + field * players:_SEATS + (field + 1) * players] = 1 / divisor
        self._scale = scale
        self._relative = [[(seat - me) % players for seat in range(players)] for me in range(players)]
        # The "seen" positions of a game's completed turns, up to its last turn record (records are immutable
        # tuples shared by every observation of a game, so the same last record means the same history).
        self._seen: tuple[Any, np.ndarray] = (None, _NO_POSITIONS)
        self._dealt: dict[int, tuple[Any, np.ndarray]] = {}  # per seat: its dealt cards' positions
        self._keep_base: tuple[Any, np.ndarray] = (None, np.zeros(0, dtype=np.float32))

    def encode(self, observation: Observation, steps: tuple[int, ...] = ()) -> np.ndarray:
        """The observer's information set, with its keep steps so far, as a vector."""
        obs: LovatObservation = observation  # type: ignore[assignment]
        if not steps or obs.keep is not None:
            return self._encode(obs, ())
        # A keep step: the same observation as the previous step with one more card, so only the keep's blocks
        # change.  The vector without steps is kept (with the observation itself, compared by identity).
        cached, base = self._keep_base
        if cached is not obs:
            base = self._encode(obs, ())
            self._keep_base = (obs, base)
        vector = base.copy()
        keeping = [i for i in steps if i < CARDS]
        vector[[_AT_KEEPING + i for i in keeping]] = 1.0
        vector[_AT_SCALARS.start + 4] = sum(LEVELS[i] for i in keeping) / obs.level_sum
        vector[_AT_SCALARS.start + 5] = len(keeping) / obs.max_size
        return vector

    def _encode(self, obs: LovatObservation, steps: tuple[int, ...]) -> np.ndarray:
        """``encode`` from scratch."""
        me, players = obs.seat, obs.players
        card = _CARD
        vector = np.zeros(self.observation_size, dtype=np.float32)
        hand = [card[c] for c in obs.hand]
        keeping = [card[c] for c in obs.keep] if obs.keep is not None else [i for i in steps if i < CARDS]
        ones = [
            _PHASE[obs.phase],
            *[_AT_HAND + i for i in hand],
            *[_AT_KEEPING + i for i in keeping],
            *[_AT_SEEN[c] for _seat, c in obs.plays],
            *[_AT_TABLE[c] for _seat, c in obs.plays],
        ]
        best, best_seat = 0, None
        colour = None if obs.colour is None else COLOUR_INDEX[obs.colour]
        if colour is not None:
            ones.append(_O["colour"] + colour)
            for seat, c in obs.plays:
                if STRENGTH[c][colour] > best:
                    best, best_seat = STRENGTH[c][colour], seat
        if obs.die is not None:
            ones.append(_O["die"] + (len(COLOURS) if obs.die == BLANK else COLOUR_INDEX[obs.die]))
        own_points = obs.point_cards[me]
        sizes, counters = obs.hand_sizes, obs.counter_counts
        points = [len(cards) for cards in obs.point_cards]
        # The scalars, then each per-seat value field over the relative seats 0..players-1 (rotated tuples).
        vector[_AT_SCALARS.start:_SEATS + 3 * players] = (
            obs.counters, obs.turn, obs.round, obs.die_round, sum(LEVELS[i] for i in keeping), len(keeping), best,
            len(own_points), sum(LEVEL[c] for c in own_points),
            *sizes[me:], *sizes[:me], *counters[me:], *counters[:me], *points[me:], *points[:me],
        )
        relative = self._relative[me]
        flags = _SEATS + 3 * players
        ones.extend([flags + relative[seat] for seat, passed in enumerate(obs.passes) if passed])
        ones.extend([flags + players + relative[seat] for seat, decision in obs.declarations
                     if decision == PLAY_DECISION])
        for field, seat in ((5, best_seat), (6, obs.active), (7, obs.first_player), (8, obs.dealer)):
            if seat is not None:
                ones.append(_SEATS + field * players + relative[seat])
        vector[ones] = 1.0
        if colour is not None:
            # Own cards' strengths: the hand block (0/1, written just above) times the colour's strengths.
            np.multiply(vector[_AT_HAND:_AT_HAND + CARDS], _STRENGTHS[colour],
                        out=vector[_O["strength"]:_O["strength"] + CARDS])
        # The long, slowly changing position lists are kept as index arrays (a list costs ~30 ns per index).
        vector[self._seen_before(obs.history)] = 1.0
        vector[self._dealt_positions(me, obs.dealt)] = 1.0
        vector *= self._scale
        return vector

    def _seen_before(self, history: tuple[Any, ...]) -> np.ndarray:
        """The "seen" positions of the cards played in ``history`` (computed once per new turn record)."""
        if not history:
            return _NO_POSITIONS
        last, positions = self._seen
        if history[-1] is not last:
            positions = np.array([_AT_SEEN[c] for record in history for _seat, c in record[6]], dtype=np.intp)
            self._seen = (history[-1], positions)
        return positions

    def _dealt_positions(self, seat: int, dealt: tuple[str, ...]) -> np.ndarray:
        """The "dealt" positions of a seat's dealt cards (computed once per deal: ``dealt`` is the same tuple)."""
        last, positions = self._dealt.get(seat, (None, _NO_POSITIONS))
        if dealt is not last:
            positions = np.array([_AT_DEALT[c] for c in dealt], dtype=np.intp)
            self._dealt[seat] = (dealt, positions)
        return positions

    def mask(self, observation: Observation, steps: tuple[int, ...] = ()) -> np.ndarray:
        """The open steps: ``legal`` outside the keep; in the keep, the cards and ``keep`` open after ``steps``."""
        obs: LovatObservation = observation  # type: ignore[assignment]
        mask = np.zeros(len(ACTIONS), dtype=np.int8)
        if obs.phase == KEEP:
            if obs.keep is None and (not steps or steps[-1] != DONE_INDEX):
                mask[keep_extends(steps, [_CARD[c] for c in obs.dealt], obs)] = 1  # dealt is sorted
                mask[DONE_INDEX] = keep_done(steps, obs)
        elif obs.legal and not steps:
            return _LEGAL_MASKS(obs.legal)  # no keep here
        return mask

    def decode(self, observation: Observation, steps: tuple[int, ...]) -> Action | None:
        """The keep once ``keep`` is taken (``None`` before); otherwise the single step's action."""
        if observation.phase == KEEP:
            if steps[-1] != DONE_INDEX:
                return None
            return tuple(CARD_IDS[i] for i in steps[:-1])
        if len(steps) != 1:
            raise ValueError(f"a Lovat {observation.phase} decision is one step, not {len(steps)}")
        return ACTIONS[steps[0]]

    def steps_of(self, observation: Observation, action: Action) -> tuple[int, ...]:
        """A keep's card indices in ascending order then ``keep``; any other action's single index."""
        try:
            if isinstance(action, tuple):
                return (*sorted(_CARD[c] for c in action), DONE_INDEX)
            if action == DONE:
                raise KeyError(action)
            return (ACTION_INDEX[action],)
        except (KeyError, TypeError):
            raise ValueError(f"{action!r} is not a Lovat action") from None


def encoding(options: Mapping[str, Any]) -> LovatEncoding:
    """The encoding for resolved ``options`` (one per player count, made once)."""
    return _for_players(options["players"])


@cache
def _for_players(players: int) -> LovatEncoding:
    return LovatEncoding(players)
