"""Logs speak English: a count of one takes the singular ("1 point", "1 card", "1 counter")."""

from __future__ import annotations

import re

import pytest

import arena
from arena.plugins import load_registry
from arena.records.log import log_steps

WRONG = re.compile(r"(?<![\d.])1 (points|cards|counters)\b")
RIGHT = re.compile(r"(?<![\d.])1 (point|card|counter)\b")


@pytest.mark.parametrize("game, players", [("lovat", 3), ("lovat", 6), ("lorum", 4)])
def test_a_count_of_one_is_singular_in_the_log_and_the_hands(game: str, players: int) -> None:
    loaded = load_registry(plugins_dir=None).registry
    singular = 0
    for seed in range(12):
        match = arena.play_match(game, ["greedy"] + ["random"] * (players - 1), seed=seed,
                                   options={"players": players})
        for step in log_steps(loaded.game(game), match.record, hands=True):
            lines = step.terminal_lines([])
            wrong = [line for line in lines if WRONG.search(line)]
            assert wrong == [], f"{game} seed {seed}: {wrong}"
            singular += sum(bool(RIGHT.search(line)) for line in lines)
    assert singular > 0  # the logs do say "1 point" or "1 card" somewhere: the check above saw such counts
