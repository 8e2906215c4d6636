"""Settings shared by the whole suite: the one hypothesis profile, and a suite that does not depend on what
else is installed.

Every property test runs under the profile; a test that needs a number of examples of its own says so next to it
(``@settings(max_examples=...)``, which keeps the rest of the profile).

Agent and game packages a user installed beside arena (docs/writing-agents.md tells them to) would add
agents to every listing and a line to every command's output; the suite blocks them
(``ARENA_PLUGINS_BLOCK``, inherited by every command a test runs), so that it asserts the same whatever is
installed.  A test that installs a package itself runs it with that variable dropped (``install_copy``).
"""

import os
from importlib.metadata import entry_points

import pytest
from hypothesis import HealthCheck, settings

from arena.plugin_system.hookspecs import PROJECT_NAME
from arena.plugins import BLOCK_ENV

INSTALLED_PLUGINS = sorted({entry.name for entry in entry_points(group=PROJECT_NAME)})
"""The plugins of packages installed in this environment (arena's own are built in, not entry points)."""

os.environ[BLOCK_ENV] = ",".join(filter(None, [os.environ.get(BLOCK_ENV, ""), *INSTALLED_PLUGINS]))

# The commands' output is asserted as piped output is printed: whole lines, unless COLUMNS sets a width
# (arena/cli/console.py).  pytest-xdist's workers start with COLUMNS=80 and LINES=24 set, which would fold it.
for size in ("COLUMNS", "LINES"):
    os.environ.pop(size, None)

settings.register_profile(
    "arena",
    # Same examples on every run and every machine: a failure in CI is a failure here (derandomize), and no
    # example database left in the tree decides what runs next (database=None).
    derandomize=True,
    database=None,
    # No timing in tests: the machine is shared and a game's length varies with the deal.
    deadline=None,
    # Strategies that play whole games are slow to draw by design.
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("arena")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A Ray test is a slow test too, so that ``-m "not slow"`` leaves both out; and the Ray tests run one after
    another on one pytest-xdist worker (``--dist loadgroup``): each starts a cluster that takes every core, and two
    at once on two cores starve each other's start-up and workers."""
    for item in items:
        if item.get_closest_marker("ray") is not None:
            item.add_marker(pytest.mark.slow)
            item.add_marker(pytest.mark.xdist_group("ray"))
