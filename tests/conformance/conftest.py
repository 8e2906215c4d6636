"""Fixtures for the conformance-kit tests: the bad agents' registry (tests/bad_agents)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.plugins import Registry, load_registry

BAD_AGENTS = Path(__file__).resolve().parents[1] / "bad_agents"


@pytest.fixture(scope="session")
def bad_registry() -> Registry:
    """Built-ins plus the bad agents, no entry points."""
    loaded = load_registry(plugins_dir=BAD_AGENTS, entry_points=False).registry
    assert loaded.errors == []
    return loaded
