"""Agent option declarations: plain JSON data that round-trips, refuses nonsense, and checks values in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.plugins import load_registry
from arena.seating.options import AgentOptions, OptionError, OptionSpec

SCHEMA = AgentOptions((
    OptionSpec("iterations", "int", default=320, minimum=1, games=("lovat",), help="playouts"),
    OptionSpec("iterations", "int", default=240, minimum=1, maximum=10_000, games=("lorum",), help="playouts"),
    OptionSpec("value", "str", default="rank", choices=("rank", "points"), games=("lovat",)),
    OptionSpec("share", "float", minimum=0.0, maximum=1.0),
    OptionSpec("verbose", "bool", default=False),
))


def test_the_schema_is_json_data_that_round_trips() -> None:
    data = json.loads(json.dumps(SCHEMA.to_json()))
    assert AgentOptions.from_json(data) == SCHEMA


@pytest.mark.parametrize("given, game, message", [
    ({"iteration": 5}, "lovat", "agent 'a' has no option 'iteration' in lovat; did you mean 'iterations'? "
                                "(its options: iterations, share, value, verbose)"),
    ({"value": "rank"}, "lorum", "agent 'a' has no option 'value' in lorum; 'value' is an option for lovat "
                                 "(its options: iterations, share, verbose)"),
    ({"iterations": True}, "lovat", "option 'iterations' of agent 'a': expected an integer >= 1, got true"),
    ({"iterations": 2.5}, "lovat", "option 'iterations' of agent 'a': expected an integer >= 1, got 2.5"),
    ({"iterations": 20_000}, "lorum", "option 'iterations' of agent 'a': expected an integer from 1 to 10000, "
                                      "got 20000"),
    ({"share": float("nan")}, None, "option 'share' of agent 'a': expected a number from 0 to 1, got NaN"),
    ({"value": "best"}, "lovat", 'option \'value\' of agent \'a\': expected one of "rank", "points", got "best"'),
    ({"verbose": "yes"}, None, 'option \'verbose\' of agent \'a\': expected true or false, got "yes"'),
])
def test_a_bad_option_is_one_line_saying_what_is_expected(given: dict, game: str | None, message: str) -> None:
    with pytest.raises(OptionError) as caught:
        SCHEMA.check(given, "a", game)
    assert str(caught.value) == message


def test_good_options_pass_and_command_line_text_is_typed_by_the_declaration() -> None:
    SCHEMA.check({"iterations": 80, "value": "points", "share": 1, "verbose": True}, "a", "lovat")
    assert SCHEMA.parse("iterations", "80", "lovat") == 80
    assert SCHEMA.parse("value", "80", "lovat") == "80"  # a str option keeps the text
    assert SCHEMA.parse("share", "fast") == "fast"  # not JSON: kept, so that check names the wrong type


@pytest.mark.parametrize("make, message", [
    (lambda: OptionSpec("n", "integer"), "type must be one of int, float, str, bool"),
    (lambda: OptionSpec("n", "int", default="3"), "its default '3' is not allowed"),
    (lambda: OptionSpec("n", "int", minimum=5, maximum=1), "minimum 5 is above maximum 1"),
    (lambda: OptionSpec("n", "str", minimum=1), "for int and float options only"),
    (lambda: OptionSpec("bad name", "int"), "the name must be"),
    (lambda: AgentOptions((OptionSpec("n", "int"), OptionSpec("n", "float"))), "declared twice for the same game"),
    (lambda: AgentOptions([OptionSpec("n", "int")]), "must be a tuple of arena.options.OptionSpec"),  # type: ignore[arg-type]
    (lambda: AgentOptions.from_json([{"name": "n"}]), "malformed option declaration"),
    (lambda: AgentOptions.from_json({"n": "int"}), "agent options must be a list"),
])
def test_a_nonsensical_declaration_is_refused(make, message: str) -> None:
    with pytest.raises(OptionError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make()


def test_a_plugin_with_malformed_options_is_skipped_with_one_line(tmp_path: Path) -> None:
    (tmp_path / "odd.py").write_text(
        "from arena import hookimpl\nfrom arena.agent import AgentSpec\n"
        "@hookimpl\ndef arena_register_agents(register):\n"
        "    register(AgentSpec(name='odd', games=('lovat',), factory=print, description='', version='1',"
        " options={'depth': 3}))\n")
    registry = load_registry(plugins_dir=tmp_path, entry_points=False).registry
    assert "odd" not in registry.agents
    assert registry.errors == ["plugin 'odd' (" + str(tmp_path / "odd.py") + "): agent not registered: agent 'odd': "
                               "options must be an arena.options.AgentOptions"]


def test_an_option_of_another_game_is_named_as_such_when_the_agent_takes_none_in_this_one() -> None:
    """An agent with options for Lovat only, asked for one in Lorum: not "takes no options" (it does), but
    which game the option belongs to."""
    lovat_only = AgentOptions((OptionSpec("threshold", "int", default=30, games=("lovat",)),))
    with pytest.raises(OptionError) as caught:
        lovat_only.check({"threshold": 30}, "nu-pkg", "lorum")
    assert str(caught.value) == ("agent 'nu-pkg' has no option 'threshold' in lorum (it takes none in lorum; "
                                 "'threshold' is an option for lovat)")
    with pytest.raises(OptionError) as caught:
        lovat_only.check({"depth": 2}, "nu-pkg", "lorum")
    assert str(caught.value) == "agent 'nu-pkg' has no option 'depth' in lorum (it takes none in lorum)"
    with pytest.raises(OptionError) as caught:
        AgentOptions(()).check({"depth": 2}, "plain", "lorum")
    assert str(caught.value) == "agent 'plain' takes no options, got 'depth'"
