"""One scenario per ruling S-1..S-8, S-14..S-16, with hand-built deals and explicit actions."""

import random

import pytest
from lorum_helpers import (
    ALL_BOTTOM,
    ALL_TOP,
    BIG_LAST,
    HEARTS_SPLIT_K0,
    OWNERS_K1,
    PLAY_ALL_TOP,
    PLAY_K1,
    SUITED,
    deal_from,
    new_game,
    rotate,
    run,
    script,
)

from arena.games.base import IllegalAction, InvalidSetup
from arena.games.lorum import DECK, GAME
from arena.games.lorum.cards import mask_of


def types(state):
    return [event["type"] for event in state.events()]


# ---------------------------------------------------------------- S-1, S-2, S-3, S-19: setup and RNG order


def test_s2_s3_s19_seeded_dealer_and_deal_follow_the_documented_rng_order():
    seed = 2024
    state = GAME.new_state(seed)
    rng = random.Random(seed)
    dealer = rng.randrange(4)  # (1) S-2: first dealer
    deck = list(DECK)
    rng.shuffle(deck)  # (2) the first deal
    hands = [[] for _ in range(4)]
    for batch in range(2):  # S-3: batches of 4 from the dealer's next player
        for step in range(1, 5):
            seat = (dealer + step) % 4
            start = 16 * batch + 4 * (step - 1)
            hands[seat] += deck[start : start + 4]
    assert state.dealer == dealer
    assert state.chance.log[0] == {"kind": "dealer", "value": dealer}
    assert state.chance.log[1]["kind"] == "deal"
    for seat in range(4):
        assert set(state.hand_names(seat)) == set(hands[seat])
        assert sorted(state.chance.log[1]["value"][seat]) == sorted(hands[seat])


def test_s2_scripted_dealer_and_s1_first_bidder_is_the_dealers_next():
    state = new_game(1, OWNERS_K1)
    assert state.dealer == 1
    assert state.to_move() == (2,)
    assert state.events()[0] == {"type": "deal_start", "deal": 1, "deals": 1, "dealer": 1, "first_bidder": 2}


def test_s1_dealer_passes_to_the_next_player_each_deal():
    state = GAME.new_state(7, {"deals": 6}, script=[{"kind": "dealer", "value": 2}])
    rng = random.Random(1)
    while not state.is_over():
        (seat,) = state.to_move()
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    dealers = [event["dealer"] for event in state.events() if event["type"] == "deal_start"]
    assert dealers == [2, 3, 0, 1, 2, 3]
    assert [event["deal"] for event in state.events() if event["type"] == "deal_end"] == [1, 2, 3, 4, 5, 6]


def test_scripted_deal_is_validated_with_one_line_errors():
    good = deal_from(OWNERS_K1)
    bad_count = [good[0][:7], good[1], good[2], good[3] + good[0][7:]]
    with pytest.raises(InvalidSetup, match="seat 0 holds 7 cards, not 8: "):
        GAME.new_state(1, script=[{"kind": "dealer", "value": 0}, {"kind": "deal", "value": bad_count}])
    dup = [good[0][:7] + [good[1][0]], good[1], good[2], good[3]]
    with pytest.raises(InvalidSetup, match=r"card Og is dealt twice|is dealt twice"):
        GAME.new_state(1, script=[{"kind": "dealer", "value": 0}, {"kind": "deal", "value": dup}])
    unknown = [good[0][:7] + ["Xz"], good[1], good[2], good[3]]
    with pytest.raises(InvalidSetup, match="unknown card 'Xz'"):
        GAME.new_state(1, script=[{"kind": "dealer", "value": 0}, {"kind": "deal", "value": unknown}])
    with pytest.raises(InvalidSetup, match="list of 4 hands"):
        GAME.new_state(1, script=[{"kind": "dealer", "value": 0}, {"kind": "deal", "value": good[:3]}])
    with pytest.raises(InvalidSetup, match=r"scripted dealer must be a seat 0..3, not 4"):
        GAME.new_state(1, script=[{"kind": "dealer", "value": 4}])
    with pytest.raises(InvalidSetup, match="should be 'dealer'"):
        GAME.new_state(1, script=[{"kind": "deal", "value": good}])
    for error in (bad_count, dup, unknown):
        try:
            GAME.new_state(1, script=[{"kind": "dealer", "value": 0}, {"kind": "deal", "value": error}])
        except InvalidSetup as exc:
            assert "\n" not in str(exc)


def test_wrong_player_count_rejected():
    for players in (2, 3, 5, 6):
        with pytest.raises(InvalidSetup, match=f"Slovak Lorum is played by 4 players, not {players}"):
            GAME.new_state(1, {"players": players})
    with pytest.raises(InvalidSetup, match="'deals' must be an integer >= 1, not 0"):
        GAME.new_state(1, {"deals": 0})
    with pytest.raises(InvalidSetup, match="unknown Slovak Lorum option 'trumps'"):
        GAME.new_state(1, {"trumps": "h"})


# ---------------------------------------------------------------------------------- S-4, S-5: bidding


def test_s4_bidding_order_is_one_circuit_from_the_dealers_next_to_the_dealer():
    state = new_game(1, OWNERS_K1)
    seen = []
    for _ in range(4):
        (seat,) = state.to_move()
        seen.append(seat)
        state.apply(seat, "pass")
    assert seen == [2, 3, 0, 1]
    assert state.phase == "play"


def test_s5_all_pass_regular_game_led_by_the_dealers_next():
    state = new_game(1, rotate(OWNERS_K1, 2))
    run(state, "pass pass pass pass")
    assert (state.contract, state.bidder, state.leader, state.to_move()) == ("regular", None, 2, (2,))
    assert state.events()[-1] == {"type": "contract", "deal": 1, "contract": "regular", "bidder": None, "leader": 2}


def test_s4_s5_small_bidder_leads():
    state = new_game(3, OWNERS_K1)
    run(state, "pass pass small pass")
    assert (state.contract, state.bidder, state.to_move()) == ("small", 2, (2,))


def test_s4_big_overcalls_small_and_the_big_bidder_leads():
    state = new_game(3, OWNERS_K1)
    run(state, "small")
    assert state.legal_actions(1) == ("pass", "big")
    run(state, "big pass pass")
    assert (state.contract, state.bidder, state.leader) == ("big", 1, 1)


def test_s4_second_small_is_illegal():
    state = new_game(3, OWNERS_K1)
    run(state, "small pass")
    with pytest.raises(IllegalAction, match=r"seat 2 cannot call 'small'.*a second small is illegal \(S-4\)"):
        state.apply(2, "small")
    assert not state.is_legal(2, "small")


def test_s4_only_pass_after_big():
    state = new_game(3, OWNERS_K1)
    run(state, "pass big")
    assert state.legal_actions(2) == ("pass",)
    for call in ("small", "big"):
        with pytest.raises(IllegalAction, match=r"after big only pass is legal \(S-4\); legal calls: pass"):
            state.apply(2, call)
    run(state, "pass pass")
    assert (state.contract, state.bidder) == ("big", 1)


def test_a_seat_that_is_not_an_integer_is_no_seat_even_where_it_equals_one():
    state = new_game(3, OWNERS_K1)
    state.apply(0, "pass")  # seat 1 to bid: True and 1.0 compare equal to 1, but neither is a seat
    for seat in (True, 1.0):
        with pytest.raises(IllegalAction, match=rf"seat {seat!r} does not exist: Lorum has seats 0..3"):
            state.apply(seat, "pass")
    state.apply(1, "pass")


def test_bad_call_and_out_of_turn_are_illegal_with_clear_messages():
    state = new_game(3, OWNERS_K1)
    with pytest.raises(IllegalAction, match=r"seat 1 acted \('pass'\) out of turn: seat 0 is to bid in deal 1"):
        state.apply(1, "pass")
    with pytest.raises(IllegalAction, match="seat 0 cannot call 'double'"):
        state.apply(0, "double")
    with pytest.raises(IllegalAction, match="cannot call 'Aa'"):
        state.apply(0, "Aa")
    assert state.legal_actions(1) == ()
    assert not state.is_legal(1, "pass")


# ---------------------------------------------------------------------------------- S-6, S-7: tricks


def test_s6_follow_suit_is_enforced():
    state = new_game(3, OWNERS_K1)
    run(state, "pass pass pass pass Aa")
    assert state.legal_actions(1) == ("Oa", "Ua")
    with pytest.raises(IllegalAction, match=r"seat 1 played Ag but must follow acorns \(S-6\) with one of Oa Ua"):
        state.apply(1, "Ag")
    with pytest.raises(IllegalAction, match="seat 1 played Ka, which is not in its hand"):
        state.apply(1, "Ka")
    with pytest.raises(IllegalAction, match="seat 1 played 'Zz', which is not a card name"):
        state.apply(1, "Zz")
    with pytest.raises(IllegalAction, match=r"seat 2 acted \('10a'\) out of turn: seat 1 is to play a card"):
        state.apply(2, "10a")


def test_s6_void_may_play_any_card_and_the_highest_led_suit_card_wins():
    bells_first = rotate(SUITED, 1)  # seat 0 holds the bells, seat 1 the acorns, seat 2 green, seat 3 hearts
    state = new_game(3, bells_first)
    run(state, "pass pass pass pass 7b")
    assert set(state.legal_actions(1)) == set(deal_from(bells_first)[1])  # void in bells: any card
    run(state, "Aa Ag Ah")  # aces of other suits do not win: no trumps (S-6)
    assert state.events()[-1]["type"] == "trick_won"
    assert state.events()[-1]["seat"] == 0
    assert state.events()[-1]["points"] == 1
    assert state.to_move() == (0,)  # the winner leads next


def test_s6_winner_leads_next_and_s7_any_card_may_be_led_including_hearts():
    state = new_game(3, OWNERS_K1)
    run(state, "pass pass pass pass")
    assert set(state.legal_actions(0)) == set(deal_from(OWNERS_K1)[0])  # S-7: any card led
    run(state, "10h 8h Ah Oh")
    assert state.events()[-1] == {
        "type": "trick_won",
        "deal": 1,
        "trick": 1,
        "seat": 2,
        "points": 4,
        "cards": [[0, "10h"], [1, "8h"], [2, "Ah"], [3, "Oh"]],
    }
    assert state.to_move() == (2,)
    assert state.points == [0, 0, 4, 0] and state.tricks_won == [0, 0, 1, 0]


# ------------------------------------------------------------------------------ S-8: must beat (small)


def test_s8_must_beat_when_able_for_an_opponent():
    state = new_game(3, HEARTS_SPLIT_K0)
    run(state, "pass small pass pass 9h")  # seat 1 bids small and leads the heart nine
    assert state.legal_actions(2) == ("Ah",)  # holds Ah and 7h: must beat 9h
    with pytest.raises(IllegalAction, match=r"seat 2 played 7h but must beat 9h in the small game \(S-8\) with one of Ah"):
        state.apply(2, "7h")
    run(state, "Ah")
    # S-8 when unable: seat 3 holds Kh 8h, nothing beats Ah: any heart, the lower one included.
    assert state.legal_actions(3) == ("Kh", "8h")
    run(state, "8h")
    assert state.legal_actions(0) == ("Oh", "Uh")
    run(state, "Uh")
    assert state.events()[-1]["seat"] == 2


def test_s8_applies_to_the_bidder_too():
    state = new_game(3, OWNERS_K1)
    run(state, "small pass pass pass 8g Kg Ug 10g")  # seat 1 wins with Kg and leads
    assert state.to_move() == (1,)
    run(state, "Oa 10a 8a")  # nobody can beat the Ober below seat 0
    assert state.legal_actions(0) == ("Aa", "Ka")  # the bidder must beat Oa too
    with pytest.raises(IllegalAction):
        state.apply(0, "8g")  # not even a void discard: seat 0 holds acorns


def test_s8_void_follower_may_play_any_card_in_the_small_game():
    state = new_game(3, SUITED)
    run(state, "small pass pass pass 7a")
    assert set(state.legal_actions(1)) == set(deal_from(SUITED)[1])


def test_s8_must_beat_is_for_the_small_game_only():
    state = new_game(3, HEARTS_SPLIT_K0)
    run(state, "pass pass pass pass 8g Ag Og 10g Kg Ug 9g 7g 10h")  # seat 1 leads the heart ten
    assert state.legal_actions(2) == ("Ah", "7h")  # regular game: no duty to beat


# --------------------------------------------------------------------------- S-14, S-15 early ends


def test_s14_big_fails_on_the_first_trick_and_the_deal_ends_at_once():
    state = new_game(3, OWNERS_K1, OWNERS_K1, deals=2)
    run(state, "big pass pass pass 8g Ag Og 10g")
    end = [event for event in state.events() if event["type"] == "deal_end"]
    assert end[0]["case"] == "big failed"
    assert end[0]["changes"] == [-60, 20, 20, 20]
    assert end[0]["tricks"] == [0, 1, 0, 0]
    assert state.deal == 2 and state.phase == "bid" and state.dealer == 0
    assert types(state)[-3:] == ["trick_won", "deal_end", "deal_start"]


def test_s14_big_fails_on_the_last_trick():
    state = new_game(3, BIG_LAST)
    run(state, "big pass pass pass")
    run(state, "Aa Oa 10a 8a Ka Ua 9a 7a Ag Og 10g 8g Kg Ug 9g 7g Ah Oh 10h 8h Kh Uh 9h 7h Ab Ob 10b 9b")
    assert state.tricks_won == [7, 0, 0, 0] and not state.is_over()
    run(state, "7b Kb Ub 8b")
    assert state.is_over()
    assert state.balances == [-60, 20, 20, 20] and state.pot == 0
    assert state.events()[-2]["case"] == "big failed"


def test_s14_big_made():
    state = new_game(3, ALL_TOP)
    run(state, "big pass pass pass")
    run(state, PLAY_ALL_TOP)
    assert state.balances == [60, -20, -20, -20]
    assert state.events()[-2]["case"] == "big made"
    assert state.result().ranks == (1, 2, 2, 2)


def test_s15_small_fails_when_the_bidder_takes_a_trick():
    state = new_game(3, OWNERS_K1)
    run(state, "small pass pass pass 8g Kg Ug 10g Oa 10a 8a Ka")
    assert state.is_over()
    assert state.balances == [-30, 10, 10, 10] and state.pot == 0
    assert state.tricks_won == [1, 1, 0, 0]
    assert state.events()[-2]["case"] == "small failed"


def test_s15_small_made():
    state = new_game(3, ALL_BOTTOM)
    run(state, "small pass pass pass")
    # Everyone who can beat must (S-8); seat 3's aces and kings win every trick.
    run(state, "7a 9a Ua Ka | Aa 8a 10a Oa | Ag 7g 9g Ug | Kg 8g 10g Og | Ah 7h 9h Uh | Kh 8h 10h Oh | Ab 7b 9b Ub | Kb 8b 10b Ob")
    assert state.balances == [30, -10, -10, -10]
    assert state.tricks_won == [0, 0, 0, 8]
    assert state.events()[-2]["case"] == "small made"


def test_s16_default_is_four_deals_and_game_over_follows_the_last():
    state = GAME.new_state(5)
    assert state.deals == 4
    rng = random.Random(5)
    while not state.is_over():
        (seat,) = state.to_move()
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    assert types(state).count("deal_start") == 4
    assert types(state)[-1] == "game_over"
    with pytest.raises(IllegalAction, match="the game is over"):
        state.apply(0, "pass")
    assert state.to_move() == () and state.legal_actions(0) == ()


def test_hands_shrink_and_hold_what_was_dealt():
    state = new_game(3, OWNERS_K1)
    run(state, "pass pass pass pass Aa Oa")
    assert mask_of(state.hand_names(0)) == mask_of(deal_from(OWNERS_K1)[0]) & ~mask_of(["Aa"])
    assert len(state.hand_names(1)) == 7


def test_script_of_several_deals_then_the_seed_takes_over():
    outcomes = script(3, OWNERS_K1, rotate(ALL_TOP, 1))
    state = GAME.new_state(1, {"deals": 3}, script=outcomes)
    assert state.chance.log == outcomes[:2]  # a deal is drawn when it starts
    run(state, "pass pass pass pass")
    run(state, PLAY_K1)
    assert state.chance.log == outcomes
    assert set(state.hand_names(1)) == set(deal_from(ALL_TOP)[0])
    run(state, "pass pass pass pass")
    run(state, PLAY_ALL_TOP)  # seat 1 leads and takes all 8 tricks: unannounced big
    assert state.balances == [-4 - 10, -8 + 30, -8 - 10, 20 - 10]
    assert len(state.chance.log) == 4  # the third deal came from the seed
    assert state.chance.log[3]["kind"] == "deal"
