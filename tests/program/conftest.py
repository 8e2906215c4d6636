"""Fixtures for agent programs: one build cache for the whole session (zygotes started by one test read it
when a later test seats the same program)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.program.build import CACHE_ENV


@pytest.fixture(scope="session", autouse=True)
def build_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """``ARENA_BUILD_CACHE`` for the session: builds never land in the user's own cache."""
    folder = tmp_path_factory.mktemp("builds")
    old = os.environ.get(CACHE_ENV)
    os.environ[CACHE_ENV] = str(folder)
    yield folder
    if old is None:
        os.environ.pop(CACHE_ENV, None)
    else:
        os.environ[CACHE_ENV] = old
