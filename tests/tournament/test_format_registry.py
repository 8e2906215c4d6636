"""A tournament format is one registry entry: a format registered later is named, validated and scheduled."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from arena.plugin_system.extensions import install
from arena.plugins import TRUST_ENV, load_registry
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


FORMAT_PLUGIN = '''
from arena import hookimpl
from arena.tournament.formats import RoundRobin


class Reversed(RoundRobin):
    name = "reversed"

    def tables(self, groups, candidates):
        return list(reversed(super().tables(groups, candidates)))


@hookimpl
def arena_register_formats(register):
    register(Reversed())
'''


def test_a_trusted_plugins_format_is_a_config_choice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "reversed_format.py").write_text(FORMAT_PLUGIN)
    monkeypatch.setenv(TRUST_ENV, "reversed_format")
    try:
        registry = install(load_registry(plugins_dir=tmp_path).registry)
        assert not [line for line in registry.errors if "reversed" in line]
        config = config_from_dict(minimal(format="reversed", agents=[{"name": n, "plugin": "random"} for n in "abcd"]),
                                  GAMES, AGENTS)
        plain = build_schedule(("a", "b", "c", "d"), 3, 1)
        tables = config.schedule().tables
        assert [t.group for t in tables] == [3, 2, 1, 0]  # the plugin format's own table order
        assert sorted(t.entries for t in tables) == sorted(t.entries for t in plain.tables)
    finally:
        formats.BY_NAME.pop("reversed", None)


def test_an_untrusted_plugins_format_is_refused_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "reversed_format.py").write_text(FORMAT_PLUGIN)
    monkeypatch.delenv(TRUST_ENV, raising=False)
    registry = install(load_registry(plugins_dir=tmp_path).registry)
    assert "reversed" not in formats.BY_NAME
    assert [line for line in registry.errors if "reversed" in line] == [
        f"plugin 'reversed_format' ({tmp_path / 'reversed_format.py'}): format 'reversed' not loaded: a format "
        f"runs in the driver's process, so those of third-party plugins load only when {TRUST_ENV} names the plugin"]
