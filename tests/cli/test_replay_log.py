"""`arena replay --log [--hands]` prints the log `arena play` prints; `arena replay NAME --match ID` reads a store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def play_log(capsys: pytest.CaptureFixture[str], tmp_path: Path, *argv: str) -> tuple[list[str], Path]:
    """The log lines of `arena play` (up to the result) and the record it saved."""
    record = tmp_path / "game.json"
    status, out, err = run(capsys, "play", *argv, "--record", str(record))
    assert status == 0, err
    return out.split("\n\nResult:")[0].splitlines(), record


def replay_log(capsys: pytest.CaptureFixture[str], *argv: str) -> list[str]:
    status, out, err = run(capsys, "replay", *argv, "--log")
    assert status == 0, err
    log, _, verdict = out.partition("\n\n")
    assert "recorded actions legal" in verdict
    return log.splitlines()


def test_a_lorum_replay_log_is_the_play_log(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    played, record = play_log(capsys, tmp_path, "lorum", "--seed", "11", "--deals", "2")
    assert replay_log(capsys, str(record)) == played
    assert not any("hand:" in line for line in played)  # hands stay hidden without --hands


def test_a_lovat_replay_log_adds_only_the_secret_keeps(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    played, record = play_log(capsys, tmp_path, "lovat", "--players", "3", "--seed", "4")
    replayed = replay_log(capsys, str(record))
    keeps = [line for line in replayed if " decides: keep " in line]
    assert [line[:15] for line in keeps] == ["Seat 0 (greedy)", "Seat 1 (random)", "Seat 2 (greedy)"]
    assert [line for line in replayed if line not in keeps] == played
    data = json.loads(record.read_text())
    for seat, line in enumerate(keeps):  # each keep shown is the one recorded
        [kept] = [entry["action"] for entry in data["actions"][:3] if entry["seat"] == seat]
        assert f"keep {' '.join(kept)} " in line


def test_hands_are_shown_at_the_start_and_as_they_change(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _, record = play_log(capsys, tmp_path, "lorum", "--seed", "3", "--deals", "1")
    data = json.loads(record.read_text())
    lines = replay_log(capsys, str(record), "--hands")
    dealt = data["chance"][1]["value"]
    first = [line for line in lines if "hand:" in line][:4]
    for seat, line in enumerate(first):
        assert line.startswith(f"  seat {seat} (")
        cards = [word for word in line.split("hand: ")[1].split() if word != "|" and not word.endswith(":")]
        assert sorted(cards) == sorted(dealt[seat])
    # after each play, the player's hand line no longer holds the card
    first_play = data["actions"][4]
    seat, card = first_play["seat"], first_play["action"]
    index = next(i for i, line in enumerate(lines) if line.startswith(f"Seat {seat} (") and line.endswith(f" {card}."))
    assert lines[index + 1].startswith(f"  seat {first_play['seat']} (")
    assert first_play["action"] not in lines[index + 1].split()


def test_a_fault_is_shown_at_the_move_where_the_substitute_took_over(capsys: pytest.CaptureFixture[str],
                                                                       tmp_path: Path) -> None:
    _, record = play_log(capsys, tmp_path, "lorum", "--seed", "3", "--deals", "1")
    data = json.loads(record.read_text())
    move = data["actions"][5]
    data["faults"] = [{"seat": move["seat"], "kind": "timeout", "move": 5, "message": "no answer in 1 s"}]
    record.write_text(json.dumps(data))
    lines = replay_log(capsys, str(record))
    index = next(i for i, line in enumerate(lines)
                 if line.startswith(f"Seat {move['seat']} (") and line.endswith(f" plays {move['action']}."))
    assert lines[index - 1].startswith(f"Fault: seat {move['seat']} (") and "timeout at move 5: no answer in 1 s" \
        in lines[index - 1] and lines[index - 1].endswith("the substitute plays this seat from here.")


def test_play_shows_a_fault_where_the_substitute_took_over_as_replay_does(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = str(Path(__file__).resolve().parents[1] / "bad_agents")
    played, record = play_log(capsys, tmp_path, "lorum", "--seed", "3", "--deals", "2",
                              "--agents", "bad-raises,greedy,random,greedy", "--plugins-dir", bad)
    [fault] = json.loads(record.read_text())["faults"]
    [line] = [line for line in played if line.startswith("Fault:")]
    assert line.startswith(f"Fault: seat 0 (bad-raises) exception at move {fault['move']}: raised ValueError: "
                           "deliberately")
    # The next line is the substitute's move for seat 0: the fault stands where it took over.
    following = played[played.index(line) + 1]
    assert following.startswith("Seat 0 (bad-raises) ")
    assert replay_log(capsys, str(record), "--plugins-dir", bad) == played


def test_hands_need_the_log_and_the_log_is_not_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _, record = play_log(capsys, tmp_path, "lorum", "--seed", "3", "--deals", "1")
    status, _, err = run(capsys, "replay", str(record), "--hands")
    assert status == 2 and err == "arena: error: --hands shows hands in the log: add --log\n"
    status, _, err = run(capsys, "replay", str(record), "--log", "--json")
    assert status == 2 and "choose one" in err and err.count("\n") == 1
    status, out, _ = run(capsys, "replay", str(record), "--json")
    assert status == 0 and json.loads(out)["game"] == "lorum-v1"


TINY = """
name = "tiny"
game = "lorum"
seed = 3
blocks = 1

[game_options]
deals = 1

[[agents]]
name = "greedy"

[[agents]]
name = "random"

[[agents]]
name = "greedy-2"
plugin = "greedy"

[[agents]]
name = "random-2"
plugin = "random"
"""


def test_a_match_is_replayed_straight_from_a_store(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    config = tmp_path / "tiny.toml"
    config.write_text(TINY)
    boards = tmp_path / "boards"
    assert run(capsys, "run", str(config), "--workers", "1", "--json", "--leaderboards", str(boards))[0] == 0
    status, out, _ = run(capsys, "export", "tiny", "--format", "jsonl", "--leaderboards", str(boards))
    out_lines = out.splitlines()
    match_id = json.loads(out_lines[-1])["id"]
    exported = tmp_path / "match.json"
    assert run(capsys, "export", "tiny", "--match", match_id, "--output", str(exported),
               "--leaderboards", str(boards))[0] == 0
    from_store = replay_log(capsys, "tiny", "--match", match_id, "--leaderboards", str(boards))
    assert from_store == replay_log(capsys, str(exported)) and from_store[0].startswith("Slovak Lorum, 4 players")
    status, out, _ = run(capsys, "replay", "tiny", "--match", match_id, "--leaderboards", str(boards))
    assert status == 0 and out.startswith(f"tiny match {match_id}: ") and "recorded actions legal" in out
    # Errors are one line: an unknown tournament, an unknown match id with the closest one suggested.
    status, _, err = run(capsys, "replay", "nosuch", "--match", match_id, "--leaderboards", str(boards))
    assert status == 2 and "no tournament 'nosuch'" in err and "did you mean" not in err and err.count("\n") == 1
    status, _, err = run(capsys, "replay", "tin", "--match", match_id, "--leaderboards", str(boards))
    assert status == 2 and "no tournament 'tin'" in err and err.endswith("did you mean 'tiny'?\n")
    typo = match_id[:-1] + ("9" if match_id[-1] != "9" else "8")
    for command in ("replay", "export"):
        status, _, err = run(capsys, command, "tiny", "--match", typo, "--leaderboards", str(boards))
        assert status == 2 and f"no match {typo!r}; did you mean " in err and err.count("\n") == 1
    first = json.loads(out_lines[0])["id"]
    for command in ("replay", "export"):  # nothing close: what the ids look like, and where to list them
        status, _, err = run(capsys, command, "tiny", "--match", "5", "--leaderboards", str(boards))
        assert status == 2 and err.count("\n") == 1 and "did you mean" not in err
        assert err.endswith(f"no match '5': match ids look like {first!r} (the first of {len(out_lines)}); "
                            "'arena export tiny' lists them all\n")


def test_a_fault_message_cannot_drive_the_terminal_and_a_malformed_fault_is_one_line(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _, record = play_log(capsys, tmp_path, "lorum", "--seed", "3", "--deals", "1")
    data = json.loads(record.read_text())
    data["faults"] = [{"seat": 0, "kind": "exception", "move": 2, "message": "boom\x1b[2J\x1b]0;owned\x07"}]
    record.write_text(json.dumps(data))
    lines = replay_log(capsys, str(record))
    [fault] = [line for line in lines if line.startswith("Fault:")]
    assert "\x1b" not in fault and "\x07" not in fault and "boom?[2J?]0;owned?" in fault
    data["faults"] = [{"seat": "0", "move": 2}]
    record.write_text(json.dumps(data))
    status, _, err = run(capsys, "replay", str(record), "--log")
    assert status == 1 and err == (f"arena: error: {record}: fault 0 must be an object with integer 'seat' and "
                                   "'move' and string 'kind' and 'message'\n")
