"""One scenario (or more) per ruling L-1..L-18, with hand-built deals and explicit actions."""

from __future__ import annotations

import random

import pytest
from lovat_helpers import (
    STORY_DEAL,
    STORY_KEEPS,
    STORY_SCRIPT,
    STORY_TURNS,
    fill_deal,
    keep_with,
    play_random,
    run,
    script,
    story,
    story_actions,
)

from arena.games.base import GameError, IllegalAction, InvalidSetup
from arena.games.lovat import GAME
from arena.games.lovat.deck import CARD_IDS, LEVEL, STRENGTH
from arena.games.lovat.state import FACES, VARIANTS, admits_keep


def types(state, kind=None):
    names = [event["type"] for event in state.events()]
    return names if kind is None else [event for event in state.events() if event["type"] == kind]


def dice_in(state):
    return [outcome["value"] for outcome in state.chance.log if outcome["kind"] == "die"]


# ---------------------------------------------------------------- L-1 direction, L-2 dealer


def test_l1_l2_turns_declarations_and_plays_go_clockwise_from_the_dealers_left() -> None:
    state = story()
    assert (state.dealer, state.first) == (2, 0)  # L-2: the first player is the dealer's left
    assert state.to_move() == (0,) and state.phase == "colour"  # turn 1: seat 0 is active
    state.apply(0, "gingerline")
    assert state.to_move() == (1,)  # L-1: declarations start at the active player's left
    state.apply(1, "play")
    assert state.to_move() == (2,)
    state.apply(2, "pass")
    assert state.phase == "play" and state.to_move() == (0,)  # the active player plays first
    state.apply(0, "L1-06")
    assert state.to_move() == (1,)
    state.apply(1, "L1-01")
    assert state.to_move() == (1,) and state.phase == "colour"  # turn 2: the next seat is active
    assert [state.history[-1][1], state.active] == [0, 1]


def test_l1_wraps_around_and_skips_passers_when_playing() -> None:
    # 4 players, dealer 2: first player 3, then 0, 1, 2.
    deal = fill_deal(4, {})
    state = GAME.new_state(1, {"players": 4}, script=script(2, deal))
    run(state, [(seat, keep_with(deal[seat], (), 4)) for seat in range(4)])
    assert state.active == 3
    run(state, [(3, "phlox"), (0, "play"), (1, "pass")])
    assert state.to_move() == (2,)
    state.apply(2, "play")
    assert state.to_move() == (3,) and state.phase == "play"
    state.apply(3, state.hands[3][0])
    assert state.to_move() == (0,)  # seat 1 passed, so 0 then 2
    state.apply(0, state.hands[0][0])
    assert state.to_move() == (2,)


def test_l2_dealer_comes_from_the_seeded_rng_or_the_script() -> None:
    for seed in range(20):
        state = GAME.new_state(seed, {"players": 5})
        assert state.dealer == random.Random(seed).randrange(5)
        assert state.first == (state.dealer + 1) % 5
        assert state.chance.log[0] == {"kind": "dealer", "value": state.dealer}
    state = GAME.new_state(0, {"players": 4}, script=[{"kind": "dealer", "value": 3}])
    assert (state.dealer, state.first) == (3, 0)
    assert types(state, "deal") == [{"type": "deal", "dealer": 3, "first_player": 0, "players": 4, "cards_each": 14}]


@pytest.mark.parametrize("dealer", [-1, 4, "1", True])
def test_l2_a_bad_scripted_dealer_is_rejected(dealer) -> None:
    with pytest.raises(InvalidSetup, match=r"scripted dealer must be a seat 0\.\.3"):
        GAME.new_state(0, {"players": 4}, script=[{"kind": "dealer", "value": dealer}])


def test_l2_a_scripted_null_dealer_is_rejected_not_drawn() -> None:
    with pytest.raises(InvalidSetup, match=r"chance outcome 0 \('dealer'\) has no value"):
        GAME.new_state(0, {"players": 4}, script=[{"kind": "dealer", "value": None}])


# ---------------------------------------------------------------- L-3 dealing


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_l3_shuffle_and_deal_one_at_a_time_from_the_dealers_left(players: int) -> None:
    seed = 11
    state = GAME.new_state(seed, {"players": players})
    assert len(types(state, "misdeal")) == 0
    rng = random.Random(seed)
    dealer = rng.randrange(players)
    deck = list(CARD_IDS)
    rng.shuffle(deck)
    variant = VARIANTS[players]
    expected = [sorted(deck[i] for i in range(players * variant.dealt) if (dealer + 1 + i) % players == seat)
                for seat in range(players)]
    assert [list(hand) for hand in state.dealt] == expected
    assert state.chance.log[1] == {"kind": "deal", "value": expected}
    dealt = {card_id for hand in state.dealt for card_id in hand}
    assert len(dealt) == players * variant.dealt == 80 - variant.undealt  # the rest stay undealt


@pytest.mark.parametrize(
    "deal, message",
    [
        ([["L1-01"] * 12] * 2, "scripted deal must be a list of 3 hands"),
        (fill_deal(3, {})[:2] + [fill_deal(3, {})[2][:11]], "seat 2 holds 11 cards, not 12: "),
        ([["L9-99"] + fill_deal(3, {})[0][1:]] + fill_deal(3, {})[1:], "seat 0 holds unknown card 'L9-99'"),
        ([[["L1-01"]] * 12] * 3, r'seat 0 holds unknown card \["L1-01"\] \(ids are' ),  # a list is no card
        ([["L1-01"] * 12, 5, []], "scripted deal: card L1-01 is dealt twice"),
        ([fill_deal(3, {})[0], fill_deal(3, {})[0], fill_deal(3, {})[2]], "card L1-01 is dealt twice"),
    ],
)
def test_l3_a_scripted_deal_is_validated(deal, message) -> None:
    with pytest.raises(InvalidSetup, match=message):
        GAME.new_state(0, {"players": 3}, script=[{"kind": "dealer", "value": 0}, {"kind": "deal", "value": deal}])


# ---------------------------------------------------------------- L-4 player counts


@pytest.mark.parametrize("players", [0, 1, 2, 7, 8, "4", 4.0, True, None])
def test_l4_other_player_counts_are_rejected(players) -> None:
    with pytest.raises(InvalidSetup, match=r"Lovat is played by 3, 4, 5, 6 players, not"):
        GAME.new_state(0, {"players": players} if players is not None else {"players": None})


def test_l4_info_declares_the_counts_and_chance_kinds() -> None:
    info = GAME.info
    assert (info.id, info.name, info.title) == ("lovat-v1", "lovat", "Lovat")
    assert info.player_counts == (3, 4, 5, 6)
    assert info.simultaneous_phases == ("keep",)
    assert info.chance == ("dealer", "deal", "die")
    assert info.options == ()
    with pytest.raises(InvalidSetup, match="unknown Lovat option 'dealer'"):
        GAME.new_state(0, {"players": 4, "dealer": 1})


# ---------------------------------------------------------------- L-5 keeping


def test_l5_every_seat_keeps_at_once_and_the_rest_become_counters() -> None:
    state = GAME.new_state(0, {"players": 3}, script=STORY_SCRIPT)
    assert state.phase == "keep" and state.to_move() == (0, 1, 2)
    assert state.legal_actions(0) == ()  # a rule, not a list
    state.apply(1, STORY_KEEPS[1])
    assert state.to_move() == (0, 2)
    assert state.hands[1] == list(STORY_KEEPS[1]) and state.counters[1] == 12 - 5
    assert "keep_done" not in types(state)  # nothing public until everyone has kept
    state.apply(2, STORY_KEEPS[2])
    state.apply(0, STORY_KEEPS[0])
    assert types(state)[-2:] == ["keep_done", "counter_discard"]
    assert types(state, "keep_done")[0] == {"type": "keep_done", "hand_sizes": [9, 5, 5], "counters": [3, 7, 7]}


@pytest.mark.parametrize(
    "seat, keep, message",
    [
        (1, ("L1-01", "L1-02", "L2-01", "L2-02"), "its levels sum to 6; a keep's levels must sum to exactly 9"),
        (2, ("L3-06", "L3-07", "L3-08"), "L3-06 was not dealt to this seat"),
        (2, ("L1-03", "L1-04", "L1-05", "L3-08", "L3-07"), "sorted ascending"),
        (2, ("L1-03", "L1-03", "L1-05", "L3-07", "L3-08"), "once each, sorted ascending"),
        (2, ("L3-08", "L1-03", "L3-06"), "L3-06 was not dealt to this seat"),  # named before the order
        (2, ["L1-03", "L1-04", "L1-05", "L3-07", "L3-08"], "a keep is a list of card ids, in Python a tuple of strings"),
        (1, "L1-01", "a keep is a list of card ids, in Python a tuple of strings"),
    ],
)
def test_l5_illegal_keeps_are_refused_with_the_reason(seat, keep, message) -> None:
    state = GAME.new_state(0, {"players": 3}, script=STORY_SCRIPT)
    assert not state.is_legal(seat, keep)
    with pytest.raises(IllegalAction, match=f"seat {seat} tried keep .*{message}"):
        state.apply(seat, keep)
    assert GAME.action_error(state.observation(seat), keep) is not None
    assert state.to_move() == (0, 1, 2)  # nothing changed


def test_l5_keep_size_limits() -> None:
    # 4 players: four level-3 cards sum to 12 but a keep has 6-12 cards.
    deal = fill_deal(4, {0: ["L3-01", "L3-02", "L3-03", "L3-04"]})
    state = GAME.new_state(0, {"players": 4}, script=script(0, deal))
    keep = ("L3-01", "L3-02", "L3-03", "L3-04")
    with pytest.raises(IllegalAction, match="it has 4 cards; a keep has 6 to 12 cards"):
        state.apply(0, keep)
    state.apply(0, keep_with(deal[0], ("L3-01",), 4))
    with pytest.raises(IllegalAction, match=r"seat 0 tried keep .* but has already kept"):
        state.apply(0, keep_with(deal[0], ("L3-01",), 4))
    assert GAME.action_error(state.observation(0), keep) == "seat 0 has already kept"


def test_l5_keep_is_secret_others_observations_do_not_change() -> None:
    state = GAME.new_state(0, {"players": 3}, script=STORY_SCRIPT)
    before = [state.observation(seat) for seat in (0, 2)]
    state.apply(1, STORY_KEEPS[1])
    assert [state.observation(seat) for seat in (0, 2)] == before
    assert state.observation(1).keep == STORY_KEEPS[1]


# ---------------------------------------------------------------- L-6 misdeal

# Seat 1 gets all ten level-3 cards and two level-2 cards: 3 players keep levels 9 with at least
# 5 cards, and no such subset exists (five cards of levels >= 2 sum to at least 10).
STUCK = ["L3-01", "L3-02", "L3-03", "L3-04", "L3-05", "L3-06", "L3-07", "L3-08", "L3-09", "L3-10", "L2-01", "L2-02"]


def test_l6_a_hand_without_a_legal_keep_is_a_misdeal_and_the_scripted_redeal_is_used() -> None:
    bad = fill_deal(3, {1: STUCK})
    assert not admits_keep(bad[1], VARIANTS[3]) and admits_keep(bad[0], VARIANTS[3])
    state = GAME.new_state(0, {"players": 3}, script=script(0, bad, STORY_DEAL))
    assert [o["kind"] for o in state.chance.log] == ["dealer", "deal", "deal"]  # the misdeal is logged
    assert state.chance.log[1]["value"] == [sorted(hand) for hand in bad]
    assert [list(hand) for hand in state.dealt] == [sorted(hand) for hand in STORY_DEAL]
    assert types(state) == ["misdeal", "deal"]
    assert types(state, "misdeal")[0] == {"type": "misdeal", "dealer": 0, "number": 1, "seats": [1]}
    assert state.observation(2).misdeals == ((1,),)
    assert "no legal keep" in GAME.describe_event(state.events()[0])


def test_l6_the_redeal_reshuffles_the_full_deck_with_the_same_rng() -> None:
    bad = fill_deal(3, {1: STUCK})
    state = GAME.new_state(42, {"players": 3}, script=script(0, bad))
    rng = random.Random(42)  # dealer and the bad deal were scripted: no draws yet
    deck = list(CARD_IDS)
    rng.shuffle(deck)
    expected = [sorted(deck[i] for i in range(36) if (1 + i) % 3 == seat) for seat in range(3)]
    assert state.chance.log[2] == {"kind": "deal", "value": expected}
    assert [list(hand) for hand in state.dealt] == expected


def test_l6_misdeals_happen_with_seeded_deals_too_and_replay() -> None:
    # About 1 three-player game in 3,600 has a misdeal (L-6): search the seeds for one.
    for seed in range(20000):
        state = GAME.new_state(seed, {"players": 3})
        if types(state, "misdeal"):
            break
    else:
        pytest.fail("no misdeal in 20000 three-player deals")
    deals = [o["value"] for o in state.chance.log if o["kind"] == "deal"]
    assert len(deals) == len(types(state, "misdeal")) + 1
    assert not all(admits_keep(hand, VARIANTS[3]) for hand in deals[0])
    assert all(admits_keep(hand, VARIANTS[3]) for hand in deals[-1])
    again = GAME.new_state(seed + 1, {"players": 3}, script=state.chance.log)
    assert again.dealt == state.dealt and again.events() == state.events()


# ---------------------------------------------------------------- L-7, L-8 counters


@pytest.mark.parametrize("players, discard, most", [(3, 3, 4), (4, 2, 6), (5, 2, 5), (6, 0, 6)])
def test_l7_l8_immediate_discard_is_a_count_per_variant(players: int, discard: int, most: int) -> None:
    variant = VARIANTS[players]
    assert variant.discard == discard
    state = GAME.new_state(3, {"players": players})
    # everyone keeps as few cards as possible where they can: the most counters
    for seat in range(players):
        keep = None
        for size in range(variant.min_keep, variant.max_keep + 1):
            try:
                keep = _keep_of_size(state.dealt[seat], size, variant.level_sum)
                break
            except LookupError:
                continue
        assert keep is not None
        state.apply(seat, keep)
    done, discarded = types(state, "keep_done")[0], types(state, "counter_discard")[0]
    assert discarded["count"] == discard
    assert discarded["counters"] == [c - discard for c in done["counters"]]
    assert list(state.counters) == discarded["counters"]
    assert all(0 <= c <= most for c in state.counters)  # L-7: 0..(turns - min keep)
    assert variant.turns - variant.min_keep == most
    assert all(len(state.hands[s]) + state.counters[s] == variant.turns for s in range(players))


def _keep_of_size(dealt, size, level_sum):
    from itertools import combinations

    for combo in combinations(sorted(dealt), size):
        if sum(LEVEL[c] for c in combo) == level_sum:
            return combo
    raise LookupError(size)


# ---------------------------------------------------------------- L-9 visibility


def test_l9_observations_hold_only_own_cards_and_public_facts() -> None:
    state = story(8)  # just after the void turn (0-based turn 7)
    for seat in range(3):
        text = repr(state.observation(seat).to_json())
        hidden = {c for other in range(3) if other != seat for c in state.dealt[other]}
        public = {c for record in state.history for _, c in record[6]}
        for card_id in hidden - public:
            assert card_id not in text, (seat, card_id)
    # the face-down card seat 0 discarded on the void turn is nowhere in public
    assert state.face_down[0] == ["L1-12"]
    assert "L1-12" not in repr(state.events())
    assert types(state, "void_discard")[-1] == {"type": "void_discard", "turn": 7, "seat": 0, "item": "card"}


# ---------------------------------------------------------------- L-10 turn order


def test_l10_pass_discards_a_counter_at_once_and_any_card_may_be_played() -> None:
    state = story()
    run(state, [(0, "gingerline"), (1, "play")])
    assert state.counters[2] == 4
    state.apply(2, "pass")
    assert state.counters[2] == 3 and state.observation(0).counter_counts == (0, 4, 3)
    assert state.observation(1).passes == (False, False, True)
    assert state.observation(1).declarations == ((1, "play"), (2, "pass"))
    # no duty to follow colour: seat 0 may play its weakest gingerline card
    weakest = min(state.hands[0], key=lambda c: STRENGTH[c][1])
    assert state.is_legal(0, weakest)
    state.apply(0, "L1-06")
    play = types(state, "play")[-1]
    assert play == {"type": "play", "turn": 0, "seat": 0, "card": "L1-06", "level": 1, "colour": "gingerline",
                    "strength": 26}
    assert state.observation(1).plays == ((0, "L1-06"),)  # seat 1 sees the card before choosing


# ---------------------------------------------------------------- L-11 forced declarations


def test_l11_no_counters_must_play() -> None:
    state = story(1)
    run(state, [(1, "rufous"), (2, "pass")])
    assert state.counters[0] == 0 and state.to_move() == (0,)
    assert state.legal_actions(0) == ("play",)  # still asked: every decision is explicit
    with pytest.raises(IllegalAction, match=r"seat 0 tried 'pass' .*it has no counters, so it must play \(L-11\)"):
        state.apply(0, "pass")
    state.apply(0, "play")
    assert types(state, "declare")[-1]["forced"] is True


def test_l11_no_cards_must_pass_and_the_active_player_never_declares() -> None:
    state = story(5)
    assert state.hands[1] == [] and state.counters[1] == 4
    run(state, [(2, "rufous"), (0, "play")])
    assert state.legal_actions(1) == ("pass",)
    with pytest.raises(IllegalAction, match="it has no cards, so it must pass"):
        state.apply(1, "play")
    state.apply(1, "pass")
    assert state.counters[1] == 3
    declared = [e["seat"] for e in types(state, "declare") if e["turn"] == 5]
    assert declared == [0, 1]  # the active seat 2 is never asked


# ---------------------------------------------------------------- L-12 void turn, L-17


def test_l12_void_turn() -> None:
    state = story(7)
    assert state.turn == 7 and state.active == 1
    assert state.phase == "void" and state.to_move() == (2,)
    assert state.points[1] == () and state.counters[1] == 1
    event = types(state, "void_turn")[0]
    assert event == {"type": "void_turn", "turn": 7, "round": 2, "seat": 1, "discarded_points": ["L3-06"],
                     "counters": 1}
    assert state.colour is None and state.die is None  # no colour, no die, although it is the die round
    assert dice_in(state) == ["blank"]
    assert state.legal_actions(2) == ("counter", "L1-05")
    state.apply(2, "counter")
    assert state.legal_actions(0) == ("L1-12", "L1-14")  # no counters: a card is forced
    with pytest.raises(IllegalAction, match="it has no counters left"):
        state.apply(0, "counter")
    state.apply(0, "L1-12")
    assert state.counters[2] == 0 and state.hands[0] == ["L1-14"]
    record = state.history[-1]
    assert record[:5] == (7, 1, True, None, None) and record[7] == ((2, "counter"), (0, "card")) and record[8] is None
    assert "turn_won" not in [e["type"] for e in state.events() if e.get("turn") == 7]  # nobody wins


def test_l17_running_out_of_cards_is_not_a_rule_of_its_own() -> None:
    # seat 1 runs out after turn 5 but keeps its point and is still asked to declare, until its void turn.
    state = story(5)
    assert state.hands[1] == [] and state.points[1] == ("L3-06",)
    state = story(7)
    assert state.points[1] == ()  # lost only by L-12
    final = story(9)
    assert final.is_over() and final.result().scores == (4, 0, 3)


# ---------------------------------------------------------------- L-13 winning


def test_l13_highest_strength_wins_and_other_cards_are_discarded() -> None:
    state = story(4)
    assert state.points == (("L1-06",), ("L3-06",), ("L3-07", "L3-08"))
    won = types(state, "turn_won")[3]
    assert won == {"type": "turn_won", "turn": 3, "seat": 2, "card": "L3-08", "colour": "zaffre", "strength": 50,
                   "points": 2}
    everywhere = [c for hand in state.hands for c in hand] + [c for pts in state.points for c in pts]
    assert "L1-09" not in everywhere and "L2-01" not in everywhere  # the losers' cards are discarded


def test_l13_ties_go_to_the_card_played_first() -> None:
    # L1-01 and L1-26 are both phlox 12; L1-02 is phlox 1.
    assert STRENGTH["L1-01"][2] == STRENGTH["L1-26"][2] == 12 and STRENGTH["L1-02"][2] == 1
    deal = fill_deal(4, {0: ["L1-02"], 1: ["L1-26"], 2: ["L1-01"]})
    state = GAME.new_state(0, {"players": 4}, script=script(3, deal))
    run(state, [(s, keep_with(deal[s], {0: ["L1-02"], 1: ["L1-26"], 2: ["L1-01"], 3: []}[s], 4)) for s in range(4)])
    run(state, [(0, "phlox"), (1, "play"), (2, "play"), (3, "pass"), (0, "L1-02"), (1, "L1-26"), (2, "L1-01")])
    assert state.history[-1][8] == 1 and state.points[1] == ("L1-26",)
    # and when the active player ties, the active player's (first) card wins
    deal = fill_deal(4, {0: ["L1-01"], 1: ["L1-26"]})
    state = GAME.new_state(0, {"players": 4}, script=script(3, deal))
    run(state, [(s, keep_with(deal[s], {0: ["L1-01"], 1: ["L1-26"]}.get(s, []), 4)) for s in range(4)])
    run(state, [(0, "phlox"), (1, "play"), (2, "pass"), (3, "pass"), (0, "L1-01"), (1, "L1-26")])
    assert state.points[0] == ("L1-01",) and state.points[1] == ()


def test_l13_if_everyone_else_passes_the_active_player_wins_by_default() -> None:
    fresh = GAME.new_state(0, {"players": 4}, script=script(3, fill_deal(4, {})))
    deal = fresh.dealt
    run(fresh, [(s, keep_with(deal[s], (), 4)) for s in range(4)])
    run(fresh, [(0, "rufous"), (1, "pass"), (2, "pass"), (3, "pass")])
    assert fresh.to_move() == (0,) and fresh.phase == "play"
    weakest = min(fresh.hands[0], key=lambda c: STRENGTH[c][0])
    fresh.apply(0, weakest)
    assert fresh.points[0] == (weakest,) and fresh.turn == 1


# ---------------------------------------------------------------- L-14 die


def test_l14_blank_lets_the_active_player_choose_and_a_colour_face_decides() -> None:
    state = story(6)
    assert state.die == "blank" and state.phase == "colour" and state.to_move() == (0,)
    assert types(state, "die")[-1] == {"type": "die", "turn": 6, "round": 2, "seat": 0, "face": "blank"}
    assert state.observation(0).die_round is True and state.observation(0).legal == FACES[:5]
    state = story(8)
    assert state.die == "zaffre" and state.colour == "zaffre"
    assert state.phase == "declare" and state.to_move() == (0,)  # nobody names a colour
    with pytest.raises(IllegalAction, match="out of turn"):
        state.apply(2, "phlox")


def test_l14_no_die_before_the_last_round() -> None:
    state = story(6)
    assert dice_in(state) == ["blank"] and [e["turn"] for e in types(state, "die")] == [6]
    assert not story(5).observation(0).die_round


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_l14_the_die_is_rolled_on_every_non_void_turn_of_the_last_round(players: int) -> None:
    variant = VARIANTS[players]
    for seed in range(30):
        state, _ = play_random(seed, players)
        rolled = [e["turn"] for e in types(state, "die")]
        void = {e["turn"] for e in types(state, "void_turn")}
        last_round = range((variant.rounds - 1) * players, variant.turns)
        assert rolled == [t for t in last_round if t not in void]
        assert len(dice_in(state)) == len(rolled)
        assert all(face in FACES for face in dice_in(state))


def test_l14_a_bad_scripted_die_face_is_rejected() -> None:
    bad = STORY_SCRIPT[:2] + [{"kind": "die", "value": "purple"}]
    state = GAME.new_state(0, {"players": 3}, script=bad)
    run(state, sorted(STORY_KEEPS.items()))
    for actions in STORY_TURNS[:5]:
        run(state, actions)
    with pytest.raises(InvalidSetup, match=r"scripted die roll must be one of rufous, .*blank, got 'purple'"):
        run(state, STORY_TURNS[5])


# ---------------------------------------------------------------- L-15 length, L-16 result


@pytest.mark.parametrize("players, turns", [(3, 9), (4, 12), (5, 10), (6, 12)])
def test_l15_rounds_times_players_turns(players: int, turns: int) -> None:
    assert VARIANTS[players].turns == turns
    state, _ = play_random(players, players)
    assert state.is_over() and state.turn == turns and len(state.history) == turns
    assert len(types(state, "turn_won")) + len(types(state, "void_turn")) == turns
    assert all(not hand for hand in state.hands) and state.counters == (0,) * players


def test_l16_result_of_the_story() -> None:
    result = story(9).result()
    assert result.scores == (4, 0, 3) and result.ranks == (1, 3, 2)
    assert result.details["level_sums"] == [4, 0, 7]
    assert types(story(9), "game_over")[0] == {"type": "game_over", "scores": [4, 0, 3], "level_sums": [4, 0, 7],
                                               "ranks": [1, 3, 2]}
    with pytest.raises(GameError, match="not over"):
        story(8).result()


def test_l16_ties_on_points_go_to_level_sums_and_full_ties_share_the_rank() -> None:
    state = story(9)
    state.points = [["L1-01", "L3-01"], ["L2-01", "L2-02"], ["L3-02"]]  # 2 pts/4 levels, 2/4, 1/3
    result = state.result()
    assert result.scores == (2, 2, 1) and result.ranks == (1, 1, 3)  # co-winners
    state.points = [["L1-01", "L1-02"], ["L2-01", "L2-02"], ["L3-02", "L1-03"]]  # 2/2, 2/4, 2/4
    assert state.result().ranks == (3, 1, 1)
    state.points = [[], [], []]
    assert state.result().ranks == (1, 1, 1)


def test_l16_ties_found_in_real_games() -> None:
    seen_shared = seen_broken = False
    for seed in range(300):
        state, _ = play_random(seed, 4)
        result = state.result()
        sums = result.details["level_sums"]
        for a in range(4):
            for b in range(a + 1, 4):
                if result.scores[a] == result.scores[b]:
                    if sums[a] == sums[b]:
                        assert result.ranks[a] == result.ranks[b]
                        seen_shared = True
                    else:
                        assert (result.ranks[a] < result.ranks[b]) == (sums[a] > sums[b])
                        seen_broken = True
    assert seen_shared and seen_broken


# ---------------------------------------------------------------- L-18 reproducibility


def test_l18_rng_order_dealer_deal_then_dice() -> None:
    seed = 5
    state, _actions = play_random(seed, 3)
    assert not types(state, "misdeal")
    rng = random.Random(seed)
    dealer = rng.randrange(3)
    deck = list(CARD_IDS)
    rng.shuffle(deck)
    faces = [FACES[rng.randrange(6)] for _ in dice_in(state)]
    assert state.dealer == dealer and dice_in(state) == faces
    assert [o["kind"] for o in state.chance.log] == ["dealer", "deal"] + ["die"] * len(faces)


def test_l18_a_seed_reproduces_a_game_and_a_log_replays_it() -> None:
    state = story(9)
    again = GAME.new_state(123, {"players": 3}, script=state.chance.log)
    run(again, story_actions())
    assert again.events() == state.events() and again.result() == state.result()
    one, _actions = play_random(77, 5)
    two, _ = play_random(77, 5)
    assert one.events() == two.events() and one.chance.log == two.chance.log


# ---------------------------------------------------------------- illegal actions in play


def test_illegal_actions_name_the_seat_the_attempt_and_what_was_expected() -> None:
    state = story()
    with pytest.raises(IllegalAction, match=r"seat 1 tried 'rufous' out of turn: in the colour phase of turn 1 "
                                            r"it is seat 0's decision"):
        state.apply(1, "rufous")
    with pytest.raises(IllegalAction, match=r"seat 0 tried 'purple' in the colour phase .*expected one of rufous"):
        state.apply(0, "purple")
    state.apply(0, "gingerline")
    with pytest.raises(IllegalAction, match=r"seat 1 tried 'fold' in the declare phase of turn 1: that is not a "
                                            r"declare action; expected one of pass, play"):
        state.apply(1, "fold")
    run(state, [(1, "play"), (2, "pass")])
    with pytest.raises(IllegalAction, match=r"seat 0 tried 'L1-01' .*L1-01 is not in its hand; expected one of L1-06"):
        state.apply(0, "L1-01")
    with pytest.raises(IllegalAction, match=r"seat 7 does not exist"):
        state.apply(7, "L1-06")
    with pytest.raises(IllegalAction, match=r'seat 0 tried \["L1-06"\] in the play phase' ):
        state.apply(0, ("L1-06",))
    over = story(9)
    with pytest.raises(IllegalAction, match="the game is over"):
        over.apply(0, "rufous")
    assert over.to_move() == () and over.legal_actions(0) == ()


def test_clone_is_independent() -> None:
    state = story(3)
    twin = state.clone()
    run(twin, STORY_TURNS[3])
    assert state.turn == 3 and twin.turn == 4
    assert state.events() != twin.events() and state.hands != twin.hands
    run(state, STORY_TURNS[3])
    assert state.events() == twin.events()


# ---------------------------------------------------------------- readable text, plugin


def test_describe_event_names_colours_dice_passes_plays_winners_and_points() -> None:
    lines = [GAME.describe_event(event) for event in story(9).events()]
    text = "\n".join(lines)
    assert lines[0] == "Seat 2 deals 12 cards to each of 3 players; seat 0 plays first."
    assert "Turn 1: seat 0 names gingerline." in text
    assert "Turn 1: seat 2 passes, discarding a counter (3 left)." in text
    assert "Turn 2: seat 0 will play (forced)." in text
    assert "Turn 2: seat 1 plays L3-06 (level 3), rufous 50." in text
    assert "Turn 2: seat 1 wins with L3-06 (rufous 50), now 1 point." in text
    assert "Turn 7: seat 0 rolls the die: blank: they name the colour." in text
    assert "Turn 8: seat 1 has no cards: void turn, discards a counter and point cards (L3-06)" in text
    assert "Turn 8: seat 0 discards a card face down." in text
    assert "Turn 9: seat 2 rolls the die: zaffre." in text
    assert lines[-1].startswith("Game over: seat 0: 4 points (levels 4), rank 1")
    assert all(line and "{" not in line for line in lines)  # every event type has its own wording
    # Lines read as Lorum's do: a capital, a full stop, and each seat named when names are given.
    assert all(line[0].isupper() and line.endswith(".") for line in lines)
    named = [GAME.describe_event(event, ["ann", "bob", "cy"]) for event in story(9).events()]
    assert named[0] == "Seat 2 (cy) deals 12 cards to each of 3 players; seat 0 (ann) plays first."
    assert "Turn 2: seat 1 (bob) wins with L3-06 (rufous 50), now 1 point." in named


def test_describe_action_and_observation() -> None:
    state = story(1)
    observation = state.observation(1)
    assert GAME.describe_action(observation, "rufous") == "name rufous"
    state.apply(1, "rufous")
    state.apply(2, "pass")
    assert GAME.describe_action(state.observation(0), "play") == "play a card this turn"
    state.apply(0, "play")
    assert GAME.describe_action(state.observation(1), "L3-06") == "play L3-06 (level 3, rufous 50)"
    keep_obs = GAME.new_state(0, {"players": 3}, script=STORY_SCRIPT).observation(1)
    assert GAME.describe_action(keep_obs, STORY_KEEPS[1]).endswith("(5 cards, levels 9)")
    lines = GAME.describe_observation(keep_obs)
    assert any("levels sum to 9, 5 to 9 cards" in line for line in lines)
    assert GAME.action_error(keep_obs, STORY_KEEPS[1]) is None
    assert "levels must sum to exactly 9" in (GAME.action_error(keep_obs, ("L1-01",)) or "")


def test_the_plugin_registers_the_game() -> None:
    from arena.games.lovat import plugin

    registered: list[object] = []
    plugin.arena_register_games(register=registered.append)
    assert registered == [GAME]
