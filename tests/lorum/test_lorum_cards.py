"""The deck: names, ranks, suits and card points (S-6, S-9)."""

import pytest

from arena.games.lorum.cards import (
    ABOVE_MASKS,
    DECK,
    INDEX,
    POINTS,
    RANKS,
    SUIT_MASKS,
    SUITS,
    TOTAL_POINTS,
    describe_card,
    mask_of,
    names_of,
    points,
    rank,
    rank_number,
    rank_of,
    suit,
    suit_of,
)


def test_deck_has_32_distinct_conventional_names():
    assert len(DECK) == 32 == len(set(DECK))
    assert DECK[:8] == ("Aa", "Ka", "Oa", "Ua", "10a", "9a", "8a", "7a")
    assert {name[-1] for name in DECK} == {"a", "g", "h", "b"}
    assert "10b" in DECK and "Og" in DECK and "Uh" in DECK


def test_card_points_s9():
    by_name = dict(zip(DECK, POINTS))
    assert all(by_name[rank + "h"] == 1 for rank in ("A", "K", "O", "U", "10", "9", "8", "7"))  # the heart Ober too
    assert by_name["Oa"] == 4
    assert by_name["Og"] == 8
    assert by_name["Ob"] == 0 and by_name["Aa"] == 0 and by_name["Ug"] == 0
    assert sum(POINTS) == TOTAL_POINTS == 20
    assert sum(1 for p in POINTS if p) == 10


def test_rank_order_s6_ace_king_ober_unter_ten_down_to_seven():
    order = ["Ab", "Kb", "Ob", "Ub", "10b", "9b", "8b", "7b"]
    indices = [INDEX[name] for name in order]
    assert indices == sorted(indices)  # a smaller index is a higher card
    assert names_of(ABOVE_MASKS[INDEX["10b"]]) == ("Ab", "Kb", "Ob", "Ub")
    assert ABOVE_MASKS[INDEX["Aa"]] == 0


def test_masks_round_trip_and_suits():
    hand = ("Og", "7a", "10h", "Kb")
    assert names_of(mask_of(hand)) == ("7a", "Og", "10h", "Kb")  # canonical order
    assert names_of(SUIT_MASKS[2]) == tuple(rank + "h" for rank in ("A", "K", "O", "U", "10", "9", "8", "7"))


def test_describe_card():
    assert describe_card("Og") == "Ober of green (8 points)"
    assert describe_card("7h") == "Seven of hearts (1 point)"
    assert describe_card("10b") == "Ten of bells"


def test_name_helpers_agree_with_the_index_helpers_on_every_card():
    for index, name in enumerate(DECK):
        assert rank(name) == RANKS[rank_of(index)] and name == rank(name) + suit(name)
        assert suit(name) == SUITS[suit_of(index)]
        assert points(name) == POINTS[index]
        assert rank_number(name) == rank_of(index)
    assert (rank("Og"), suit("Og"), points("Og"), rank_number("Og")) == ("O", "g", 8, 2)
    assert (rank("10b"), suit("10b"), points("10b"), rank_number("10b")) == ("10", "b", 0, 4)
    assert rank_number("Ah") < rank_number("Kh") < rank_number("7h")  # lower beats higher (S-6)


@pytest.mark.parametrize("bad", ["OG", "Ox", "1b", "", " Og", "Ober", 12, None])
def test_name_helpers_refuse_a_bad_name_naming_it_and_the_form(bad):
    for helper in (rank, suit, points, rank_number):
        with pytest.raises(ValueError) as raised:
            helper(bad)
        message = str(raised.value)
        assert message.startswith(f"no Lorum card {bad!r}: a card name is rank (A K O U 10 9 8 7) then suit")
    with pytest.raises(ValueError, match="rank_of and suit_of take indices"):
        rank(12)
