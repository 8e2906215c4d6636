"""Settlement: S-10..S-15 and S-17, through the engine and through the pure settlement functions."""

import pytest
from lorum_helpers import (
    ALL_TOP,
    HEARTS_SPLIT_K0,
    OWNERS_K1,
    OWNERS_K2,
    OWNERS_K3,
    PLAY_ALL_TOP,
    PLAY_K0,
    PLAY_K1,
    PLAY_K2,
    PLAY_K3,
    new_game,
    rotate,
    run,
)

from arena.games.base import GameError
from arena.games.lorum import settle_contract, settle_regular

PASSES = "pass pass pass pass"


def last_settlement(state):
    return [event for event in state.events() if event["type"] == "deal_end"][-1]


# ------------------------------------------------------------------ the regular game through the engine


def test_s11_k0_everyone_scored_pot_carries():
    state = new_game(3, HEARTS_SPLIT_K0)
    run(state, PASSES)
    run(state, PLAY_K0)
    end = last_settlement(state)
    assert end["points"] == [4, 8, 4, 4]
    assert end["tricks"] == [2, 2, 1, 3]
    assert (end["case"], end["changes"], end["pot_before"], end["pot_after"]) == ("pot carried", [-4, -8, -4, -4], 0, 20)
    assert state.balances == [-4, -8, -4, -4] and state.pot == 20


def test_s11_k1_the_only_clean_player_takes_the_whole_pot():
    state = new_game(3, OWNERS_K1)
    run(state, PASSES)
    run(state, PLAY_K1)
    end = last_settlement(state)
    assert end["points"] == [4, 8, 8, 0]
    assert (end["case"], end["changes"], end["pot_after"]) == ("pot won", [-4, -8, -8, 20], 0)


def test_s11_k2_two_clean_players_split_the_pot():
    state = new_game(3, OWNERS_K2)
    run(state, PASSES)
    run(state, PLAY_K2)
    end = last_settlement(state)
    assert end["points"] == [12, 8, 0, 0]
    assert (end["case"], end["changes"], end["pot_after"]) == ("split", [-12, -8, 10, 10], 0)


def test_s12_odd_pot_split_leaves_the_odd_chip_in_the_pot():
    # Pots reached in play from an empty pot are multiples of 20, so seed an odd pot (S-10 kept: the
    # chip came from seat 0's balance).
    state = new_game(3, OWNERS_K2)
    state.pot, state.balances[0] = 1, -1
    run(state, PASSES)
    run(state, PLAY_K2)
    end = last_settlement(state)
    assert (end["case"], end["changes"], end["pot_before"], end["pot_after"]) == ("split", [-12, -8, 10, 10], 1, 1)
    assert state.balances == [-13, -8, 10, 10] and state.pot == 1


def test_s11_k3_all_points_without_all_tricks_stay_in_the_pot():
    state = new_game(3, OWNERS_K3)
    run(state, PASSES)
    run(state, PLAY_K3)
    end = last_settlement(state)
    assert end["points"] == [20, 0, 0, 0] and end["tricks"] == [6, 2, 0, 0]
    assert (end["case"], end["changes"], end["pot_after"]) == ("all points", [-20, 0, 0, 0], 20)


def test_s13_unannounced_big_each_other_pays_ten_pot_untouched():
    state = new_game(3, HEARTS_SPLIT_K0, rotate(ALL_TOP, 1))
    run(state, PASSES)
    run(state, PLAY_K0)  # pot 20
    run(state, PASSES)
    run(state, PLAY_ALL_TOP)  # seat 1 leads and takes every trick
    end = last_settlement(state)
    assert end["points"] == [0, 20, 0, 0] and end["tricks"] == [0, 8, 0, 0]
    assert (end["case"], end["changes"], end["pot_before"], end["pot_after"]) == (
        "unannounced big",
        [-10, 30, -10, -10],
        20,
        20,
    )
    assert state.balances == [-14, 22, -14, -14] and state.pot == 20


# ----------------------------------------------------------------------- S-10: chips and pot carry over


def test_s10_chips_and_pot_carry_across_deals_and_the_pot_is_won_later():
    # Deal 1: k = 0, the pot carries 20.  Deal 2 (dealer 0, seat 1 leads): seat 0 is the only clean player.
    state = new_game(3, HEARTS_SPLIT_K0, rotate(OWNERS_K1, 1))
    run(state, PASSES)
    run(state, PLAY_K0)
    assert (state.balances, state.pot, state.deal, state.dealer) == ([-4, -8, -4, -4], 20, 2, 0)
    run(state, PASSES)
    run(state, PLAY_K1)
    end = last_settlement(state)
    assert end["points"] == [0, 4, 8, 8]
    assert end["changes"] == [40, -4, -8, -8]  # the pot of both deals
    assert state.balances == [36, -12, -12, -12] and state.pot == 0
    result = state.result()
    assert result.scores == (36, -12, -12, -12)
    assert result.ranks == (1, 2, 2, 2)  # S-17: equal balances share the rank
    assert result.details["pot"] == 0


def test_s14_s17_contracts_leave_the_pot_alone_and_a_left_over_pot_is_reported_not_paid():
    state = new_game(3, HEARTS_SPLIT_K0, rotate(ALL_TOP, 1))
    run(state, PASSES)
    run(state, PLAY_K0)
    run(state, "big pass pass pass")  # seat 1 bids big in deal 2
    run(state, PLAY_ALL_TOP)
    end = last_settlement(state)
    assert (end["case"], end["changes"], end["pot_before"], end["pot_after"]) == ("big made", [-20, 60, -20, -20], 20, 20)
    result = state.result()
    assert result.scores == (-24, 52, -24, -24)
    assert sum(result.scores) + result.details["pot"] == 0
    assert result.details["pot"] == 20
    assert result.ranks == (2, 1, 2, 2)
    assert state.events()[-1] == {"type": "game_over", "scores": [-24, 52, -24, -24], "ranks": [2, 1, 2, 2], "pot": 20}


def test_s10_check_is_real():
    state = new_game(3, OWNERS_K1)
    state.balances[2] += 1  # a chip from nowhere
    run(state, PASSES)
    with pytest.raises(AssertionError, match=r"S-10 broken after deal 1: balances \[-4, -8, -7, 20\] \+ pot 0 != 0"):
        run(state, PLAY_K1)


def test_result_before_the_end_is_an_error():
    state = new_game(3, OWNERS_K1)
    with pytest.raises(GameError, match="the game is not over: deal 1 of 1 is in the bid phase"):
        state.result()


# --------------------------------------------------------------------------- the pure settlement rules


@pytest.mark.parametrize(
    ("points", "tricks", "pot", "changes", "pot_after", "case"),
    [
        # S-11 k = 0: everybody pays in, the pot carries.
        ((4, 8, 4, 4), (2, 2, 1, 3), 7, (-4, -8, -4, -4), 27, "pot carried"),
        # k = 1: the clean player takes this deal's 20 and the old 7.
        ((4, 8, 8, 0), (2, 2, 2, 2), 7, (-4, -8, -8, 27), 0, "pot won"),
        # k = 2 with an odd pot (S-12): 27 -> 13 each, 1 stays.
        ((12, 8, 0, 0), (4, 4, 0, 0), 7, (-12, -8, 13, 13), 1, "split"),
        ((0, 12, 0, 8), (0, 4, 1, 3), 0, (10, -12, 10, -8), 0, "split"),
        # k = 3: the 20 go in, nobody wins.
        ((20, 0, 0, 0), (6, 2, 0, 0), 7, (-20, 0, 0, 0), 27, "all points"),
        ((0, 0, 20, 0), (1, 1, 5, 1), 0, (0, 0, -20, 0), 20, "all points"),
        # S-13: all 8 tricks: paid 10 by each other, no points paid, pot untouched.
        ((20, 0, 0, 0), (8, 0, 0, 0), 7, (30, -10, -10, -10), 7, "unannounced big"),
        ((0, 0, 0, 20), (0, 0, 0, 8), 0, (-10, -10, -10, 30), 0, "unannounced big"),
    ],
)
def test_settle_regular(points, tricks, pot, changes, pot_after, case):
    assert settle_regular(points, tricks, pot) == (changes, pot_after, case)
    assert sum(changes) + pot_after == pot  # S-10: chips are conserved


@pytest.mark.parametrize(
    ("contract", "bidder", "tricks", "changes", "case"),
    [
        ("big", 2, (0, 0, 8, 0), (-20, -20, 60, -20), "big made"),
        ("big", 2, (0, 1, 0, 0), (20, 20, -60, 20), "big failed"),  # first trick lost
        ("big", 0, (7, 1, 0, 0), (-60, 20, 20, 20), "big failed"),  # last trick lost
        ("small", 1, (3, 0, 4, 1), (-10, 30, -10, -10), "small made"),
        ("small", 1, (0, 1, 0, 0), (10, -30, 10, 10), "small failed"),
        ("small", 3, (2, 3, 2, 1), (10, 10, 10, -30), "small failed"),
    ],
)
def test_settle_contract(contract, bidder, tricks, changes, case):
    assert settle_contract(contract, bidder, tricks) == (changes, 0, case)
    assert sum(changes) == 0
