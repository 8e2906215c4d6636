"""`arena play` and `arena replay` through the real command line entry point."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_play_lovat_json_shape(capsys: pytest.CaptureFixture[str], players: int) -> None:
    status, out, _ = run(capsys, "play", "lovat", "--players", str(players), "--seed", "11", "--json")
    assert status == 0
    data = json.loads(out)
    assert data["game"] == "lovat-v1" and data["seed"] == 11
    assert [player["seat"] for player in data["players"]] == list(range(players))
    assert {"seat", "agent", "score", "rank"} <= set(data["players"][0])
    assert min(player["rank"] for player in data["players"]) == 1


def test_play_lorum_json_has_chips_and_pot(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "play", "lorum", "--deals", "2", "--seed", "3", "--json")
    assert status == 0
    data = json.loads(out)
    assert data["game"] == "lorum-v1"
    assert sum(player["score"] for player in data["players"]) + data["pot"] == 0  # S-10


def test_game_options_are_read_generically_from_either_form(capsys: pytest.CaptureFixture[str]) -> None:
    flag = json.loads(run(capsys, "play", "lorum", "--deals", "2", "--seed", "3", "--json")[1])
    assigned = json.loads(run(capsys, "play", "lorum", "--game-option", "deals=2", "--seed", "3", "--json")[1])
    assert flag == assigned and flag["options"] == {"players": 4, "deals": 2}
    for argv, message in ((["--game-option", "deals=0"], "option 'deals' must be an integer >= 1, not 0"),
                          (["--deals=many"], "option 'deals' must be an integer, not 'many'"),
                          (["--deals"], "--deals needs a value (a game option: --deals VALUE)"),
                          (["--game-option", "deals"], "--game-option 'deals': expected KEY=VALUE"),
                          (["--game-option", "players=x"], "players must be a whole number, not 'x'"),
                          (["7"], "unrecognized argument '7' (a game option is --NAME VALUE)")):
        status, _, err = run(capsys, "play", "lorum", *argv)
        assert status == 2 and message in err and len(err.strip().splitlines()) == 1, err
    with pytest.raises(SystemExit) as exited:  # only `arena play` takes game options
        main(["leaderboard", "x", "--deals", "2"])
    assert exited.value.code == 2 and "unrecognized arguments: --deals 2" in capsys.readouterr().err


def test_same_seed_same_game(capsys: pytest.CaptureFixture[str]) -> None:
    first = run(capsys, "play", "lovat", "--seed", "5", "--json")[1]
    second = run(capsys, "play", "lovat", "--seed", "5", "--json")[1]
    assert first == second


def test_readable_log_names_colours_and_winners(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "play", "lovat", "--seed", "7")
    assert status == 0
    assert "seed 7" in out and "Result:" in out
    assert "wins" in out and "rolls the die" in out


def test_record_then_replay_matches(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    assert run(capsys, "play", "lorum", "--seed", "9", "--record", str(record))[0] == 0
    status, out, _ = run(capsys, "replay", str(record), "--json")
    assert status == 0
    original = json.loads(record.read_text())
    assert [player["score"] for player in json.loads(out)["players"]] == original["result"]["scores"]


def test_replay_names_the_illegal_action(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    run(capsys, "play", "lovat", "--seed", "2", "--record", str(record))
    data = json.loads(record.read_text())
    index = next(i for i, entry in enumerate(data["actions"]) if entry["action"] in ("pass", "play"))
    data["actions"][index]["action"] = "L9-99"
    record.write_text(json.dumps(data))
    status, out, err = run(capsys, "replay", str(record))
    assert status == 1 and out == ""
    assert err.startswith(f"arena: error: {record}: action {index} (seat {data['actions'][index]['seat']}, \"L9-99\"): ")
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("bad", [None, 5, [1, 2]])
def test_an_action_of_the_wrong_type_is_named_with_its_index(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, bad: Any
) -> None:
    record = tmp_path / "game.json"
    run(capsys, "play", "lovat", "--players", "3", "--seed", "2", "--record", str(record))
    data = json.loads(record.read_text())
    seat = data["actions"][10]["seat"]
    data["actions"][10]["action"] = bad
    record.write_text(json.dumps(data))
    status, out, err = run(capsys, "replay", str(record))
    assert status == 1 and out == ""
    assert err == (f"arena: error: {record}: action 10 (seat {seat}, {json.dumps(bad)}): "
                   f"an action must be a string or a list of strings, not {json.dumps(bad)}\n")


@pytest.mark.parametrize("game", ["lorum", "lovat"])
@pytest.mark.parametrize("seat", [True, "1", 1.0])
def test_a_seat_that_is_not_an_integer_is_refused_even_where_it_equals_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, game: str, seat: Any
) -> None:
    """``true`` and ``1.0`` compare equal to seat 1 in Python; a record must still say 1 (a hand-written typo)."""
    record = tmp_path / "game.json"
    run(capsys, "play", game, "--seed", "5", "--record", str(record))
    data = json.loads(record.read_text())
    index = next(i for i, entry in enumerate(data["actions"]) if entry["seat"] == 1)
    data["actions"][index]["seat"] = seat
    record.write_text(json.dumps(data))
    status, out, err = run(capsys, "replay", str(record))
    assert status == 1 and out == ""
    assert err.strip() == f"arena: error: {record}: action {index}: 'seat' must be a seat number, not {json.dumps(seat)}"


def test_replay_detects_a_tampered_result(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    run(capsys, "play", "lovat", "--seed", "4", "--record", str(record))
    data = json.loads(record.read_text())
    data["result"]["scores"][0] += 1
    record.write_text(json.dumps(data))
    status, _, err = run(capsys, "replay", str(record))
    assert status == 1
    assert "result: recorded scores" in err


def test_hand_written_record_without_result_is_played_out(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    deck = [f"{rank}{suit}" for suit in "aghb" for rank in ("A", "K", "O", "U", "10", "9", "8", "7")]
    hands = [deck[seat * 8:(seat + 1) * 8] for seat in range(4)]  # seat 0 holds every acorn
    record = tmp_path / "setup.json"
    record.write_text(json.dumps({
        "game": "lorum-v1", "options": {"deals": 1}, "seed": 1,
        "seats": [{"agent": "greedy"}, {"agent": "random"}, {"agent": "random"}, {"agent": "random"}],
        "chance": [{"kind": "dealer", "value": 3}, {"kind": "deal", "value": hands}],
        "actions": [{"seat": 0, "action": "big"}],
    }))
    status, out, err = run(capsys, "replay", str(record), "--json", "--save", str(tmp_path / "done.json"))
    assert status == 0, err
    done = json.loads((tmp_path / "done.json").read_text())
    assert done["chance"][1]["value"] == hands
    assert done["actions"][0] == {"seat": 0, "action": "big"}
    assert "result" in done and json.loads(out)["game"] == "lorum-v1"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "chess"], "unknown game 'chess' (installed: lorum, lovat)"),
        (["play", "lovat", "--players", "7"], "Lovat is played by 3, 4, 5, 6 players, not 7"),
        (["play", "lovat", "--deals", "3"], "unknown Lovat option 'deals'"),
        (["play", "lovat", "--agents", "greedy,nobody,random,random"], "unknown agent 'nobody'"),
        (["play", "lovat", "--agents", "gredy"], "unknown agent 'gredy'; did you mean 'greedy'?"),
        (["play", "lovat", "--record", "/no/such/folder/game.json"],
         "--record /no/such/folder/game.json: folder /no/such/folder does not exist"),
        (["play", "lovat", "--agents", "greedy,random"], "--agents names 2 agents for 4 seats"),
        (["play", "lovat", "--human", "9"], "--human 9: seats are 0 to 3"),
        (["replay", "/no/such/file.json"], "/no/such/file.json: no such file"),
        (["replay", "/"], "/: cannot read the file: Is a directory"),
        (["cards", "chess"], "unknown game 'chess' (installed: lorum, lovat)"),
    ],
)
def test_bad_input_is_one_line_and_nonzero(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    status, _, err = run(capsys, *argv)
    assert status != 0
    assert message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize(("argv", "status"), [(["replay", "/no/such/file.json"], 2), (["replay", "/"], 2),
                                               (["replay", "/etc/hostname"], 1)])
def test_replay_of_no_file_is_a_wrong_request_and_of_a_bad_record_a_failure(
        capsys: pytest.CaptureFixture[str], argv: list[str], status: int) -> None:
    assert run(capsys, *argv)[0] == status  # as 'arena run' of a missing config is 2


def test_the_record_is_checked_before_the_game_is_played(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "play", "lovat", "--record", "/no/such/folder/game.json")
    assert status == 2 and out == "" and "does not exist" in err  # no game log printed first


@pytest.mark.parametrize("seed", ["-5", str(2**63), "abc"])
def test_a_seed_outside_what_configs_accept_is_one_line(capsys: pytest.CaptureFixture[str], seed: str) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["play", "lovat", "--seed", seed])
    err = capsys.readouterr().err
    assert exited.value.code == 2
    assert err.startswith("arena play: error: argument --seed:") and err.rstrip().endswith("(see 'arena play --help')")
    assert len(err.strip().splitlines()) == 1


def test_replay_errors_name_the_file_once(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_bytes(b"\xff\xfe{}")
    status, _, err = run(capsys, "replay", str(broken))
    assert status == 1 and err.strip() == f"arena: error: {broken}: the file is not UTF-8 text (invalid start byte)"
    broken.write_text(json.dumps({"game": "lovat-v1", "seed": "7", "actions": []}))
    status, _, err = run(capsys, "replay", str(broken))
    assert err.strip() == f"arena: error: {broken}: 'seed' must be an integer"


@pytest.mark.parametrize(("seats", "message"), [
    (["greedy"] * 4, "seat 0 must be an object"),
    ([{"agent": 3}] * 4, "seat 0: 'agent' must be a string"),
])
def test_replay_checks_the_seats(capsys: pytest.CaptureFixture[str], tmp_path: Path, seats: list, message: str) -> None:
    record = tmp_path / "game.json"
    record.write_text(json.dumps({"game": "lovat-v1", "seed": 1, "actions": [], "seats": seats}))
    status, _, err = run(capsys, "replay", str(record))
    assert status == 1 and err.strip() == f"arena: error: {record}: {message}" + (
        ', e.g. {"agent": "greedy"}' if "object" in message else "")


def test_replay_refuses_to_play_on_with_an_agent_that_is_not_installed(capsys: pytest.CaptureFixture[str],
                                                                       tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    assert run(capsys, "play", "lovat", "--seed", "3", "--record", str(record))[0] == 0
    data = json.loads(record.read_text())
    data["seats"][1]["agent"] = data["seats"][1]["plugin"] = "nobody"
    record.write_text(json.dumps(data))
    assert run(capsys, "replay", str(record))[0] == 0  # complete: nobody decides anything
    del data["result"]
    data["actions"] = data["actions"][:10]
    record.write_text(json.dumps(data))
    status, _, err = run(capsys, "replay", str(record), "--save", str(tmp_path / "out.json"))
    assert status == 1 and "seat 1: unknown agent 'nobody'" in err and "rest of the record" in err
    assert not (tmp_path / "out.json").exists()
    status, _, err = run(capsys, "replay", str(record), "--save", str(tmp_path / "none" / "out.json"))
    assert status == 2 and "--save" in err and "does not exist" in err


def test_lorum_cards_name_every_card_and_its_points(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "cards", "lorum", "--json")
    cards = json.loads(out)
    assert status == 0 and len(cards) == 32 and sum(card["points"] for card in cards) == 20  # S-9
    assert {card["name"]: card["points"] for card in cards if card["points"] != 1} == {
        **{card["name"]: 0 for card in cards if card["suit"] != "hearts"}, "Oa": 4, "Og": 8}
    status, out, _ = run(capsys, "cards", "lorum")
    assert "Og" in out and "green" in out and "Ober" in out


def test_cards_json_lists_the_whole_deck(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "cards", "lovat", "--json")
    cards = json.loads(out)
    assert status == 0 and len(cards) == 80
    assert list(cards[0]["strengths"]) == ["rufous", "gingerline", "phlox", "zaffre", "skobeloff"]


def test_every_subcommand_has_help_with_an_example(capsys: pytest.CaptureFixture[str]) -> None:
    from arena.cli import build_parser

    parser = build_parser()
    commands: Any = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    for name in commands:
        with pytest.raises(SystemExit) as exited:
            main([name, "--help"])
        assert exited.value.code == 0
        assert "examples:" in capsys.readouterr().out, name


def test_the_documented_example_record_replays(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    example = Path(__file__).resolve().parents[2] / "docs" / "examples" / "lovat-all-level-one.json"
    status, out, err = run(capsys, "replay", str(example), "--save", str(tmp_path / "done.json"))
    assert status == 0, err
    assert "1 recorded action legal;" in out and "more played out" in out
    done = json.loads((tmp_path / "done.json").read_text())
    assert done["actions"][0] == json.loads(example.read_text())["actions"][0]
    assert sorted(done["result"]["ranks"])[0] == 1


def test_the_play_examples_in_help_work(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import shlex

    from arena.cli import build_parser

    monkeypatch.chdir(tmp_path)
    play = build_parser()._subparsers._group_actions[0].choices["play"]  # type: ignore[union-attr,index]
    examples = [line.split("#")[0].strip() for line in play.epilog.splitlines()[1:]]
    assert len(examples) >= 3
    for example in examples:
        argv = shlex.split(example)[1:]
        if "--human" in argv or any("human" in arg.split(",") for arg in argv):
            continue  # needs a person at the terminal (tests/cli/test_human.py plays it)
        status, _, err = run(capsys, *argv)
        assert status == 0, f"{example}: {err}"


@pytest.mark.parametrize("command", ["agents", "games", "plugins"])
def test_piped_listings_keep_their_lines_whole(capsys: pytest.CaptureFixture[str], command: str) -> None:
    status, out, _ = run(capsys, command)
    assert status == 0  # captured output is not a terminal: no line folded, for grep
    if command == "agents":  # every agent's description, whole, after the table
        assert ("search: Determinized search: samples hidden deals consistent with what it saw and plays them out "
                "(docs/agents/search-lovat.md, docs/agents/search-lorum.md).\n") in out
    if command == "games":
        assert "3, 4, 5, 6 (default 4)" in out


def test_log_lines_fold_to_a_terminal_and_stay_whole_in_a_file(monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    import sys

    from arena.cli.play import wrapped

    line = "hands kept: " + ", ".join(f"seat {seat} L1-0{seat} L2-1{seat} L3-0{seat}" for seat in range(6))
    assert wrapped(line) == line  # captured output is not a terminal: one event per line, for grep
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setattr("shutil.get_terminal_size", lambda: os.terminal_size((40, 24)))
    folded = wrapped(line).splitlines()
    assert len(folded) > 1 and all(len(part) <= 40 for part in folded)
    assert all(part.startswith("    ") for part in folded[1:])
    assert " ".join(part.strip() for part in folded) == line  # card ids such as L1-01 are never split


def _tampered(capsys: pytest.CaptureFixture[str], tmp_path: Path, change: Any) -> tuple[int, str, Path]:
    """Replay a played Lorum record after ``change(data)``: the status and stderr."""
    record = tmp_path / "game.json"
    run(capsys, "play", "lorum", "--deals", "1", "--seed", "5", "--record", str(record))
    data = json.loads(record.read_text())
    change(data)
    record.write_text(json.dumps(data))
    status, out, err = run(capsys, "replay", str(record))
    assert out == "" and len(err.strip().splitlines()) == 1
    return status, err.strip(), record


@pytest.mark.parametrize(("change", "problem"), [
    (lambda data: data.__setitem__("results", data.pop("result")), "unknown key \"results\"; did you mean 'result'?"),
    (lambda data: data.__setitem__("comment", "x"), "unknown key \"comment\" (known: format, game, "),
    (lambda data: data["actions"][2].__setitem__("note", 1), "action 2: unknown key \"note\" (known: seat, action)"),
    (lambda data: data["actions"][2].__setitem__("acton", data["actions"][2].pop("action")),
     "action 2: unknown key \"acton\"; did you mean 'action'?"),
    (lambda data: data["chance"][0].__setitem__("kindd", 1), "chance outcome 0: unknown key \"kindd\"; did you"),
    (lambda data: data["seats"][1].__setitem__("agnet", "x"), "seat 1: unknown key \"agnet\"; did you mean 'agent'?"),
    (lambda data: data.__setitem__("faults", [5]), "fault 0 must be an object with integer 'seat' and 'move'"),
])
def test_a_record_with_a_key_it_cannot_hold_or_a_bad_fault_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, change: Any, problem: str
) -> None:
    # Unknown keys went unread: a misspelt 'result' replayed with status 0 and its scores never checked.
    status, err, record = _tampered(capsys, tmp_path, change)
    assert status == 1 and err.startswith(f"arena: error: {record}: ") and problem in err, err


def test_a_seat_that_does_not_exist_is_named_as_such(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, err, _record = _tampered(capsys, tmp_path, lambda data: data["actions"][3].__setitem__("seat", 4))
    assert status == 1 and err.endswith("there is no seat 4 (seats are 0 to 3)"), err


def test_an_action_out_of_turn_names_the_seat_and_phase_awaited(capsys: pytest.CaptureFixture[str],
                                                                 tmp_path: Path) -> None:
    def out_of_turn(data: dict[str, Any]) -> None:
        first = data["actions"][0]["seat"]
        data["actions"][0]["seat"] = (first + 1) % 4

    status, err, _record = _tampered(capsys, tmp_path, out_of_turn)
    assert status == 1 and "not this seat's decision (waiting for seat " in err and ", phase 'bid')" in err, err


def test_a_record_saved_with_a_byte_order_mark_replays(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    run(capsys, "play", "lorum", "--deals", "1", "--seed", "5", "--record", str(record))
    record.write_bytes(b"\xef\xbb\xbf" + record.read_bytes())  # as an editor that saves 'UTF-8 with BOM' writes it
    status, out, err = run(capsys, "replay", str(record))
    assert status == 0 and err == "" and "recorded actions legal" in out


@pytest.mark.parametrize(("game", "message"), [
    ("lorum", "record's \"game\" is 'lorum': a record names the game's versioned id; did you mean 'lorum-v1'?"),
    ("lorum-v2", "record is for game 'lorum-v2', which is not installed (did you mean 'lorum-v1'?)"),
    ("chess", "record is for game 'chess', which is not installed (installed: lorum-v1, lovat-v1"),
])
def test_a_record_of_another_game_names_the_one_it_likely_meant(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                                game: str, message: str) -> None:
    record = tmp_path / "hand-written.json"
    record.write_text(json.dumps({"game": game, "seed": 1, "seats": [{"agent": "random"}] * 4, "actions": []}))
    status, _, err = run(capsys, "replay", str(record))
    assert status == 1 and message in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(("result", "message"), [
    ({"scores": [0, 0, 0, 0], "rank": [1, 1, 1, 1]}, "result: unknown key \"rank\"; did you mean 'ranks'?"),
    ({"scores": [0, 0, 0, 0]}, "result: missing key 'ranks' (a result states both scores and ranks"),
    ({"scores": [0, 0, 0, 0], "ranks": [1, 1, 1, 1], "winner": 0}, "result: unknown key \"winner\""),
    ([0, 0, 0, 0], "'result' must be an object"),
])
def test_a_hand_written_result_is_checked_key_by_key(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                    result: object, message: str) -> None:
    """A misspelt or missing key of a result would otherwise pass unchecked, or fail as a wrong value."""
    finished = tmp_path / "finished.json"
    assert run(capsys, "play", "lorum", "--deals", "1", "--seed", "3", "--record", str(finished))[0] == 0
    record = json.loads(finished.read_text())
    record["result"] = result
    finished.write_text(json.dumps(record))
    status, _, err = run(capsys, "replay", str(finished))
    assert status == 1 and message in err and len(err.strip().splitlines()) == 1, err


def test_a_forced_action_left_out_is_named(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The likeliest slip in a record written by hand: a decision with one legal action left out."""
    from arena.games.catalog import installed_games
    from arena.records.record import replay

    finished = tmp_path / "lovat.json"
    assert run(capsys, "play", "lovat", "--players", "3", "--seed", "11", "--record", str(finished))[0] == 0
    record = json.loads(finished.read_text())
    game = installed_games()["lovat"]
    for index, entry in enumerate(record["actions"][:-1]):
        partial = {**record, "actions": record["actions"][:index]}
        partial.pop("result", None)
        state = replay(partial, game).state
        following = record["actions"][index + 1]["seat"]
        if len(state.observation(entry["seat"]).legal) == 1 and following != entry["seat"]:
            break
    else:
        pytest.fail("no forced decision followed by another seat's in this game")
    del record["actions"][index]
    record.pop("result")
    finished.write_text(json.dumps(record))
    status, _, err = run(capsys, "replay", str(finished))
    assert status == 1 and f"seat {entry['seat']}'s only legal action is {json.dumps(entry['action'])}" in err, err
