"""Pledge's own tests: arena's game conformance kit does the heavy lifting; a few rules are checked by hand."""

from __future__ import annotations

import pytest
from arena_example_game.game import GAME
from arena_example_game.rules import DECK, playable, score, trick_winner

from arena.games.base import IllegalAction, InvalidSetup
from arena.testing import check_game


@pytest.mark.parametrize("hand", [1, 4])
def test_pledge_passes_the_game_conformance_kit(hand: int) -> None:
    # Replay, information hiding through the sampler, JSON round-trips, cloning, determinism: every player count.
    checked = check_game(GAME, seeds=(0, 1), options={"hand": hand})
    assert checked.games == 8 and checked.samples > 0


def test_the_highest_trump_wins_else_the_highest_of_the_suit_led() -> None:
    assert trick_winner([(0, "Kc"), (1, "Ac"), (2, "9h")], trump="h") == 2
    assert trick_winner([(0, "Kc"), (1, "Ac"), (2, "As")], trump="h") == 1  # an ace off-suit wins nothing


def test_a_seat_must_follow_suit_when_it_can() -> None:
    assert playable(("9c", "Ah", "Kh"), led="h") == ("Ah", "Kh")
    assert playable(("9c", "Ts"), led="h") == ("9c", "Ts")


def test_the_deck_lists_the_24_cards_for_arena_cards() -> None:
    deck = GAME.deck()
    assert len(deck.rows) == 24 and deck.cards[-1] == {"card": "As", "suit": "spades", "rank": "ace"}


def test_a_made_pledge_scores_ten_plus_the_pledge_and_a_miss_costs_a_point_a_trick() -> None:
    assert (score(2, 2), score(0, 0), score(1, 3), score(3, 0)) == (12, 10, -2, -3)


def test_a_scripted_deal_fixes_the_hands_and_the_trump() -> None:
    deal = list(DECK)
    state = GAME.new_state(0, {"players": 2, "hand": 2}, script=[{"kind": "dealer", "value": 1},
                                                                 {"kind": "deal", "value": deal}])
    assert state.observation(0).hand == ("9c", "Tc") and state.observation(1).hand == ("Jc", "Qc")
    assert state.observation(0).trump == "Kc" and state.to_move() == (0,)  # the seat after the dealer
    with pytest.raises(IllegalAction, match="cannot bid '3'"):
        state.apply(0, "3")
    with pytest.raises(InvalidSetup, match="scripted deal holds 23 cards, not 24: "):
        GAME.new_state(0, {"players": 2}, script=[{"kind": "dealer", "value": 0}, {"kind": "deal", "value": deal[:-1]}])
    with pytest.raises(InvalidSetup, match=r'scripted deal holds unknown card \["9c"\]'):  # a list is no card
        GAME.new_state(0, {"players": 2}, script=[{"kind": "dealer", "value": 0},
                                                                  {"kind": "deal", "value": [[card] for card in deal]}])
    with pytest.raises(InvalidSetup, match=r"scripted dealer must be a seat 0\.\.1, not true"):
        GAME.new_state(0, {"players": 2}, script=[{"kind": "dealer", "value": True}])
