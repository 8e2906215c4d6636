"""Fixtures for the referee tests: the bad agents' registry and one zygote for the session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from referee_helpers import BAD_AGENTS

from arena.plugins import Registry, load_registry
from arena.referee import AgentHost


@pytest.fixture(scope="session")
def registry() -> Registry:
    """Built-ins plus the bad agents (tests/bad_agents), no entry points."""
    loaded = load_registry(plugins_dir=BAD_AGENTS, entry_points=False).registry
    assert loaded.errors == []
    return loaded


@pytest.fixture(scope="session")
def host() -> Iterator[AgentHost]:
    """One host for the whole session: each plugin's zygote is started once, on first use."""
    with AgentHost() as started:
        yield started

