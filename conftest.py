"""Settings shared by the whole suite: the one hypothesis profile.

Every property test runs under it; a test that needs a number of examples of its own says so next to it
(``@settings(max_examples=...)``, which keeps the rest of the profile).
"""

import pytest
from hypothesis import HealthCheck, settings

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
    """A Ray test is a slow test too, so that ``-m "not slow"`` leaves both out."""
    for item in items:
        if item.get_closest_marker("ray") is not None:
            item.add_marker(pytest.mark.slow)
