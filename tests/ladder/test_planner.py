"""The ladder's choice of tables and its stopping rule, on standings made by hand."""

from __future__ import annotations

import dataclasses
import itertools

from arena.ladder.planner import NEW, QUOTA, UNCERTAIN, choose_tables
from arena.ladder.standing import (
    AHEAD,
    BEHIND,
    LEVEL,
    SETTLED,
    UNSETTLED,
    Standing,
    gap_verdict,
    keep_verdicts,
    wald_bounds,
)
from arena.ladder.standing import NEW as STATUS_NEW


def standing(ratings: dict[str, float], spreads: dict[tuple[str, str], float], blocks: dict[str, int],
             active: tuple[str, ...] | None = None) -> Standing:
    """A standing whose gaps have the given spreads (Elo) for some pairs, and 5 otherwise (every test decided)."""
    names = tuple(active or ratings)
    rated = [name for name in names if name in ratings]
    spread = {(a, b): spreads.get((a, b), spreads.get((b, a), 5.0)) for a, b in itertools.permutations(rated, 2)}
    return Standing(active=names, ratings=ratings, bounds={name: (r - 50, r + 50) for name, r in ratings.items()},
                    games=dict.fromkeys(names, 40), gap_sd=spread, blocks=blocks)


def pair(gap: float, spread: float) -> Standing:
    """Two entries ``gap`` Elo apart, the gap's spread ``spread``."""
    return Standing(active=("x", "y"), ratings={"x": 1500.0 + gap, "y": 1500.0}, bounds={}, games={},
                    gap_sd={("x", "y"): spread, ("y", "x"): spread}, blocks={"x": 30, "y": 30})


FIELD = {"a": 1700.0, "b": 1600.0, "c": 1500.0, "d": 1400.0}


def choose(state: Standing, count: int = 4, **overrides: object) -> list:
    options: dict = dict(seed=3, batch=1, run_blocks={}, run_tables=0, meetings={}, fair_share=0.25, min_blocks=8)
    options.update(overrides)
    return choose_tables(state, 3, count, **options)


def test_a_newcomer_sits_at_every_table_until_it_has_its_blocks() -> None:
    state = standing(FIELD, {}, dict.fromkeys(FIELD, 30) | {"new": 0}, active=(*FIELD, "new"))
    choices = choose(state, count=8)
    assert all("new" in choice.entries for choice in choices)
    assert [choice.reason for choice in choices] == [NEW] * 8
    # No rating yet: every entry is equally uncertain against it, so its tables spread over the whole field.
    met = {name: sum(name in choice.entries for choice in choices) for name in FIELD}
    assert max(met.values()) - min(met.values()) <= 1, met


def test_an_open_rank_draws_its_neighbour_and_a_settled_field_keeps_playing_by_quota() -> None:
    state = standing(FIELD, {("b", "c"): 60.0}, dict.fromkeys(FIELD, 30))
    first = choose(state, count=1)[0]
    assert first.reason == UNCERTAIN and {"b", "c"} <= set(first.entries)
    # An entry that has sat out this run while the others played falls behind its share and is seated first.
    behind = choose(state, count=1, run_blocks={"a": 6, "b": 6, "c": 6, "d": 0}, run_tables=6, fair_share=1.0)[0]
    assert (behind.focus, behind.reason) == ("d", QUOTA)


def test_the_choice_is_a_function_of_the_standing_and_the_seed() -> None:
    state = standing(FIELD, {("a", "b"): 50.0, ("c", "d"): 70.0}, dict.fromkeys(FIELD, 30))
    assert choose(state, count=6) == choose(state, count=6)
    # A newcomer is tied with everyone: which of the field it meets first is the seed's choice.
    fresh = standing(FIELD, {}, dict.fromkeys(FIELD, 30) | {"new": 0}, active=(*FIELD, "new"))
    firsts = {choose(fresh, count=1, seed=seed)[0].entries for seed in range(20)}
    assert len(firsts) > 1, "ties should be broken by the seed"


def test_a_pairs_verdict_is_a_sequential_test_of_a_gap_against_none() -> None:
    upper, lower = wald_bounds(0.95)
    assert (round(upper, 4), round(lower, 4)) == (3.6889, -2.9704)  # log(1 / 0.025), log(0.05 / 0.975)
    # Mostly the ratio for 40 Elo, (g 40 - 800) / s^2: 87 Elo apart with a spread of 25 gives 4.29, over the bound.
    assert pair(87.0, 25.0).verdict("x", "y", 0.95) == AHEAD
    assert pair(87.0, 25.0).verdict("y", "x", 0.95) == BEHIND
    assert pair(87.0, 30.0).verdict("x", "y", 0.95) is None  # 2.98 (and the larger gaps' little weight): open
    assert pair(87.0, 30.0).verdict("x", "y", 0.85) == AHEAD  # level 0.85: bound log(1 / 0.075) = 2.59
    # Far apart, the larger gaps of the mixture order the pair long before the ratio for 40 Elo could (0.88 here).
    assert pair(900.0, 200.0).verdict("x", "y", 0.95) == AHEAD
    # Level: neither 40 Elo ahead nor behind is likely (both ratios -3.0 or lower); a wide spread says nothing yet.
    assert pair(5.0, 10.0).verdict("x", "y", 0.95) == LEVEL
    assert pair(5.0, 30.0).verdict("x", "y", 0.95) is None
    assert pair(5.0, 30.0).progress("x", "y", 0.95) < pair(5.0, 20.0).progress("x", "y", 0.95) < 1.0
    assert pair(5.0, 10.0).progress("x", "y", 0.95) == 1.0 and pair(5.0, 10.0).unsettledness("x", "y", 0.95) == 0.0
    # Either entry without a rating, or a gap without a finite spread: nothing to test.
    assert pair(87.0, float("inf")).verdict("x", "y", 0.95) is None


def test_settled_means_a_verdict_with_every_neighbour_and_enough_blocks() -> None:
    blocks = dict.fromkeys(FIELD, 30)
    close = standing(FIELD, {("b", "c"): 60.0}, blocks)
    assert close.order() == ("a", "b", "c", "d")
    assert [close.status(name, 0.95, 8) for name in close.order()] == [SETTLED, UNSETTLED, UNSETTLED, SETTLED]
    assert not close.settled(0.95, 8)
    assert close.confidence("b", 0.95) < 1.0 and close.confidence("a", 0.95) == 1.0
    clear = standing(FIELD, {("b", "c"): 20.0}, blocks)
    assert clear.settled(0.95, 8)
    assert not standing(FIELD, {("b", "c"): 20.0}, blocks | {"d": 7}).settled(0.95, 8)
    assert standing(FIELD, {}, blocks | {"d": 7}).status("d", 0.95, 8) == STATUS_NEW
    # Two entries surely within 40 Elo of each other are settled as level: the ladder does not play on for
    # an order that only luck could give them.
    twins = standing({"a": 1600.0, "b": 1502.0, "c": 1500.0}, {("b", "c"): 8.0}, dict.fromkeys("abc", 30))
    assert twins.verdict("b", "c", 0.95) == LEVEL and twins.settled(0.95, 8)
    # An entry without a rating is unsettled against everyone.
    fresh = standing(FIELD, {}, blocks | {"e": 9}, active=(*FIELD, "e"))
    assert fresh.order()[-1] == "e" and fresh.status("e", 0.95, 8) == UNSETTLED


def test_a_batch_goes_to_the_open_pair_and_not_to_pairs_already_decided() -> None:
    # Only b-c is open: every table of the batch seats both (the table that narrows their gap most), and none
    # is spent on a-b-d or a-c-d-like tables that leave the open pair apart.
    state = standing(FIELD, {("b", "c"): 60.0}, dict.fromkeys(FIELD, 30))
    meetings = {pair: 10 for pair in itertools.combinations(sorted(FIELD), 2)}
    choices = choose(state, count=4, meetings=meetings, fair_share=0.0)
    assert all({"b", "c"} <= set(choice.entries) for choice in choices), choices
    assert all(choice.reason == UNCERTAIN and choice.focus in ("b", "c") for choice in choices)
    # Once its verdict is kept (reached at an earlier look), the same open spread no longer draws it: the
    # batch goes to the pair that is open now.
    decided = dataclasses.replace(standing(FIELD, {("b", "c"): 60.0, ("c", "d"): 60.0}, dict.fromkeys(FIELD, 30)),
                                  reached={("b", "c"): AHEAD})
    choices = choose(decided, count=4, meetings=meetings, fair_share=0.0)
    assert all({"c", "d"} <= set(choice.entries) for choice in choices), choices


def test_a_verdict_is_kept_from_the_look_that_reaches_it_while_the_order_agrees() -> None:
    blocks = dict.fromkeys(FIELD, 30)
    reached = keep_verdicts(standing(FIELD, {("b", "c"): 20.0}, blocks), 0.95, 8)
    assert reached.reached[("b", "c")] == AHEAD and reached.settled(0.95, 8)
    # Later matches widen the gap's spread (another pair's data moved the fit): the pair stays decided.
    later = dataclasses.replace(standing(FIELD, {("b", "c"): 60.0}, blocks), reached=reached.reached)
    assert later.test("b", "c", 0.95) is None
    assert later.verdict("b", "c", 0.95) == AHEAD and later.verdict("c", "b", 0.95) == BEHIND
    assert later.unsettledness("b", "c", 0.95) == 0.0 and later.settled(0.95, 8)
    # The ratings now put c above b: the kept order is contradicted, so the pair is tested afresh (open).
    swapped = dataclasses.replace(standing(FIELD | {"b": 1490.0}, {("b", "c"): 60.0}, blocks),
                                  reached=reached.reached)
    assert swapped.order()[1:3] == ("c", "b") and swapped.verdict("b", "c", 0.95) is None
    assert not swapped.settled(0.95, 8)
    # Nothing is kept before both entries have min_blocks blocks (their intervals are only conservative then).
    early = keep_verdicts(standing(FIELD, {("b", "c"): 20.0}, blocks | {"c": 7}), 0.95, 8)
    assert ("b", "c") not in early.reached and ("a", "b") in early.reached


def test_a_large_field_builds_its_tables_seat_by_seat_around_the_open_pair() -> None:
    # 30 entries at 6 seats have 593,775 possible tables: too many to weigh each, so the table grows from the
    # pair a block of its own would narrow most (the only open one here), seat by seat.
    field = {f"e{i:02d}": 1500.0 - 100.0 * i for i in range(30)}
    state = standing(field, {("e11", "e12"): 60.0}, dict.fromkeys(field, 30))
    choices = choose_tables(state, 6, 4, seed=3, batch=1, run_blocks={}, run_tables=0, meetings={},
                            fair_share=0.0, min_blocks=8)
    assert all({"e11", "e12"} <= set(choice.entries) and len(set(choice.entries)) == 6 for choice in choices)


def test_a_wide_gap_is_ordered_only_once_its_spread_is_a_quarter_of_what_one_look_would_ask() -> None:
    # The simulated field 260 Elo apart measures gaps of about 200 (the seat luck narrows them): the test orders
    # such a pair at a spread of 53 Elo and not at 54, where the one-look rule before it (P(ahead by more than
    # 20) >= 0.95) took 109.  That is why a wide field settles in about twice the matches it did then.
    assert gap_verdict(200.0, 53.0, 0.95) == AHEAD and gap_verdict(-200.0, 53.0, 0.95) == BEHIND
    assert gap_verdict(200.0, 54.0, 0.95) is None
    assert gap_verdict(200.0, 53.0, 0.95) == pair(200.0, 53.0).test("x", "y", 0.95)


def test_a_batch_stops_once_its_tables_are_forecast_to_decide_every_open_pair() -> None:
    # Only b-c is open, 100 Elo apart with a spread of 32 (its test needs 30): one more block seating both is
    # forecast to order them, so the batch is that block and the field is fitted again before any more is played.
    meetings = {pair: 5 for pair in itertools.combinations(sorted(FIELD), 2)}
    near = standing(FIELD, {("b", "c"): 32.0}, dict.fromkeys(FIELD, 30))
    assert near.test("b", "c", 0.95) is None
    choices = choose(near, count=4, meetings=meetings, fair_share=0.0)
    assert len(choices) == 1 and {"b", "c"} <= set(choices[0].entries), choices
    # A spread of 40 needs more than the batch: all four blocks are played.
    far = standing(FIELD, {("b", "c"): 40.0}, dict.fromkeys(FIELD, 30))
    assert len(choose(far, count=4, meetings=meetings, fair_share=0.0)) == 4
    # Nothing is settled while an entry lacks its min_blocks: d, 3 blocks short, sits at the batch's tables (with
    # b and c) until it has them, and only then is the batch cut.
    young = standing(FIELD, {("b", "c"): 32.0}, dict.fromkeys(FIELD, 30) | {"d": 5})
    choices = choose(young, count=4, meetings=meetings, fair_share=0.0)
    assert [set(choice.entries) for choice in choices] == [{"b", "c", "d"}] * 3, choices
    # A settled field (no pair open) plays whole batches where it learns most (a run of --matches N).
    settled = standing(FIELD, {}, dict.fromkeys(FIELD, 30))
    assert settled.settled(0.95, 8) and len(choose(settled, count=4, meetings=meetings, fair_share=0.0)) == 4
