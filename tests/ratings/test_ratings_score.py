"""Mean score per match with block-bootstrap intervals."""

import itertools

import numpy as np
import pytest

from arena.ratings import score
from arena.ratings.data import MatchOutcome, as_arrays
from arena.ratings.simulate import NOISE_MEAN, simulate_outcomes
from arena.ratings.table import RatingTable


def test_mean_score_per_match():
    outcomes = [
        MatchOutcome("m1", "b1", ("a", "b", "c"), (10.0, 4.0, -2.0), (1, 2, 3)),
        MatchOutcome("m2", "b1", ("b", "c", "a"), (6.0, 0.0, 3.0), (1, 3, 2)),
        MatchOutcome("m3", "b2", ("a", "b"), (1.0, 1.0), (1, 1)),
    ]
    table = score.fit(outcomes, bootstrap=200)
    assert table["a"].rating == pytest.approx((10 + 3 + 1) / 3)
    assert table["b"].rating == pytest.approx((4 + 6 + 1) / 3)
    assert table["c"].rating == pytest.approx(-1.0)
    assert [r.games for r in table.ratings] == [3, 3, 2]
    assert table.agents == ("a", "b", "c")


def test_divisor_by_mapping_or_function():
    outcomes = [
        MatchOutcome("m1", "b1", ("a", "b"), (8.0, -8.0), (1, 2)),
        MatchOutcome("m2", "b1", ("b", "a"), (2.0, -2.0), (1, 2)),
    ]
    deals = {"m1": 4, "m2": 2}
    by_mapping = score.fit(outcomes, divisor=deals, bootstrap=50)
    by_function = score.fit(outcomes, divisor=lambda o: deals[o.match_id], bootstrap=50)
    assert by_mapping["a"].rating == pytest.approx((2.0 - 1.0) / 2)
    assert by_mapping == by_function
    with pytest.raises(ValueError, match="no entry for match 'm2'"):
        score.fit(outcomes, divisor={"m1": 4})
    with pytest.raises(ValueError, match="must be positive"):
        score.fit(outcomes, divisor={"m1": 4, "m2": 0})


def test_bootstrap_is_seeded_and_order_independent():
    outcomes = simulate_outcomes({"a": 1.0, "b": 0.0, "c": -1.0}, blocks=20, players=3, seed=1)
    first = score.fit(outcomes, bootstrap=300, seed=5)
    assert first == score.fit(list(reversed(outcomes)), bootstrap=300, seed=5)
    assert first.ratings != score.fit(outcomes, bootstrap=300, seed=6).ratings
    assert all(r.lower < r.rating < r.upper for r in first.ratings)
    p = np.array(first.superiority)
    assert np.allclose(p + p.T, 1.0)


def test_intervals_cover_the_expected_score():
    truth = {f"agent{i}": float(s) for i, s in enumerate(np.linspace(-1.0, 1.0, 6))}
    expected = {a: s + NOISE_MEAN["plackett-luce"] for a, s in truth.items()}
    hits = []
    for rep in range(200):
        table = score.fit(simulate_outcomes(truth, blocks=30, players=4, seed=4000 + rep), bootstrap=400, seed=rep)
        hits += [table[a].lower <= e <= table[a].upper for a, e in expected.items()]
    assert 0.88 <= np.mean(hits) <= 0.99


@pytest.mark.parametrize("replicates", [0, -5, True])
def test_a_bootstrap_needs_at_least_one_replicate(replicates):
    outcomes = simulate_outcomes({"a": 0.0, "b": 1.0}, blocks=2, players=2, seed=1)
    with pytest.raises(ValueError, match=f"bootstrap replicates must be at least 1, got {replicates}"):
        score.fit(outcomes, bootstrap=replicates)


def table_of(blocks: int, scores: tuple[float, ...] = (4.0, 3.0, 1.0, 0.0)) -> RatingTable:
    """Score table of ``blocks`` one-match blocks in which every agent scores the same each time."""
    ranks = (1, 2, 3, 4)
    return score.fit([MatchOutcome(match_id=f"m{i}", block=f"b{i}", agents=("a", "b", "c", "d"), scores=scores,
                                   ranks=ranks, faults=()) for i in range(blocks)])


def test_one_block_gives_no_interval_and_no_verdict():
    """One block: the bootstrap has nothing to resample; a zero-width interval and P = 1 would be false."""
    table = table_of(1)
    assert all(row.lower == -np.inf and row.upper == np.inf for row in table.ratings)
    assert table.probability_stronger("a", "b") == 0.5
    assert table.gap("a", "b") == (1.0, -np.inf, np.inf)
    assert "an agent with one block has no interval" in table.extras["interval_reason"]


def test_two_blocks_give_at_most_the_sign_tests_confidence():
    """Two blocks that agree roughly: Student's t with one degree of freedom would give P near 1."""
    outcomes = [MatchOutcome(match_id=f"m{i}", block=f"b{i}", agents=("a", "b"), scores=scores, ranks=(1, 2),
                             faults=()) for i, scores in enumerate([(10.0, 0.0), (10.5, 0.0)])]
    table = score.fit(outcomes)
    assert table.probability_stronger("a", "b") == 0.75 and table.probability_stronger("b", "a") == 0.25
    assert table.gap("a", "b") == (10.25, -np.inf, np.inf)
    assert "a gap with fewer than 3 behind it at most the sign test's P" in table.extras["interval_reason"]
    three = score.fit([*outcomes, MatchOutcome("m2", "b2", ("a", "b"), (9.5, 0.0), (1, 2), ())])
    assert three.probability_stronger("a", "b") > 0.99 and three.gap("a", "b")[1] > 0


@pytest.mark.parametrize(("blocks", "probability", "excludes_zero"),
                         [(2, 0.75, False), (3, 0.875, False), (5, 0.96875, False), (6, 0.984375, True)])
def test_a_gap_the_same_in_every_block_gets_the_sign_tests_confidence(blocks, probability, excludes_zero):
    table = table_of(blocks)
    assert table.probability_stronger("a", "b") == probability
    assert table.probability_stronger("b", "a") == 1 - probability
    gap, low, high = table.gap("a", "b")
    assert (low > 0) == excludes_zero and gap == 1.0 and high == (1.0 if excludes_zero else np.inf)



def table_block(block: str, agents: tuple[str, ...], scores: tuple[float, ...]) -> list[MatchOutcome]:
    """One duplicate block: every rotation of ``agents``, each seat's score following its agent."""
    outcomes = []
    for r in range(len(agents)):
        seated = agents[r:] + agents[:r]
        points = tuple(scores[agents.index(a)] for a in seated)
        ranks = tuple(1 + sum(q > p for q in points) for p in points)
        outcomes.append(MatchOutcome(f"{block}-r{r}", block, seated, points, ranks))
    return outcomes


def test_mean_scores_are_compared_only_between_agents_that_met_the_same_opposition():
    """Two copies of one agent (x, y): x sat with the weak entry more often, so it scored more; the gap's
    P(stronger) would call them different; it gets no verdict instead, while a balanced pair keeps its."""
    rng = np.random.default_rng(0)
    outcomes = []
    for b in range(12):
        weak_table = ("x", "weak", "p") if b % 3 else ("y", "weak", "p")  # x meets weak in 8 blocks, y in 4
        other = ("y", "q", "p") if b % 3 else ("x", "q", "p")
        for i, agents in enumerate((weak_table, other)):
            scores = tuple(float(rng.normal()) + (-5.0 if a == "weak" else 0.0) for a in agents)
            outcomes += table_block(f"b{b}-{i}", agents, scores)
    apart = score.different_opposition(as_arrays(outcomes))
    agents = list(as_arrays(outcomes).agents)
    assert apart[agents.index("x"), agents.index("y")] and apart[agents.index("y"), agents.index("x")]
    table = score.fit(outcomes)
    assert table["x"].rating > table["y"].rating + 0.5  # the weak entry's points went to whoever sat with it
    assert table.probability_stronger("x", "y") == 0.5 and table.gap("x", "y")[1:] == (-np.inf, np.inf)
    assert "pairs that met different opposition (Elo compares them)" in table.extras["interval_reason"]


def test_a_complete_round_robin_and_a_gauntlets_candidates_meet_the_same_opposition():
    field = ("a", "b", "c", "d", "e")
    robin = [o for i, four in enumerate(itertools.combinations(field, 4))
             for o in table_block(f"t{i}", four, (1.0, 2.0, 3.0, 4.0))]
    assert not score.different_opposition(as_arrays(robin)).any()
    gauntlet = [o for i, candidate in enumerate(("c1", "c2"))
                for o in table_block(f"g{i}", (candidate, "f1", "f2", "f3"), (1.0, 0.0, 0.5, 0.2))]
    arrays = as_arrays(gauntlet)
    apart = score.different_opposition(arrays)
    index = {name: i for i, name in enumerate(arrays.agents)}
    assert not apart[index["c1"], index["c2"]] and not apart[index["f1"], index["f2"]]
    assert apart[index["c1"], index["f1"]]  # a candidate met the field; a field agent met a candidate
