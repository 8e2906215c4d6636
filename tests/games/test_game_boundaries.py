"""Nothing outside a game knows it by name: every package and module of arena/ but each game's own is game-agnostic.

The check reads the code's tokens and syntax tree: no identifier contains a registered game's name (inside an
f-string's fields too), no string literal is a game's name or id or names a game's module, no f-string's text
names a game (it is output, shown for every game), and nothing imports a game's own package.  Prose (comments,
docstrings, help examples such as ``arena play lovat``) may mention a game; code may not branch on one.  The few
findings that stay are listed in ``ALLOWED``, each with its reason.
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

import pytest

from arena.plugins import load_registry
from arena.seating.substitute import SUBSTITUTE

ARENA = Path(__file__).resolve().parents[2] / "arena"

GAMES = load_registry(plugins_dir=None).registry.games
NAMES = {game.info.name.lower() for game in GAMES.values()}
IDS = {game.info.id.lower() for game in GAMES.values()}

ALLOWED: dict[str, str] = {
    'arena/plugin_system/sources.py: string "lovat"': "the list of the plugins that ship with arena, each named once, as an "
                                        "installed game names itself by its entry point",
    'arena/plugin_system/sources.py: string "arena.games.lovat.plugin"': "the same list: where the built-in game is found",
    'arena/plugin_system/sources.py: string "lorum"': "the same list of built-in plugins",
    'arena/plugin_system/sources.py: string "arena.games.lorum.plugin"': "the same list: where the built-in game is found",
    "arena/cli/serve.py: f-string text \": no such serve config (configs/serve-lovat.toml is one to copy; "
    "'arena serve users' reads serve.toml unless --config names another)\"": "names an example config file "
                                                                             "shipped in configs/, for any game",
    "arena/referee/program_seat.py: f-string text ': not an action (a string, or a list of strings such as a "
    "Lovat keep)'": "an example in an error message; the check itself is the same for every game",
}
"""Findings (``path: what``, without the line) that stay, each with the reason; none is a branch on a game."""


def _units() -> list[str]:
    """Every package and loose module of arena/, as a path below arena/ (``games`` without the games' own)."""
    return sorted(path.name for path in ARENA.iterdir()
                  if path.name != "__pycache__" and (path.suffix == ".py" or (path / "__init__.py").exists()))


def _files(unit: str) -> list[Path]:
    """The Python files of ``unit`` that must not know a game: all of them but each game's own package."""
    path = ARENA / unit
    if path.is_file():
        return [path]
    own = tuple(ARENA / "games" / name for name in NAMES)
    return [file for file in sorted(path.rglob("*.py")) if not any(file.is_relative_to(game) for game in own)]


def _key(finding: str) -> str:
    """A finding without its line number, as ``ALLOWED`` holds it (lines move with unrelated edits)."""
    path, _line, what = finding.split(":", 2)
    return f"{path}:{what}"


def _literal(token: tokenize.TokenInfo) -> str | None:
    """A plain string literal's value (f-strings and byte strings: None)."""
    try:
        value = ast.literal_eval(token.string)
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, str) else None


def _in_fstrings(tree: ast.AST, names: set[str], ids: set[str]) -> list[tuple[int, str]]:
    """What an f-string holds: identifiers in its fields (tokenize sees an f-string as one string before
    Python 3.12) and a game's name anywhere in its text or its fields' strings."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.JoinedStr):
            continue
        for part in ast.walk(node):
            if isinstance(part, (ast.Name, ast.Attribute)):
                identifier = part.id if isinstance(part, ast.Name) else part.attr
                if any(name in identifier.lower() for name in names):
                    found.append((part.lineno, f"identifier {identifier} in an f-string"))
            elif isinstance(part, ast.Constant) and isinstance(part.value, str):
                text = part.value.lower()
                if any(name in text for name in names) or text.strip() in ids:
                    found.append((part.lineno, f"f-string text {part.value!r}"))
    return found


def _problems(path: Path, names: set[str], ids: set[str], root: Path = ARENA.parent) -> list[str]:
    text = path.read_text()
    where = path.relative_to(root)
    found = []
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.NAME and any(name in token.string.lower() for name in names):
            found.append(f"{where}:{token.start[0]}: identifier {token.string}")
        if token.type == tokenize.STRING:
            value = _literal(token)
            if value is not None and (value.strip().lower() in names | ids
                                      or any(f"arena.games.{name}" in value for name in names)):
                found.append(f"{where}:{token.start[0]}: string {token.string}")
    tree = ast.parse(text)
    found += [f"{where}:{line}: {what}" for line, what in _in_fstrings(tree, names, ids)]
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        modules = [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module or ""]
        for module in modules:
            if any(module.startswith(f"arena.games.{name}") for name in names):
                found.append(f"{where}:{node.lineno}: imports {module}")
    return list(dict.fromkeys(found))


@pytest.mark.parametrize("unit", _units())
def test_no_game_is_known_by_name(unit: str) -> None:
    assert {"lovat", "lorum"} <= NAMES
    problems = [line for path in _files(unit) for line in _problems(path, NAMES, IDS) if _key(line) not in ALLOWED]
    assert problems == [], "game names in game-agnostic code:\n" + "\n".join(problems)


def test_every_allowance_is_still_needed() -> None:
    found = {_key(line) for unit in _units() for path in _files(unit) for line in _problems(path, NAMES, IDS)}
    assert sorted(set(ALLOWED) - found) == []


def test_the_check_finds_a_branch_on_a_game_name(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('from arena.games.lorum.cards import DECK\n\ndef unit(game):\n'
                      '    return "chips" if game == "lorum" else lovat_points\n')
    found = _problems(sample, {"lorum", "lovat"}, set(), root=tmp_path)
    assert found == ["sample.py:1: identifier lorum", "sample.py:4: string \"lorum\"",
                     "sample.py:4: identifier lovat_points", "sample.py:1: imports arena.games.lorum.cards"]


def test_the_check_reads_f_strings(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('def label(game, rules):\n'
                      '    return f"{rules.lorum_unit}" if game else f"{game}: points in Lovat"\n'
                      'def pick(name):\n'
                      '    return f"{\'lorum\'}" + f"arena.games.{name}" + "arena.games.lovat.cards"\n')
    found = _problems(sample, {"lorum", "lovat"}, {"lo"}, root=tmp_path)
    assert found == ["sample.py:4: string \"arena.games.lovat.cards\"",
                     "sample.py:2: identifier lorum_unit in an f-string",
                     "sample.py:2: f-string text ': points in Lovat'",
                     "sample.py:4: f-string text 'lorum'"]


def test_the_random_agent_is_named_in_one_place() -> None:
    named = [str(path.relative_to(ARENA.parent)) for path in sorted(ARENA.rglob("*.py"))
             for token in tokenize.generate_tokens(io.StringIO(path.read_text()).readline)
             if token.type == tokenize.STRING and _literal(token) == SUBSTITUTE]
    assert named == ["arena/seating/substitute.py"]
