"""What the Lorum search believes about the hidden hands: how well a sampled deal explains the others' play.

The sampler (``arena.games.lorum.sampler``) already keeps to the public facts (voids,
must-beat); ``WorldChain`` draws deals in proportion to how well they explain the others'
play under an opponent model, rules with mistakes (``History`` computes that seat by seat,
from one replay of the public record per move; ``history_likelihood``, the weight under
the rollout policy alone, is the tests' plain reference for it).
The model gives each other seat a style (``lorum_sim.Style``): for each kind of decision one
of several families of rules (``lorum_sim.FAMILIES``).  The chain draws each seat's style
along with the hands, from a prior the agent learns over the game
(``lorum_styles.StyleMemory``) times how well each family explains the seat's decisions of
its kind.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from arena.games.lorum.cards import INDEX, indices_of
from arena.games.lorum.observation import LorumObservation
from arena.games.lorum.sampler import HiddenHands, excluded_cards
from arena.games.lorum.state import PLAYERS
from arena_agents.search.lorum_sim import (
    CALL,
    CALL_RULES,
    CARD_RULES,
    FAMILIES,
    KINDS,
    ROLLOUT_STYLE,
    PlayoutDeal,
    Style,
    card_kind,
)

StylePrior = Sequence[Sequence[Sequence[float]]]
"""Per seat, per kind of decision (``KINDS``): the prior weight of each family (index as in ``FAMILIES``; the
searching seat's is not read)."""

ROLLOUT_ONLY: StylePrior = [[(1.0,) + (0.0,) * (len(FAMILIES) - 1)] * len(KINDS)] * PLAYERS
"""Every seat plays the rollout policy: the prior when nothing else is known."""

Departures = tuple[int, ...]
"""Per kind of decision: how many of a seat's decisions of that kind a family would have made otherwise."""

MODEL_EPSILON = 0.01
"""Relative likelihood of a call or card the rollout policy would not have chosen (1 when it would).  With
``WorldChain`` on the same 100 seeds, 0.01 gained +0.090 ranks over the agent before the chain and 0.05 +0.030;
0.001 (with 40 steps of burn-in) scored −0.010 against 0.01 (docs/agents/search-lorum.md)."""

CHAIN_STEPS = 4
"""``WorldChain`` steps between two worlds it returns."""

BURN_IN = 12
"""``WorldChain`` steps from its first uniform draw before the first world it returns."""

FRESH_DRAWS = 4
"""One ``WorldChain`` step in this many proposes a new uniform draw rather than a swap (so the chain can leave a
group of worlds that no single swap connects to the rest)."""

MAX_WORLDS = 60
"""At most this many worlds per move, whatever the budget: with two or three candidates sampling and
weighing a world costs more than its playouts, and more worlds add time but, measured, no strength."""


def history_likelihood(observation: LorumObservation, hands: list[int], epsilon: float = MODEL_EPSILON) -> float:
    """How well a world with ``hands`` explains the other seats' calls and cards this deal.

    Every decision of another seat with a choice counts 1 when the rollout policy,
    in that seat's place, would have made it and ``epsilon`` when not.  So worlds
    in which the others' play looks sensible weigh more, yet none is ruled out.
    """
    record = History(observation)
    return record.weight(sum(sum(record.departures(seat, hands[seat])) for seat in record.others), epsilon)


class History:
    """The public record of the deal so far, replayed once, to weigh many worlds against it.

    The rollout policy decides from the deciding seat's own hand and public facts only, so
    a world's likelihood is a product over the other seats, each factor a function of that
    seat's hand alone: ``departures(seat, hand, family)`` counts, by kind, the seat's decisions
    with a choice that the family's rules would have made differently had it held ``hand`` (plus
    the cards it has played since).  A chain step that swaps a card between two seats re-weighs
    those two (every family of each).
    """

    def __init__(self, observation: LorumObservation) -> None:
        me = observation.seat
        self.others = [seat for seat in range(PLAYERS) if seat != me]
        plays = deal_plays(observation)
        later = [0] * PLAYERS  # per seat: the cards it plays from the current decision on (all, to start with)
        for seat, name in plays:
            later[seat] |= 1 << INDEX[name]
        # Per seat: (position, hand played from that position on, the decision) for every call and card.
        self.calls: list[list[tuple[PlayoutDeal, int, str]]] = [[] for _ in range(PLAYERS)]
        self.cards: list[list[tuple[PlayoutDeal, int, int, int]]] = [[] for _ in range(PLAYERS)]  # ..., kind
        self.known: dict[tuple[int, int], tuple[Departures, ...]] = {}  # (seat, hand): every family's; a chain revisits
        deal = PlayoutDeal.start(observation.dealer, [0] * PLAYERS, observation.pot)
        for seat, call in observation.bids:
            if seat != me:
                self.calls[seat].append((deal.copy(), later[seat], call))
            deal.bid(seat, call)
        for seat, name in plays:
            card = INDEX[name]
            if seat != me:
                self.cards[seat].append((deal.copy(), later[seat], card, card_kind(deal, card)))
            later[seat] ^= 1 << card
            deal.hands[seat] |= 1 << card  # so that ``play`` can take it out again
            deal.play(card)
            deal.hands[seat] = 0

    def departures(self, seat: int, hand: int, family: int = 0) -> Departures:
        """Per kind of decision: how many of ``seat``'s decisions with a choice ``family`` (default the rollout
        policy) would not have made holding ``hand``."""
        return self.all_departures(seat, hand)[family]

    def all_departures(self, seat: int, hand: int) -> tuple[Departures, ...]:
        """``departures`` of every family, from one replay of the seat's decisions holding ``hand``."""
        known = self.known.get((seat, hand))
        if known is not None:
            return known
        counts = [[0] * len(KINDS) for _ in FAMILIES]
        for deal, played, call in self.calls[seat]:
            deal.hands[seat] = hand | played
            for family, call_rule in enumerate(CALL_RULES):
                if call_rule(deal, seat) != call:
                    counts[family][CALL] += 1
        for deal, played, card, kind in self.cards[seat]:
            deal.hands[seat] = hand | played
            legal = deal.legal()
            if not legal & (legal - 1):
                continue
            for family, card_rule in enumerate(CARD_RULES):
                if card_rule(deal) != card:
                    counts[family][kind] += 1
        self.known[seat, hand] = found = tuple(map(tuple, counts))
        return found

    @staticmethod
    def weight(departures: int, epsilon: float) -> float:
        """The likelihood of a world with this many departures: ``epsilon`` to that power."""
        weight = 1.0
        for _ in range(departures):
            weight *= epsilon  # multiplied out, not ``**``: the same float whatever the order of the factors
        return weight


def deal_plays(observation: LorumObservation) -> list[tuple[int, str]]:
    """Every ``(seat, card)`` played this deal, in order."""
    plays = [play for trick, _winner in observation.tricks for play in trick]
    plays.extend(observation.trick)
    return plays


class WorldChain:
    """A Metropolis chain over the hidden deals, drawn in proportion to how well they explain the others' play.

    The sampler's uniform draw over the deals that fit the public facts is the prior of
    the hands; ``prior`` (per seat and kind of decision, a weight for each family; default:
    every seat the rollout policy) that of the styles.  A seat's hand weighs, for each kind,
    the sum over the families of the family's prior times ``epsilon`` to the number of the
    seat's decisions of that kind the family would not have made (``History.departures``);
    the seat's weight is the product over the kinds, and a world's the product over the
    other seats: the styles are summed out, so the chain moves over hands alone.  A step proposes
    either swapping one card between two other seats' hands (allowed only when each
    card may be held by its new seat) or, one time in ``FRESH_DRAWS``, a new uniform
    draw; both proposals are symmetric under the uniform prior, so a move is accepted
    with probability ``min(1, new weight / old weight)``.  The worlds it returns are
    ``CHAIN_STEPS`` steps apart, after ``BURN_IN`` steps from its first draw; each comes
    with styles drawn for its hands (``styles``: a seat's family for each kind in proportion
    to its prior times how well it explains the seat's decisions of that kind with that hand).
    """

    def __init__(
        self,
        observation: LorumObservation,
        rng: random.Random,
        epsilon: float = MODEL_EPSILON,
        prior: StylePrior = ROLLOUT_ONLY,
    ) -> None:
        self.epsilon = epsilon
        self.prior = prior
        self.excluded = excluded_cards(observation)
        self.history = History(observation)
        self.others = self.history.others
        self.me = observation.seat
        self.uniform = HiddenHands(observation)  # the prior, prepared once for the chain's fresh draws
        self.hands = self.uniform.draw(rng)
        self.styles: list[Style] = [ROLLOUT_STYLE] * PLAYERS  # the styles of the world ``draw`` returned last
        self.split = self.seat_splits(self.hands)  # per seat, ``family_weights`` of its current hand
        self.likelihood = math.prod(map(seat_weight, self.split))
        for _ in range(BURN_IN):
            self.step(rng)

    def family_weights(self, seat: int, hand: int) -> list[list[float]]:
        """Per kind, each family's prior times its likelihood of ``seat``'s decisions of that kind holding
        ``hand``."""
        departures = self.history.all_departures(seat, hand)
        return [
            [weight * History.weight(departures[family][kind], self.epsilon) for family, weight in enumerate(weights)]
            for kind, weights in enumerate(self.prior[seat])
        ]

    def seat_split(self, seat: int, hand: int) -> list[list[float]]:
        """``family_weights`` of ``seat`` holding ``hand`` (``[[1.0]]`` for the searching seat, whose play is not
        weighed); ``seat_weight`` of it is how well the hand explains the seat's play, its styles summed out."""
        return [[1.0]] if seat == self.me else self.family_weights(seat, hand)

    def seat_splits(self, hands: list[int]) -> list[list[list[float]]]:
        """``seat_split`` of every seat's hand."""
        return [self.seat_split(seat, hand) for seat, hand in enumerate(hands)]

    def step(self, rng: random.Random) -> None:
        """One proposal, accepted or not."""
        if rng.randrange(FRESH_DRAWS) == 0:
            hands = self.uniform.draw(rng)
            split = self.seat_splits(hands)
        else:
            a, b = rng.sample(self.others, 2)
            if not self.hands[a] or not self.hands[b]:
                return
            x = rng.choice(indices_of(self.hands[a]))
            y = rng.choice(indices_of(self.hands[b]))
            if self.excluded[b] >> x & 1 or self.excluded[a] >> y & 1:
                return
            hands = self.hands[:]
            hands[a] ^= 1 << x | 1 << y
            hands[b] ^= 1 << x | 1 << y
            split = self.split[:]
            split[a] = self.seat_split(a, hands[a])
            split[b] = self.seat_split(b, hands[b])
        likelihood = math.prod(map(seat_weight, split))
        if likelihood >= self.likelihood or rng.random() * self.likelihood < likelihood:
            self.hands, self.likelihood, self.split = hands, likelihood, split

    def draw(self, rng: random.Random) -> list[int]:
        """The chain's next world's hands (``CHAIN_STEPS`` steps on; its styles are then in ``styles``)."""
        for _ in range(CHAIN_STEPS):
            self.step(rng)
        self.styles = draw_styles(self.split, self.me, rng)
        return self.hands[:]


def _choose(weights: Sequence[float], rng: random.Random) -> int:
    """An index drawn in proportion to ``weights``; no draw when at most one is positive (0 when none is)."""
    possible = [index for index, weight in enumerate(weights) if weight > 0]
    if len(possible) < 2:
        return possible[0] if possible else 0
    return rng.choices(range(len(weights)), weights)[0]


def seat_weight(split: Sequence[Sequence[float]]) -> float:
    """A seat's weight from its ``WorldChain.family_weights``: per kind the families summed, the kinds multiplied."""
    return math.prod(map(sum, split))


def draw_styles(prior: StylePrior, me: int, rng: random.Random) -> list[Style]:
    """Every other seat's family for each kind drawn in proportion to its weights in ``prior`` (``me`` on the
    rollout policy)."""
    return [ROLLOUT_STYLE if seat == me else tuple(_choose(weights, rng) for weights in kinds)
            for seat, kinds in enumerate(prior)]
