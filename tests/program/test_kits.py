"""The starter kits (plugins/c-starter, js-starter, rust-starter) build in the build sandbox and pass
``arena check-agent`` on both games under the default sandbox.  A kit whose toolchain is missing is skipped,
naming it."""

from __future__ import annotations

import shutil

import pytest
from program_helpers import KITS

from arena.conformance.agents import check_agent
from arena.plugins import Registry, load_registry
from arena.referee import Limits

TOOLCHAINS = {"c-starter": "cc", "js-starter": "node", "rust-starter": "cargo"}

LIMITS = Limits(move_seconds=1.0, bank_seconds=10.0, startup_seconds=20.0)
"""The defaults, but a longer start-up: a seat's first launch includes the kit's build."""

LINES = {"c-starter": 200, "js-starter": 200, "rust-starter": 200}


@pytest.fixture(scope="module")
def kits() -> Registry:
    return load_registry(plugins_dir=KITS, entry_points=False).registry


def needs(tool: str) -> None:
    if shutil.which(tool) is None:
        pytest.skip(f"{tool!r} is not installed on this machine: the kit that needs it cannot be built")


def checked(kits: Registry, name: str, game: str) -> None:
    needs(TOOLCHAINS[name])
    report = check_agent(kits.agent(name), game, matches=1, registry=kits, limits=LIMITS)
    assert report.passed, report.problems
    # The memory a program used is its own: no arena is preloaded in its process, as in a Python agent's.
    assert "MB (the program's own)" in report.summary(), report.summary()


@pytest.mark.parametrize("game", ["lovat", "lorum"])
def test_the_c_kit_passes_check_agent(kits: Registry, game: str) -> None:
    checked(kits, "c-starter", game)


@pytest.mark.parametrize("game", ["lovat", "lorum"])
def test_the_javascript_kit_passes_check_agent(kits: Registry, game: str) -> None:
    checked(kits, "js-starter", game)


@pytest.mark.slow
@pytest.mark.parametrize("game", ["lovat", "lorum"])
def test_the_rust_kit_passes_check_agent(kits: Registry, game: str) -> None:
    checked(kits, "rust-starter", game)


@pytest.mark.parametrize("name", sorted(TOOLCHAINS))
def test_each_kit_is_listed_small_and_plays_both_games(kits: Registry, name: str) -> None:
    assert kits.agent(name).games == ("lovat", "lorum")
    sources = [path for path in (KITS / name).rglob("*") if path.suffix in (".c", ".js", ".rs")]
    assert sources and sum(len(path.read_text().splitlines()) for path in sources) < LINES[name]
