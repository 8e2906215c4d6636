"""Slovak Lorum records written by hand, as docs/records.md describes them, replayed by ``arena replay``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli import main
from arena.games.lorum.cards import DECK

HANDS = [list(DECK[8 * seat : 8 * seat + 8]) for seat in range(4)]  # seat s holds every card of suit s


def replay(tmp_path: Path, capsys: pytest.CaptureFixture[str], record: dict, *options: str) -> tuple[int, str, str]:
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(record))
    status = main(["replay", str(path), *options])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def deals_record(deals: int, scripted_deals: int) -> dict:
    return {
        "game": "lorum-v1",
        "options": {"deals": deals},
        "seed": 1,
        "chance": [{"kind": "dealer", "value": 3}] + [{"kind": "deal", "value": HANDS}] * scripted_deals,
        "actions": [],
    }


def test_every_scripted_deal_used_plays_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = replay(tmp_path, capsys, deals_record(2, 2), "--save", str(tmp_path / "done.json"))
    assert status == 0, err
    done = json.loads((tmp_path / "done.json").read_text())
    assert [outcome["value"] for outcome in done["chance"]] == [3, HANDS, HANDS]


def test_a_deal_too_many_is_an_error_naming_the_first_unused_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The game is played out by the seats' agents, then the third scripted deal is left over.
    status, out, err = replay(tmp_path, capsys, deals_record(1, 3))
    assert status == 1 and out == ""
    assert len(err.splitlines()) == 1
    assert err.startswith(f"arena: error: {tmp_path / 'deal.json'}: chance outcome 2 ({{\"kind\": \"deal\", ")
    assert err.endswith("is never used: the game is over after 2 chance outcomes, and the record lists 2 more\n")


def test_a_complete_record_with_an_extra_entry_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record_file = tmp_path / "game.json"
    assert main(["play", "lorum", "--deals", "1", "--seed", "4", "--record", str(record_file)]) == 0
    record = json.loads(record_file.read_text())
    record["chance"].append({"kind": "dealer", "value": 0})
    capsys.readouterr()
    status, _, err = replay(tmp_path, capsys, record)
    assert status == 1
    assert err.endswith('chance outcome 2 ({"kind": "dealer", "value": 0}) is never used: the game is over after '
                        "2 chance outcomes, and the record lists 1 more\n")


def test_a_bad_scripted_deal_reached_while_playing_out_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = deals_record(2, 1)
    record["chance"].append({"kind": "deal", "value": [hand[:7] for hand in HANDS]})  # deal 2: 7 cards each
    status, out, err = replay(tmp_path, capsys, record)
    assert status == 1 and out == ""
    assert err.startswith(f"arena: error: {tmp_path / 'deal.json'}: playing the record out: chance outcome 2 "
                          '({"kind": "deal", "value": [["Aa", ')
    assert err.endswith(f'...), reached by action 7 (seat 3, "7b"): scripted deal: seat 0 holds 7 cards, not 8: '
                        f"{json.dumps(HANDS[0][:7])}\n")
