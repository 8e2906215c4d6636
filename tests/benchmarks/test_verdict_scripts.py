"""Smoke tests of the verdict studies: each runs at a tiny size and prints the table docs quote."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def rows(*arguments: str) -> list[list[str]]:
    """The markdown rows ``python <arguments>`` prints (fails on a non-zero exit)."""
    done = subprocess.run([sys.executable, *arguments], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return [[cell.strip() for cell in line.strip("|").split(" | ")]
            for line in done.stdout.splitlines() if line.startswith("| ") and not line.startswith("| seats")
            and not line.startswith("| game")]


def test_luck_control_shows_the_mean_scores_gaps_unmoved_by_the_reference() -> None:
    table = rows("benchmarks/luck_control.py", "--reps", "2", "--blocks", "6")
    assert [row[0] for row in table] == ["lorum"] * 3 + ["lovat"] * 2
    # In a complete duplicate block every agent has the same total subtracted: the score's gaps do not move.
    assert all(row[-1] == "same" for row in table), table


def test_ladder_settle_compares_the_rule_before_on_the_same_seeds() -> None:
    (row,) = rows("benchmarks/ladder_settle.py", "--reps", "2", "--seats", "3")
    assert row[:2] == ["3", "5"] and row[4] == "2/2" and row[2].startswith("2/2, ")
    (twins,) = rows("benchmarks/ladder_settle.py", "--twins", "--reps", "2", "--seats", "3", "--budget", "600")
    assert twins[2] == "0/2"  # before: two copies never settle (they play to the budget)


def test_luck_dice_rates_each_pair_raw_and_corrected_and_checks_the_mean_correction() -> None:
    table = rows("benchmarks/luck_dice.py", "--reps", "3", "--blocks", "2", "--players", "3")
    pairs = [row for row in table if row[0] == "lovat 3p" and " − " in row[1]]
    assert [row[1] for row in pairs] == ["skill-0.8 − skill-0.65", "skill-0.65 − skill-0.5"]
    assert all(len(row) == 14 for row in pairs), pairs
    means = [row for row in table if row[0] == "lovat 3p" and row[2] in ("points", "seats beaten")]
    assert len(means) == 6  # three agents, two valuations


def test_luck_fidelity_rates_real_matches_four_ways_and_checks_the_mean_correction() -> None:
    table = [row for row in rows("benchmarks/luck_fidelity.py", "--quick") if row[0] != "field"]
    ratings = [row[:2] for row in table if len(row) == 7]
    assert ratings == [[field, name] for field in ("3p", "4p", "5p")
                       for name in ("luck", "raw seats beaten", "score", "elo")]
    assert all(row[4].endswith("of strong − twin-a") for row in table if len(row) == 7)
    assert all(row[5].endswith("of twin-b − weak") for row in table if len(row) == 7 and row[0] != "3p")
    means = [row for row in table if len(row) == 5]
    assert [row[1] for row in means] == ["strong", "twin-a", "twin-b", "strong", "twin-a", "twin-b", "weak",
                                         "strong", "twin-a", "twin-b", "weak", "weakest"]
    alone = rows("benchmarks/luck_fidelity.py", "--quick", "--players", "3")
    assert {row[0] for row in alone if len(row) == 7 and row[0] != "field"} == {"3p"}
