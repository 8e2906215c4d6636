"""docs/records.md: the documented ``--json`` fields are the real ones, and its examples replay."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from arena.cli import main

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "records.md"


def documented_tables() -> dict[str, list[tuple[str, ...]]]:
    """The tables of the ``--json`` section, keyed by their first header cell: rows of cells, backticks removed."""
    text = DOC.read_text()
    section = text[text.index("## The `--json` output"):]
    section = section[:section.index("\n## ", 1)]
    tables: dict[str, list[tuple[str, ...]]] = {}
    header = None
    for line in section.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = tuple(cell.strip().strip("`") for cell in line.strip("|").split("|"))
        if header is None:
            header = cells[0]
            tables[header] = []
        elif not set(cells[0]) <= {"-"}:
            tables[header].append(cells)
    return tables


def documented_keys(game: str) -> set[str]:
    title = {"lovat": "Lovat", "lorum": "Lorum"}[game]
    return {key for key, games, _ in documented_tables()["key"] if games in ("both", title)}


def play_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["play", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("game", ["lovat", "lorum"])
def test_the_documented_top_level_keys_are_exactly_the_real_ones(capsys: pytest.CaptureFixture[str],
                                                                 tmp_path: Path, game: str) -> None:
    record = tmp_path / "game.json"
    played = play_json(capsys, game, "--seed", "3", "--record", str(record))
    assert set(played) == documented_keys(game), "docs/records.md: the --json table must list every key"
    assert main(["replay", str(record), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == played  # replay prints the same object


def test_the_documented_player_and_fault_keys_are_exactly_the_real_ones(capsys: pytest.CaptureFixture[str]) -> None:
    tables = documented_tables()
    played = play_json(capsys, "lorum", "--deals", "1", "--seed", "1", "--plugins-dir",
                       str(ROOT / "tests" / "bad_agents"), "--agents", "bad-raises,random,random,random")
    assert played["faults"], "the bad agent should have faulted"
    for player in played["players"]:
        assert set(player) == {row[0] for row in tables["player key"]}
    assert set(played["faults"][0]) == {row[0] for row in tables["fault key"]}


@pytest.mark.parametrize("example", sorted((ROOT / "docs" / "examples").glob("*.json")), ids=lambda path: path.name)
def test_every_example_record_replays(capsys: pytest.CaptureFixture[str], example: Path) -> None:
    assert main(["replay", str(example)]) == 0, capsys.readouterr().err


def test_the_hand_written_lorum_example_is_a_big_made() -> None:
    record = json.loads((ROOT / "docs" / "examples" / "lorum-big-made.json").read_text())
    assert record["result"]["scores"] == [60, -20, -20, -20]
    assert "`docs/examples/lorum-big-made.json`" in DOC.read_text()


def test_the_error_examples_are_one_line_each() -> None:
    text = DOC.read_text()
    block = re.search(r"## Replay errors.*?```\n(.*?)```", text, re.S).group(1)  # type: ignore[union-attr]
    lines = block.strip().splitlines()
    assert len(lines) == 12 and all(line.startswith("arena: error: game.json: ") for line in lines)
