"""The engines' fast paths draw, deal, check and resolve exactly as the plain code they stand in for.

Each fast path (docs/performance.md, "Per decision, 1 December 2026 (second pass)") must not change a
draw, a deal or an error: seeded games, agents and recorded matches replay only if they do not.
"""

from __future__ import annotations

import json
import random
from itertools import combinations
from typing import Any

import pytest

from arena.games.base import InvalidSetup
from arena.games.chance import Chance, randbelow
from arena.games.interface import uniform_random_action
from arena.games.lazy import PENDING
from arena.games.lorum import GAME as LORUM
from arena.games.lovat import GAME as LOVAT
from arena.games.lovat.deck import CARD_IDS, LEVEL, LEVEL_COUNT
from arena.games.lovat.keeps import random_keep
from arena.games.lovat.rules import (
    VARIANTS,
    admits_keep,
    keep_compositions,
    keep_problem,
    level_counts,
    sorted_level_counts,
    stuck_seats,
)


class Listed:
    """Just what ``uniform_random_action`` reads from an observation."""

    def __init__(self, legal: tuple[int, ...]) -> None:
        self.legal = legal
        self.phase = "play"


@pytest.mark.parametrize("length", [0, 1, 2, 5, 32, 33, 80, 1025, 1026, 3000])
def test_chance_shuffle_draws_exactly_as_random_shuffle(length: int) -> None:
    for seed in range(5):
        chance, reference = Chance(seed), random.Random(seed)
        ours, theirs = list(range(length)), list(range(length))
        chance.shuffle(ours)
        reference.shuffle(theirs)
        assert ours == theirs
        assert chance.rng.getstate() == reference.getstate()


def test_chance_shuffle_stays_exact_past_its_table_of_lengths() -> None:
    # The (i, bits) steps are kept for at most 64 lengths; more lengths than that empty the table.
    chance, reference = Chance(9), random.Random(9)
    for length in range(2, 200):
        ours, theirs = list(range(length)), list(range(length))
        chance.shuffle(ours)
        reference.shuffle(theirs)
        assert ours == theirs, length
    assert chance.rng.getstate() == reference.getstate()


@pytest.mark.parametrize("n", [1, 2, 3, 4, 6, 7, 8, 9, 100, 2**31 + 1, 2**70])
def test_randbelow_draws_exactly_as_randrange(n: int) -> None:
    for seed in range(3):
        ours, theirs = random.Random(seed), random.Random(seed)
        assert [randbelow(ours, n) for _ in range(40)] == [theirs.randrange(n) for _ in range(40)]
        assert ours.getstate() == theirs.getstate()
    with pytest.raises(ValueError):
        randbelow(random.Random(1), 0)  # randrange's own error


@pytest.mark.parametrize("size", [1, 2, 3, 4, 7, 8, 9, 31, 32, 33, 100])
def test_the_uniform_policy_picks_what_rng_choice_picks(size: int) -> None:
    listed = Listed(tuple(range(size)))
    for seed in range(3):
        ours, theirs = random.Random(seed), random.Random(seed)
        assert [uniform_random_action(listed, ours) for _ in range(40)] == [  # type: ignore[arg-type]
            theirs.choice(listed.legal) for _ in range(40)
        ]
        assert ours.getstate() == theirs.getstate()


def test_the_uniform_policy_asks_an_rng_of_another_class_for_its_choice() -> None:
    class Loaded(random.Random):
        def choice(self, seq: Any) -> Any:
            return seq[-1]

    assert uniform_random_action(Listed((1, 2, 3)), Loaded(1)) == 3  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no legal action is listed in phase 'play'"):
        uniform_random_action(Listed(()), random.Random(1))  # type: ignore[arg-type]


@pytest.mark.parametrize("players", sorted(VARIANTS))
def test_l6_the_table_of_admitting_hands_agrees_with_the_keep_rule(players: int) -> None:
    variant = VARIANTS[players]
    level_one, level_two, level_three = (sorted(card for card in CARD_IDS if card.startswith(f"L{level}-"))
                                         for level in (1, 2, 3))
    for n3 in range(LEVEL_COUNT[3] + 1):
        for n2 in range(min(LEVEL_COUNT[2], variant.dealt - n3) + 1):
            n1 = variant.dealt - n2 - n3
            if n1 > LEVEL_COUNT[1]:
                continue
            hand = level_one[:n1] + level_two[:n2] + level_three[:n3]
            admits = bool(keep_compositions(n1, n2, n3, variant))
            assert admits_keep(hand, variant) == admits_keep(hand, variant, presorted=True) == admits, (n1, n2, n3)
            assert stuck_seats([hand, hand], variant) == (() if admits else (0, 1)), (n1, n2, n3)


def test_sorted_hands_are_counted_by_level_as_any_hand_is() -> None:
    rng = random.Random(6)
    for size in (0, 1, 5, 12, 14, 80):
        for _ in range(50):
            hand = sorted(rng.sample(CARD_IDS, size))
            assert sorted_level_counts(hand) == level_counts(hand) == level_counts(hand[::-1])


def test_the_random_keep_draws_the_keeps_it_always_drew() -> None:
    # Pinned from the code before its fast path: a seeded random agent keeps what it kept then.
    hand = ["L1-14", "L1-16", "L1-29", "L1-31", "L2-01", "L2-14", "L2-17", "L2-23", "L2-25", "L2-26", "L3-01",
            "L3-02"]
    variant, rng = VARIANTS[3], random.Random(3)
    assert [random_keep(hand, variant.level_sum, variant.min_keep, variant.max_keep, rng) for _ in range(2)] == [
        ("L1-14", "L1-29", "L2-01", "L2-26", "L3-01"), ("L1-16", "L1-29", "L1-31", "L2-14", "L2-23", "L2-26")]
    hand = ["L1-01", "L1-02", "L1-11", "L1-13", "L1-15", "L1-27", "L1-33", "L1-37", "L2-01", "L2-05", "L2-11",
            "L2-18", "L2-23", "L3-09"]
    variant, rng = VARIANTS[4], random.Random(4)
    assert [random_keep(hand, variant.level_sum, variant.min_keep, variant.max_keep, rng) for _ in range(2)] == [
        ("L1-01", "L1-13", "L1-33", "L2-01", "L2-18", "L2-23", "L3-09"),
        ("L1-15", "L1-27", "L1-37", "L2-11", "L2-18", "L2-23", "L3-09")]


def test_a_logged_deal_is_its_own_data_and_stays_as_dealt() -> None:
    # Deals are logged without a second copy (Chance.record_fresh): the log must share no list with the state.
    rng = random.Random(4)
    for game, options in ((LOVAT, {"players": 4}), (LORUM, {"deals": 2})):
        state = game.new_state(7, options)
        deals = [outcome["value"] for outcome in state.chance.log if outcome["kind"] == "deal"]
        logged = [[list(hand) for hand in deal] for deal in deals]
        while not state.is_over():
            for seat in state.to_move():
                legal = state.legal_actions(seat)
                state.apply(seat, rng.choice(legal) if legal else game.info.random_action(state.observation(seat), rng))
        assert [outcome["value"] for outcome in state.chance.log if outcome["kind"] == "deal"][: len(logged)] == logged
        assert all(type(hand) is list for deal in deals for hand in deal)


def test_complete_options_deal_as_resolved_ones_and_bad_ones_still_fail() -> None:
    for given, resolved in (({"players": 4, "deals": 2}, {"deals": 2}), ({"players": 4, "deals": 4}, None)):
        assert LORUM.new_state(5, given).chance.log == LORUM.new_state(5, resolved).chance.log
    assert LOVAT.new_state(5, {"players": 4}).chance.log == LOVAT.new_state(5, None).chance.log
    bad_options: list[dict[str, Any]] = [{"players": 4, "deals": 0}, {"players": 4, "deals": True},
                                         {"players": 4.0, "deals": 2}, {"players": 4, "deals": 1001}]
    for bad in bad_options:
        with pytest.raises(InvalidSetup):
            LORUM.new_state(5, bad)
    for bad in ({"players": True}, {"players": 7}, {"players": 3, "deals": 2}):
        with pytest.raises(InvalidSetup):
            LOVAT.new_state(5, bad)


@pytest.mark.parametrize(("game", "kinds"), [(LOVAT, "arena.games.lovat.turns"), (LORUM, "arena.games.lorum.state")])
def test_stored_events_fill_every_key_of_their_type_and_read_as_fresh_dicts(game: Any, kinds: str) -> None:
    # Events are stored as tuples and made into dicts when read (arena/games/events.py): a tuple one value
    # short or long would shift every key after it, so each must carry exactly its type's keys.
    import importlib

    events = importlib.import_module(kinds).EVENTS
    seen: set[str] = set()
    rng = random.Random(8)
    for seed in range(40):
        options = {"players": 3 + seed % 4} if game is LOVAT else {"deals": 1 + seed % 3}
        state = game.new_state(seed, options)
        while not state.is_over():
            for seat in state.to_move():
                state.apply(seat, game.info.random_action(state.observation(seat), rng))
        for stored, event in zip(state._events, state.events(), strict=True):
            assert len(stored) == len(events.keys[stored[0]]) + 1, stored
            assert list(event) == ["type", *events.keys[stored[0]]] and event["type"] == stored[0]
            seen.add(stored[0])
        first, again = state.events(), state.events()
        assert first == again and all(a is not b for a, b in zip(first, again))
        assert state.events(5) == first[5:] and state.log == first
    assert set(events.keys) - seen <= {"misdeal"}  # every type met (a Lovat misdeal is rare in random games)


@pytest.mark.parametrize("seed", [0, 1, -1, 3, 2**31, 2**32 + 1, 2**64, -(2**80) + 7, True, 2.5, "seed", b"seed"])
def test_chance_seeds_its_generator_exactly_as_random_does(seed: Any) -> None:
    # An int seed skips Random.__init__'s Python layers (chance._seeded); every seed must start the same stream.
    chance, reference = Chance(seed), random.Random(seed)
    assert chance.rng.getstate() == reference.getstate()
    assert [chance.rng.getrandbits(32) for _ in range(700)] == [reference.getrandbits(32) for _ in range(700)]
    assert chance.rng.random() == reference.random() and chance.rng.gauss(0, 1) == reference.gauss(0, 1)


def test_keep_counts_match_counting_every_subset() -> None:
    # count_keeps builds its table by shifting flat layers (keeps._count_by_levels): each cell must be the
    # number of subsets of the first i cards with that level sum and size, for any order of levels.
    from arena.games.lovat.keeps import count_keeps

    rng = random.Random(12)
    for _ in range(60):
        cards = rng.sample(CARD_IDS, rng.randrange(0, 9))
        level_sum = rng.randrange(0, 13)
        ways = count_keeps(cards, level_sum)
        levels = [LEVEL[card] for card in cards]
        for i in range(len(cards) + 1):
            expected = [[0] * (len(cards) + 1) for _ in range(level_sum + 1)]
            for size in range(i + 1):
                for chosen in combinations(levels[:i], size):
                    if sum(chosen) <= level_sum:
                        expected[sum(chosen)][size] += 1
            assert ways[i] == tuple(map(tuple, expected)), (cards, level_sum, i)


def reference_keep(cards: list[str], level_sum: int, min_size: int, max_size: int, rng: random.Random) -> tuple:
    """The random keep as it was first written: draw a ticket, pick the size, test every card walking back."""
    from arena.games.lovat.keeps import count_keeps

    ways = count_keeps(cards, level_sum)
    counts = ways[len(cards)][level_sum]
    sizes = range(min_size, min(max_size, len(cards)) + 1)
    ticket = rng.randrange(sum(counts[min_size : sizes.stop]))
    for size in sizes:
        if ticket < counts[size]:
            break
        ticket -= counts[size]
    chosen, remaining_sum = [], level_sum
    for index in range(len(cards) - 1, -1, -1):
        without = ways[index][remaining_sum][size]
        if ticket >= without:
            ticket -= without
            chosen.append(cards[index])
            remaining_sum -= LEVEL[cards[index]]
            size -= 1
    return tuple(sorted(chosen))


def test_the_random_keep_bisects_to_the_keeps_a_walk_over_every_card_draws() -> None:
    # random_keep finds each kept card by bisecting a column of the count table (keeps._walk) or, for a hand
    # sorted by level, by its block and ranks (keeps._blocks): the same keep, from the same single draw, as
    # testing every card in turn.
    rng = random.Random(13)
    for trial in range(400):
        variant = VARIANTS[3 + trial % 4]
        hand = rng.sample(CARD_IDS, variant.dealt)
        hand = sorted(hand) if trial % 3 else hand  # dealt hands are sorted; any order must work
        if not keep_compositions(*level_counts(hand), variant):
            continue
        seed = rng.getrandbits(32)
        ours, theirs = random.Random(seed), random.Random(seed)
        bounds = (variant.level_sum, variant.min_keep, variant.max_keep)
        assert [random_keep(hand, *bounds, ours) for _ in range(3)] == [
            reference_keep(hand, *bounds, theirs) for _ in range(3)]
        assert ours.getstate() == theirs.getstate()


def test_a_hand_sorted_by_level_draws_by_blocks_the_keep_the_walk_draws() -> None:
    # keeps._blocks ranks a size's keeps by their level-3 cards, then level-2, then level-1 cards: the walk's
    # order whenever levels do not fall along the hand, whatever the order of ids within a level, for any
    # bounds (keeps of no card or one card included).
    rng = random.Random(14)
    by_level = {level: [card for card in CARD_IDS if LEVEL[card] == level] for level in (1, 2, 3)}
    drawn = 0
    for _ in range(600):
        counts = [rng.randrange(0, 7), rng.randrange(0, 6), rng.randrange(0, 5)]
        hand = [card for level, count in zip((1, 2, 3), counts) for card in rng.sample(by_level[level], count)]
        level_sum = rng.randrange(0, 16)
        low = rng.randrange(0, 6)
        high = low + rng.randrange(0, 8)
        if not any(sum(LEVEL[card] for card in keep) == level_sum
                   for size in range(low, min(high, len(hand)) + 1) for keep in combinations(hand, size)):
            with pytest.raises(ValueError, match="no keep"):
                random_keep(hand, level_sum, low, high, random.Random(1))
            continue
        seed = rng.getrandbits(32)
        ours, theirs = random.Random(seed), random.Random(seed)
        assert [random_keep(hand, level_sum, low, high, ours) for _ in range(3)] == [
            reference_keep(hand, level_sum, low, high, theirs) for _ in range(3)], (hand, level_sum, low, high)
        assert ours.getstate() == theirs.getstate()
        drawn += 1
    assert drawn > 200


def plain_observation(state: Any, seat: int) -> Any:
    """A Lovat observation as it was built before ``observe`` stored its fields itself: every field computed from
    the state and handed to ``lazy_constructor``'s build."""
    from arena.games.lovat.observation import _build
    from arena.games.lovat.rules import KEEP, OVER

    players, variant, phase, turn, counters = state.players, state.variant, state.phase, state.turn, state.counters
    round_ = turn // players
    if phase in (KEEP, OVER):
        legal, active, die_round = (), None, False
        hand_sizes = (variant.dealt,) * players if phase == KEEP else (0,) * players
        counter_counts = (0,) * players if phase == KEEP else counters
    else:
        legal, active, die_round = state.legal_actions(seat), (state.first + turn) % players, round_ == variant.rounds - 1
        hand_sizes, counter_counts = PENDING, counters
    return _build(state.fixed[seat], phase, legal, turn, round_, die_round, active, state.colour, state.die,
                  tuple(state.hands[seat]), counters[seat], state.keeps[seat], hand_sizes, counter_counts, state.points,
                  state.passed, state.declarations, state.plays, state.voids, state.history)


@pytest.mark.parametrize("players", sorted(VARIANTS))
def test_a_lovat_observation_stores_what_the_lazy_build_stores(players: int) -> None:
    # observe fills the observation itself (observation._Store) and reads turn, round, die round and active from
    # the state's turn_facts: every seat's observation, at every decision of every phase, must be the one the
    # plain build makes, down to which field is still pending.
    from arena.games.lovat.observation import LovatObservation

    raw_hand_sizes = LovatObservation.__dict__["hand_sizes"].get
    rng = random.Random(15)
    phases = set()
    for seed in range(25):
        state = LOVAT.new_state(seed, {"players": players})
        while True:
            for seat in range(players):
                ours, plain = state.observation(seat), plain_observation(state, seat)
                assert type(ours) is type(plain) is LovatObservation
                assert (raw_hand_sizes(ours, None) is PENDING) == (raw_hand_sizes(plain, None) is PENDING)
                assert ours == plain and ours.to_json() == plain.to_json() and hash(ours) == hash(plain)
                phases.add(ours.phase)
            if state.is_over():
                break
            for seat in state.to_move():
                state.apply(seat, LOVAT.info.random_action(state.observation(seat), rng))
    assert phases == {"keep", "colour", "declare", "play", "void", "over"}


class Named(str):
    """A str subclass: a card id the plain keep check accepts (isinstance), though not of the exact type."""


def keep_attempts(state: Any, seat: int, rng: random.Random) -> list[Any]:
    """A legal keep for ``seat`` and keeps that break each part of the rule (L-5) or the action's form."""
    observation = state.observation(seat)
    keep = random_keep(observation.dealt, observation.level_sum, observation.min_size, observation.max_size, rng)
    other = next(card for card in CARD_IDS if card not in observation.dealt)
    return [keep, list(keep), keep[::-1], keep + keep[:1], keep[:-1], tuple(map(Named, keep)), (other, *keep[1:]),
            tuple(sorted(observation.dealt)), (*keep[:-1], 5), ("L9-99", *keep[1:]), "L1-01", None, ()]


@pytest.mark.parametrize("players", sorted(VARIANTS))
def test_apply_takes_a_keep_exactly_when_the_plain_check_does(players: int) -> None:
    # apply's keep path (a seat still to keep, keep_problem None) skips _problem: every attempt must be taken,
    # or refused with _problem's own message, as the plain check says, and a taken keep leave the state the
    # plain transition leaves.
    from arena.games.base import IllegalAction

    rng = random.Random(16)
    who: Any  # the seat, or a bool or float standing for it
    for seed in range(20):
        state = LOVAT.new_state(seed, {"players": players})
        for seat in rng.sample(range(players), players):
            for attempt in [*keep_attempts(state, seat, rng), *keep_attempts(state, (seat + 1) % players, rng)]:
                for who in (seat, True if seat == 1 else seat, float(seat)):
                    ours, plain = state.clone(), state.clone()
                    problem = plain._problem(who, attempt)
                    if problem is None:
                        ours.apply(who, attempt)
                        plain._keep(who, attempt)
                        assert ours.observation(seat) == plain.observation(seat) and ours.events() == plain.events()
                        assert (ours.keeps, ours.hands, ours.counters, ours.queue) == (
                            plain.keeps, plain.hands, plain.counters, plain.queue)
                    else:
                        with pytest.raises(IllegalAction) as refused:
                            ours.apply(who, attempt)
                        assert str(refused.value) == problem
            legal = keep_attempts(state, seat, rng)[0]
            state.apply(seat, legal)
            if state.phase == "keep":
                with pytest.raises(IllegalAction, match="has already kept"):
                    state.apply(seat, legal)
        assert state.phase != "keep"


class Counted(str):
    """A str subclass that counts every comparison and hash the engine asks of it (an agent's own code)."""

    calls = 0

    def __hash__(self) -> int:
        Counted.calls += 1
        return str.__hash__(self)

    def __eq__(self, other: object) -> bool:
        Counted.calls += 1
        return str.__eq__(self, other)

    def __lt__(self, other: str) -> bool:
        Counted.calls += 1
        return str.__lt__(self, other)


@pytest.mark.parametrize("reverse", [False, True])
def test_a_keep_of_an_agents_strings_is_checked_once(reverse: bool) -> None:
    # An agent's str subclass runs its own code when compared: apply must ask it exactly what one keep check
    # asks (asked twice, it could answer the second time otherwise, L-5), whether the keep is taken or refused.
    from arena.games.base import IllegalAction

    state = LOVAT.new_state(3, {"players": 3})
    observation = state.observation(0)
    keep = random_keep(observation.dealt, observation.level_sum, observation.min_size, observation.max_size,
                       random.Random(3))
    attempt = tuple(map(Counted, keep[::-1] if reverse else keep))
    Counted.calls = 0
    keep_problem(attempt, state.dealt[0], state.variant)
    one_check = Counted.calls
    Counted.calls = 0
    if reverse:
        with pytest.raises(IllegalAction, match="tried keep"):
            state.apply(0, attempt)
    else:
        state.apply(0, attempt)
    assert one_check > 0 and Counted.calls == one_check


def plain_keep_problem(cards: Any, dealt: Any, variant: Any) -> str | None:
    """``rules.keep_problem`` as it was before keeps of exact strings were checked without a set and a sort (a card
not dealt is named before the order)."""
    from itertools import repeat
    from operator import itemgetter

    if not isinstance(cards, tuple) or not all(map(isinstance, cards, repeat(str))):
        return "a keep is a list of card ids, in Python a tuple of strings"
    dealt_set = set(dealt)
    if not dealt_set.issuperset(cards):
        missing = [card_id for card_id in cards if card_id not in dealt_set]
        return f"{', '.join(missing)} {'was' if len(missing) == 1 else 'were'} not dealt to this seat"
    if list(cards) != sorted(set(cards)):
        return f"a keep lists its card ids once each, sorted ascending: {json.dumps(sorted(set(cards)))}"
    total = sum(itemgetter(*cards)(LEVEL)) if len(cards) > 1 else sum(map(LEVEL.__getitem__, cards))
    if total != variant.level_sum:
        return f"its levels sum to {total}; a keep's levels must sum to exactly {variant.level_sum} (L-5)"
    if not variant.min_keep <= len(cards) <= variant.max_keep:
        return f"it has {len(cards)} cards; a keep has {variant.min_keep} to {variant.max_keep} cards (L-5)"
    return None


KINDS = ("list of card ids", "once each", "was not dealt", "were not dealt", "levels sum", "cards; a keep has")
"""A phrase of each way a keep can break the rule (L-5)."""


def test_the_keep_rule_words_every_keep_as_the_plain_check_does() -> None:
    # keep_problem checks a tuple of exact strings (by identity of their types) for order in one pass: every keep, legal
    # or broken in any part, exact strings or not, must get the plain check's answer.
    rng = random.Random(17)
    seen: set[str | None] = set()
    for trial in range(300):
        variant = VARIANTS[3 + trial % 4]
        state = LOVAT.new_state(trial, {"players": variant.players})
        for seat in range(variant.players):
            dealt = state.dealt[seat]
            attempts = keep_attempts(state, seat, rng)
            attempts += [tuple(sorted(rng.sample(dealt, rng.randrange(0, len(dealt) + 1)))) for _ in range(4)]
            foreign = [card for card in CARD_IDS if card not in dealt]
            attempts += [(), (dealt[0],), tuple(Named(card) for card in reversed(dealt[:3])), (dealt[0], dealt[0]),
                         tuple(sorted([*rng.sample(foreign, 2), *dealt[:4]]))]
            for attempt in attempts:
                expected = plain_keep_problem(attempt, dealt, variant)
                assert keep_problem(attempt, dealt, variant) == expected, (attempt, dealt)
                seen.add(None if expected is None else next(kind for kind in KINDS if kind in expected))
    assert seen == {None, *KINDS}


def test_the_random_keep_asks_an_rng_of_another_class_for_its_draw() -> None:
    # random_keep draws its ticket inline only for random.Random itself; another class's randrange is asked.
    class Last(random.Random):
        def randrange(self, *args: Any, **kwargs: Any) -> int:
            return int(args[0]) - 1

    variant = VARIANTS[3]
    for seed in range(20):
        hand = LOVAT.new_state(seed, {"players": 3}).dealt[0]
        bounds = (variant.level_sum, variant.min_keep, variant.max_keep)
        assert random_keep(hand, *bounds, Last(1)) == reference_keep(list(hand), *bounds, Last(1))
