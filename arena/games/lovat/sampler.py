"""Hidden-state sampling for search agents: a full ``LovatState`` consistent with an observation.

The sample is uniform over the complete hidden configurations that fit the
observation, i.e. over every way to give the unseen cards the hidden roles

* each other seat's *unseen kept cards* (its hand now, plus hand cards it
  discarded face down on void turns), which together with the cards it has
  played must make a legal keep: levels summing exactly to the keep total
  (the keep's size is already fixed by the public counts);
* each other seat's counters (dealt but not kept: unconstrained);
* the undealt cards (unconstrained);
* which of a seat's unseen kept cards went face down on void turns.

Cards of one level are exchangeable under these constraints, so the sampler
first draws every other seat's level composition (how many level-1/2/3 cards
among its unseen kept cards) with weight ``prod over levels of the
multinomial coefficient`` of the unseen pool's level counts (a small dynamic
programme over seats and cards used so far), then deals concrete cards
uniformly within each level, then the rest uniformly among counters and the
undealt deck.  The misdeal conditioning (L-6: every dealt hand admits a keep)
holds automatically once keeps have been made.

During the keep phase other seats' dealt hands are drawn uniformly from the
unseen cards and the whole deal is rejected until every hand admits a keep
(exactly uniform given L-6).  Other seats' keeps are left unmade in the sample
(their choice is theirs to simulate); the observer's own keep, if made, is
applied.

The sampled state is rebuilt by replaying the public record through the
engine, so it passes every check a real game does.  Its chance log holds the
dealer, the sampled deal and the dice seen so far (not the discarded misdeals,
which are unknown; the misdeal count and seats are kept); future dice come from
a fresh ``Chance`` seeded from ``rng``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from math import comb

from arena.games.base import Chance, GameError
from arena.games.lovat.deck import CARD_IDS, LEVEL
from arena.games.lovat.observation import LovatObservation
from arena.games.lovat.rules import BLANK, COUNTER, KEEP, OVER, VARIANTS, VOID, admits_keep
from arena.games.lovat.state import LovatState


def hidden_compositions(size: int, levels: int) -> list[tuple[int, int, int]]:
    """Every (a1, a2, a3) with a1 + a2 + a3 = size and a1 + 2 a2 + 3 a3 = levels."""
    found = []
    for a3 in range(size + 1):
        for a2 in range(size - a3 + 1):
            a1 = size - a3 - a2
            if a1 + 2 * a2 + 3 * a3 == levels:
                found.append((a1, a2, a3))
    return found


def sample_compositions(
    options: list[list[tuple[int, int, int]]], pool: tuple[int, int, int], rng: random.Random
) -> list[tuple[int, int, int]]:
    """Draw one composition per seat with probability proportional to the number of card assignments.

    ``options[i]`` lists seat i's feasible compositions; ``pool`` is the unseen pool's
    (level-1, level-2, level-3) counts.  The weight of a joint choice is
    ``prod_level multinomial(pool_level; a_level per seat, rest)``, built up seat by seat as
    products of binomials; ``ways(i, used)`` counts completions for seats i.. given the cards
    already used, and the draw walks forward choosing each seat's composition in proportion.
    """
    memo: dict[tuple[int, int, int, int], int] = {}

    def ways(index: int, u1: int, u2: int, u3: int) -> int:
        if index == len(options):
            return 1
        key = (index, u1, u2, u3)
        if key not in memo:
            total = 0
            for a1, a2, a3 in options[index]:
                if u1 + a1 <= pool[0] and u2 + a2 <= pool[1] and u3 + a3 <= pool[2]:
                    weight = comb(pool[0] - u1, a1) * comb(pool[1] - u2, a2) * comb(pool[2] - u3, a3)
                    total += weight * ways(index + 1, u1 + a1, u2 + a2, u3 + a3)
            memo[key] = total
        return memo[key]

    used = [0, 0, 0]
    total = ways(0, 0, 0, 0)
    if total == 0:
        raise GameError("no hidden deal fits this Lovat observation (is it from a real game?)")
    chosen = []
    for index, seat_options in enumerate(options):
        u1, u2, u3 = used
        ticket = rng.randrange(total)
        for a1, a2, a3 in seat_options:
            if u1 + a1 <= pool[0] and u2 + a2 <= pool[1] and u3 + a3 <= pool[2]:
                weight = comb(pool[0] - u1, a1) * comb(pool[1] - u2, a2) * comb(pool[2] - u3, a3)
                weight *= ways(index + 1, u1 + a1, u2 + a2, u3 + a3)
                if ticket < weight:
                    chosen.append((a1, a2, a3))
                    used = [u1 + a1, u2 + a2, u3 + a3]
                    total = ways(index + 1, *used)
                    break
                ticket -= weight
    return chosen


def sample_state(observation: LovatObservation, rng: random.Random) -> LovatState:
    """A complete state consistent with ``observation``, uniform over the hidden deals that fit it."""
    variant = VARIANTS[observation.players]
    if observation.phase == KEEP:
        return _sample_keep_phase(observation, rng)
    players = observation.players
    me = observation.seat
    turns = list(observation.history)
    played: list[list[str]] = [[] for _ in range(players)]
    face_down_count = [0] * players
    for record in turns:
        for seat, card_id in record[6]:
            played[seat].append(card_id)
        for seat, kind in record[7]:
            face_down_count[seat] += kind == "card"
    for seat, card_id in observation.plays:
        played[seat].append(card_id)
    for seat, kind in observation.void_discards:
        face_down_count[seat] += kind == "card"

    # The unseen pool: everything but my dealt cards and the cards others have shown.
    seen = set(observation.dealt)
    for seat in range(players):
        if seat != me:
            seen.update(played[seat])
    pool = [card_id for card_id in CARD_IDS if card_id not in seen]
    by_level: dict[int, list[str]] = {1: [], 2: [], 3: []}
    for card_id in pool:
        by_level[LEVEL[card_id]].append(card_id)

    others = [seat for seat in range(players) if seat != me]
    unseen_size = {seat: observation.hand_sizes[seat] + face_down_count[seat] for seat in others}
    options = []
    for seat in others:
        missing = variant.level_sum - sum(LEVEL[card_id] for card_id in played[seat])
        options.append(hidden_compositions(unseen_size[seat], missing))
    chosen = sample_compositions(options, (len(by_level[1]), len(by_level[2]), len(by_level[3])), rng)

    # Concrete cards: uniform within each level for the unseen kept cards, then the rest at random.
    for cards in by_level.values():
        rng.shuffle(cards)
    unseen_kept: dict[int, list[str]] = {}
    for seat, composition in zip(others, chosen):
        cards = []
        for level, count in zip((1, 2, 3), composition):
            cards.extend(by_level[level][:count])
            del by_level[level][:count]
        rng.shuffle(cards)  # the first ones go face down on void turns, the rest stay in hand
        unseen_kept[seat] = cards
    rest = by_level[1] + by_level[2] + by_level[3]
    rng.shuffle(rest)
    deal: list[list[str]] = [[] for _ in range(players)]
    keeps: list[tuple[str, ...]] = [()] * players
    for seat in others:
        keep = played[seat] + unseen_kept[seat]
        counters = variant.dealt - len(keep)
        deal[seat] = keep + rest[:counters]
        del rest[:counters]
        keeps[seat] = tuple(sorted(keep))
    deal[me] = list(observation.dealt)
    keeps[me] = observation.keep  # type: ignore[assignment]

    # My own face-down cards: kept, not in hand, not played (which void turn each went on is immaterial).
    mine_gone = set(observation.hand) | set(played[me])
    face_down = {seat: unseen_kept[seat][: face_down_count[seat]] for seat in others}
    face_down[me] = [card_id for card_id in observation.keep or () if card_id not in mine_gone]

    dice = [record[3] for record in turns if record[3] is not None]
    if observation.die is not None:
        dice.append(observation.die)
    chance = Chance(rng.getrandbits(64), [{"kind": "die", "value": face} for face in dice])
    chance.record("dealer", observation.dealer)
    chance.record("deal", [sorted(hand) for hand in deal])
    state = LovatState.after_deal(variant, chance, observation.dealer, deal, observation.misdeals)
    for seat in range(players):
        state.apply(seat, keeps[seat])
    for record in turns:
        _replay_turn(state, record[2], record[3], record[4], record[5], record[6], record[7], face_down)
    if observation.phase != OVER:  # the current turn so far (nothing yet while a colour is awaited)
        _replay_turn(
            state,
            observation.phase == VOID,
            observation.die,
            observation.colour,
            observation.declarations,
            observation.plays,
            observation.void_discards,
            face_down,
        )
    return state


def _replay_turn(
    state: LovatState,
    void: bool,
    die: str | None,
    colour: str | None,
    declarations: Sequence[tuple[int, str]],
    plays: Sequence[tuple[int, str]],
    void_discards: Sequence[tuple[int, str]],
    face_down: dict[int, list[str]],
) -> None:
    """Apply one turn's public decisions (complete or partial) to ``state``; face-down cards come from ``face_down``."""
    if void:
        for seat, kind in void_discards:
            state.apply(seat, COUNTER if kind == COUNTER else face_down[seat].pop())
        return
    if colour is not None and (die is None or die == BLANK):
        state.apply((state.first + state.turn) % state.players, colour)  # the active player names it
    for seat, decision in declarations:
        state.apply(seat, decision)
    for seat, card_id in plays:
        state.apply(seat, card_id)


def _sample_keep_phase(observation: LovatObservation, rng: random.Random) -> LovatState:
    """Keep phase: others' dealt hands uniform over deals in which every hand admits a keep (L-6)."""
    variant = VARIANTS[observation.players]
    me = observation.seat
    mine = set(observation.dealt)
    unseen = [card_id for card_id in CARD_IDS if card_id not in mine]
    others = [seat for seat in range(observation.players) if seat != me]
    while True:
        rng.shuffle(unseen)
        deal: list[list[str]] = [[] for _ in range(observation.players)]
        for index, seat in enumerate(others):
            deal[seat] = sorted(unseen[index * variant.dealt : (index + 1) * variant.dealt])
        if all(admits_keep(deal[seat], variant) for seat in others):
            break
    deal[me] = list(observation.dealt)
    chance = Chance(rng.getrandbits(64))
    chance.record("dealer", observation.dealer)
    chance.record("deal", deal)
    state = LovatState.after_deal(variant, chance, observation.dealer, deal, observation.misdeals)
    if observation.keep is not None:
        state.apply(me, observation.keep)
    return state
