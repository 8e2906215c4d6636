"""A tournament format is one registry entry: a format registered later is named, validated and scheduled."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest

from arena.tournament import formats
from arena.tournament.config import ConfigError, config_from_dict
from arena.tournament.formats import RoundRobin, Table
from arena.tournament.schedule import build_schedule, table_count
from tests.tournament.test_config import AGENTS, GAMES, SOURCE, minimal


class LastFirst(RoundRobin):
    """Round-robin with its tables played in the opposite order: a format arena does not ship."""

    name = "last-first"

    def tables(self, groups: Sequence[tuple[str, ...]], candidates: tuple[str, ...]) -> list[Table]:
        """Table 0 is the last group."""
        return [Table(index=i, entries=members, group=g)
                for i, (g, members) in enumerate(reversed(list(enumerate(groups))))]


@pytest.fixture
def last_first() -> Iterator[LastFirst]:
    """``last-first`` registered for one test, then gone (every module reads the one ``BY_NAME``)."""
    form = LastFirst()
    formats.register_format(form)
    try:
        yield form
    finally:
        del formats.BY_NAME[form.name]


def test_a_registered_format_is_a_config_choice_and_builds_its_schedule(last_first: LastFirst) -> None:
    assert formats.format_names() == ("round-robin", "gauntlet", "last-first")
    data = minimal(format="last-first", agents=[{"name": n, "plugin": "random"} for n in "abcd"])
    config = config_from_dict(data, GAMES, AGENTS)
    schedule = config.schedule()
    plain = build_schedule(("a", "b", "c", "d"), 3, 1)
    assert [t.group for t in schedule.tables] == [3, 2, 1, 0]  # the format's own table order
    assert sorted(t.entries for t in schedule.tables) == sorted(t.entries for t in plain.tables)
    assert schedule.design.format == "last-first" and schedule.candidates == ()
    assert table_count(4, 3, "last-first") == len(schedule.tables) == 4
    assert "gauntlet" not in config.to_json() and config.to_json()["format"] == "last-first"
    assert config_from_dict(config.to_json(), GAMES, AGENTS).to_json() == config.to_json()


def test_a_registered_format_is_validated_by_its_own_rules(last_first: LastFirst) -> None:
    data = minimal(format="last-first", agents=[{"name": "a", "plugin": "random"}, {"name": "b", "plugin": "random"}],
                   gauntlet={"candidates": ["a"]})
    with pytest.raises(ConfigError) as caught:
        config_from_dict(data, GAMES, AGENTS, source=SOURCE)
    assert sorted(caught.value.problems) == [
        f"{SOURCE}: agents: a round-robin at tables of 3 needs at least 3 entries, got 2; add entries (the same "
        'plugin may be entered again under another name, e.g. name = "greedy-2", plugin = "greedy") or set '
        "game_options.players",
        f'{SOURCE}: gauntlet: only used with format = "gauntlet"; remove it or set format = "gauntlet"',
    ]


def test_an_unknown_format_lists_the_registered_ones(last_first: LastFirst) -> None:
    with pytest.raises(ConfigError) as caught:
        config_from_dict(minimal(format="swiss"), GAMES, AGENTS, source=SOURCE)
    assert "one of round-robin, gauntlet, last-first, got \"swiss\"" in caught.value.problems[0]


def test_a_format_name_is_registered_once() -> None:
    with pytest.raises(ValueError, match="tournament format 'gauntlet' is already registered"):
        formats.register_format(formats.Gauntlet())
