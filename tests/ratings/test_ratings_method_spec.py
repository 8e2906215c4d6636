"""A rating method is one registry entry: a method registered later shows up wherever methods are listed."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console

from arena.games.interface import ScoreSpec
from arena.ladder import ladder_from_dict, load_ladder_config
from arena.leaderboard import publish
from arena.leaderboard.terminal import rating_digits
from arena.plugins import load_registry
from arena.ratings import elo, registry
from arena.ratings.data import MatchOutcome
from arena.ratings.registry import MethodSpec
from arena.ratings.simulate import simulate_outcomes
from arena.ratings.table import RatingTable
from arena.site.stats import history_method
from arena.tournament.config import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def halved_elo(outcomes: Sequence[MatchOutcome], *, prior_sd: float = 400.0, bootstrap: int = 0) -> RatingTable:
    """Elo at half the scale: a method arena does not ship, as a plugin might add it."""
    table = elo.fit(outcomes, prior_sd=prior_sd, bootstrap=bootstrap)
    return replace(table, method="half-elo")


HALF_ELO = MethodSpec("half-elo", halved_elo, "Elo/2", digits=1, bootstraps=True, history=True, pairwise=True)


@pytest.fixture
def half_elo(monkeypatch: pytest.MonkeyPatch) -> Iterator[MethodSpec]:
    """``half-elo`` registered for one test, then gone."""
    monkeypatch.setattr(registry, "_SPECS", dict(registry._SPECS))
    yield registry.register_method(HALF_ELO)


def test_a_registered_method_is_listed_fitted_and_described(half_elo: MethodSpec) -> None:
    assert registry.method_names()[-1] == "half-elo" and "half-elo" in registry.METHODS
    outcomes = simulate_outcomes({"a": 1.0, "b": 0.0, "c": -1.0}, blocks=6, players=3, seed=4)
    assert registry.fit(outcomes, "half-elo").method == "half-elo"
    assert rating_digits("half-elo") == 1 and rating_digits("elo") == 0 and rating_digits("trueskill") == 2
    assert history_method(["trueskill", "half-elo", "elo"]) == "half-elo"
    assert publish.method_options("half-elo", "lovat", {}, bootstrap=50) == {"bootstrap": 50}
    assert publish.method_options("trueskill", "lovat", {}, bootstrap=50) == {}


def test_a_registered_method_has_its_own_column_side_by_side(half_elo: MethodSpec) -> None:
    outcomes = simulate_outcomes({"a": 1.0, "b": 0.0, "c": -1.0}, blocks=6, players=3, seed=4)
    boards = publish.rate(outcomes, ["elo", "half-elo"], "lovat", {})
    console = Console(width=120, record=True)
    console.print(publish.side_by_side(boards, "t", "lovat"))
    text = console.export_text()
    assert "half-elo" in text and "Elo/2" in text
    row = next(line for line in text.splitlines() if line.strip().startswith("a "))
    assert f"{boards['half-elo'].rows[0].rating:.1f}" in row  # one decimal, as the method says


def test_a_ladder_may_stop_by_a_registered_pairwise_method_only(half_elo: MethodSpec) -> None:
    found = load_registry(plugins_dir=None, entry_points=False).registry
    games = {name: game.info for name, game in found.games.items()}
    agents = {name: set(spec.games) for name, spec in found.agents.items()}
    options = {name: spec.options for name, spec in found.agents.items()}
    data = load_ladder_config(ROOT / "configs" / "ladder-lovat.toml", games, agents, agent_options=options).to_json()
    data["ladder"]["method"] = "half-elo"
    assert ladder_from_dict(data, games, agents, agent_options=options).settings.method == "half-elo"
    data["ladder"]["method"] = "trueskill"
    with pytest.raises(ConfigError) as caught:
        ladder_from_dict(data, games, agents, source="l.toml", agent_options=options)
    assert "one of elo, plackett-luce, half-elo" in caught.value.problems[0]


def test_a_name_is_registered_once() -> None:
    with pytest.raises(ValueError, match="rating method 'elo' is already registered"):
        registry.register_method(replace(HALF_ELO, name="elo"))
    assert registry.get_method("elo") is elo.fit


def test_the_score_column_is_headed_by_the_games_unit() -> None:
    spec = registry.method_spec("score")
    assert spec.column_label("tricks per round") == "tricks per round"
    assert registry.method_spec("trueskill").column_label("tricks per round") == "mu"


def test_a_third_games_score_speaks_of_its_own_unit(monkeypatch: pytest.MonkeyPatch) -> None:
    outcomes = simulate_outcomes({"a": 1.0, "b": 0.0, "c": -1.0}, blocks=6, players=3, seed=4)
    games = {"lovat": ScoreSpec(unit="points"), "lorum": ScoreSpec(unit="chips", per_option="deals", per="deal"),
             "tricks": ScoreSpec(unit="tricks", per_option="rounds", per="round")}
    monkeypatch.setattr(publish, "score_spec", games.__getitem__)
    scale = {game: publish.rate(outcomes, ["score"], game, {"deals": 4, "rounds": 5})["score"].scale
             for game in games}
    assert scale["tricks"].startswith("mean tricks per round; ")
    assert scale["lovat"].startswith("mean points per game; ")
    assert scale["lorum"].startswith("mean chips per deal; ")
    assert not any(name in text for text in scale.values() for name in ("Lovat", "Lorum"))
    # the divisor is the game's: five rounds a match, so a fifth of the score per match
    per_match = publish.rate(outcomes, ["score"], "lovat", {})["score"]
    per_round = publish.rate(outcomes, ["score"], "tricks", {"rounds": 5})["score"]
    assert per_round.rows[0].rating == pytest.approx(per_match.rows[0].rating / 5)
    assert publish.rate(outcomes, ["score"], "tricks", {})["score"].scale.startswith("mean tricks per game; ")
