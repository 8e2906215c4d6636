"""The ``openskill`` method agrees with the openskill package itself and reads like every arena method."""

from __future__ import annotations

import pytest
from arena_openskill.method import fit
from openskill.models import PlackettLuce

from arena.ratings.data import MatchOutcome


def outcome(number: int, agents: tuple[str, ...], ranks: tuple[int, ...]) -> MatchOutcome:
    return MatchOutcome(match_id=f"m{number:02d}", block=f"b{number}", agents=agents,
                        scores=tuple(float(-rank) for rank in ranks), ranks=ranks)


def test_one_match_gives_the_packages_own_posterior() -> None:
    table = fit([outcome(0, ("a", "b", "c"), (1, 2, 2))])
    model = PlackettLuce()
    (a,), (b,), (c,) = model.rate([[model.rating()], [model.rating()], [model.rating()]], ranks=[1, 2, 2])
    assert table["a"].rating == pytest.approx(a.mu)
    assert table["b"].rating == pytest.approx(b.mu) == pytest.approx(c.mu)
    assert table.extras["sigma"][table.index("a")] == pytest.approx(a.sigma)


def test_matches_count_in_the_order_played_not_the_order_of_their_ids() -> None:
    played = [outcome(9, ("a", "b"), (1, 2)), outcome(1, ("a", "b"), (2, 1))]
    assert fit(played)["a"].rating != fit(list(reversed(played)))["a"].rating


def test_the_stronger_agent_leads_with_its_interval_and_superiority() -> None:
    table = fit([outcome(number, ("a", "b"), (1, 2)) for number in range(20)])
    assert table.agents == ("a", "b")
    assert table["a"].lower < table["a"].rating < table["a"].upper
    assert table.probability_stronger("a", "b") > 0.95
    assert table.probability_stronger("b", "a") == pytest.approx(1 - table.probability_stronger("a", "b"))
    gap, low, _high = table.gap("a", "b")
    assert gap > 0 and low > 0  # the gap's interval excludes zero exactly when P(stronger) says so


def test_an_unknown_model_is_one_line_naming_the_choices() -> None:
    with pytest.raises(ValueError, match="model='elo' is not one of plackett-luce, bradley-terry"):
        fit([outcome(0, ("a", "b"), (1, 2))], model="elo")
