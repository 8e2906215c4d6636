"""The ratings benchmark compares like with like: point estimates from prepared inputs against choix."""

from __future__ import annotations

import pytest

from benchmarks import ratings


@pytest.fixture(scope="module")
def rows():
    """The quick ratings rows by case."""
    return {row.case: row for row in ratings.measure("quick")}


@pytest.mark.slow
def test_point_estimate_rows_say_what_they_time(rows):
    where = "20 agents × 2,000 games"
    for method, how in ratings.POINT_ESTIMATES.items():
        row = rows[f"{method} point estimate: {where}"]
        assert row.median and how in row.note and "excludes packing, intervals" in row.note


def test_each_choix_reference_is_compared_with_the_full_fit_and_the_point_estimate(rows):
    where = "20 agents × 2,000 games"
    for estimator, method in (("ilsr_pairwise", "elo"), ("ilsr_rankings", "plackett-luce")):
        full = rows[f"choix {estimator} vs {method}: {where}"]
        point = rows[f"choix {estimator} vs {method} point estimate: {where}"]
        assert full.median == point.median  # one choix measurement, two comparisons
        assert "not like with like" in full.note and f"{method}'s full fit" in full.comparison
        assert "like with like" in point.note and f"{method}'s point estimate" in point.comparison
        assert "building them excluded" in full.note and "building them excluded" in point.note
