"""Nothing outside a game knows it by name: the referee, tournaments, leaderboards and the CLI are game-agnostic.

The check reads the code's tokens: no identifier contains a registered game's name, no string literal is a
game's name or id, and nothing imports a game's own package.  Prose (comments, docstrings, help examples such
as ``arena play lovat``) may mention a game; code may not branch on one.
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

import pytest

from arena.plugins import load_registry
from arena.substitute import SUBSTITUTE

ARENA = Path(__file__).resolve().parents[2] / "arena"
GAME_AGNOSTIC = ("cli", "tournament", "referee", "leaderboard")
"""The packages that must work for any registered game."""

GAMES = load_registry(plugins_dir=None).registry.games


def _literal(token: tokenize.TokenInfo) -> str | None:
    """A plain string literal's value (f-strings and byte strings: None)."""
    try:
        value = ast.literal_eval(token.string)
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, str) else None


def _problems(path: Path, names: set[str], ids: set[str], root: Path = ARENA.parent) -> list[str]:
    text = path.read_text()
    found = []
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        where = f"{path.relative_to(root)}:{token.start[0]}"
        if token.type == tokenize.NAME and any(name in token.string.lower() for name in names):
            found.append(f"{where}: identifier {token.string}")
        if token.type == tokenize.STRING:
            value = _literal(token)
            if value is not None and value.strip().lower() in names | ids:
                found.append(f"{where}: string {token.string}")
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        modules = [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module or ""]
        for module in modules:
            if any(module.startswith(f"arena.games.{name}") for name in names):
                found.append(f"{path.relative_to(root)}:{node.lineno}: imports {module}")
    return found


@pytest.mark.parametrize("package", GAME_AGNOSTIC)
def test_no_game_is_known_by_name(package: str) -> None:
    names = {game.info.name.lower() for game in GAMES.values()}
    ids = {game.info.id.lower() for game in GAMES.values()}
    assert {"lovat", "lorum"} <= names
    problems = [line for path in sorted((ARENA / package).rglob("*.py")) for line in _problems(path, names, ids)]
    assert problems == [], "game names in game-agnostic code:\n" + "\n".join(problems)


def test_the_check_finds_a_branch_on_a_game_name(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('from arena.games.lorum.cards import DECK\n\ndef unit(game):\n'
                      '    return "chips" if game == "lorum" else lovat_points\n')
    found = _problems(sample, {"lorum", "lovat"}, set(), root=tmp_path)
    assert found == ["sample.py:1: identifier lorum", "sample.py:4: string \"lorum\"",
                     "sample.py:4: identifier lovat_points", "sample.py:1: imports arena.games.lorum.cards"]


def test_the_random_agent_is_named_in_one_place() -> None:
    named = [str(path.relative_to(ARENA.parent)) for path in sorted(ARENA.rglob("*.py"))
             for token in tokenize.generate_tokens(io.StringIO(path.read_text()).readline)
             if token.type == tokenize.STRING and _literal(token) == SUBSTITUTE]
    assert named == ["arena/substitute.py"]
