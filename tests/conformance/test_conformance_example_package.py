"""The example external plugin package (plugins/example-agent): pip-installable, listed, conformant.

The package is copied to a temporary folder and pip-installed with ``--target``
into another temporary folder (not into the current environment); the
subprocesses then see it through ``PYTHONPATH``, as an installed entry point.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena.plugins import load_registry

# Every test here pip-installs the example package into a fresh environment: seconds each.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "plugins" / "example-agent"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory, install_copy: Callable[[Path, Path], tuple[Path, dict[str, str]]]
              ) -> Iterator[tuple[Path, dict[str, str]]]:
    """(a copy of the package, the environment in which it is installed)."""
    yield install_copy(PACKAGE, tmp_path_factory.mktemp("example-agent"))


def arena(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True, env=env, cwd=cwd)


def test_pip_install_makes_the_agent_appear_in_arena_agents(installed: tuple[Path, dict[str, str]]) -> None:
    source, env = installed
    result = arena(env, source.parent, "agents", "--json")
    assert result.returncode == 0, result.stderr
    rows = {row["name"]: row for row in json.loads(result.stdout)}
    assert rows["example"]["plugin"] == "example-agent"
    assert rows["example"]["source"] == "entry point of arena-example-agent"
    assert rows["example"]["games"] == ["lovat", "lorum"]
    assert rows["example"]["builtin"] is False


def test_the_installed_agent_passes_check_agent_isolated(installed: tuple[Path, dict[str, str]]) -> None:
    source, env = installed
    result = arena(env, source.parent, "check-agent", "example", "--game", "lorum", "--matches", "1")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.rstrip().endswith("PASS")
    from arena.referee.confinement import sandbox_level

    # As tournaments run it: in the strongest sandbox this machine offers.
    assert ("(isolated," if sandbox_level() == "none" else "(sandboxed,") in result.stdout


def test_the_package_own_tests_pass(installed: tuple[Path, dict[str, str]]) -> None:
    source, env = installed
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(source / "tests")],
                            capture_output=True, text=True, env=env, cwd=source)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_package_folder_is_not_a_drop_in_plugin() -> None:
    # plugins/ is the default drop-in folder: the package (no top-level __init__.py) must be skipped quietly.
    assert not (PACKAGE / "__init__.py").exists()
    registry = load_registry(plugins_dir=ROOT / "plugins", entry_points=False).registry
    assert registry.errors == []
    assert "example" not in registry.agents
    assert not [info.source for info in registry.plugins if info.source.startswith(str(PACKAGE))]  # nor its parts


def test_the_package_declares_the_arena_entry_point() -> None:
    import tomllib

    project = tomllib.loads((PACKAGE / "pyproject.toml").read_text())["project"]
    assert project["entry-points"]["arena"] == {"example-agent": "arena_example_agent.plugin"}
    assert "arena" in project["dependencies"]
    assert (PACKAGE / "README.md").is_file() and (PACKAGE / "tests").is_dir()
