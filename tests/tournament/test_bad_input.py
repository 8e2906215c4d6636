"""Configs and stores from disk that try to break arena: each is refused in one line, and nothing is overwritten."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import tempfile
import zlib
from pathlib import Path

import pytest
from test_runner import KNOWN_AGENTS, KNOWN_GAMES, small_config

from arena.tournament.config import ConfigError
from arena.tournament.config_loading import MAX_CONFIG_BYTES, load_config
from arena.tournament.runner import run_tournament
from arena.tournament.store import Store, StoreError, store_path

BASE = '''name = "demo"
game = "{game}"
{extra}
[game_options]
{options}
[limits]
{limits}
[[agents]]
name = "greedy"
[[agents]]
name = "random"
[[agents]]
name = "random-2"
plugin = "random"
[[agents]]
name = "greedy-2"
plugin = "greedy"
'''


def problems(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "x.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(path, KNOWN_GAMES, KNOWN_AGENTS)
    lines = str(caught.value).splitlines()
    # Short lines whatever the name or value; the config's own path is printed whole, and it is this test's
    # temporary folder, whose length depends on the runner (pytest-xdist adds popen-gwN/): the rest is measured.
    # (The bound was 300 for the whole line with a path of about 70 characters.)
    assert all(len(line.replace(str(path), "")) < 230 for line in lines) and lines
    return lines


def config_text(game: str = "lovat", extra: str = "", options: str = "", limits: str = "") -> str:
    return BASE.format(game=game, extra=extra, options=options, limits=limits)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("x = " + "[" * 100_000 + "]" * 100_000, "nested too deeply"),  # RecursionError inside tomllib
        (config_text(extra="seed = " + "9" * 5000), "a value TOML cannot hold"),  # int() digit limit
        (config_text(extra="[x]\n" + "a." * 300_000 + "b = 1"), "a dotted key of more than 64 parts"),  # quadratic
        (config_text(extra="[" + "\"a\"." * 70 + "b]"), "a dotted key of more than 64 parts"),
        (config_text(extra="x = " + "{a = " * 70 + "1" + "}" * 70), "nested more than 64 levels"),
        (config_text(limits="move_seconds = 1e308"), "limits.move_seconds: expected a positive number up to 86400"),
        (config_text(limits="bank_seconds = inf"), "limits.bank_seconds: expected a number >= 0 up to 86400"),
        (config_text(limits="startup_seconds = nan"), "limits.startup_seconds: expected a positive number"),
        (config_text(limits="memory_mb = 9223372036854775807"), "limits.memory_mb: expected a positive integer up to"),
        (config_text(extra="seed = 9223372036854775808"), "seed: expected an integer from 0 to 2**63-1"),
        (config_text(extra="blocks = 1000000000000"), "blocks: expected a positive integer"),
        (config_text(extra="blocks = 900000"), "the schedule would have 3,600,000 matches (1 tables x 900,000 blocks"),
        (config_text(extra="max_tables = 1000000000"), "max_tables: expected a positive integer up to 100,000"),
        (config_text(game="lorum", options="deals = 1000000000"), "option 'deals' must be an integer from 1 to 1000"),
        (config_text(options="players = 100000"), "game_options.players"),
        (config_text().replace('name = "greedy"\n', 'name = "greedy"\noptions = { big = 18446744073709551616 }\n'),
         "agents[0].options: expected JSON-like values"),
    ],
)
def test_absurd_values_are_refused_in_one_line(tmp_path: Path, text: str, expected: str) -> None:
    lines = problems(tmp_path, text)
    assert any(expected in line for line in lines), lines


@pytest.mark.parametrize("name", ["../../x", "a/b", "a\x00b", "a\x1b[2Jb", "x" * 10_000, "/etc"])
def test_a_tournament_name_cannot_leave_its_folder_or_flood_the_message(tmp_path: Path, name: str) -> None:
    text = config_text().replace('name = "demo"', f"name = {json.dumps(name)}")  # \uXXXX escapes are TOML too
    lines = problems(tmp_path, text)
    assert len(lines) == 1 and lines[0].startswith(f"{tmp_path / 'x.toml'}: name: expected a name")
    with pytest.raises(StoreError, match="expected lowercase letters") as caught:
        store_path(tmp_path, name)  # arena leaderboard NAME / arena export NAME
    assert len(str(caught.value)) < 250 and "\x00" not in str(caught.value) and "\x1b" not in str(caught.value)


def test_a_huge_or_special_config_file_is_not_read_whole(tmp_path: Path) -> None:
    big = tmp_path / "big.toml"
    big.write_text("# " + "x" * MAX_CONFIG_BYTES)
    with pytest.raises(ConfigError, match="larger than 1024 KiB"):
        load_config(big, KNOWN_GAMES, KNOWN_AGENTS)
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)  # opening it to read would wait for a writer forever
    with pytest.raises(ConfigError, match="not a regular file"):
        load_config(fifo, KNOWN_GAMES, KNOWN_AGENTS)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_refused_run_leaves_the_existing_store_byte_identical(tmp_path: Path) -> None:
    run_tournament(small_config(blocks=1), leaderboards=tmp_path, plugins_dir=None, workers=1)
    path = store_path(tmp_path, "small")
    before = digest(path)
    with pytest.raises(StoreError, match="different configuration"):
        run_tournament(small_config(blocks=1, seed=6), leaderboards=tmp_path, plugins_dir=None, workers=1)
    assert digest(path) == before
    with sqlite3.connect(path) as db:  # as a newer arena would leave it
        db.execute("UPDATE meta SET value = '2' WHERE key = 'schema'")
    db.close()
    before = digest(path)
    with pytest.raises(StoreError, match="format 2, newer than this arena reads"):
        run_tournament(small_config(blocks=1), leaderboards=tmp_path, plugins_dir=None, workers=1)
    with pytest.raises(StoreError, match="newer than this arena reads"):
        Store.open_readonly(path)
    assert digest(path) == before


@pytest.mark.parametrize(
    "content, message",
    [
        (b"not a database at all" * 100, "not a readable arena results store"),
        (b"", "not an arena results store"),
        (None, "not an arena results store"),  # an SQLite database of something else
        ("truncated", "not a readable arena results store"),
    ],
)
def test_a_store_that_is_not_an_arena_store_is_refused_untouched(tmp_path: Path, content, message: str) -> None:
    path = store_path(tmp_path, "small")
    path.parent.mkdir()
    if content is None:
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE photos (id INTEGER)")
        db.close()
    elif content == "truncated":
        run_tournament(small_config(blocks=1), leaderboards=tmp_path / "good", plugins_dir=None, workers=1)
        data = store_path(tmp_path / "good", "small").read_bytes()
        path.write_bytes(data[: len(data) // 3])
    else:
        path.write_bytes(content)
    before = digest(path)
    for attempt in (lambda: run_tournament(small_config(blocks=1), leaderboards=tmp_path, plugins_dir=None,
                                           workers=1),
                    lambda: Store.open_readonly(path).close()):
        try:
            attempt()
        except StoreError as error:
            assert message in str(error) and "\n" not in str(error)
        else:
            raise AssertionError("a damaged store was used")
    assert digest(path) == before


def test_an_impossible_leaderboards_folder_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "leaderboards"
    blocker.write_text("a file where the folder should be")
    with pytest.raises(StoreError, match="cannot make the tournament folder: Not a directory"):
        run_tournament(small_config(blocks=1), leaderboards=blocker, plugins_dir=None, workers=1)
    assert blocker.read_text() == "a file where the folder should be"


UNPRIVILEGED = 65534  # nobody


def as_unprivileged(attempts: list[Path]) -> list[str]:
    """``Store(store_path(folder, "small"))`` for each folder in a forked child that dropped root (as root
    every file is writable); the one-line errors it met, in order."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no exec, so the interpreter need not be reachable by 'nobody'
        try:
            if os.geteuid() == 0:
                os.setgroups([])
                os.setgid(UNPRIVILEGED)
                os.setuid(UNPRIVILEGED)
            errors = []
            for folder in attempts:
                try:
                    Store(store_path(folder, "small")).close()
                except StoreError as error:
                    errors.append(str(error))
            os.write(write, json.dumps(errors).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    return json.loads(data or b"null")


def test_read_only_stores_and_folders_are_refused_for_an_unprivileged_user(tmp_path: Path) -> None:
    top = Path(tempfile.mkdtemp(prefix="arena-readonly-"))
    try:
        top.chmod(0o755)
        Store(store_path(top / "lb", "small")).close()
        for folder in (top / "lb", top / "lb" / "small"):
            folder.chmod(0o755)
        store = store_path(top / "lb", "small")
        store.chmod(0o444)
        before = digest(store)
        (top / "locked").mkdir(mode=0o555)
        errors = as_unprivileged([top / "lb", top / "locked"])
        assert len(errors) == 2, errors
        assert errors[0].endswith("the results store is read-only; make it writable or copy it elsewhere")
        assert errors[1].endswith("locked/small: cannot make the tournament folder: Permission denied")
        assert digest(store) == before
    finally:
        shutil.rmtree(top, ignore_errors=True)


def test_a_stored_record_that_inflates_past_the_bound_is_refused(tmp_path: Path, monkeypatch) -> None:
    path = store_path(tmp_path, "small")
    row = {"idx": 0, "id": "t0000-b00-r0", "block_id": "t0000-b00", "table_idx": 0, "block": 0, "rotation": 0,
           "deal_seed": 1, "agents": [], "scores": [], "ranks": [], "faults": [], "think_seconds": [],
           "wall_seconds": 0.0, "record": zlib.compress(b"[" + b" " * 5000 + b"]")}
    with Store(path) as store:
        store.add([row])
    monkeypatch.setattr("arena.tournament.store.MAX_RECORD_BYTES", 1000)  # a small bomb stands for a big one
    with Store.open_readonly(path) as store, pytest.raises(StoreError, match=r"damaged record .larger than"):
        store.record("t0000-b00-r0")


def test_one_run_at_a_time_writes_a_store_and_readers_are_never_locked_out(tmp_path: Path) -> None:
    """Two runs of one tournament at once would each play what was missing when it started: the second is
    refused before it plays anything, while reading commands go on."""
    path = tmp_path / "lb" / "t" / "results.sqlite"
    with Store(path) as first:
        with pytest.raises(StoreError, match=r"results.sqlite: the results store is in use by another run; wait for "
                                             r"it or stop it$"):
            Store(path)
        with Store.open_readonly(path) as reader:
            assert reader.count() == first.count() == 0
    with Store(path) as again:  # closed: the next run may write
        assert again.count() == 0
