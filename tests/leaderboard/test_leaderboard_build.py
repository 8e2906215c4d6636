"""Leaderboard rows, head-to-head records and comparisons."""

import pytest

from arena.leaderboard import build_leaderboard, compare, head_to_head
from arena.ratings import fit
from arena.ratings.data import MatchOutcome
from arena.ratings.simulate import simulate_outcomes

OUTCOMES = [
    MatchOutcome("m1", "b1", ("ann", "bob", "cat"), (10.0, 5.0, 5.0), (1, 2, 2), ((1, "timeout"), (2, "illegal"))),
    MatchOutcome("m2", "b1", ("bob", "cat", "ann"), (7.0, 7.0, 1.0), (1, 1, 3), ((1, "crash"),)),
    MatchOutcome("m3", "b1", ("cat", "ann", "bob"), (0.0, 9.0, 3.0), (3, 1, 2), ((0, "exception"), (0, "memory"))),
    MatchOutcome("m4", "b2", ("ann", "dan"), (4.0, 2.0), (1, 2), ((1, "timeout"), (1, "timeout"))),
]


def test_rows_hold_results_and_faults_beside_the_rating():
    board = build_leaderboard(OUTCOMES, "elo")
    rows = {row.agent: row for row in board.rows}
    assert board.matches == 4 and board.blocks == 2 and board.method == "elo"
    assert rows["ann"].games == 4 and rows["ann"].mean_score == pytest.approx((10 + 1 + 9 + 4) / 4)
    assert rows["ann"].win_share == pytest.approx(3 / 4)
    assert rows["bob"].win_share == pytest.approx(0.5 / 3)  # the first place bob and cat shared in m2: half each
    assert rows["cat"].win_share == pytest.approx(0.5 / 3)
    assert sum(row.win_share * row.games for row in board.rows) == pytest.approx(len(OUTCOMES))  # one a match
    assert (rows["bob"].timeouts, rows["bob"].illegal, rows["bob"].crashes) == (1, 0, 0)
    assert (rows["cat"].illegal, rows["cat"].crashes, rows["cat"].exceptions, rows["cat"].memory) == (1, 1, 1, 1)
    assert rows["dan"].timeouts == 2 and rows["dan"].faults == 2
    assert rows["ann"].faults == 0


def test_rows_follow_the_method_and_ranks_share_ties():
    outcomes = simulate_outcomes({"a": 1.0, "b": 0.0, "c": -1.0}, blocks=15, players=3, seed=3)
    for method in ("elo", "plackett-luce", "trueskill", "score"):
        board = build_leaderboard(outcomes, method, **({"bootstrap": 100} if method == "score" else {}))
        table = fit(outcomes, method, **({"bootstrap": 100} if method == "score" else {}))
        assert board.agents == table.agents
        assert [row.rating for row in board.rows] == [r.rating for r in table.ratings]
        assert [row.rank for row in board.rows] == [1, 2, 3]
    level = [MatchOutcome(f"m{i}", f"b{i}", ("x", "y"), (0.0, 0.0), (1, 1)) for i in range(4)]
    assert [row.rank for row in build_leaderboard(level, "elo").rows] == [1, 1]


def test_options_reach_the_method():
    board = build_leaderboard(OUTCOMES, "elo", anchor_agent="dan", anchor_rating=0.0, intervals="hessian")
    assert {row.agent: row for row in board.rows}["dan"].rating == pytest.approx(0.0)
    board = build_leaderboard(OUTCOMES, "score", divisor=lambda o: len(o.agents), bootstrap=50)
    assert {row.agent: row for row in board.rows}["dan"].rating == pytest.approx(1.0)


def test_head_to_head_counts_deals_with_the_rotations_as_detail():
    table = head_to_head(OUTCOMES)
    assert table.agents == ("ann", "bob", "cat", "dan")
    i = {a: k for k, a in enumerate(table.agents)}
    # b1 is one deal in three rotations: one result per pair, not three.
    assert table.games[i["ann"]][i["bob"]] == 1 and table.games[i["bob"]][i["ann"]] == 1
    assert table.matches[i["ann"]][i["bob"]] == 3
    assert table.share[i["ann"]][i["bob"]] == 1.0  # ahead in two rotations of three: ann won the deal
    assert table.match_share[i["ann"]][i["bob"]] == pytest.approx(2 / 3)
    assert table.share[i["bob"]][i["cat"]] == 1.0  # two tied rotations and one win
    assert table.match_share[i["bob"]][i["cat"]] == pytest.approx((0.5 + 0.5 + 1) / 3)
    assert table.match_share[i["cat"]][i["bob"]] == pytest.approx(1 - (0.5 + 0.5 + 1) / 3)
    assert table.games[i["bob"]][i["dan"]] == 0 and table.share[i["bob"]][i["dan"]] is None
    assert table.games[i["ann"]][i["ann"]] == 0 and table.share[i["ann"]][i["ann"]] is None
    reordered = table.reordered(("dan", "cat", "bob", "ann"))
    assert reordered.share[2][1] == table.share[i["bob"]][i["cat"]]
    assert reordered.matches[3][2] == table.matches[i["ann"]][i["bob"]]


def test_a_deal_split_evenly_is_a_drawn_deal():
    split = [
        MatchOutcome("m1", "b1", ("ann", "bob"), (1.0, 0.0), (1, 2)),
        MatchOutcome("m2", "b1", ("bob", "ann"), (1.0, 0.0), (1, 2)),
        MatchOutcome("m3", "b2", ("ann", "bob"), (1.0, 0.0), (1, 2)),
        MatchOutcome("m4", "b2", ("bob", "ann"), (0.0, 1.0), (2, 1)),
    ]
    table = head_to_head(split)
    assert table.games[0][1] == 2 and table.share[0][1] == pytest.approx((0.5 + 1) / 2)
    comparison = compare(split, "ann", "bob", "elo")
    assert (comparison.games, comparison.wins, comparison.draws, comparison.losses) == (2, 1, 1, 0)
    assert (comparison.matches, comparison.match_wins, comparison.match_losses) == (4, 3, 1)


def test_compare_gives_the_record_and_the_probability():
    comparison = compare(OUTCOMES, "bob", "cat", "elo")
    assert (comparison.games, comparison.wins, comparison.draws, comparison.losses) == (1, 1, 0, 0)  # one deal
    assert (comparison.matches, comparison.match_wins, comparison.match_draws, comparison.match_losses) == (3, 1, 2, 0)
    assert comparison.score == 1.0
    table = fit(OUTCOMES, "elo")
    assert comparison.probability_a_stronger == pytest.approx(table.probability_stronger("bob", "cat"))
    gap, low, high = table.gap("bob", "cat")
    assert (comparison.gap, comparison.gap_lower, comparison.gap_upper) == (gap, low, high)
    assert gap == pytest.approx(table["bob"].rating - table["cat"].rating) and low < gap < high
    assert comparison.rating_a == table["bob"]
    reverse = compare(OUTCOMES, "cat", "bob", "elo")
    assert reverse.probability_a_stronger == pytest.approx(1 - comparison.probability_a_stronger)
    assert compare(OUTCOMES, "bob", "dan", "trueskill").games == 0
    with pytest.raises(ValueError, match="'eve' played no match"):
        compare(OUTCOMES, "ann", "eve")
    with pytest.raises(ValueError, match="two different agents"):
        compare(OUTCOMES, "ann", "ann")
