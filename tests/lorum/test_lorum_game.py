"""The Game object: declared info, plugin registration, observations, public events and readable logs."""

import pluggy
import pytest
from lorum_helpers import HEARTS_SPLIT_K0, OWNERS_K1, PLAY_K0, PLAY_K1, new_game, run

from arena.games.base import GameInfo, InvalidSetup
from arena.games.lorum import GAME, LorumObservation
from arena.games.lorum import plugin as lorum_plugin
from arena.plugin_system import hookspecs


def test_info_declares_the_game_up_front():
    info = GAME.info
    assert isinstance(info, GameInfo)
    assert (info.id, info.name, info.title) == ("lorum-v1", "lorum", "Slovak Lorum")
    assert info.player_counts == (4,)
    assert info.simultaneous_phases == ()
    assert info.chance == ("dealer", "deal")
    (deals,) = info.options
    assert (deals.name, deals.default, deals.choices, deals.minimum) == ("deals", 4, None, 1)
    assert info.resolve_options(None, {"deals": 8}) == {"players": 4, "deals": 8}
    with pytest.raises(InvalidSetup, match="'deals' must be an integer >= 1, not 'x'"):
        info.resolve_options(4, {"deals": "x"})
    assert GAME.observation_type is LorumObservation


def test_plugin_registers_the_game_through_the_hook():
    manager = pluggy.PluginManager(hookspecs.PROJECT_NAME)
    manager.add_hookspecs(hookspecs)
    manager.register(lorum_plugin, name="lorum")
    registered: list[object] = []
    manager.hook.arena_register_games(register=registered.append)
    assert registered == [GAME]


def test_observation_holds_own_hand_and_public_history_only():
    state = new_game(3, OWNERS_K1)
    run(state, "pass small pass pass 8h Kh")
    observation = state.observation(3)
    assert observation.seat == 3 and observation.phase == "play" and observation.to_move == 3
    assert observation.hand == ("8a", "7a", "10g", "9g", "Oh", "Uh", "Ab", "Kb")
    assert observation.legal == ("Oh", "Uh")  # nothing beats Kh: any heart (S-8)
    assert observation.bids == ((0, "pass"), (1, "small"), (2, "pass"), (3, "pass"))
    assert (observation.contract, observation.bidder, observation.leader) == ("small", 1, 1)
    assert observation.trick == ((1, "8h"), (2, "Kh"))
    assert observation.played == ("8h", "Kh")
    assert observation.hand_sizes == (8, 7, 7, 8)
    assert (observation.deal, observation.deals, observation.dealer) == (1, 1, 3)
    assert observation.balances == (0, 0, 0, 0) and observation.pot == 0 and observation.past_deals == ()
    run(state, "Oh 10h")
    observation = state.observation(0)
    assert observation.legal == () and observation.to_move == 2  # seat 2 won and leads
    assert observation.tricks == ((((1, "8h"), (2, "Kh"), (3, "Oh"), (0, "10h")), 2),)
    assert observation.points == (0, 0, 4, 0) and observation.tricks_won == (0, 0, 1, 0)
    assert observation.trick == () and observation.leader == 2
    text = str(observation.to_json())
    for seat in (1, 2, 3):
        for card in state.hand_names(seat):
            assert f"'{card}'" not in text  # nothing about the others' hands


def test_observation_while_bidding_and_after_the_game():
    state = new_game(3, HEARTS_SPLIT_K0)
    observation = state.observation(0)
    assert (observation.phase, observation.legal, observation.contract, observation.leader) == (
        "bid",
        ("pass", "small", "big"),
        None,
        None,
    )
    run(state, "pass pass pass pass")
    run(state, PLAY_K0)
    over = state.observation(2)
    assert (over.phase, over.to_move, over.legal, over.hand) == ("over", None, (), ())
    assert over.past_deals == ((1, 3, "regular", None, "pot carried", (-4, -8, -4, -4), 0, 20),)
    assert GAME.observation_from_json(over.to_json()) == over


def test_observation_from_json_rejects_foreign_data():
    data = new_game(3, OWNERS_K1).observation(0).to_json()
    with pytest.raises(ValueError, match="missing fields pot"):
        GAME.observation_from_json({key: value for key, value in data.items() if key != "pot"})
    with pytest.raises(ValueError, match="not 'lorum-v1'"):
        GAME.observation_from_json({**data, "game": "lovat-v1"})


def test_events_are_public_and_describe_every_step():
    state = new_game(3, OWNERS_K1, HEARTS_SPLIT_K0, deals=2)
    run(state, "pass pass pass pass")
    run(state, PLAY_K1)
    run(state, "pass big pass pass")  # deal 2: dealer 0, seat 1 first; seat 2 bids big and leads
    run(state, "Ah 8h Uh 10h")  # seat 2 wins the first trick
    run(state, "7h Kh Oh 9h")  # seat 3 takes the second: big failed
    events = state.events()
    kinds = [event["type"] for event in events]
    assert kinds[:6] == ["deal_start", "bid", "bid", "bid", "bid", "contract"]
    assert kinds.count("play") == 32 + 8 and kinds.count("trick_won") == 8 + 2
    assert kinds[-3:] == ["trick_won", "deal_end", "game_over"]
    assert events[0] == {"type": "deal_start", "deal": 1, "deals": 2, "dealer": 3, "first_bidder": 0}
    lines = [GAME.describe_event(event) for event in events]
    assert lines[0] == "Deal 1 of 2: seat 3 deals; seat 0 bids first."
    assert lines[1] == "Seat 0 passes."
    assert lines[5] == "Everybody passed: regular game; seat 0 leads."
    assert lines[6] == "Seat 0 plays Aa."
    assert lines[10] == "Trick 1 to seat 0, 4 points: seat 0 Aa, seat 1 Oa, seat 2 10a, seat 3 8a."
    named = [GAME.describe_event(event, ["ann", "bob", "cy", "di"]) for event in events[:11]]
    assert named[0] == "Deal 1 of 2: seat 3 (di) deals; seat 0 (ann) bids first."
    assert named[10] == ("Trick 1 to seat 0 (ann), 4 points: seat 0 (ann) Aa, seat 1 (bob) Oa, seat 2 (cy) 10a, "
                         "seat 3 (di) 8a.")
    deal_end = kinds.index("deal_end")
    assert lines[deal_end] == (
        "Deal 1 settled (pot won): points [4, 8, 8, 0], chips seat 0 -4, seat 1 -8, seat 2 -8, seat 3 +20; "
        "pot 0 -> 0; balances [-4, -8, -8, 20]."
    )
    assert "Seat 2 bids big." in lines
    assert "Seat 2 plays big (to take every trick) and leads." in lines
    assert lines[-2] == (
        "Deal 2 settled (big failed): points [0, 0, 4, 4], chips seat 0 +20, seat 1 +20, seat 2 -60, seat 3 +20; "
        "pot 0 -> 0; balances [16, 12, -68, 40]."
    )
    assert lines[-1] == "Game over: chips [16, 12, -68, 40], ranks [2, 3, 4, 1]."
    assert all("\n" not in line for line in lines)
    for event in events:  # no hand ever appears in the public log
        assert "hand" not in event and "hands" not in event and "value" not in event


def test_game_over_line_reports_a_left_over_pot():
    state = new_game(3, HEARTS_SPLIT_K0)
    run(state, "pass pass pass pass")
    run(state, PLAY_K0)
    assert GAME.describe_event(state.events()[-1]) == (
        "Game over: chips [-4, -8, -4, -4], ranks [1, 4, 1, 1]; 20 chips left in the pot (not paid out, S-17)."
    )


def test_describe_action():
    observation = new_game(3, OWNERS_K1).observation(0)
    assert GAME.describe_action(observation, "pass") == "pass"
    assert GAME.describe_action(observation, "big").startswith("big: take every trick")
    assert GAME.describe_action(observation, "small").startswith("small: take no trick")
    assert GAME.describe_action(observation, "Og") == "Og: Ober of green (8 points)"
