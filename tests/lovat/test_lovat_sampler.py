"""The hidden-state sampler is uniform: exact enumeration of small cases against sampled frequencies."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest
from lovat_helpers import fill_deal, run, script, story
from scipy.stats import chisquare

from arena.games.lovat import GAME
from arena.games.lovat.deck import CARD_IDS, LEVEL
from arena.games.lovat.sampler import hidden_compositions, sample_compositions
from arena.games.lovat.state import VARIANTS, admits_keep

P_MIN = 1e-3  # seeded, so deterministic; a biased sampler gives p-values far below this


def unseen_pool(observation) -> list[str]:
    """Cards the observer has not seen: not its own dealt cards, not played by anyone."""
    shown = {c for record in observation.history for _, c in record[6]} | {c for _, c in observation.plays}
    return [c for c in CARD_IDS if c not in observation.dealt and c not in shown]


def test_a_single_hidden_card_is_uniform_over_the_cards_that_fit() -> None:
    # The story before its last turn: seat 2's last card completes its keep (levels 9 with 3+3+1+1 shown),
    # so from seat 0's view it is any unseen level-1 card, each equally likely.
    state = story(8)
    observation = state.observation(0)
    assert observation.hand_sizes == (1, 0, 1) and state.hands[2] == ["L1-05"]
    cells = sorted(c for c in unseen_pool(observation) if LEVEL[c] == 1)
    mine = sum(1 for c in observation.dealt if LEVEL[c] == 1)
    assert "L1-05" in cells and len(cells) == 40 - mine - 4  # minus seat 0's and the four shown by 1 and 2
    rng = random.Random(1)
    draws = 100 * len(cells)
    counts = Counter(GAME.sample_state(observation, rng).hands[2][0] for _ in range(draws))
    assert set(counts) == set(cells)
    assert chisquare([counts[c] for c in cells]).pvalue > P_MIN


# Seats 1 and 2 each keep 5 cards and show three (two level-2, one level-1) by the start of turn 7:
# each still hides two cards worth 4 levels, a level-1 + level-3 pair or two level-2 cards.
KEEPS = {
    0: ("L1-06", "L1-07", "L1-08", "L1-09", "L1-10", "L1-11", "L1-12", "L1-13", "L1-14"),
    1: ("L1-15", "L1-16", "L2-03", "L2-04", "L3-01"),
    2: ("L1-17", "L1-18", "L2-05", "L2-06", "L3-02"),
}
TURNS = [
    (0, "rufous"), (1, "play"), (2, "pass"), (0, "L1-06"), (1, "L1-16"),
    (1, "rufous"), (2, "pass"), (0, "play"), (1, "L2-03"), (0, "L1-07"),
    (2, "rufous"), (0, "play"), (1, "pass"), (2, "L2-05"), (0, "L1-08"),
    (0, "rufous"), (1, "pass"), (2, "play"), (0, "L1-09"), (2, "L1-18"),
    (1, "rufous"), (2, "pass"), (0, "play"), (1, "L2-04"), (0, "L1-10"),
    (2, "rufous"), (0, "play"), (1, "pass"), (2, "L2-06"), (0, "L1-11"),
]


def composition(cards) -> str:
    return "+".join(str(LEVEL[c]) for c in sorted(cards, key=LEVEL.__getitem__))


def test_level_compositions_follow_the_exact_counts_of_hidden_deals() -> None:
    deal = fill_deal(3, KEEPS)
    state = GAME.new_state(0, {"players": 3}, script=script(2, deal, dice=["phlox"]))
    run(state, sorted(KEEPS.items()))
    run(state, TURNS)
    assert state.turn == 6 and state.hands[1] == ["L1-15", "L3-01"] and state.hands[2] == ["L1-17", "L3-02"]
    observation = state.observation(0)

    # Exact: enumerate every pair of disjoint hidden hands that completes both keeps.
    pool = unseen_pool(observation)
    fits = [pair for pair in combinations(pool, 2) if LEVEL[pair[0]] + LEVEL[pair[1]] == 4]
    exact: Counter[tuple[str, str]] = Counter()
    for first in fits:
        for second in fits:
            if not set(first) & set(second):
                exact[composition(first), composition(second)] += 1
    cells = sorted(exact)
    assert cells == [("1+3", "1+3"), ("1+3", "2+2"), ("2+2", "1+3"), ("2+2", "2+2")]
    total = sum(exact.values())
    probabilities = [exact[cell] / total for cell in cells]

    rng = random.Random(2)
    draws = 4000
    counts: Counter = Counter()
    for _ in range(draws):
        sample = GAME.sample_state(observation, rng)
        counts[composition(sample.hands[1]), composition(sample.hands[2])] += 1
    observed = [counts[cell] for cell in cells]
    fit = chisquare(observed, [p * draws for p in probabilities]).pvalue
    assert fit > P_MIN
    # the test has power: the same counts reject equal weights per composition (what a sampler that
    # ignored the multinomial weights would give)
    assert chisquare(observed).pvalue < P_MIN


def test_sample_compositions_matches_brute_force_weights() -> None:
    # Two seats hiding (2 cards, levels 4) and (3 cards, levels 6), from a pool of 4/4/2 cards per level.
    options = [hidden_compositions(2, 4), hidden_compositions(3, 6)]
    assert sorted(options[1]) == [(0, 3, 0), (1, 1, 1)]
    pool = (4, 4, 2)
    cards = [(level, i) for level, count in zip((1, 2, 3), pool) for i in range(count)]
    exact: Counter = Counter()

    def comp(hand):
        return tuple(sum(1 for level, _ in hand if level == target) for target in (1, 2, 3))

    for first in combinations(cards, 2):
        if sum(level for level, _ in first) == 4:
            for second in combinations([c for c in cards if c not in first], 3):
                if sum(level for level, _ in second) == 6:
                    exact[comp(first), comp(second)] += 1
    rng = random.Random(3)
    draws = 6000
    counts = Counter(tuple(sample_compositions(options, pool, rng)) for _ in range(draws))
    cells = sorted(exact)
    assert set(counts) == set(cells)
    total = sum(exact.values())
    assert chisquare([counts[c] for c in cells], [exact[c] / total * draws for c in cells]).pvalue > P_MIN


def test_face_down_void_discards_are_hidden_and_resampled() -> None:
    # After the story's void turn seat 0 discarded L1-12 face down; from seat 2's view it could be any of
    # seat 0's unseen kept cards, so samples put different cards face down.
    state = story(8)
    observation = state.observation(2)
    rng = random.Random(4)
    discarded: Counter = Counter()
    for _ in range(300):
        sample = GAME.sample_state(observation, rng)
        assert sample.observation(2) == observation
        discarded[sample.face_down[0][0]] += 1
        assert len(sample.hands[0]) == 1 and sample.hands[0][0] not in sample.face_down[0]
    assert len(discarded) > 10


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_keep_phase_samples_deal_only_hands_that_admit_a_keep(players: int) -> None:
    state = GAME.new_state(9, {"players": players})
    observation = state.observation(0)
    rng = random.Random(5)
    seen: Counter = Counter()
    for _ in range(200):
        sample = GAME.sample_state(observation, rng)
        assert sample.observation(0) == observation
        assert sample.to_move() == tuple(range(players))  # other seats' keeps are left to the search
        assert all(admits_keep(hand, VARIANTS[players]) for hand in sample.dealt)
        seen.update(c for hand in sample.dealt[1:] for c in hand)
    assert not set(seen) & set(state.dealt[0])
    assert len(seen) == 80 - VARIANTS[players].dealt  # every unseen card turns up somewhere


def test_keep_phase_sample_applies_the_observers_own_keep() -> None:
    state = GAME.new_state(0, {"players": 3}, script=script(2, fill_deal(3, KEEPS)))
    state.apply(1, KEEPS[1])
    observation = state.observation(1)
    sample = GAME.sample_state(observation, random.Random(6))
    assert sample.keeps[1] == KEEPS[1] and sample.to_move() == (0, 2)
    assert sample.observation(1) == observation


def test_future_dice_come_from_the_given_rng() -> None:
    state = story(5)
    observation = state.observation(0)
    faces = set()
    for seed in range(30):
        sample = GAME.sample_state(observation, random.Random(seed))
        assert sample.observation(0) == observation
        run(sample, [(2, "rufous"), (0, "play"), (1, "pass")])
        run(sample, [(2, sample.hands[2][0]), (0, sample.hands[0][0])])
        faces.add(sample.die)
    assert len(faces) > 1  # turn 7's die is not fixed by the observation
    again = [GAME.sample_state(observation, random.Random(7)).hands for _ in range(2)]
    assert again[0] == again[1]  # the same rng seed gives the same sample
