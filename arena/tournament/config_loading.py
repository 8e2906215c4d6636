"""Reading and validating a tournament config: a TOML file, checked in full before anything runs.

``load_config`` reads a file and ``config_from_dict`` checks already parsed
data.  Both collect *every* problem and raise one ``ConfigError`` with one
line per problem, each naming the file, the dotted key and what is expected::

    configs/x.toml: limits.move_seconds: expected a positive number, got "fast"
    configs/x.toml: agents[2].plugin: unknown agent "gredy"; did you mean "greedy"? (known: greedy, random)

The games and agents a config may name are passed in (``known_games``,
``known_agents``, and the options each agent declares, ``agent_options``), so
this module does not depend on the plugin registry.
Every key is described in ``docs/configs.md``.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from arena.games.base import GameInfo
from arena.inputs import bounded_json
from arena.seating.options import AgentOptions
from arena.tournament.config_types import ConfigError, TournamentConfig
from arena.tournament.config_validation import ConfigValidator

MAX_CONFIG_BYTES = 1 << 20
"""Largest config file read (1 MiB: a config with thousands of entries is a few hundred KiB)."""


def load_config(
    path: str | Path,
    known_games: Mapping[str, GameInfo],
    known_agents: Mapping[str, Collection[str]],
    known_ratings: Collection[str] | None = None,
    agent_options: Mapping[str, AgentOptions] | None = None,
) -> TournamentConfig:
    """Read and validate a tournament TOML file.

    Parameters
    ----------
    path
        The file; messages name it as given.
    known_games
        Game short name -> ``GameInfo`` of every installed game.
    known_agents
        Registered agent name -> short names of the games it plays.
    known_ratings
        Rating method names ``ratings`` may list, the first the default view (and, given, the list a config
        without ``ratings`` gets); None: every method of ``arena.ratings``, in its order, and by default all but
        those that value each match's luck (``MethodSpec.luck``), which a config lists by name.
    agent_options
        Registered agent name -> the options it declares (``AgentSpec.options``); every entry's
        ``options`` are checked against them.  None skips the check (an agent missing from it accepts none).

    Raises
    ------
    ConfigError
        One line per problem; a TOML syntax error is one line with its line number.
    """
    return config_from_dict(read_toml(path), known_games, known_agents, source=str(path), known_ratings=known_ratings,
                            agent_options=agent_options)


_LONG_KEY = re.compile(
    r"""(?<![A-Za-z0-9_-])(?:(?:[A-Za-z0-9_-]+|"[^"\n]*"|'[^'\n]*')[ \t]*\.[ \t]*)"""
    rf"{{{bounded_json.MAX_DEPTH}}}"
)
"""``MAX_DEPTH`` dotted parts in a row: a key (or a table header) nested deeper than any config may be.
Matches start only at the start of a word, so the search stays linear in the text."""


def read_toml(path: str | Path) -> dict[str, Any]:
    """Read a config file and parse its TOML, refusing what would take too long or too much memory.

    The read is bounded (``MAX_CONFIG_BYTES``) and a dotted key deeper than any config may be is refused
    before parsing (``tomllib`` takes time quadratic in its length).  Messages name the path as given.

    Raises
    ------
    ConfigError
        One line: the file cannot be read, is too large or not UTF-8, or is not TOML (a syntax error
        names its line and column).
    """
    source = str(path)
    try:
        raw = bounded_json.read_file(Path(path), MAX_CONFIG_BYTES,
                                     f"larger than {MAX_CONFIG_BYTES // 1024} KiB; a config is a short text file")
        text = raw.decode("utf-8")
    except OSError as error:
        raise ConfigError([f"{source}: cannot read the file: {error.strerror or error}"]) from None
    except UnicodeDecodeError as error:
        raise ConfigError([f"{source}: the file is not UTF-8 text ({error.reason})"]) from None
    except ValueError as error:
        raise ConfigError([f"{source}: {error}"]) from None
    long_key = _LONG_KEY.search(text)
    if long_key is not None:  # tomllib takes time quadratic in a dotted key's length: refuse it unparsed
        line = text.count("\n", 0, long_key.start()) + 1
        raise ConfigError([f"{source}: line {line}: a dotted key of more than {bounded_json.MAX_DEPTH} parts "
                           "(nested too deeply)"])
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError([_syntax_problem(source, str(error))]) from None
    except RecursionError:
        raise ConfigError([f"{source}: arrays or tables nested too deeply"]) from None
    except ValueError as error:  # tomllib lets int()'s digit limit through
        raise ConfigError([f"{source}: a value TOML cannot hold: {' '.join(str(error).split())[:100]}"]) from None
    return data


def config_from_dict(
    data: Mapping[str, Any],
    known_games: Mapping[str, GameInfo],
    known_agents: Mapping[str, Collection[str]],
    source: str = "<config>",
    known_ratings: Collection[str] | None = None,
    agent_options: Mapping[str, AgentOptions] | None = None,
    label: str = "a round-robin",
) -> TournamentConfig:
    """Validate parsed config data (as ``tomllib`` gives it); see ``load_config``.

    ``label`` is what messages call the round-robin the config describes (a ladder's says ``"a ladder"``).
    """
    return ConfigValidator(source, known_games, known_agents, known_ratings, agent_options, label).run(data)


def _syntax_problem(source: str, message: str) -> str:
    """One line for a TOML syntax error: ``file: line 3: TOML syntax error: ... (column 5)``."""
    found = re.search(r"\s*\(at line (\d+), column (\d+)\)\s*$", message)
    if found:
        detail = message[: found.start()]
        return f"{source}: line {found.group(1)}: TOML syntax error: {detail} (column {found.group(2)})"
    found = re.search(r"\s*\(at end of document\)\s*$", message)
    if found:
        return f"{source}: end of file: TOML syntax error: {message[: found.start()]}"
    return f"{source}: TOML syntax error: {message}"
