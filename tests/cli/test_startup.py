"""What a command imports before it starts: ``arena --help`` and the listings load none of the heavy libraries.

Each command imports only what it needs (``arena.cli.COMMANDS``): numpy and scipy come with the ratings, so only
the commands that rate load them; matplotlib and Ray never before a run needs them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from arena.cli import COMMANDS, build_parser

HEAVY = ("numpy", "scipy", "matplotlib", "ray", "pandas")
"""Libraries that take a large part of a second to import, or more."""

PROBE = """
import json, sys
from arena.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
sys.stdout.flush()
print("\\nMODULES " + json.dumps(sorted(sys.modules)))
"""


def modules_after(*words: str) -> set[str]:
    """Every module loaded by ``arena WORDS`` run in a fresh interpreter."""
    done = subprocess.run([sys.executable, "-c", PROBE, *words], capture_output=True, text=True, timeout=120)
    line = [line for line in done.stdout.splitlines() if line.startswith("MODULES ")]
    assert line, f"arena {' '.join(words)} printed no module list:\n{done.stdout}\n{done.stderr}"
    return set(json.loads(line[-1].removeprefix("MODULES ")))


@pytest.mark.parametrize("words", [["--help"], ["--version"], ["agents"], ["games"], ["doctor", "--help"],
                                   ["play", "--help"]])
def test_starting_loads_no_heavy_library(words: list[str]) -> None:
    loaded = modules_after(*words)
    heavy = sorted(name for name in loaded if name.split(".")[0] in HEAVY)
    assert not heavy, f"arena {' '.join(words)} imported {heavy[:10]}"


def test_help_imports_no_command_module() -> None:
    loaded = modules_after("--help")
    commands = sorted(name for name in loaded if name.startswith("arena.cli.") and name not in
                      ("arena.cli.common", "arena.cli.stopping"))
    assert commands == [], commands
    assert "arena.leaderboard.publish" not in loaded and "arena.ratings" not in loaded


def test_a_rating_command_still_loads_what_it_needs() -> None:
    # The test above cannot pass by accident of a probe that loads nothing: a command that rates does load scipy.
    assert "scipy" in modules_after("leaderboard", "--help")


def test_the_index_of_commands_says_what_each_module_registers() -> None:
    full = build_parser()
    subparsers: Any = full._subparsers._group_actions[0]  # type: ignore[union-attr]
    registered = {action.dest: action.help for action in subparsers._choices_actions}
    assert list(registered) == list(COMMANDS), "arena.cli.COMMANDS must list every command, in --help order"
    for name, (_module, text) in COMMANDS.items():
        assert registered[name] == text, f"{name}: the help in COMMANDS differs from its module's"


def test_a_misspelt_command_is_a_usage_error_naming_the_choices(capsys: pytest.CaptureFixture[str]) -> None:
    from arena.cli import main

    with pytest.raises(SystemExit) as stopped:
        main(["agent"])
    assert stopped.value.code == 2
    error = capsys.readouterr().err
    assert "invalid choice: 'agent'" in error and "'agents'" in error and "'check-agent'" in error
