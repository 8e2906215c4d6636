"""What `arena replay` tells someone writing a record by hand: the chance outcome at fault, the die that took the
colour, bidding that is over, the players a deal was written for, values as a record writes them, and what is
legal at any point (`--legal`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``arena ARGV``: the status, stdout and stderr."""
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def played(capsys: pytest.CaptureFixture[str], tmp_path: Path, *play: str) -> dict[str, Any]:
    """The record of ``arena play PLAY`` with greedy agents."""
    path = tmp_path / "played.json"
    assert run(capsys, "play", *play, "--agents", "greedy", "--record", str(path))[0] == 0
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def replay_error(capsys: pytest.CaptureFixture[str], tmp_path: Path, data: dict[str, Any]) -> str:
    """Replay ``data``: it must fail with status 1 and one line, returned without the file's name."""
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(data))
    status, out, err = run(capsys, "replay", str(path))
    assert status == 1 and out == "" and len(err.strip().splitlines()) == 1, err
    prefix = f"arena: error: {path}: "
    assert err.startswith(prefix), err
    return err.strip()[len(prefix):]


def lovat_die_round(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> tuple[dict[str, Any], int, int]:
    """A 3-player Lovat record with its die rolls: the record, the index of the first die in ``chance`` and the
    index of the first action after it (the first decision of the die round)."""
    from arena.games.catalog import installed_games
    from arena.records.record import replay

    data = played(capsys, tmp_path, "lovat", "--players", "3", "--seed", "5")
    die = next(index for index, outcome in enumerate(data["chance"]) if outcome["kind"] == "die")
    game = installed_games()["lovat"]
    for index in range(len(data["actions"])):
        prefix = {**data, "actions": data["actions"][:index]}
        prefix.pop("result")
        if len(replay(prefix, game).state.chance.log) > die:
            return data, die, index - 1  # the die was rolled when this action ended the turn before
    raise AssertionError("no die was rolled")


def test_a_bad_scripted_die_names_the_outcome_and_the_action_that_reached_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data, die, action = lovat_die_round(capsys, tmp_path)
    data["chance"][die]["value"] = "purple"
    message = replay_error(capsys, tmp_path, data)
    entry = data["actions"][action]
    assert message == (
        f'chance outcome {die} ({{"kind": "die", "value": "purple"}}), reached by action {action} '
        f'(seat {entry["seat"]}, {json.dumps(entry["action"])}): scripted die roll must be one of rufous, '
        "gingerline, phlox, zaffre, skobeloff, blank, got 'purple'"
    )


def test_an_outcome_of_the_wrong_kind_mid_game_is_named_once(capsys: pytest.CaptureFixture[str],
                                                             tmp_path: Path) -> None:
    data, die, action = lovat_die_round(capsys, tmp_path)
    data["chance"][die] = {"kind": "deal", "value": []}
    entry = data["actions"][action]
    assert replay_error(capsys, tmp_path, data) == (
        f"chance outcome {die} should be 'die', the record has 'deal'; action {action} (seat {entry['seat']}, "
        f"{json.dumps(entry['action'])}) reached it"
    )


def test_a_colour_written_where_the_die_chose_it_names_the_die(capsys: pytest.CaptureFixture[str],
                                                               tmp_path: Path) -> None:
    data, die, action = lovat_die_round(capsys, tmp_path)
    face = data["chance"][die]["value"]
    if face == "blank":
        pytest.fail("seed 5's first die is a colour: the scenario needs one")
    del data["result"]
    waiting = data["actions"][action + 1]["seat"]  # the first declaration after the roll
    data["actions"].insert(action + 1, {"seat": waiting, "action": face})
    message = replay_error(capsys, tmp_path, data)
    assert f"the die showed {face}, which set the turn's colour, so no seat chooses one (L-14)" in message, message


def test_a_second_lorum_bidding_circuit_is_told_the_bidding_is_over(capsys: pytest.CaptureFixture[str],
                                                                    tmp_path: Path) -> None:
    data = played(capsys, tmp_path, "lorum", "--deals", "1", "--seed", "3")
    del data["result"]
    leader = data["actions"][4]["seat"]
    data["actions"].insert(4, {"seat": leader, "action": "pass"})
    message = replay_error(capsys, tmp_path, data)
    assert message.startswith(f"action 4 (seat {leader}, \"pass\"): seat {leader} called 'pass' in the play of deal "
                              "1: the bidding is over (each seat calls once, the dealer last: S-4); play one of "), message


def test_a_three_player_deal_without_players_is_told_the_default(capsys: pytest.CaptureFixture[str],
                                                                 tmp_path: Path) -> None:
    data = played(capsys, tmp_path, "lovat", "--players", "3", "--seed", "5")
    del data["options"]
    message = replay_error(capsys, tmp_path, data)
    assert message.startswith("record setup: scripted deal must be a list of 4 hands (one per seat), not [[\"L"), message
    assert message.endswith("(the record's \"options\" set no \"players\", so the game's default of 4 applies: add "
                            "\"options\": {\"players\": N})"), message


@pytest.mark.parametrize(("change", "shown"), [
    (lambda data: data["chance"].__setitem__(0, {"kind": "dealer", "value": True}), "not true"),
    (lambda data: data["actions"][0].__setitem__("action", data["actions"][0]["action"][::-1]),
     'sorted ascending: ["L1-'),
    (lambda data: data["actions"][3].__setitem__("action", ["skobeloff"]), 'tried ["skobeloff"] in the colour phase'),
])
def test_values_are_shown_as_a_record_writes_them(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                  change: Any, shown: str) -> None:
    data = played(capsys, tmp_path, "lovat", "--players", "3", "--seed", "5")
    change(data)
    message = replay_error(capsys, tmp_path, data)
    assert shown in message and "('" not in message and "True" not in message, message


def test_legal_names_the_next_decision_of_a_hand_written_record(capsys: pytest.CaptureFixture[str],
                                                                tmp_path: Path) -> None:
    data = played(capsys, tmp_path, "lorum", "--deals", "1", "--seed", "3")
    path = tmp_path / "played.json"
    status, out, err = run(capsys, "replay", str(path), "--legal", "--at", "4", "--json")
    assert status == 0 and err == ""
    decision = json.loads(out)
    leader = data["actions"][4]["seat"]
    assert decision["actions"] == 4 and decision["over"] is False
    [seat] = decision["to_move"]
    assert seat["seat"] == leader and seat["phase"] == "play" and len(seat["legal"]) == 8  # a lead: any card
    assert data["actions"][4]["action"] in seat["legal"]
    # Every listed action replays, and the text form lists the same ones.
    status, out, _ = run(capsys, "replay", str(path), "--legal", "--at", "4")
    assert status == 0 and f"after 4 actions, seat {leader} decides (play phase)" in out
    assert ", ".join(json.dumps(action) for action in seat["legal"]) in out
    status, out, _ = run(capsys, "replay", str(path), "--legal")
    assert status == 0 and out.strip().endswith(f"after {len(data['actions'])} actions the game is over")


def test_legal_in_a_rule_described_phase_says_so(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    played(capsys, tmp_path, "lovat", "--players", "3", "--seed", "5")
    status, out, _ = run(capsys, "replay", str(tmp_path / "played.json"), "--legal", "--at", "0")
    assert status == 0 and out.count("decides (keep phase)") == 3 and out.count("described by a rule") == 3
    # The rule's numbers, as a person playing the seat is told them (tried as a new user would: they were missing).
    assert out.count("keep cards whose levels sum to 9, 5 to 9 cards") == 3


@pytest.mark.parametrize(("extra", "message"), [
    (["--at", "999"], "--at 999: the record has "),
    (["--log"], "--legal prints the decision at one point instead of playing on"),
])
def test_legal_refuses_what_it_cannot_show(capsys: pytest.CaptureFixture[str], tmp_path: Path, extra: list[str],
                                           message: str) -> None:
    played(capsys, tmp_path, "lorum", "--deals", "1", "--seed", "3")
    status, _, err = run(capsys, "replay", str(tmp_path / "played.json"), "--legal", *extra)
    assert status == 2 and message in err and len(err.strip().splitlines()) == 1, err
