"""The documented import names still reach the modules now grouped in packages (arena/conformance/, arena/records/,
arena/seating/, arena/plugin_system/).

docs/writing-agents.md imports the agent kit from ``arena.conformance``, the options an agent declares from
``arena.options`` and ``hookimpl`` from ``arena``, docs/writing-games.md the game kit from ``arena.testing`` and
the coverage plan from ``arena.coverage``, docs/python-api.md ``arena.seeding.derive_seed``, docs/records.md the
record functions from ``arena.records`` and docs/security.md the trusted registry from ``arena.plugins``; each
must be the very object the package holds.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import arena.conformance.agents
import arena.conformance.coverage
import arena.conformance.games
import arena.coverage
import arena.options
import arena.plugin_system.hookspecs
import arena.plugin_system.loading
import arena.plugins
import arena.records.record
import arena.records.seeding
import arena.seating.options
import arena.seeding
import arena.testing
from arena import conformance, records


@pytest.mark.parametrize(("public", "home", "names"), [
    (conformance, arena.conformance.agents, ["check_agent", "assert_agent_conforms", "DEFAULT_MATCHES"]),
    (arena.testing, arena.conformance.games, ["check_game", "GameCheck"]),
    (arena.coverage, arena.conformance.coverage, ["CoveragePlan", "Scenario", "Coverage"]),
    (arena.seeding, arena.records.seeding, ["derive_seed", "secret_seed", "new_secret", "MAX_SEED"]),
    (records, arena.records.record, ["replay", "make_record", "load_record", "save_record", "RecordError"]),
    (arena.options, arena.seating.options, ["AgentOptions", "OptionSpec"]),
    (arena, arena.plugin_system.hookspecs, ["hookimpl"]),
    (arena.plugins, arena.plugin_system.loading, ["load_registry", "load_trusted_registry", "TRUST_ENV"]),
])
def test_a_documented_name_is_the_packages_own_object(public: object, home: object, names: list[str]) -> None:
    for name in names:
        assert getattr(public, name) is getattr(home, name), f"{public.__name__}.{name}"  # type: ignore[attr-defined]


def test_an_unknown_name_of_the_conformance_package_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match=r"module 'arena\.conformance' has no attribute 'check_agnet'"):
        conformance.check_agnet  # noqa: B018 - the lookup is what is tested


def test_a_games_coverage_plan_loads_neither_the_agent_kit_nor_the_referee() -> None:
    probe = ("import json, sys\nimport arena.coverage, arena.games.lorum.coverage, arena.testing\n"
             "print(json.dumps(sorted(name for name in sys.modules if name.startswith('arena.'))))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    loaded = set(json.loads(done.stdout))
    assert "arena.conformance.coverage" in loaded and "arena.conformance.games" in loaded
    assert not {"arena.conformance.agents", "arena.referee", "arena.plugin_system.loading"} & loaded
