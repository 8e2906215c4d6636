"""Which interval a fit reports: clustered by block with enough blocks, conservative below, and why."""

import random

import pytest

from arena.ratings import design, elo, plackett_luce
from arena.ratings.data import MatchOutcome, as_arrays
from arena.ratings.simulate import simulate_outcomes

TRUTH = {f"a{i}": i / 4 for i in range(6)}


def test_fewest_blocks_counts_distinct_blocks_per_agent():
    outcomes = [
        MatchOutcome("m1", "b1", ("x", "y"), (1.0, 0.0), (1, 2)),
        MatchOutcome("m2", "b1", ("y", "x"), (1.0, 0.0), (1, 2)),
        MatchOutcome("m3", "b2", ("x", "z"), (1.0, 0.0), (1, 2)),
    ]
    arrays = as_arrays(outcomes)
    assert dict(zip(arrays.agents, design.blocks_per_agent(arrays).tolist())) == {"x": 2, "y": 1, "z": 1}
    assert design.fewest_blocks(arrays) == 1


def test_enough_blocks_keep_a_design_effect_below_one():
    arrays = as_arrays(simulate_outcomes(TRUTH, blocks=60, players=4, seed=1, luck=2.0))
    assert design.fewest_blocks(arrays) >= design.CLUSTER_MIN_BLOCKS
    choice = design.choose(arrays, 0.6)
    assert choice.kind == "clustered" and choice.factor == 0.6
    table = elo.fit(simulate_outcomes(TRUTH, blocks=60, players=4, seed=1, luck=2.0))
    assert table.extras["interval_kind"] == "clustered"
    assert table.extras["design_effect"] < 1  # the blocks cancel the luck, and the intervals show it
    assert "clustered by duplicate block" in table.extras["interval_reason"]


def lopsided_field(blocks: int) -> list[MatchOutcome]:
    """Duplicate blocks of one 4-seat table, rotated; performance = skill + the deal's seat luck + noise.

    ``random`` is five noise units below everyone: it finishes last in every match."""
    skills = {"random": 0.0, "greedy": 5.0, "search-20": 6.0, "search-80": 6.3}
    rng = random.Random(3)
    names = list(skills)
    outcomes = []
    for block in range(blocks):
        luck = [rng.gauss(0.0, 1.0) for _ in names]
        for rotation in range(len(names)):
            seats = names[rotation:] + names[:rotation]
            performance = [skills[agent] + luck[seat] + rng.gauss(0.0, 1.0) for seat, agent in enumerate(seats)]
            order = sorted(range(len(seats)), key=lambda seat: -performance[seat])
            ranks = [0] * len(seats)
            for place, seat in enumerate(order):
                ranks[seat] = place + 1
            outcomes.append(MatchOutcome(f"b{block:03d}r{rotation}", f"b{block:03d}", tuple(seats),
                                         tuple(float(-rank) for rank in ranks), tuple(ranks)))
    return outcomes


def test_a_lopsided_field_cannot_shrink_every_interval_below_the_floor():
    """An agent that loses every match barely varies, so the measured design effect collapses (about 0.04 at
    16 blocks here); the clustered factor stops at MIN_DESIGN_EFFECT, and the reason says why."""
    outcomes = lopsided_field(16)
    assert design.choose(as_arrays(outcomes), 0.04).factor == design.MIN_DESIGN_EFFECT
    table = elo.fit(outcomes)
    assert table.extras["measured_design_effect"] < 0.1
    assert table.extras["design_effect"] == design.MIN_DESIGN_EFFECT
    assert "floored at 0.25 (a lopsided field)" in table.extras["interval_reason"]
    hessian = {row.agent: row.upper - row.lower for row in elo.fit(outcomes, intervals="hessian").ratings}
    for row in table.ratings:  # half the model's own width: the square root of the floor
        assert row.upper - row.lower == pytest.approx(0.5 * hessian[row.agent], rel=1e-6)


def test_few_blocks_fall_back_to_a_labelled_conservative_interval():
    outcomes = simulate_outcomes(TRUTH, blocks=6, players=4, seed=2, luck=2.0)
    arrays = as_arrays(outcomes)
    assert design.fewest_blocks(arrays) < design.CLUSTER_MIN_BLOCKS
    assert design.choose(arrays, 0.6).factor == 1.0 and design.choose(arrays, 1.4).factor == 1.4
    for method in (elo, plackett_luce):
        table = method.fit(outcomes)
        assert table.extras["interval_kind"] == "conservative" and table.extras["design_effect"] >= 1
        assert f"played only {design.fewest_blocks(arrays)} blocks" in table.extras["interval_reason"]


@pytest.mark.parametrize("kind", ["hessian", "sandwich", "adjusted"])
def test_named_interval_kinds_are_still_available(kind):
    table = plackett_luce.fit(simulate_outcomes(TRUTH, blocks=10, players=4, seed=3), intervals=kind)
    assert table.extras["intervals"] == kind and all(r.lower < r.rating < r.upper for r in table.ratings)


@pytest.mark.parametrize("method", [elo, plackett_luce])
@pytest.mark.parametrize("blocks", [6, 40])
def test_no_gap_is_narrower_than_its_own_sandwich(method, blocks):
    """One strong agent and three identical weak ones: the field's design effect comes from the strong agent's
    contrasts, and the weak agents' order among themselves is steadied less; each gap's spread is the wider of
    the design effect's and the pair's own sandwich, and every agent's interval at least its sandwich's."""
    outcomes = simulate_outcomes({"strong": 4.0, "w1": 0.0, "w2": 0.0, "w3": 0.0}, blocks=blocks, players=4,
                                 seed=0, luck=1.0, score_step=1.0)
    auto = method.fit(outcomes)
    robust = method.fit(outcomes, intervals="sandwich")
    model = method.fit(outcomes, intervals="hessian")
    factor = auto.extras["design_effect"]
    widened = 0
    for i, a in enumerate(auto.agents):
        width = {t.method: t[a].upper - t[a].lower for t in (auto, robust)}
        assert width[auto.method] >= width[robust.method] * (1 - 1e-9)
        for b in auto.agents[i + 1:]:
            own, field = robust.contrast_sd[robust.index(a)][robust.index(b)], \
                factor**0.5 * model.contrast_sd[model.index(a)][model.index(b)]
            assert auto.contrast_sd[i][auto.index(b)] == pytest.approx(max(own, field), rel=1e-9)
            widened += own > field
    assert auto.extras["pairs_at_floor"] == widened >= 1
    clause = (f"{widened} {'gap' if widened == 1 else 'gaps'} widened to {'its' if widened == 1 else 'their'} own "
              "cluster-robust (sandwich) width, docs/ratings.md")
    assert auto.extras["interval_reason"].endswith(clause)
