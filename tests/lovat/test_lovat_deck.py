"""The checked-in deck table (D-1, D-2, D-3) and the generator beside it."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from arena.games.lovat import deck, make_deck
from arena.games.lovat.deck import CARDS, COLOURS, LEVEL_COUNT, LEVEL_MAXIMUM, LEVEL_TOTAL, card, deck_json

DECK_CSV = Path(deck.__file__).with_name("deck.csv")


def test_d1_the_generator_reproduces_the_checked_in_table_byte_for_byte() -> None:
    # D-1: the table is data; the generator beside it must still make exactly that data.
    assert make_deck.render().encode("ascii") == DECK_CSV.read_bytes()


def test_d1_the_generator_runs_as_a_module_and_checks_the_file() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "arena.games.lovat.make_deck", "--check"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr
    assert "matches the generator" in done.stdout


def test_d1_another_seed_gives_another_table() -> None:
    # The check above can fail: the output depends on the seed.
    assert make_deck.render(make_deck.SEED + 1) != make_deck.render()


def test_d1_the_table_has_the_documented_columns() -> None:
    lines = DECK_CSV.read_text().splitlines()
    assert lines[0] == "id,level,rufous,gingerline,phlox,zaffre,skobeloff"
    assert len(lines) == 81
    assert COLOURS == ("rufous", "gingerline", "phlox", "zaffre", "skobeloff")


def test_d2_counts_and_ids_per_level() -> None:
    assert Counter(c.level for c in CARDS) == {1: 40, 2: 30, 3: 10}
    assert LEVEL_COUNT == {1: 40, 2: 30, 3: 10}
    ids = [c.id for c in CARDS]
    expected = (
        [f"L1-{n:02d}" for n in range(1, 41)]
        + [f"L2-{n:02d}" for n in range(1, 31)]
        + [f"L3-{n:02d}" for n in range(1, 11)]
    )
    assert ids == expected
    assert ids == sorted(ids)  # deck order is string order, so sorted keeps are in deck order


@pytest.mark.parametrize("level, total, maximum", [(1, 50, 30), (2, 75, 40), (3, 100, 50)])
def test_d2_sums_and_maxima(level: int, total: int, maximum: int) -> None:
    assert LEVEL_TOTAL[level] == total and LEVEL_MAXIMUM[level] == maximum
    for c in CARDS:
        if c.level == level:
            assert sum(c.strengths) == total, c
            assert all(isinstance(s, int) and 1 <= s <= maximum for s in c.strengths), c
            assert len(c.strengths) == 5


def test_d2_every_card_is_unique() -> None:
    assert len({c.strengths for c in CARDS}) == 80
    assert len({c.id for c in CARDS}) == 80


@pytest.mark.parametrize("level", [1, 2, 3])
def test_d3_every_colour_has_the_same_multiset_of_strengths(level: int) -> None:
    columns = [sorted(c.strengths[i] for c in CARDS if c.level == level) for i in range(5)]
    assert all(column == columns[0] for column in columns)


def test_d3_cards_come_in_five_rotations_of_distinct_base_tuples() -> None:
    for level, bases in ((1, 8), (2, 6), (3, 2)):
        cards = [c for c in CARDS if c.level == level]
        multisets = set()
        for b in range(bases):
            group = cards[5 * b : 5 * b + 5]
            base = group[0].strengths
            assert [c.strengths for c in group] == make_deck.rotations(base)
            multisets.add(tuple(sorted(base)))
        assert len(multisets) == bases  # diversity: no base tuple is a permutation of another


def test_lookup_and_json() -> None:
    c = card("L3-06")
    assert c.level == 3 and c.strength("rufous") == c.strengths[0]
    with pytest.raises(KeyError, match="no Lovat card 'L4-01'"):
        card("L4-01")
    data = deck_json()
    assert len(data) == 80
    assert data[0] == {"id": "L1-01", "level": 1, "strengths": dict(zip(COLOURS, CARDS[0].strengths))}
    assert list(data[-1]["strengths"]) == list(COLOURS)


def test_author_helpers_look_up_every_card_by_id() -> None:
    for c in CARDS:
        assert deck.level(c.id) == c.level
        for index, colour in enumerate(COLOURS):
            assert deck.strength(c.id, colour) == c.strengths[index] == c.strength(colour)


@pytest.mark.parametrize("bad", ["L4-01", "l1-01", "L1-1", "", 7, None, ["L1-01"]])
def test_author_helpers_refuse_a_bad_id_naming_it_and_the_form(bad: object) -> None:
    for lookup in (lambda: deck.level(bad), lambda: deck.strength(bad, "phlox")):  # type: ignore[arg-type]
        with pytest.raises(ValueError) as raised:
            lookup()
        message = str(raised.value)
        assert message.startswith(f"no Lovat card {bad!r}: ") and "L1-01..L1-40" in message


@pytest.mark.parametrize("bad", ["red", "Phlox", "blank", 0])
def test_strength_refuses_a_bad_colour_naming_the_five(bad: object) -> None:
    with pytest.raises(ValueError, match=f"no Lovat colour {bad!r}: the colours are rufous, gingerline, phlox"):
        deck.strength("L1-01", bad)  # type: ignore[arg-type]
