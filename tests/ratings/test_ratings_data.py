"""MatchOutcome validation and packing into arrays."""

import numpy as np
import pytest

from arena.ratings.data import FAULT_KINDS, MatchArrays, MatchOutcome, as_arrays, pairwise


def outcome(match_id, agents, ranks, scores=None, block=None, faults=()):
    scores = scores if scores is not None else tuple(-float(r) for r in ranks)
    return MatchOutcome(match_id, block or match_id, tuple(agents), tuple(scores), tuple(ranks), tuple(faults))


def test_arrays_are_sorted_by_match_id_and_padded():
    outcomes = [
        outcome("m2", ["c", "a", "b"], [2, 1, 3], block="x"),
        outcome("m1", ["b", "a"], [1, 2], block="y"),
    ]
    arrays = as_arrays(outcomes)
    assert arrays.match_ids == ("m1", "m2")
    assert arrays.agents == ("a", "b", "c")
    assert arrays.blocks == ("x", "y")
    assert arrays.seat_agent.tolist() == [[1, 0, -1], [2, 0, 1]]
    assert arrays.rank[0, :2].tolist() == [1, 2] and arrays.rank[0, 2] == MatchArrays.PAD_RANK
    assert np.isnan(arrays.score[0, 2])
    assert arrays.block.tolist() == [1, 0]
    assert arrays.seats.tolist() == [2, 3]
    assert arrays.games.tolist() == [2, 2, 1]
    assert not arrays.seat_agent.flags.writeable


def test_faults_are_counted_per_agent_and_kind():
    arrays = as_arrays(
        [
            outcome("m1", ["a", "b"], [1, 2], faults=[(0, "timeout"), (1, "illegal"), (1, "illegal")]),
            outcome("m2", ["b", "a"], [1, 2], faults=[(1, "memory"), (0, "crash"), (0, "exception")]),
        ]
    )
    counts = dict(zip(FAULT_KINDS, arrays.fault_counts[0].tolist()))
    assert counts == {"timeout": 1, "illegal": 0, "exception": 0, "crash": 0, "memory": 1}
    counts = dict(zip(FAULT_KINDS, arrays.fault_counts[1].tolist()))
    assert counts == {"timeout": 0, "illegal": 2, "exception": 1, "crash": 1, "memory": 0}


@pytest.mark.parametrize(
    ("outcomes", "message"),
    [
        ([outcome("m", ["a", "b"], [1, 2]), outcome("m", ["a", "b"], [2, 1])], "appears twice"),
        ([MatchOutcome("m", "b", ("a", "b"), (1.0,), (1, 2))], "one score and one rank per seat"),
        ([outcome("m", ["a"], [1])], "at least two"),
        ([outcome("m", ["a", "a"], [1, 2])], "same agent twice"),
        ([outcome("m", ["a", "b"], [0, 1])], "rank below 1"),
        ([outcome("m", ["a", "b"], [1, 2], scores=[float("nan"), 1.0])], "non-finite score"),
        ([outcome("m", ["a", "b"], [1, 2], faults=[(0, "slow")])], "unknown fault kind"),
        ([outcome("m", ["a", "b"], [1, 2], faults=[(2, "timeout")])], "seats run 0..1"),
    ],
)
def test_bad_outcomes_are_rejected_with_the_match_named(outcomes, message):
    with pytest.raises(ValueError, match=message) as error:
        as_arrays(outcomes)
    assert "'m'" in str(error.value)


def test_pairwise_gives_each_pair_of_seats_once_with_draws_as_half():
    arrays = as_arrays([outcome("m1", ["a", "b", "c"], [2, 1, 2]), outcome("m2", ["c", "a"], [1, 2])])
    pairs = pairwise(arrays)
    found = sorted(
        (arrays.match_ids[m], arrays.agents[f], arrays.agents[s], r)
        for m, f, s, r in zip(pairs.match, pairs.first, pairs.second, pairs.result)
    )
    assert found == [
        ("m1", "a", "b", 0.0),
        ("m1", "a", "c", 0.5),
        ("m1", "b", "c", 1.0),
        ("m2", "c", "a", 1.0),
    ]


def test_arrays_pass_through_and_empty_input():
    arrays = as_arrays([outcome("m1", ["a", "b"], [1, 2])])
    assert as_arrays(arrays) is arrays
    empty = as_arrays([])
    assert empty.n_matches == 0 and empty.agents == ()


def test_packed_matches_remember_the_order_played():
    played = [
        MatchOutcome("m3", "b", ("x", "y"), (1.0, 0.0), (1, 2)),
        MatchOutcome("m1", "b", ("x", "y"), (1.0, 0.0), (1, 2)),
        MatchOutcome("m2", "b", ("x", "y"), (1.0, 0.0), (1, 2)),
    ]
    arrays = as_arrays(played)
    assert arrays.match_ids == ("m1", "m2", "m3")  # canonical order...
    assert arrays.played.tolist() == [1, 2, 0]  # ...and each match's position in the input
