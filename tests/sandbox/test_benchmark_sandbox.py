"""``benchmarks/sandbox.py`` runs at its quick size and reports every row (no timing is asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arena.sandbox import probe

ROOT = Path(__file__).resolve().parents[2]


def test_quick_run_reports_each_mode_against_isolated() -> None:
    if probe().level == "none":
        pytest.skip("this machine offers no sandbox; run 'arena doctor'")
    done = subprocess.run([sys.executable, "benchmarks/sandbox.py", "--quick"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = {line.split(" | ")[1]: line for line in done.stdout.splitlines() if line.startswith("| sandbox |")}
    for label in ("one seat alone", "a match of 4 seats"):
        assert f"isolated (today): fork + exit + wait, per seat, {label}" in rows
        seat = rows[f"sandboxed without cgroups (no root): spawn_seat + reap, per seat, {label}"]
        assert " ms | " in seat and "× isolated; target ≤ 15 ms: " in seat
        if probe().memory_limit:
            assert "× isolated" in rows[f"sandboxed with cgroups: spawn_seat + place + reap, per seat, {label}"]
    for clock in ("wall", "CPU"):
        assert "target < 1 minute: " in rows[f"sandbox overhead of a 1,000-match, 4-seat tournament, {clock} time"]
    assert "× isolated; target ≤ 15 ms: " in rows["CPU per seat, a match of 4 seats: plain"]
    assert "confine, once per zygote" in rows


def test_one_command_runs_the_sandbox_section() -> None:
    done = subprocess.run([sys.executable, "-m", "benchmarks", "--help"], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert "sandbox" in done.stdout
