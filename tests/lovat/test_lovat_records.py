"""Lovat records written by hand, as docs/records.md describes them, replayed by ``arena replay``.

The story game of ``lovat_helpers`` has a void turn in the die round (L-12, L-14): no die is drawn for it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from lovat_helpers import STORY_DEAL, story_actions

from arena.cli import main
from arena.games.base import shown


def story_record(dice: list[Any]) -> dict:  # a face may be any JSON: records are untrusted
    """The story as a record: dealer 2, the deal, the given dice, every action, no result."""
    return {
        "game": "lovat-v1",
        "options": {"players": 3},
        "seed": 0,
        "chance": [{"kind": "dealer", "value": 2}, {"kind": "deal", "value": STORY_DEAL}]
        + [{"kind": "die", "value": face} for face in dice],
        "actions": [{"seat": seat, "action": list(a) if isinstance(a, tuple) else a} for seat, a in story_actions()],
    }


def replay(tmp_path: Path, capsys: pytest.CaptureFixture[str], record: dict) -> tuple[int, str, str]:
    path = tmp_path / "story.json"
    path.write_text(json.dumps(record))
    status = main(["replay", str(path), "--json"])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_a_record_with_one_die_per_non_void_turn_of_the_last_round_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = replay(tmp_path, capsys, story_record(["blank", "zaffre"]))
    assert status == 0, err
    # Seat 1 won turn 2 but lost that point on its void turn (L-12).
    assert [player["score"] for player in json.loads(out)["players"]] == [4, 0, 3]


def test_a_die_scripted_for_the_void_turn_is_an_unused_entry_not_silently_ignored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Following the old table (a die on every turn of the last round) shifts the rolls: the void turn's
    # zaffre goes to turn 9, whose own zaffre is then left over.  Every action is still legal.
    status, out, err = replay(tmp_path, capsys, story_record(["blank", "zaffre", "zaffre"]))
    assert status == 1 and out == ""
    assert err == (
        f"arena: error: {tmp_path / 'story.json'}: chance outcome 4 ({{\"kind\": \"die\", \"value\": \"zaffre\"}}) "
        "is never used: the game is over after 4 chance outcomes, and the record lists 1 more\n"
    )


def test_a_chance_prefix_that_fixes_the_deal_must_start_with_the_dealer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = story_record([])
    record["chance"] = record["chance"][1:]
    status, _, err = replay(tmp_path, capsys, record)
    assert status == 1
    assert err.endswith("record setup: chance outcome 0 should be 'dealer', the record has 'deal'\n")


def test_keeps_must_be_sorted_and_the_error_shows_the_sorted_keep(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = story_record(["blank", "zaffre"])
    keep = record["actions"][1]["action"]
    record["actions"][1]["action"] = list(reversed(keep))
    status, _, err = replay(tmp_path, capsys, record)
    assert status == 1
    assert "action 1 (seat 1, " in err  # 0-based index into "actions"
    assert err.strip().endswith(f"a keep lists its card ids once each, sorted ascending: {json.dumps(keep)}")


def test_forced_declarations_and_void_discards_are_actions_and_turns_in_messages_count_from_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Turn 6 (0-based 5): seat 1 has no cards, so its only legal declaration is "pass" (L-11), yet it
    # is listed; the record must say "pass" there, and the message counts turns from 1.
    record = story_record(["blank", "zaffre"])
    index = next(i for i, entry in enumerate(record["actions"])
                 if i > 3 and entry == {"seat": 1, "action": "pass"})
    record["actions"][index]["action"] = "play"
    status, _, err = replay(tmp_path, capsys, record)
    assert status == 1
    assert f"action {index} (seat 1, \"play\"): seat 1 tried 'play' in the declare phase of turn 6: " in err
    assert "it has no cards, so it must pass (L-11)" in err
    # Leaving out the void turn's two discards (L-12) shifts every later action: the record no longer holds.
    record = story_record(["blank", "zaffre"])
    voids = [i for i, entry in enumerate(record["actions"]) if entry["action"] == "counter"]
    del record["actions"][voids[0]:voids[0] + 2]
    assert replay(tmp_path, capsys, record)[0] == 1


@pytest.mark.parametrize("face", ["purple", ["blank"], {"face": "blank"}, 6])
def test_a_bad_scripted_die_reached_while_playing_out_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], face: object
) -> None:
    record = story_record([face])
    record["actions"] = record["actions"][:3]  # the keeps: the seats' agents play every turn
    status, out, err = replay(tmp_path, capsys, record)
    assert status == 1 and out == ""
    # The play-out names the outcome and the action that reached it, as a recorded action would.
    assert err == (f"arena: error: {tmp_path / 'story.json'}: playing the record out: chance outcome 2 "
                   f'({{"kind": "die", "value": {json.dumps(face)}}}), reached by action 33 (seat 1, "L1-02"): '
                   "scripted die roll must be one of rufous, gingerline, phlox, zaffre, skobeloff, blank, got "
                   f"{shown(face)}\n")
