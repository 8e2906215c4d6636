"""The fast paths of the rating code give the results of the straightforward code they replaced.

The recorded values were computed by the previous implementation (TrueSkill's scalar chain
through per-step helper calls, the bootstrap allocating every chunk afresh) on the same
simulated tournament; the rewritten code reproduced them bit for bit on this machine.  The
tolerance only allows for another platform's ``exp``/``erfc`` rounding.
"""

import numpy as np
import pytest

from arena.ratings import score
from arena.ratings import trueskill as ts
from arena.ratings.bootstrap import multiplicity_chunks
from arena.ratings.data import MatchOutcome, as_arrays
from arena.ratings.simulate import simulate_outcomes

TRUTH = {f"agent{i}": float(s) for i, s in enumerate(np.linspace(-1.5, 1.5, 8))}

TS_MU = [29.68085309186313, 29.52126244419483, 28.084716755419073, 26.64958729466889, 25.23283785530297,
         24.597733065695337, 21.63328116598657, 20.972611714214725]
TS_SIGMA = [0.669817344979954, 0.6667054075142986, 0.6531017821889973, 0.650425338627467, 0.6530965063081525,
            0.6542159321536404, 0.6790921727580062, 0.6815001107732652]
# Recorded when the score's intervals became t intervals over the bootstrap's spread (the
# replicate stream itself is unchanged: test_bootstrap_chunks_do_not_depend_on_the_chunk_size).
SCORE_LOWER = [1.770514803986123, 1.7085429148106859, 1.1513815977303279, 0.5857439456202337,
               0.19216859016552315, -0.24229671752746532, -0.8468894264347178, -0.9980947512080479]
SCORE_UPPER = [2.1393417706423277, 2.0915129241807087, 1.4630476114174316, 0.9306758784901877,
               0.6618981154177122, 0.08782552733853813, -0.4285754372996571, -0.6680476639731484]


def tournament():
    """4-seat matches without ties, then 5-seat matches with many ties (rounded scores)."""
    outcomes = simulate_outcomes(TRUTH, blocks=40, players=4, seed=11)
    with_draws = simulate_outcomes(TRUTH, blocks=40, players=5, seed=12, score_step=1.0)
    return outcomes + [MatchOutcome("d" + o.match_id, "d" + o.block, o.agents, o.scores, o.ranks) for o in with_draws]


def test_trueskill_gives_the_recorded_ratings():
    table = ts.fit(
        tournament(), tau=ts.PACKAGE_TAU, draw_probability=ts.PACKAGE_DRAW_PROBABILITY, intervals="posterior"
    )
    assert [table.extras["mu"][a] for a in table.agents] == pytest.approx(TS_MU, rel=0, abs=1e-11)
    assert [table.extras["sigma"][a] for a in table.agents] == pytest.approx(TS_SIGMA, rel=0, abs=1e-11)


def test_score_gives_the_recorded_intervals():
    table = score.fit(tournament(), bootstrap=150, seed=3)  # 150 replicates: chunks of 64, 64 and 22
    assert [r.lower for r in table.ratings] == pytest.approx(SCORE_LOWER, rel=0, abs=1e-12)
    assert [r.upper for r in table.ratings] == pytest.approx(SCORE_UPPER, rel=0, abs=1e-12)
    # The recorded P(stronger) was 0.6507: the schedule draws four of the eight agents per block, so the two
    # met different opposition, and their mean scores get no verdict.
    assert table.superiority[0][1] == 0.5 and table.contrast_sd[0][1] == np.inf


def test_bootstrap_chunks_do_not_depend_on_the_chunk_size():
    whole = np.vstack([chunk.copy() for chunk in multiplicity_chunks(13, 50, seed=9, chunk=64)])
    pieces = np.vstack([chunk.copy() for chunk in multiplicity_chunks(13, 50, seed=9, chunk=7)])
    assert whole.shape == (50, 13) and np.array_equal(whole, pieces)
    assert np.all(whole.sum(axis=1) == 13)


@pytest.mark.parametrize("players", [(4, 4, 4), (2, 5, 3)])
def test_bad_scores_and_ranks_name_their_match_with_equal_or_mixed_seat_counts(players):
    outcomes = [
        MatchOutcome(f"m{i}", f"b{i}", tuple(f"a{s}" for s in range(n)), tuple(float(s) for s in range(n)),
                     tuple(range(1, n + 1)))
        for i, n in enumerate(players)
    ]
    last = outcomes[-1]
    nan_score = MatchOutcome(last.match_id, last.block, last.agents, (float("nan"),) + last.scores[1:], last.ranks)
    with pytest.raises(ValueError, match="match 'm2' has a non-finite score"):
        as_arrays(outcomes[:-1] + [nan_score])
    zero_rank = MatchOutcome(last.match_id, last.block, last.agents, last.scores, (0,) + last.ranks[1:])
    with pytest.raises(ValueError, match="match 'm2' has a rank below 1"):
        as_arrays(outcomes[:-1] + [zero_rank])


def test_equal_and_mixed_seat_counts_pack_alike():
    uniform = simulate_outcomes(TRUTH, blocks=5, players=3, seed=2)
    mixed = uniform + [MatchOutcome("z", "zb", ("agent0", "agent1"), (1.0, 0.0), (1, 2))]
    a, b = as_arrays(uniform), as_arrays(mixed)
    names_a, names_b = np.array(a.agents)[a.seat_agent], np.array(b.agents)[b.seat_agent[:-1]]
    assert np.array_equal(names_a, names_b)
    assert [b.agents[i] for i in b.seat_agent[-1, :2]] == ["agent0", "agent1"] and b.seat_agent[-1, 2] == -1
    assert np.array_equal(a.rank, b.rank[:-1]) and np.array_equal(a.score, b.score[:-1])
    assert not (a.seat_agent.flags.writeable or a.score.flags.writeable or a.rank.flags.writeable)
