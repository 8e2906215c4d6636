"""Fixtures for the hostile suite: the hostile plugins' registry and one host (zygotes shared by the module)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hostile_helpers import HOSTILE

from arena.plugins import Registry, load_registry
from arena.referee import AgentHost


@pytest.fixture(scope="session")
def registry() -> Registry:
    """Built-ins plus every hostile plugin (tests/hostile/plugins), discovered in sandboxes."""
    return load_registry(plugins_dir=HOSTILE, entry_points=False).registry


@pytest.fixture(scope="module")
def host() -> Iterator[AgentHost]:
    """One host per test module: each plugin's zygote starts once and serves every match of the module."""
    with AgentHost() as started:
        yield started
