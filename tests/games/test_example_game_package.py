"""The example game package (plugins/example-game): installed as a third party would, then played, checked,
run in a tournament and rated by the same commands as the built-in games.

The package is pip-installed with ``--target`` into a temporary folder (not into this environment); the
subprocesses see it through ``PYTHONPATH`` as an installed entry point.  Its game loads only when
``ARENA_PLUGINS_TRUST`` names the plugin, and its agent always runs sandboxed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "plugins" / "example-game"
TRUST = {"ARENA_PLUGINS_TRUST": "example-game"}

CONFIG = """
name = "pledge-test"
game = "pledge"
seed = 11
format = "round-robin"
blocks = 1
ratings = ["elo", "score"]

[game_options]
players = 3
hand = 3

[[agents]]
name = "counter"

[[agents]]
name = "random"

[[agents]]
name = "random-2"
plugin = "random"
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory, install_copy: Callable[[Path, Path], tuple[Path, dict[str, str]]]
              ) -> Iterator[tuple[Path, dict[str, str]]]:
    """(a working folder holding a copy of the package, the environment in which the package is installed)."""
    base = tmp_path_factory.mktemp("example-game")
    _source, env = install_copy(PACKAGE, base)
    env.pop("ARENA_PLUGINS_TRUST", None)
    yield base, env


def arena(env: dict[str, str], cwd: Path, *args: str, trust: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True, cwd=cwd,
                          env={**env, **TRUST} if trust else env)


def test_an_untrusted_game_plugin_is_listed_but_its_game_never_loads(installed: tuple[Path, dict[str, str]]) -> None:
    base, env = installed
    result = arena(env, base, "play", "pledge", trust=False)
    assert result.returncode != 0
    assert "game 'pledge' not loaded: a game runs in the referee's process" in result.stderr
    assert "unknown game 'pledge'" in result.stderr


def test_arena_games_describes_the_installed_game(installed: tuple[Path, dict[str, str]]) -> None:
    base, env = installed
    games = {row["name"]: row for row in json.loads(arena(env, base, "games", "--json").stdout)}
    assert games["pledge"]["players"] == [2, 3, 4, 5] and games["pledge"]["score"] == "points per game"
    assert games["pledge"]["options"]["hand"] == {
        "default": 4, "description": "cards dealt to each seat, and so the number of tricks", "type": "int",
        "choices": None, "minimum": 1, "maximum": 4}


def test_arena_play_seats_its_agent_sandboxed_and_reads_its_option(installed: tuple[Path, dict[str, str]]) -> None:
    base, env = installed
    result = arena(env, base, "play", "pledge", "--players", "4", "--hand", "2", "--seed", "3", "--json",
                   "--agents", "counter,random,random,random")
    assert result.returncode == 0, result.stderr
    played = json.loads(result.stdout)
    assert played["game"] == "pledge-v1" and played["options"] == {"players": 4, "hand": 2}
    assert [seat["agent"] for seat in played["players"]] == ["counter", "random", "random", "random"]
    assert played["faults"] == [] and len(played["bids"]) == 4 and sum(played["tricks"]) == 2


def test_arena_check_agent_passes_its_agent(installed: tuple[Path, dict[str, str]]) -> None:
    base, env = installed
    result = arena(env, base, "check-agent", "counter", "--game", "pledge", "--matches", "1", "--players", "3")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "counter 0.1.0 on pledge" in result.stdout and result.stdout.rstrip().endswith("PASS")
    assert "coverage: the agent's own decisions per case" in result.stdout  # the game's own coverage plan
    assert "MISSING" not in result.stdout and "discard" in result.stdout


def test_arena_run_and_the_leaderboards_rate_it(installed: tuple[Path, dict[str, str]]) -> None:
    base, env = installed
    (base / "pledge.toml").write_text(CONFIG)
    result = arena(env, base, "run", "pledge.toml", "--workers", "1")
    assert result.returncode == 0, result.stderr
    assert "points per game" in result.stdout  # the score's unit, as the game declares it
    boards = json.loads(arena(env, base, "leaderboard", "pledge-test", "--json").stdout)
    assert boards["elo"]["matches"] == 3  # one table of three, in its three rotations
    assert {row["agent"] for row in boards["elo"]["rows"]} == {"counter", "random", "random-2"}
    assert all(row["games"] == 3 for row in boards["score"]["rows"])
    assert (base / "leaderboards" / "pledge-test" / "leaderboard.md").is_file()


def test_the_package_own_tests_pass(installed: tuple[Path, dict[str, str]]) -> None:
    base, env = installed
    source = base / "example-game"
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(source / "tests")],
                            capture_output=True, text=True, env=env, cwd=source)
    assert result.returncode == 0, result.stdout + result.stderr
