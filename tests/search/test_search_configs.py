"""The search agents' measurement configs load against the real games and agent options, and measure what they say.

* ``configs/strength-*.toml``: one table holding search, greedy and random at the player count in the name;
* ``configs/gauntlet-search-*.toml``: the current search and a candidate, each against the same all-greedy field.
* ``configs/search-vs-FIELD-GAME.toml``: search and greedy, each against the same field of FIELD agents (the
  example plugin's, or a reference heuristic's).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.games.lorum import GAME as LORUM
from arena.games.lovat import GAME as LOVAT
from arena.seating.substitute import SUBSTITUTE
from arena.tournament.config import load_config
from arena_agents.plugin import FIRST_PARTY, HEURISTICS, OPTIONS

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
GAMES = {"lovat": LOVAT.info, "lorum": LORUM.info}
AGENTS = {name: {"lovat", "lorum"} for name, *_ in FIRST_PARTY} | {SUBSTITUTE: {"lovat", "lorum"}} | {
    name: {game} for name, game, *_ in HEURISTICS
}


def load(path: Path):
    return load_config(path, GAMES, AGENTS, agent_options=OPTIONS)


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("strength-*.toml")), ids=lambda p: p.name)
def test_strength_configs_put_search_greedy_and_random_at_one_table(path: Path) -> None:
    config = load(path)
    assert config.name == path.stem
    suffix = path.stem.rsplit("-", 1)[-1]
    if config.game == "lovat":
        assert config.game_options["players"] == (int(suffix) if suffix.isdigit() else 4)
    schedule = config.schedule()
    plugins = [entry.plugin for entry in config.agents]
    assert len(plugins) == config.seats  # one table: every entry meets every other in every block
    assert {"search", "greedy", "random"} <= set(plugins)
    assert len(schedule) == config.blocks * config.seats


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("gauntlet-search-*.toml")), ids=lambda p: p.name)
def test_gauntlet_configs_put_the_candidate_and_the_current_search_against_the_same_greedy_field(path: Path) -> None:
    config = load(path)
    entries = {entry.name: entry for entry in config.agents}
    candidates = config.candidates
    assert list(candidates) == ["search", "candidate"]
    assert entries["search"].plugin == "search" and not entries["search"].options  # the current default
    assert {entries[name].plugin for name in entries if name not in candidates} == {"greedy"}
    seen: dict[str, set[tuple]] = {name: set() for name in candidates}
    for match in config.schedule().iter_matches():
        (candidate,) = [name for name in match.seats if name in candidates]
        others = tuple("*" if name == candidate else name for name in match.seats)
        seen[candidate].add((match.block, match.rotation, match.deal_seed, others))
    assert seen["search"] == seen["candidate"] and len(seen["search"]) == config.blocks * config.seats  # like for like


FIELD_CONFIGS = sorted(CONFIGS.glob("search-vs-*.toml"))


def test_the_field_configs_cover_the_example_and_the_strongest_heuristics() -> None:
    assert {path.stem for path in FIELD_CONFIGS} == {
        "search-vs-example-lovat", "search-vs-example-lorum", "search-vs-sniper-lovat", "search-vs-bold-lorum"
    }


@pytest.mark.parametrize("path", FIELD_CONFIGS, ids=lambda p: p.name)
def test_the_field_configs_put_search_and_greedy_against_one_kind_of_agent(path: Path) -> None:
    """``configs/search-vs-FIELD-GAME.toml``: the two candidates meet the same field of FIELD agents."""
    field, game = path.stem.removeprefix("search-vs-").rsplit("-", 1)
    agents = AGENTS | {"example": {"lovat", "lorum"}}
    config = load_config(path, GAMES, agents, agent_options=OPTIONS)
    assert config.name == path.stem and config.game == game
    if config.game == "lovat":
        assert config.game_options["players"] == 3  # the hardest count for the search
    entries = {entry.name: entry for entry in config.agents}
    assert list(config.candidates) == ["search", "greedy"]
    assert entries["search"].plugin == "search" and not entries["search"].options
    assert {entries[name].plugin for name in entries if name not in config.candidates} == {field}
    seen: dict[str, set[tuple]] = {name: set() for name in config.candidates}
    for match in config.schedule().iter_matches():
        (candidate,) = [name for name in match.seats if name in config.candidates]
        seen[candidate].add((match.deal_seed, tuple("*" if name == candidate else name for name in match.seats)))
    assert seen["search"] == seen["greedy"] and len(seen["search"]) == config.blocks * config.seats
