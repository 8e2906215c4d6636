"""The nesting bound of ``arena.inputs.bounded_json.loads``, read from the text: exactly at the bound and one past it."""

from __future__ import annotations

import json

import pytest

from arena.inputs.bounded_json import MAX_DEPTH, JSONLimitError, check_value, loads


def nested(levels: int, inner: str = "1") -> str:
    """Arrays and objects alternating ``levels`` deep, with strings of brackets and (above the innermost level)
    empty containers beside the next level."""
    text = f'{{"k{{[": {inner}}}'
    for level in range(1, levels):
        text = f'["]]}}{{[", {text}, {{}}]' if level % 2 else f'{{"k{{[": {text}, "x": []}}'
    return text


@pytest.mark.parametrize("levels", [1, 2, MAX_DEPTH - 1, MAX_DEPTH])
def test_nesting_up_to_the_bound_is_accepted(levels: int) -> None:
    text = nested(levels)
    assert loads(text) == json.loads(text)
    check_value(json.loads(text))  # the walk over parsed data agrees


@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, MAX_DEPTH + 2, 300])
def test_nesting_past_the_bound_is_refused(levels: int) -> None:
    text = nested(levels)
    with pytest.raises(JSONLimitError, match=f"nested more than {MAX_DEPTH} levels deep"):
        loads(text)
    with pytest.raises(JSONLimitError, match="nested more than"):
        check_value(json.loads(text))


@pytest.mark.parametrize("inner", ['"\\\\"', '"\\"[[["', '"\\\\\\"{{"', '"]]]\\\\"', '"\\u005b["'])
def test_escapes_inside_strings_do_not_change_the_depth(inner: str) -> None:
    assert loads(nested(MAX_DEPTH, inner)) == json.loads(nested(MAX_DEPTH, inner))
    with pytest.raises(JSONLimitError, match="nested more than"):
        loads(nested(MAX_DEPTH + 1, inner))


def test_brackets_inside_strings_do_not_count() -> None:
    text = json.dumps({"a": "[" * 500 + '\\"{' * 200, "b": [["]]]]"] * 3], "c": "\\", "d": "[[[" * 30})
    assert loads(text)["b"][0][0] == "]]]]"


def test_a_smaller_bound_is_the_one_applied() -> None:
    assert loads(nested(5), max_depth=5) == json.loads(nested(5))
    with pytest.raises(JSONLimitError, match="nested more than 4 levels deep"):
        loads(nested(5), max_depth=4)
