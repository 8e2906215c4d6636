"""``arena serve users``, ``arena serve``'s config checks and ``arena submit``'s token handling: one-line errors
with the right exit status, tokens shown once and stored only hashed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli import main

ROOT = Path(__file__).resolve().parents[2]


def config_file(tmp_path: Path, extra: str = "", replace: tuple[str, str] = ("", "")) -> Path:
    text = (ROOT / "configs" / "serve-lovat.toml").read_text()
    text = text.replace('folder = "../competitions/serve-lovat"', 'folder = "competition"')
    text = text.replace(*replace) + extra
    path = tmp_path / "serve.toml"
    path.write_text(text)
    return path


def test_users_add_list_revoke(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = str(config_file(tmp_path))
    assert main(["serve", "users", "add", "alice", "--config", config, "--json"]) == 0
    token = json.loads(capsys.readouterr().out)["token"]
    assert token.startswith("alice.") and len(token) > 40
    assert token.encode() not in (tmp_path / "competition" / "serve.sqlite").read_bytes()
    assert main(["serve", "users", "add", "alice", "--config", config]) == 1
    assert "participant 'alice' exists already" in capsys.readouterr().err
    assert main(["serve", "users", "list", "--config", config]) == 0
    listed = capsys.readouterr().out
    assert listed.startswith("alice\tactive") and token not in listed and listed.rstrip().endswith("\t0 uploads")
    assert main(["serve", "users", "revoke", "alice", "--config", config]) == 0
    assert "0 accepted uploads of theirs will leave the ladder" in capsys.readouterr().out
    assert main(["serve", "users", "revoke", "alice", "--config", config]) == 1
    assert "no participant 'alice' with a live token" in capsys.readouterr().err
    assert main(["serve", "users", "revoke", "nobody", "--config", config]) == 2  # a name that is not there
    assert capsys.readouterr().err == "arena: error: no participant 'nobody' (see 'arena serve users list')\n"
    assert main(["serve", "users", "list", "--config", config]) == 0
    assert "alice\trevoked" in capsys.readouterr().out


@pytest.mark.parametrize("words", [["users", "--help"], ["users", "add", "-h"], ["users", "revoke", "x", "--help"]])
def test_users_help_is_the_page_of_users(words: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["serve", *words])
    page = capsys.readouterr().out
    assert stopped.value.code == 0
    assert page.startswith("usage: arena serve users add NAME | list | revoke NAME")
    assert "prints its token once" in " ".join(page.split()) and "--host" not in page  # the users page, not the server's


def test_serve_help_is_the_page_of_the_server(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "configs/serve-lovat.toml", "--help"])
    assert capsys.readouterr().out.startswith("usage: arena serve [-h]")


@pytest.mark.parametrize(("words", "message"), [
    (["add"], "usage: arena serve users add NAME"),
    (["remove", "x"], "usage: arena serve users add NAME"),
    (["add", "Alice"], "participant name 'Alice': expected lower-case letters"),
    (["add", "a" * 40], "at most 32 characters"),
])
def test_users_mistakes_are_one_line_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 words: list[str], message: str) -> None:
    assert main(["serve", "users", *words, "--config", str(config_file(tmp_path))]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "competition").exists()  # a refused command makes no folder, secret or database


@pytest.mark.parametrize(("change", "message"), [
    (("[serve]\n", "[serve]\ncolour = 1\n"), "[serve]: unknown key 'colour'"),
    (("upload_bytes = 1000000", "upload_bytes = -5"), "upload_bytes: expected a whole number from 1000 to"),
    (("queued = 3", "queued = 2.5"), "queued: expected a whole number"),
    (("port = 8000", "port = 70000"), "port: expected a whole number from 0 to 65535"),
    (("self_registration = false", 'self_registration = "yes"'), "self_registration: expected true or false"),
    (('isolation = "sandboxed"', 'isolation = "trusted"'), "a served competition runs every seat sandboxed"),
])
def test_a_bad_serve_config_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   change: tuple[str, str], message: str) -> None:
    assert main(["serve", "users", "list", "--config", str(config_file(tmp_path, replace=change))]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert len([line for line in err.splitlines() if line.startswith("arena: error:")]) == 1


@pytest.mark.parametrize(("option", "value", "message"), [
    ("--port", "70000", "expected an integer from 1 to 65,535 (a TCP port), got '70000'"),
    ("--workers", "0", "expected an integer from 1 to 4,096 (workers), got '0'"),
])
def test_serve_numbers_are_bounded(capsys: pytest.CaptureFixture[str], option: str, value: str, message: str) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["serve", str(ROOT / "configs" / "serve-lovat.toml"), option, value])
    assert exited.value.code == 2 and message in capsys.readouterr().err


def test_a_missing_serve_config_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # As 'arena run missing.toml' is: the request names what is not there.
    for command in (["serve", str(tmp_path / "missing.toml")],
                    ["serve", "users", "list", "--config", str(tmp_path / "missing.toml")]):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"arena: error: {tmp_path / 'missing.toml'}: no such serve config") and \
            err.count("\n") == 1


def test_serve_refuses_a_public_seed_before_anything_starts(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    # A public seed would let an upload rebuild every hand of its deal from its own agent seed.
    config = config_file(tmp_path, replace=('name = "serve-lovat"\n', 'name = "serve-lovat"\nseed = 2026\n'))
    for command in (["serve", str(config)], ["serve", "users", "list", "--config", str(config)]):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("arena: error: ")
        assert "seed: a served competition keeps its deals secret" in err and "remove seed = 2026" in err
        assert not (tmp_path / "competition").exists()  # nothing started: no folder, secret or database


def test_the_shipped_serve_config_sets_no_seed() -> None:
    from arena.serve.server import load_competition

    assert load_competition(ROOT / "configs" / "serve-lovat.toml").ladder.tournament.seed is None


def test_a_ladder_config_without_a_serve_table_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "users", "list", "--config", str(ROOT / "configs" / "ladder-lovat.toml")]) == 2
    assert "no [serve] table: a serve config is a ladder config with a [serve] table" in capsys.readouterr().err


def test_serve_refuses_to_start_without_the_full_sandbox(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.serve import server

    monkeypatch.setattr(server, "sandbox_problem", lambda: "'arena serve' needs the full sandbox for uploads, and "
                                                           "this machine offers 'partial'; 'arena doctor' says what")
    assert main(["serve", str(config_file(tmp_path))]) == 1
    assert "needs the full sandbox" in capsys.readouterr().err
    assert not (tmp_path / "competition" / "secret.key").exists()  # nothing started


def test_submit_takes_the_token_from_the_environment_or_a_file_only(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    agent = tmp_path / "mine.py"
    agent.write_text("x = 1\n")
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    assert main(["submit", "http://127.0.0.1:9", str(agent)]) == 2
    assert "no token: set $ARENA_TOKEN or pass --token-file FILE" in capsys.readouterr().err
    assert main(["submit", "http://127.0.0.1:9", str(agent), "--token-file", str(tmp_path / "none")]) == 1
    assert "cannot read the token" in capsys.readouterr().err
    monkeypatch.setenv("ARENA_TOKEN", "alice.x")
    assert main(["submit", "http://127.0.0.1:9", str(agent)]) == 1  # nothing listens on port 9
    err = capsys.readouterr().err
    assert err.startswith("arena: error: http://127.0.0.1:9:") and "Traceback" not in err
    # A token on the command line is refused, and not repeated where the terminal's scrollback keeps it.
    monkeypatch.delenv("ARENA_TOKEN")
    with pytest.raises(SystemExit) as exited:
        main(["submit", "http://127.0.0.1:9", str(agent), "--token", "bob.y"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "a token is never taken from the command line" in err and "bob.y" not in err


@pytest.mark.parametrize(("content", "problem"), [
    ("\ufeffalice.abc\n".encode(), "the file starts with a byte-order mark"),
    ("\ufeffalice.abc\n".encode("utf-16"), "the file starts with a byte-order mark"),
    ("alicé.abc\n".encode(), "a non-ASCII character (U+00E9) at position 5"),
    (b"\x7fELF\x02\x01\x01\x00\x00\x00", "the file is binary (it holds a NUL byte)"),
    (b"\xe9alice.abc", "byte 0 is not UTF-8 text"),
    (b"alice.abc\nbob.def\n", "a line break at position 10"),
    (b"alice.abc" * 1000, "larger than 4096 bytes"),
])
def test_submit_refuses_a_token_file_that_holds_no_token_in_one_line(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str],
                                                                    content: bytes, problem: str) -> None:
    agent, token = tmp_path / "mine.py", tmp_path / "token"
    agent.write_text("x = 1\n")
    token.write_bytes(content)
    # Refused before any request: nothing listens on port 9, and the answer is not "connection refused".
    assert main(["submit", "http://127.0.0.1:9", str(agent), "--token-file", str(token)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"arena: error: {token}: not a token") and problem in err
    assert err.count("\n") == 1 and "Traceback" not in err and "alice.abc" not in err


def test_submit_refuses_a_token_in_the_environment_that_is_no_token(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    agent = tmp_path / "mine.py"
    agent.write_text("x = 1\n")
    monkeypatch.setenv("ARENA_TOKEN", "alice.ab\u00e9c")
    assert main(["submit", "http://127.0.0.1:9", str(agent)]) == 2
    err = capsys.readouterr().err
    assert err == ("arena: error: $ARENA_TOKEN: not a token: a non-ASCII character (U+00E9) at position 9; it should "
                   "hold only the token the organiser gave you, e.g. alice.xxxx (ASCII letters, digits and . _ -)\n")
    with pytest.raises(SystemExit) as exited:  # on the command line, any token is refused, and not repeated
        main(["submit", "http://127.0.0.1:9", str(agent), "--token", "alice.ab\u00e9c"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "a token is never taken from the command line" in err and "alice" not in err


def test_the_competitions_folder_is_private_to_its_organiser(tmp_path: Path) -> None:
    # Its files hold the ladder's deal key (results.sqlite), every check report and seat's output, and every
    # upload's code, and were readable by every user of the machine (0644 files in 0755 folders): a participant with
    # an account on the server could read the key, and so every hand to come, or a rival's agent.
    import stat

    config = str(config_file(tmp_path))
    folder = tmp_path / "competition"
    folder.mkdir()
    folder.chmod(0o755)  # as an earlier arena made it
    assert main(["serve", "users", "add", "alice", "--config", config]) == 0
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    assert main(["serve", "users", "add", "bob", "--config", str(config_file(fresh))]) == 0
    assert stat.S_IMODE((fresh / "competition").stat().st_mode) == 0o700


def test_a_copied_config_renamed_but_not_moved_is_refused_naming_both(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    first = config_file(tmp_path)
    assert main(["serve", "users", "add", "alice", "--config", str(first)]) == 0
    second = tmp_path / "serve2.toml"
    second.write_text(first.read_text().replace('name = "serve-lovat"', 'name = "serve-two"'))
    capsys.readouterr()
    assert main(["serve", "users", "list", "--config", str(second)]) == 1
    assert capsys.readouterr() == ("", f"arena: error: {second}: [serve] folder {tmp_path / 'competition'} keeps the "
                                       "competition 'serve-lovat', not 'serve-two': give 'serve-two' a folder of its "
                                       "own\n")
    assert main(["serve", str(second), "--port", "1"]) == 1  # refused before it binds
    assert "keeps the competition 'serve-lovat', not 'serve-two'" in capsys.readouterr().err
    second.write_text(second.read_text().replace('folder = "competition"', 'folder = "competition-two"'))
    assert main(["serve", "users", "list", "--config", str(second)]) == 0
    assert "alice" not in capsys.readouterr().out


def test_the_addresses_the_shipped_config_names_are_the_documented_ones() -> None:
    import re

    comments = "\n".join(line.partition("#")[2] for line in (ROOT / "configs" / "serve-lovat.toml").read_text()
                         .splitlines())
    named = re.findall(r"(?:GET|POST) /[\w/]+", comments)
    assert named  # the register address, at least
    documented = (ROOT / "docs" / "serve.md").read_text()
    assert [address for address in named if f"`{address}`" not in documented] == []
