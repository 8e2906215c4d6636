"""Exact, uniform sampling of hidden hands consistent with a Lorum observation (for search agents).

What an observation reveals about the hands it cannot see (S-18):

* sizes: every seat started the deal with 8 cards (S-3) and its played cards are public;
* voids: a seat that did not follow the led suit held no card of it then (S-6), so holds none now;
* must-beat (small game only, S-8): a follower who played a led-suit card not above the highest
  led-suit card already in the trick held no higher card of that suit then, so holds none now.

Nothing else constrains the deal (bids are free choices, not rule-bound), so every
assignment of the unseen cards that respects these constraints is equally likely.
Each unseen card has a set of seats it may belong to; cards are grouped by that
set, every way of splitting each group's *numbers* among its seats that meets the
hand sizes is weighted by the product of multinomial coefficients (the number of
concrete deals it stands for), one split is drawn with that weight and the cards
of each group are then dealt uniformly.

RNG consumption of ``sample_state`` (fixed, S-19 spirit): one ``rng.randrange``
for the split, one ``rng.shuffle`` per group (groups in a fixed order), then one
``rng.getrandbits(64)`` seeding the fresh ``Chance`` of the returned state, from
which any later deals are drawn.
"""

from __future__ import annotations

import random
from functools import lru_cache
from math import factorial

from arena.games.base import Chance, GameError, IllegalAction
from arena.games.lorum.cards import (
    ABOVE_MASKS,
    CARDS_PER_HAND,
    FULL_DECK_MASK,
    INDEX,
    SUIT_MASKS,
    indices_of,
    mask_of,
    names_of,
)
from arena.games.lorum.observation import LorumObservation
from arena.games.lorum.rules import OVER, PLAYERS, SMALL
from arena.games.lorum.state import LorumState

Group = tuple[tuple[int, ...], int]
"""Unseen cards sharing one set of possible holders: ``(allowed seats, number of cards)``."""


def excluded_cards(observation: LorumObservation) -> list[int]:
    """Per seat, the mask of cards it cannot hold now, from voids (S-6) and must-beat (S-8)."""
    excluded = [0] * PLAYERS
    small = observation.contract == SMALL
    all_tricks = [plays for plays, _winner in observation.tricks]
    if observation.trick:
        all_tricks.append(observation.trick)
    for plays in all_tricks:
        led = INDEX[plays[0][1]]
        suit = led >> 3
        best = led
        for seat, name in plays[1:]:
            card = INDEX[name]
            if card >> 3 != suit:
                excluded[seat] |= SUIT_MASKS[suit]  # S-6: void in the led suit
            else:
                if small and card > best:  # a larger index is a lower card
                    excluded[seat] |= ABOVE_MASKS[best]  # S-8: could not beat, so held nothing above
                if card < best:
                    best = card
    return excluded


@lru_cache(maxsize=4096)
def _splits(
    groups: tuple[Group, ...], sizes: tuple[int, ...]
) -> tuple[tuple[tuple[tuple[int, ...], ...], ...], tuple[int, ...]]:
    """Every split of the groups' numbers among their seats meeting ``sizes`` and its cumulative weight.

    ``sizes`` is indexed by seat (the observer's entry is 0).  A split gives, per
    group, the number of its cards each of its allowed seats gets (in the order
    of the allowed seats).  The last group's numbers are forced by what is left.
    """
    splits: list[tuple[tuple[int, ...], ...]] = []
    cumulative: list[int] = []
    total = 0
    left = list(sizes)
    chosen: list[tuple[int, ...]] = []

    def compositions(n: int, seats: tuple[int, ...]):
        if len(seats) == 1:
            if n <= left[seats[0]]:
                yield (n,)
            return
        first, rest = seats[0], seats[1:]
        room = sum(left[s] for s in rest)
        for take in range(min(n, left[first]), -1, -1):
            if n - take > room:
                break
            for tail in compositions(n - take, rest):
                yield (take, *tail)

    def walk(index: int, weight: int) -> None:
        nonlocal total
        if index == len(groups) - 1:
            seats, n = groups[index]
            # The last group must fill exactly what is left.
            if sum(left) != n or any(left[s] for s in range(PLAYERS) if s not in seats):
                return
            numbers = tuple(left[s] for s in seats)
            w = weight * factorial(n)
            for x in numbers:
                w //= factorial(x)
            chosen.append(numbers)
            splits.append(tuple(chosen))
            chosen.pop()
            total += w
            cumulative.append(total)
            return
        seats, n = groups[index]
        for numbers in compositions(n, seats):
            w = factorial(n)
            for x in numbers:
                w //= factorial(x)
            for s, x in zip(seats, numbers):
                left[s] -= x
            chosen.append(numbers)
            walk(index + 1, weight * w)
            chosen.pop()
            for s, x in zip(seats, numbers):
                left[s] += x

    if groups:
        walk(0, 1)
    elif not any(sizes):
        splits.append(())
        total = 1
        cumulative.append(1)
    return tuple(splits), tuple(cumulative)


def _groups(
    observation: LorumObservation,
) -> tuple[dict[tuple[int, ...], list[int]], list[tuple[int, ...]], tuple[Group, ...], tuple[int, ...]]:
    """Group the unseen cards by the seats that may hold them; also return the hidden hand sizes."""
    me = observation.seat
    own = mask_of(observation.hand)
    played = mask_of(observation.played)
    unseen = FULL_DECK_MASK & ~own & ~played
    sizes = tuple(0 if seat == me else observation.hand_sizes[seat] for seat in range(PLAYERS))
    if unseen.bit_count() != sum(sizes):
        raise GameError(f"inconsistent observation: {unseen.bit_count()} unseen cards for hands of sizes {sizes}")
    excluded = excluded_cards(observation)
    by_allowed: dict[tuple[int, ...], list[int]] = {}
    for card in indices_of(unseen):
        allowed = tuple(s for s in range(PLAYERS) if s != me and not excluded[s] >> card & 1)
        if not allowed:
            raise GameError(f"inconsistent observation: no seat can hold {names_of(1 << card)[0]}")
        by_allowed.setdefault(allowed, []).append(card)
    # Fixed order: fewest seats first, so the widest group (forced last) saves the most enumeration.
    keys = sorted(by_allowed, key=lambda seats: (len(seats), seats))
    groups = tuple((seats, len(by_allowed[seats])) for seats in keys)
    return by_allowed, keys, groups, sizes


def split_weights(observation: LorumObservation) -> list[tuple[tuple[Group, ...], tuple[tuple[int, ...], ...], int]]:
    """Each admissible split with the number of concrete deals it stands for (for tests and curious agents).

    Returns ``(groups, split, weight)`` triples; ``split[i]`` gives the numbers of
    ``groups[i]``'s cards going to each of its allowed seats.
    """
    _by_allowed, _keys, groups, sizes = _groups(observation)
    splits, cumulative = _splits(groups, sizes)
    weights = [b - a for a, b in zip((0, *cumulative), cumulative)]
    return [(groups, split, weight) for split, weight in zip(splits, weights)]


class HiddenHands:
    """The uniform sampler of the hands consistent with one observation, prepared once for many draws.

    The unseen cards' groups by the seats that may hold them and the admissible splits depend on the
    observation alone; a search drawing many worlds for one decision works them out once here.
    ``GameError`` (one line) for an observation no deal fits.
    """

    def __init__(self, observation: LorumObservation) -> None:
        self.by_allowed, self.keys, self.groups, sizes = _groups(observation)
        self.splits, self.cumulative = _splits(self.groups, sizes)
        if not self.splits:
            raise GameError("inconsistent observation: no deal of the unseen cards fits the public constraints")
        self.seat = observation.seat
        self.hand = mask_of(observation.hand)

    def draw(self, rng: random.Random) -> list[int]:
        """Uniformly sample the current hands (masks, by seat)."""
        cumulative = self.cumulative
        draw = rng.randrange(cumulative[-1])
        low, high = 0, len(cumulative) - 1
        while low < high:  # the first split whose cumulative weight exceeds the draw
            mid = (low + high) // 2
            if cumulative[mid] > draw:
                high = mid
            else:
                low = mid + 1
        split = self.splits[low]
        hands = [0] * PLAYERS
        hands[self.seat] = self.hand
        for (seats, _n), numbers, key in zip(self.groups, split, self.keys):
            cards = list(self.by_allowed[key])
            rng.shuffle(cards)
            position = 0
            for seat, x in zip(seats, numbers):
                for card in cards[position : position + x]:
                    hands[seat] |= 1 << card
                position += x
        return hands


def sample_hidden_hands(observation: LorumObservation, rng: random.Random) -> list[int]:
    """Uniformly sample the current hands (masks, by seat) consistent with ``observation``."""
    return HiddenHands(observation).draw(rng)


def sample_state(observation: LorumObservation, rng: random.Random) -> LorumState:
    """A complete state consistent with ``observation``, uniform over the hidden deals that fit.

    The current deal is rebuilt from the sampled hands plus the public plays and
    replayed action by action from the settled state of earlier deals, so the
    result is exactly a state the engine could have reached.  Its chance log
    holds only the sampled current deal (earlier deals are not reconstructed)
    and its events start at the current deal; later deals are drawn from a
    fresh ``Chance`` seeded from ``rng``.
    """
    if not isinstance(observation, LorumObservation):
        raise TypeError(f"expected a LorumObservation, not {type(observation).__name__}")
    hands = sample_hidden_hands(observation, rng)
    # Rebuild each seat's hand at the start of the deal: what it holds plus what it played.
    dealt = list(hands)
    for name_seat in (play for plays, _winner in observation.tricks for play in plays):
        dealt[name_seat[0]] |= 1 << INDEX[name_seat[1]]
    for seat, name in observation.trick:
        dealt[seat] |= 1 << INDEX[name]
    if any(mask.bit_count() != CARDS_PER_HAND for mask in dealt):
        raise GameError("inconsistent observation: rebuilt hands do not hold 8 cards each")
    # The settled state before this deal (once the game is over, the last deal is undone first).
    balances = list(observation.balances)
    pot = observation.pot
    past = observation.past_deals
    if observation.phase == OVER:
        *earlier, last = past
        past = tuple(earlier)
        balances = [b - d for b, d in zip(balances, last[5])]
        pot = last[6]
    chance = Chance(rng.getrandbits(64))
    state = LorumState.blank(
        chance,
        deals=observation.deals,
        deal=observation.deal,
        dealer=observation.dealer,
        balances=balances,
        pot=pot,
        past_deals=past,
    )
    chance.record("deal", [list(names_of(mask)) for mask in dealt])
    state.start_deal(dealt)
    try:
        for seat, call in observation.bids:
            state.apply(seat, call)
        for plays, _winner in observation.tricks:
            for seat, name in plays:
                state.apply(seat, name)
        for seat, name in observation.trick:
            state.apply(seat, name)
    except IllegalAction as error:
        raise GameError(f"inconsistent observation: its public plays cannot be replayed ({error})") from error
    return state
