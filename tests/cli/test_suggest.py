"""Did-you-mean: a likely misspelling gets the name it misspells; an unrelated word gets no guess."""

from __future__ import annotations

import pytest

from arena.cli import main
from arena.inputs.suggest import closest

AGENTS = ("bold", "cautious", "counting", "greedy", "hoarder", "mixed", "point-shy", "random", "search", "sniper")


@pytest.mark.parametrize(("typed", "meant"), [("gredy", "greedy"), ("grredy2", "greedy"), ("random2", "random"),
                                              ("rnd", "random"), ("serch", "search"), ("sniperr", "sniper")])
def test_a_misspelling_gets_the_name_it_misspells(typed: str, meant: str) -> None:
    assert closest(typed, AGENTS) == meant


@pytest.mark.parametrize("typed", ["nope", "xyz", "chess"])
def test_an_unrelated_word_gets_no_guess(typed: str) -> None:
    assert closest(typed, AGENTS) is None  # 'nope' once got "did you mean 'sniper'?"


def test_arena_agents_of_an_unknown_name_guesses_nothing_wild(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["agents", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("arena: error: unknown agent 'nope' (installed: ") and "did you mean" not in err
