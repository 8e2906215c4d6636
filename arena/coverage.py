"""The coverage plan a game declares, under its documented name: ``from arena.coverage import CoveragePlan``.

It lives in ``arena.conformance.coverage`` with the rest of the conformance kits (docs/writing-games.md).
"""

from arena.conformance.coverage import ATTEMPTS, Coverage, CoveragePlan, Scenario, scenarios_for

__all__ = ["ATTEMPTS", "Coverage", "CoveragePlan", "Scenario", "scenarios_for"]
