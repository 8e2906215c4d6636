"""The ladder's choice of tables and its stopping rule, on standings made by hand."""

from __future__ import annotations

import itertools

from scipy.special import ndtri

from arena.ladder.planner import NEW, QUOTA, UNCERTAIN, choose_tables
from arena.ladder.standing import MARGIN, SETTLED, UNSETTLED, Standing
from arena.ladder.standing import NEW as STATUS_NEW


def standing(ratings: dict[str, float], ahead: dict[tuple[str, str], float], blocks: dict[str, int],
             active: tuple[str, ...] | None = None) -> Standing:
    """A standing whose P(ahead by more than the margin) is given for some ordered pairs of the better rated
    first (through the gap's spread); 0.999 otherwise."""
    names = tuple(active or ratings)
    rated = [name for name in names if name in ratings]
    spread: dict[tuple[str, str], float] = {}
    for a, b in itertools.permutations(rated, 2):
        wanted = ahead.get((a, b), ahead.get((b, a), 0.999))
        spread[a, b] = (abs(ratings[a] - ratings[b]) - MARGIN) / float(ndtri(wanted))
    return Standing(active=names, ratings=ratings, bounds={name: (r - 50, r + 50) for name, r in ratings.items()},
                    games=dict.fromkeys(names, 40), gap_sd=spread, blocks=blocks)


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
    state = standing(FIELD, {("b", "c"): 0.6}, dict.fromkeys(FIELD, 30))
    first = choose(state, count=1)[0]
    assert first.reason == UNCERTAIN and {"b", "c"} <= set(first.entries)
    # An entry that has sat out this run while the others played falls behind its share and is seated first.
    behind = choose(state, count=1, run_blocks={"a": 6, "b": 6, "c": 6, "d": 0}, run_tables=6, fair_share=1.0)[0]
    assert (behind.focus, behind.reason) == ("d", QUOTA)


def test_the_choice_is_a_function_of_the_standing_and_the_seed() -> None:
    state = standing(FIELD, {("a", "b"): 0.7, ("c", "d"): 0.55}, dict.fromkeys(FIELD, 30))
    assert choose(state, count=6) == choose(state, count=6)
    # A newcomer is tied with everyone: which of the field it meets first is the seed's choice.
    fresh = standing(FIELD, {}, dict.fromkeys(FIELD, 30) | {"new": 0}, active=(*FIELD, "new"))
    firsts = {choose(fresh, count=1, seed=seed)[0].entries for seed in range(20)}
    assert len(firsts) > 1, "ties should be broken by the seed"


def test_settled_means_every_neighbour_beyond_the_level_and_enough_blocks() -> None:
    blocks = dict.fromkeys(FIELD, 30)
    close = standing(FIELD, {("b", "c"): 0.94}, blocks)
    assert close.order() == ("a", "b", "c", "d")
    assert [close.status(name, 0.95, 8) for name in close.order()] == [SETTLED, UNSETTLED, UNSETTLED, SETTLED]
    assert not close.settled(0.95, 8)
    clear = standing(FIELD, {("b", "c"): 0.96}, blocks)
    assert clear.settled(0.95, 8)
    assert not standing(FIELD, {("b", "c"): 0.96}, blocks | {"d": 7}).settled(0.95, 8)
    assert standing(FIELD, {}, blocks | {"d": 7}).status("d", 0.95, 8) == STATUS_NEW
    # Ahead by less than the margin: never settled, however sure the order (10 Elo, spread 0.5: P(stronger) 1);
    # surely within the margin, so no block could settle it and the planner looks elsewhere.
    near = Standing(active=("x", "y"), ratings={"x": 1510.0, "y": 1500.0}, bounds={}, games={},
                    gap_sd={("x", "y"): 0.5, ("y", "x"): 0.5}, blocks={"x": 30, "y": 30})
    assert near.p_ahead("x", "y") < 1e-9 and not near.settled(0.95, 8)
    assert near.p_within("x", "y") > 0.999 and near.unsettledness("x", "y") < 0.001
    # Undecided: 15 Elo apart with a spread of 20 is open every way.
    open_pair = Standing(active=("x", "y"), ratings={"x": 1515.0, "y": 1500.0}, bounds={}, games={},
                         gap_sd={("x", "y"): 20.0, ("y", "x"): 20.0}, blocks={"x": 30, "y": 30})
    assert 0.4 < open_pair.unsettledness("x", "y") < 0.5  # 1 - P(within 20 Elo), 0.56
    # An entry without a rating is unsettled against everyone: P(stronger) 1/2.
    fresh = standing(FIELD, {}, blocks | {"e": 9}, active=(*FIELD, "e"))
    assert fresh.order()[-1] == "e" and fresh.status("e", 0.95, 8) == UNSETTLED
