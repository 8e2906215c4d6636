"""What the Lovat search believes about the hidden hands: facts from the public record, keep rates, sampled worlds.

* ``Evidence``: facts about other seats' hands that their public decisions imply if they
  follow the greedy rule (soft: a seat that does not play greedy's way blurs them);
* ``keep_rates``: how often greedy keeps each card, which tilts the hidden hands towards
  strong cards;
* ``Worlds``: draws playouts of hidden states consistent with an observation, uniform over
  the consistent deals, then moved towards the evidence by Metropolis chains (``_Chain``).
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Mapping, Sequence

from arena.games.lovat.deck import CARD_IDS, COLOUR_INDEX, LEVEL
from arena.games.lovat.observation import LovatObservation
from arena.games.lovat.sampler import hidden_compositions, sample_compositions
from arena.games.lovat.state import BLANK, COUNTER, KEEP, OVER, PASS, VARIANTS, VOID
from arena_agents.lovat import GreedyLovatAgent, best_keep, best_strength
from arena_agents.search.lovat_cards import (
    _BEST,
    _BEST_COLOUR,
    _BY_COLOUR,
    _INDEX,
    _LEAD_KEY,
    _LEVEL,
    _WEAK_KEY,
    _cards_where,
    _mask,
    _turns_after,
)
from arena_agents.search.lovat_sim import Playout

ERROR_PRIOR = (1.0, 30.0)
"""Prior of a seat's rate of decisions against the greedy rule, as (errors, decisions): a mean of 1/30 worth 30
decisions, updated by the facts the cards it shows later confirm or refute (``Evidence``).  Sharper than the
earlier (1, 10): at 3 players the sampled hidden hands then hold 29% of the true cards instead of 27%
(uniform worlds: 8%), see docs/agents/search-lovat.md."""

KEEP_RATE_DEALS = 300
"""Seeded deals from which ``keep_rates`` estimates how often greedy keeps each kind of card."""

KEEP_RATE_SEED = 1789
"""Seed of those deals."""

KEEP_RATE_CLIP = (0.02, 0.98)
"""Bounds of an estimated keep rate (no card is certain to be kept or left)."""

CHAINS = 4
"""Metropolis chains per decision whose states the sampled worlds take in turn (``Worlds``)."""

BURN_IN = 150
"""Swaps a chain makes before its first world."""

LEAN_MOVES = 30
"""Swaps a chain makes between two worlds."""


class Evidence:
    """Facts about other seats' hands that their public decisions imply if they follow the greedy rule.

    Read backwards through the public record (every completed turn and the current one), so
    that for each decision a seat made, its hand then is known to be its hand now plus the
    cards it has shown since (face-down void discards, L-12, are missed: rare, and the
    facts are soft anyway).  Each fact about a seat's *current* hand is one of

    * ``avoid``: the hand holds no card of a mask (a voluntary pass on a colour: no card as
      strong as greedy's declare threshold; a card played: nothing greedy would have
      played instead);
    * ``meet``: the hand holds a card of a mask (a voluntary play declaration: a card at
      least as strong as the threshold, unless a card shown since explains it);
    * ``top``: the hand's strongest card (greedy's order: best strength, then id), if stronger
      than the cards shown since, has its best strength in the colour the seat named.

    Facts explained or contradicted by the cards shown since are dropped (they are the
    same in every world).  Forced decisions (L-11) and passes greedy makes to save cards
    for its own turns tell nothing and give no fact.  A sampled world is weighted by
    ``softness ** violations``, the softness growing with the share of the seat's earlier
    decisions that its shown cards proved non-greedy: an opponent that does not play
    greedy's way blurs the picture instead of making worlds impossible.
    """

    __slots__ = ("avoid", "confirmed", "contradicted", "facts", "meet", "softness", "top", "trust")

    avoid: list[list[int]]  # per seat, masks its hand holds no card of
    meet: list[list[int]]  # per seat, masks its hand holds a card of
    top: list[list[tuple[int, int, bool]]]  # per seat: (strongest key shown since, colour named, shown colour ok)
    facts: int  # number of facts in all
    confirmed: list[int]  # per seat, facts the cards it showed later bore out
    contradicted: list[int]  # per seat, facts the cards it showed later refuted (it did not decide greedy's way)
    softness: list[float]  # per seat, the weight factor per contradicted fact (``error / (1 - error)``)
    trust: list[float]  # per seat, 1 at the prior error rate or below, falling to 0 as the error rate nears 1/2

    def __init__(self, observation: LovatObservation) -> None:
        obs = observation
        players, me = obs.players, obs.seat
        turns, first = obs.turns, obs.first_player
        self.avoid = [[] for _ in range(players)]
        self.meet = [[] for _ in range(players)]
        self.top = [[] for _ in range(players)]
        self.confirmed = [0] * players
        self.contradicted = [0] * players
        hand = list(obs.hand_sizes)
        counters = list(obs.counter_counts)
        shown: list[list[int]] = [[] for _ in range(players)]  # per seat, cards it has played since the point reached
        records = list(obs.history)
        if obs.phase not in (KEEP, OVER):
            active = (first + obs.turn) % players
            records.append(
                (
                    obs.turn, active, obs.phase == VOID, obs.die, obs.colour,
                    obs.declarations, obs.plays, obs.void_discards,
                )
            )
        for record in reversed(records):
            turn, active, void, die, colour_name, declarations, plays, void_discards = record[:8]
            if void:  # L-12: undo the discards and the active player's counter
                for seat, kind in void_discards:
                    if kind == COUNTER:
                        counters[seat] += 1
                    else:
                        hand[seat] += 1
                counters[active] += 1
                continue
            if colour_name is None:
                continue  # the current turn, its colour not named yet: nothing has happened
            colour = COLOUR_INDEX[colour_name]
            strength = _BY_COLOUR[colour]
            everyone_passed = sum(1 for _, decision in declarations if decision == PASS) == players - 1
            for index in range(len(plays) - 1, -1, -1):
                seat, card_id = plays[index]
                card = _INDEX[card_id]
                hand[seat] += 1
                if seat != me and hand[seat] >= 2:
                    self._add(seat, self._better_play(card, index, plays, colour, everyone_passed), shown, avoid=True)
                shown[seat].append(card)
            threshold = (
                GreedyLovatAgent.die_declare_strength
                if die is not None and die != BLANK
                else GreedyLovatAgent.declare_strength
            )
            strong = _mask(card for card in range(len(CARD_IDS)) if strength[card] >= threshold)
            for seat, decision in reversed(declarations):
                if decision == PASS:
                    counters[seat] += 1
                if seat == me or not counters[seat] or not hand[seat]:
                    continue  # L-11: forced, tells nothing
                if hand[seat] <= _turns_after(seat, turn, first, players, turns):
                    continue  # greedy passes to keep a card for each of its own turns, whatever it holds
                self._add(seat, strong, shown, avoid=decision == PASS)
            if active != me and (die is None or die == BLANK):  # the active player named the colour
                top_shown = max(shown[active], key=_WEAK_KEY.__getitem__, default=-1)
                self.top[active].append(
                    (
                        -1 if top_shown < 0 else _WEAK_KEY[top_shown],
                        colour,
                        top_shown >= 0 and _BEST_COLOUR[top_shown] == colour,
                    )
                )
        self.facts = sum(len(self.avoid[seat]) + len(self.meet[seat]) + len(self.top[seat]) for seat in range(players))
        errors, weight = ERROR_PRIOR
        self.softness = []
        self.trust = []
        for seat in range(players):
            decided = self.contradicted[seat] + self.confirmed[seat] + weight
            error = min(0.5, (self.contradicted[seat] + errors) / decided)
            self.softness.append(error / (1.0 - error))
            self.trust.append(min(1.0, max(0.0, (1.0 - 2.0 * error) / (1.0 - 2.0 * errors / weight))))

    def _add(self, seat: int, mask: int, shown: list[list[int]], avoid: bool) -> None:
        """Record that the seat's hand (now plus ``shown``) avoids or meets ``mask``, unless shown cards settle it."""
        if _mask(shown[seat]) & mask:  # a card shown since settles the fact, the same way in every world
            if avoid:
                self.contradicted[seat] += 1
            else:
                self.confirmed[seat] += 1
            return
        (self.avoid if avoid else self.meet)[seat].append(mask)

    @staticmethod
    def _better_play(
        card: int, index: int, plays: Sequence[tuple[int, str]], colour: int, everyone_passed: bool
    ) -> int:
        """The cards greedy would have played instead of ``card`` as the ``index``-th card of the turn."""
        strength = _BY_COLOUR[colour]
        if index == 0:
            if everyone_passed:  # the weakest card wins by default
                return _cards_where(lambda other: _WEAK_KEY[other] < _WEAK_KEY[card])
            lead = _LEAD_KEY[colour]
            return _cards_where(lambda other: lead[other] > lead[card])
        to_beat = max(strength[_INDEX[card_id]] for _, card_id in plays[:index])
        if strength[card] > to_beat:  # the cheapest winning card
            return _cards_where(lambda other: strength[other] > to_beat and _WEAK_KEY[other] < _WEAK_KEY[card])
        return _cards_where(lambda other: strength[other] > to_beat or _WEAK_KEY[other] < _WEAK_KEY[card])

    def violations(self, seat: int, hand: Sequence[int]) -> int:
        """How many of the facts about ``seat`` its hidden hand ``hand`` contradicts."""
        mask = _mask(hand)
        count = 0
        for avoid in self.avoid[seat]:
            if mask & avoid:
                count += 1
        for meet in self.meet[seat]:
            if not mask & meet:
                count += 1
        if self.top[seat]:
            top = max(hand, key=_WEAK_KEY.__getitem__, default=-1)
            key = _WEAK_KEY[top] if top >= 0 else -1
            for shown_key, colour, shown_ok in self.top[seat]:
                if key > shown_key:
                    count += _BEST_COLOUR[top] != colour
                else:
                    count += not shown_ok
        return count


# -- what the keep says about hidden hands -----------------------------------------------------------


@functools.cache
def keep_rates(players: int) -> tuple[float, ...]:
    """Per card index, how often greedy's ``best_keep`` keeps the card when it is dealt (``players`` seats).

    Estimated once per process from ``KEEP_RATE_DEALS`` seeded deals, pooled over the cards of one
    level and best strength (greedy's keep score depends on nothing else), and clipped to
    ``KEEP_RATE_CLIP``.  Greedy keeps strong cards: at four players a level-1 card of best strength
    26 or 27 is kept almost always, one of 14 or 17 almost never.
    """
    variant = VARIANTS[players]
    kept: dict[tuple[int, int], list[int]] = {}
    rng = random.Random(KEEP_RATE_SEED)
    deck = list(CARD_IDS)
    for _ in range(KEEP_RATE_DEALS):
        rng.shuffle(deck)
        for seat in range(players):
            dealt = deck[seat * variant.dealt : (seat + 1) * variant.dealt]
            try:
                keep = set(best_keep(dealt, variant.level_sum, variant.min_keep, variant.max_keep))
            except ValueError:  # L-6: a misdealt hand, never played
                continue
            for card_id in dealt:
                counts = kept.setdefault((LEVEL[card_id], best_strength(card_id)), [0, 0])
                counts[0] += card_id in keep
                counts[1] += 1
    low, high = KEEP_RATE_CLIP
    return tuple(
        min(high, max(low, kept[(_LEVEL[card], _BEST[card])][0] / kept[(_LEVEL[card], _BEST[card])][1]))
        for card in range(len(CARD_IDS))
    )


# -- sampled worlds ----------------------------------------------------------------------------------


class Worlds:
    """Draws playouts of hidden states consistent with an observation (after the keeps).

    ``draw`` follows ``GAME.sample_state``'s own steps without its replay through the engine
    (which costs several playouts): each other seat's level composition from the sampler's
    ``sample_compositions`` (weighted by the number of card assignments), then concrete cards
    uniform within each level, a uniform part of each seat's unseen kept cards having gone
    face down on void turns (L-12).  With ``evidence`` the draw is then moved towards the
    worlds the other seats' decisions make likely: ``moves`` Metropolis steps, each swapping
    a hidden hand card with another unseen card of the same level (other hands, face-down
    cards, counters and undealt cards), accepted with probability
    ``min(1, softness ** (change in violations))``.  The swaps keep every level composition,
    and the uniform distribution over card assignments is their stationary distribution, so
    the chain leans towards the facts without leaving the set of consistent deals.
    """

    def __init__(
        self, observation: LovatObservation, evidence: Evidence | None = None, moves: int = 0, tilt: bool = False
    ) -> None:
        obs = observation
        players, me = obs.players, obs.seat
        variant = VARIANTS[players]
        played: list[list[str]] = [[] for _ in range(players)]
        self.face_down = [0] * players
        for record in obs.history:
            for seat, card_id in record[6]:
                played[seat].append(card_id)
            for seat, kind in record[7]:
                self.face_down[seat] += kind == "card"
        for seat, card_id in obs.plays:
            played[seat].append(card_id)
        for seat, kind in obs.void_discards:
            self.face_down[seat] += kind == "card"
        seen = set(obs.dealt)
        for seat in range(players):
            if seat != me:
                seen.update(played[seat])
        self.pool: dict[int, list[int]] = {1: [], 2: [], 3: []}  # unseen cards by level, in index order
        for card, card_id in enumerate(CARD_IDS):
            if card_id not in seen:
                self.pool[_LEVEL[card]].append(card)
        self.others = [seat for seat in range(players) if seat != me]
        self.options = [
            hidden_compositions(
                obs.hand_sizes[seat] + self.face_down[seat],
                variant.level_sum - sum(LEVEL[card_id] for card_id in played[seat]),
            )
            for seat in self.others
        ]
        self.template = Playout.public(obs)
        self.evidence = evidence if evidence is not None else Evidence(obs)
        # The keep tilt: a hidden hand card's weight against an unseen card elsewhere is p / (1 - p) ** share,
        # p its keep rate and share the part of the other unseen cards that are counters (dealt, not kept).
        self.log_weight: tuple[float, ...] | None = None
        if tilt:
            rates = keep_rates(players)
            kept = sum(obs.hand_sizes[seat] + self.face_down[seat] + len(played[seat]) for seat in self.others)
            counters = len(self.others) * variant.dealt - kept
            rest = sum(len(cards) for cards in self.pool.values()) - sum(obs.hand_sizes[seat] for seat in self.others)
            share = counters / rest if rest > 0 else 0.0
            self.log_weight = tuple(math.log(rate) - share * math.log(1.0 - rate) for rate in rates)
        hidden = sum(obs.hand_sizes[seat] for seat in self.others)
        self.moves = moves if hidden and (self.evidence.facts or self.log_weight is not None) else 0
        self.chains: list[_Chain] = []
        self.draws = 0

    def hands(self, rng: random.Random) -> list[list[int]]:
        """Hidden hands for the other seats (own hand: empty), uniform over the consistent deals."""
        pool = self.pool
        chosen = sample_compositions(self.options, (len(pool[1]), len(pool[2]), len(pool[3])), rng)
        shuffled = {level: rng.sample(cards, len(cards)) for level, cards in pool.items()}
        hands: list[list[int]] = [[] for _ in range(len(self.template.hands))]
        for seat, composition in zip(self.others, chosen):
            unseen: list[int] = []
            for level, count in zip((1, 2, 3), composition):
                unseen.extend(shuffled[level][:count])
                del shuffled[level][:count]
            if self.face_down[seat]:
                rng.shuffle(unseen)  # the first ones went face down
            hands[seat] = unseen[self.face_down[seat] :]
        return hands

    def draw(self, rng: random.Random, dice: Sequence[int] = ()) -> Playout:
        """A playout of a sampled world with ``dice`` for the die round.

        Without evidence each draw is independent.  With evidence the draws come in turn from
        ``CHAINS`` Metropolis chains, each started from an independent draw and run
        ``BURN_IN`` swaps before its first world and ``self.moves`` swaps between worlds.
        """
        if not self.moves:
            hands = self.hands(rng)
        else:
            index = self.draws % CHAINS
            if index == len(self.chains):
                self.chains.append(_Chain(self.hands(rng), self.others, self.evidence, self.log_weight))
                self.chains[index].run(BURN_IN, self.pool, rng)
            chain = self.chains[index]
            chain.run(self.moves, self.pool, rng)
            hands = chain.hands
        self.draws += 1
        world = self.template.copy()
        for seat in self.others:
            world.hands[seat] = hands[seat][:]
        world.dice = dice
        return world


class _Chain:
    """One Metropolis chain over the hidden hands (see ``Worlds``): same-level swaps, per-seat softness and tilt."""

    __slots__ = ("evidence", "hands", "log_weight", "owner", "slots", "violations")

    def __init__(
        self, hands: list[list[int]], others: Sequence[int], evidence: Evidence, log_weight: Sequence[float] | None
    ) -> None:
        self.hands = hands
        self.evidence = evidence
        self.log_weight = log_weight
        self.owner = [-1] * len(CARD_IDS)  # per card: the seat holding it, -1 if in no hidden hand
        self.slots: list[tuple[int, int]] = []  # (seat, position) of every hidden hand card
        self.violations = [0] * len(hands)
        for seat in others:
            for position, card in enumerate(hands[seat]):
                self.owner[card] = seat
                self.slots.append((seat, position))
            self.violations[seat] = evidence.violations(seat, hands[seat])

    def run(self, moves: int, pool: Mapping[int, Sequence[int]], rng: random.Random) -> None:
        """``moves`` proposed swaps of a hidden hand card with an unseen card of the same level."""
        hands, owner, slots, violations, evidence = self.hands, self.owner, self.slots, self.violations, self.evidence
        softness, trust, log_weight = evidence.softness, evidence.trust, self.log_weight
        if not slots:
            return
        for _ in range(moves):
            seat, position = slots[rng.randrange(len(slots))]
            hand = hands[seat]
            card = hand[position]
            same_level = pool[_LEVEL[card]]
            other = same_level[rng.randrange(len(same_level))]
            holder = owner[other]
            if holder == seat:
                continue  # the same card, or a swap within one hand: nothing changes
            hand[position] = other
            seat_after = evidence.violations(seat, hand)
            weight = softness[seat] ** (seat_after - violations[seat])
            if holder >= 0:
                holder_hand = hands[holder]
                holder_position = holder_hand.index(other)
                holder_hand[holder_position] = card
                holder_after = evidence.violations(holder, holder_hand)
                weight *= softness[holder] ** (holder_after - violations[holder])
            elif log_weight is not None:  # a card leaves the hands and another enters: the keep tilt
                weight *= math.exp(trust[seat] * (log_weight[other] - log_weight[card]))
            if weight >= 1.0 or rng.random() < weight:
                violations[seat] = seat_after
                owner[other], owner[card] = seat, holder
                if holder >= 0:
                    violations[holder] = holder_after
            else:  # rejected: swap back
                hand[position] = card
                if holder >= 0:
                    holder_hand[holder_position] = other
