"""Smoke test of the benchmark scripts: each runs at its ``--quick`` size and prints its table.

No timing is asserted (the cores are shared); only that every script runs, prints
the machine line and a markdown table with the rows docs/performance.md shows.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.referee.confinement import sandbox_level

ROOT = Path(__file__).resolve().parents[2]
HEADER = "| benchmark | case | median | comparison | note |"


def run(*arguments: str, timeout: float = 300, env: dict[str, str] | None = None) -> str:
    """Run ``python <arguments>`` from the repository root (``env`` added to the environment); its standard
    output (fails on a non-zero exit)."""
    done = subprocess.run([sys.executable, *arguments], cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})
    assert done.returncode == 0, f"{' '.join(arguments)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def table(output: str) -> dict[str, list[str]]:
    """The rows of the printed markdown table by their ``case`` cell; checks the machine line and the header."""
    lines = output.splitlines()
    assert lines[0].startswith("machine: ") and "cores (nproc)" in lines[0] and "Python 3." in lines[0], lines[0]
    assert HEADER in lines, f"no markdown table header in:\n{output}"
    rows = {}
    for line in lines[lines.index(HEADER) + 2:]:
        if not line.startswith("| "):
            break
        cells = [cell.strip() for cell in line.strip("|").split(" | ")]
        assert len(cells) == 5, f"a row needs 5 cells: {line}"
        rows[cells[1]] = cells
    return rows


def expect(rows: dict[str, list[str]], cases: list[str]) -> None:
    missing = [case for case in cases if case not in rows]
    assert not missing, f"missing rows {missing}; got {list(rows)}"
    for case in cases:
        assert rows[case][2], f"row {case!r} has no figure"


def test_engine_prints_every_game_and_the_forward_model() -> None:
    rows = table(run("benchmarks/engine.py", "--quick"))
    cases = []
    for label in ("lovat 3p", "lovat 4p", "lovat 5p", "lovat 6p", "lorum"):
        cases += [f"{label}: per decision, agent interface", f"{label}: per decision, replayed actions (engine share)"]
    for label in ("lovat 4p", "lorum"):
        cases += [f"{label}: clone()", f"{label}: apply()", f"{label}: observation(seat)",
                  f"{label}: rollout step (legal_actions + apply)"]
    expect(rows, cases)
    assert "µs" in rows["lorum: per decision, agent interface"][2]
    assert rows["lorum: per decision, agent interface"][3].startswith("target ≤ 3 µs: ")


def test_peers_print_a_row_each_installed_or_not() -> None:
    rows = table(run("benchmarks/peers.py", "--quick"))
    expect(rows, ["RLCard bridge: per decision, agent interface",
                  "OpenSpiel hearts: per decision, information_state_tensor",
                  "OpenSpiel hearts: per decision, no observation", "OpenSpiel hearts: clone()"])
    for cells in rows.values():
        assert cells[2] == "not installed" or "× ours" in cells[3], cells


def test_peers_say_not_installed_without_the_bench_extra() -> None:
    hide = ("import runpy, sys; sys.modules['rlcard'] = sys.modules['pyspiel'] = None; "  # import now fails
            "sys.path.insert(0, 'benchmarks'); sys.argv = ['benchmarks/peers.py', '--quick']; "
            "runpy.run_path('benchmarks/peers.py', run_name='__main__')")
    rows = table(run("-c", hide))
    assert len(rows) == 4
    for cells in rows.values():
        assert cells[2] == "not installed" and "pip install -e '.[bench]'" in cells[4], cells


def test_env_prints_both_games_and_a_row_per_peer() -> None:
    rows = table(run("benchmarks/env.py", "--quick"))
    expect(rows, ["arena AEC env, lorum: steps per second", "arena AEC env, lovat 4p: steps per second",
                  "RLCard bridge env: steps per second", "OpenSpiel hearts rl_environment: steps per second"])
    for case in ("RLCard bridge env: steps per second", "OpenSpiel hearts rl_environment: steps per second"):
        cells = rows[case]
        assert cells[2] == "not installed" or ("steps/s" in cells[2] and "target faster than this peer: " in cells[3])


@pytest.mark.ray
def test_tournament_prints_overhead_and_scaling() -> None:
    rows = table(run("benchmarks/tournament.py", "--quick"))
    cases = ["bare engine loop, per match", "referee (play_match), per match",
             "serial tournament (run_tournament), per match"]
    for field in ("light", "search"):
        cases += [f"{field} field: serial run, wall", f"{field} field: Ray run on",
                  f"{field} field: parallel efficiency",
                  f"{field} field: CPU efficiency (serial CPU / Ray CPU)",
                  f"{field} field: machine ceiling during the runs"]
    found = [next((case for case in rows if case.startswith(prefix)), prefix) for prefix in cases]
    expect(rows, found)


@pytest.mark.slow
def test_ratings_print_every_method_and_both_references() -> None:
    rows = table(run("benchmarks/ratings.py", "--quick"))
    where = "20 agents × 2,000 games"
    expect(rows, [f"{method}: {where}" for method in ("elo", "plackett-luce", "trueskill", "score")]
           + [f"of which packing (as_arrays): {where}", f"choix ilsr_pairwise vs elo: {where}",
              f"choix ilsr_rankings vs plackett-luce: {where}", f"trueskill package vs trueskill: {where}"])


@pytest.mark.slow
def test_fidelity_prints_coverage_calibration_and_design_gain() -> None:
    rows = table(run("benchmarks/fidelity.py", "--quick"))
    for method in ("elo", "plackett-luce", "trueskill", "score"):
        expect(rows, [f"{method}: 8 agents, blocks, luck", f"{method}: design gain, 8 agents"])
        assert rows[f"{method}: 8 agents, blocks, luck"][2].startswith("coverage ")


def test_site_prints_build_time_and_size() -> None:
    rows = table(run("benchmarks/site.py", "--quick"))
    expect(rows, ["publish 500 matches: first build", "publish 500 matches: again, nothing new",
                  "site size for 500 matches", "opening the front page loads", "opening the match list loads",
                  "opening a match loads"])
    assert "kB per match" in rows["site size for 500 matches"][3]


def test_sandbox_prints_the_breakdown_and_each_mode_beside_in_process() -> None:
    from arena.sandbox import probe

    if probe().level == "none":
        pytest.skip("this machine offers no sandbox: run 'arena doctor'")
    rows = table(run("benchmarks/sandbox.py", "--quick"))
    modes = ["in-process", "isolated", "sandboxed, cgroups", "sandboxed, no cgroups"]
    expect(rows, [f"trivial agent, {mode}: per {what}" for mode in modes for what in ("decision", "notification")]
           + [f"a Lorum match (4 deals) of 4 trivial agents, {mode}" for mode in modes])
    assert "in-process" in rows["a Lorum match (4 deals) of 4 trivial agents, sandboxed, cgroups"][3]
    assert "matches per hour" in rows["a Lorum match (4 deals) of 4 trivial agents, sandboxed, cgroups"][4]
    for mode in ("sandboxed, cgroups", "sandboxed, no cgroups"):
        parts = [case for case in rows if case.startswith(f"breakdown, {mode}: ")]
        assert len(parts) == 9, parts
        # The parts and the referee's own work add up to the match (as printed: 0.01 ms, or 1 ms from 100 ms on).
        total = float(rows[f"a Lorum match (4 deals) of 4 trivial agents, {mode}"][2].split()[0])
        assert sum(float(rows[case][2].split()[0]) for case in parts) == pytest.approx(total, rel=0.01, abs=0.1)


def test_cli_prints_each_command_beside_its_target() -> None:
    rows = table(run("benchmarks/cli.py", "--quick"))
    expect(rows, ["python -c pass (the interpreter alone)", "arena --help", "arena agents", "arena games",
                  "arena doctor"])
    assert "target < 0.3 s" in rows["arena --help"][3] and "target < 1 s" in rows["arena agents"][3]


@pytest.mark.slow
def test_serve_prints_pages_uploads_and_matches_per_hour() -> None:
    rows = table(run("benchmarks/serve.py", "--quick", timeout=600))
    expect(rows, ["upload to its first rated match", "leaderboard page (/) while the ladder plays",
                  "match page (match.html + its record) while the ladder plays", "matches per hour, served"])
    assert "of 'arena ladder run'" in rows["matches per hour, served"][3]


def test_one_command_runs_the_chosen_sections() -> None:
    output = run("-m", "benchmarks", "--quick", "--only", "engine")
    rows = table(output)
    assert "lorum: per decision, agent interface" in rows
    assert not any(case.startswith("RLCard") for case in rows)


@pytest.mark.slow
def test_protocol_prints_each_seat_kind_per_decision_and_matches_per_second(tmp_path: Path) -> None:
    if sandbox_level() == "none":
        pytest.skip("this machine offers no sandbox: run 'arena doctor' to see what is missing")
    rows = table(run("benchmarks/protocol.py", "--quick", env={"ARENA_BUILD_CACHE": str(tmp_path)}))
    cases = [f"per decision, trivial agent: {case}" for case in ("trusted", "sandboxed Python", "protocol, C")]
    expect(rows, cases + ["matches per second, Lorum, a table of 4 C starter programs, sandboxed"])
    assert rows["per decision, trivial agent: protocol, C"][3].endswith("sandboxed Python")


@pytest.mark.parametrize("script", ["engine", "peers", "env", "tournament", "ratings", "sandbox", "protocol", "fidelity",
                                    "site", "cli", "serve", "run"])
def test_every_script_explains_itself(script: str) -> None:
    assert "--quick" in run(f"benchmarks/{script}.py", "--help")
