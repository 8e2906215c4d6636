"""``arena-agent.toml``: the manifest beside an agent program, read strictly (docs/protocol.md, "Manifest").

A manifest is data, never code, so it is read in this process (no sandbox needed): size-bounded, every key
checked, an unknown key an error with a did-you-mean.  ``manifest_report`` is the whole interface the plugin
registry uses: a folder in, the report a sandboxed discovery child would have written out (the same shape
``arena.plugins.PluginManager.add_discovered`` checks), so a manifest folder is one more kind of plugin
source (``arena.plugin_system.registry.PROGRAM``) and nothing downstream needs to know it was not Python.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from arena.inputs.suggest import closest
from arena.plugin_system.data import AGENT_NAME, DESCRIPTION_MAX, GAMES_MAX, VERSION_MAX, name_problem
from arena.program import MANIFEST_NAME, PROTOCOL_VERSION
from arena.seating.options import NO_OPTIONS, TYPES, AgentOptions, OptionError, OptionSpec

MANIFEST_BYTES_MAX = 64 << 10
"""Largest manifest read (a manifest is a few lines; more is a mistake or an attack)."""

BUILD_SECONDS_DEFAULT = 300.0
"""Time a build command may take unless the manifest says otherwise."""

BUILD_SECONDS_MAX = 3600.0
"""Most time a manifest may give its build."""

ARGUMENTS_MAX = 64
"""Most words in a command or build command."""

KEYS = ("name", "version", "games", "command", "description", "build", "build_seconds", "protocol", "options")
"""Every top-level key a manifest may hold."""

OPTION_KEYS = ("type", "default", "help", "min", "max", "choices", "games")
"""Every key of one ``[options.NAME]`` table."""


class ManifestError(ValueError):
    """A manifest that cannot be used; one line naming the file, each key wrong and its fix.

    ``problems`` holds the same problems one line each (the registry lists them so).
    """

    def __init__(self, message: str, problems: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.problems = problems or (message,)


@dataclass(frozen=True, slots=True)
class Manifest:
    """One agent program, as its manifest declares it."""

    folder: Path  # the folder holding the manifest (resolved)
    name: str  # the agent's name, as configs and the command line name it
    version: str  # the agent's own version: recorded with every match, and part of the build cache key
    games: tuple[str, ...]  # short names of the games it plays
    command: tuple[str, ...]  # what runs it: a path in the folder (or a runtime on PATH, or "python"), arguments
    description: str = ""  # one line for `arena agents`
    build: tuple[str, ...] = ()  # run once per content hash before the first match; () for none
    build_seconds: float = BUILD_SECONDS_DEFAULT  # the build's time limit
    options: AgentOptions = NO_OPTIONS  # the options it accepts, checked before it is seated


def read_manifest(folder: Path | str) -> Manifest:
    """The manifest in ``folder``; ``ManifestError`` (one line naming every problem) for anything wrong."""
    folder = Path(folder).resolve()
    path = folder / MANIFEST_NAME
    where = str(path)
    table = _table(path, where)
    problems: list[str] = []

    def checked(check: Callable[[], Any], fallback: Any) -> Any:
        """``check()``, or ``fallback`` with its problem noted: an author sees every mistake in one go."""
        try:
            return check()
        except ManifestError as error:
            problems.append(str(error).removeprefix(f"{where}: "))
            return fallback

    for key in table:
        checked(partial(_known, key, KEYS, where, "key"), None)
    meant = {closest(key, KEYS) for key in table if key not in KEYS}  # 'game' is told it means 'games' once
    missing = [key for key in ("name", "version", "games", "command") if key not in table and key not in meant]
    if missing:
        problems.append(f"missing key{'s' if len(missing) > 1 else ''} {', '.join(map(repr, missing))} "
                        "(a manifest needs name, version, games and command)")
    name = checked(lambda: _name(table, where), "") if "name" in table else ""
    version = checked(lambda: _version(table, where), "") if "version" in table else ""
    games = checked(lambda: _games(table, where), ()) if "games" in table else ()
    description = checked(lambda: _description(table, where), "")
    checked(lambda: _protocol(table, where), None)
    build_seconds = checked(lambda: _build_seconds(table, where), BUILD_SECONDS_DEFAULT)
    command = checked(lambda: _command(table, "command", where), ()) if "command" in table else ()
    build = checked(lambda: _command(table, "build", where), ()) if "build" in table else ()
    options = checked(lambda: _options(table.get("options", {}), where), NO_OPTIONS)
    if problems:
        count = f"{len(problems)} problems: " if len(problems) > 1 else ""
        raise ManifestError(f"{where}: {count}{'; '.join(problems)}",
                            tuple(f"{where}: {problem}" for problem in problems))
    return Manifest(folder=folder, name=name, version=version, games=games, command=command,
                    description=description, build=build, build_seconds=build_seconds, options=options)


def _table(path: Path, where: str) -> dict[str, Any]:
    """The manifest's TOML table, read within ``MANIFEST_BYTES_MAX``."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MANIFEST_BYTES_MAX + 1)
    except OSError as error:
        raise ManifestError(f"{where}: cannot be read: {error.strerror}") from None
    if len(data) > MANIFEST_BYTES_MAX:
        raise ManifestError(f"{where}: over {MANIFEST_BYTES_MAX} bytes; a manifest is a few lines")
    try:
        return tomllib.loads(data.decode())
    except UnicodeDecodeError as error:
        raise ManifestError(f"{where}: not UTF-8 (byte {error.start})") from None
    except tomllib.TOMLDecodeError as error:
        raise ManifestError(f"{where}: not TOML: {error}") from None


def _name(table: Mapping[str, Any], where: str) -> str:
    name = _string(table, "name", where)
    problem = name_problem(name, AGENT_NAME, "name")
    if problem:
        raise ManifestError(f"{where}: {problem}")
    return name


def _version(table: Mapping[str, Any], where: str) -> str:
    version = _string(table, "version", where)
    if not version or len(version) > VERSION_MAX or not version.isprintable():
        raise ManifestError(f"{where}: version must be 1 to {VERSION_MAX} printable characters")
    return version


def _games(table: Mapping[str, Any], where: str) -> tuple[str, ...]:
    games = _words(table, "games", where, GAMES_MAX)
    for game in games:
        problem = name_problem(game, AGENT_NAME, "game name")
        if problem:
            raise ManifestError(f"{where}: games: {problem}")
    return games


def _description(table: Mapping[str, Any], where: str) -> str:
    description = _string(table, "description", where) if "description" in table else ""
    if len(description) > DESCRIPTION_MAX or not description.isprintable():
        raise ManifestError(f"{where}: description must be one line of at most {DESCRIPTION_MAX} printable "
                            "characters")
    return description


def _protocol(table: Mapping[str, Any], where: str) -> None:
    protocol = table.get("protocol", PROTOCOL_VERSION)
    if protocol != PROTOCOL_VERSION or isinstance(protocol, bool):
        raise ManifestError(f"{where}: protocol {protocol!r} is not one this arena speaks ({PROTOCOL_VERSION})")


def _build_seconds(table: Mapping[str, Any], where: str) -> float:
    build_seconds = table.get("build_seconds", BUILD_SECONDS_DEFAULT)
    if isinstance(build_seconds, bool) or not isinstance(build_seconds, (int, float)) or \
            not math.isfinite(build_seconds) or not 0 < build_seconds <= BUILD_SECONDS_MAX:
        raise ManifestError(f"{where}: build_seconds must be a number of seconds > 0 and <= {BUILD_SECONDS_MAX:g}")
    return float(build_seconds)


def _command(table: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    """``command`` or ``build``: words whose first may not name a file outside the program's folder."""
    words = _words(table, key, where)
    if _leads_out(words[0]):
        # The build may read its tool's folder: an absolute path would open any folder of the machine to it.
        first = ("a file in the folder (\"./my-bot\"), a runtime on the system's PATH (\"node\") or \"python\""
                 if key == "command" else
                 "a tool on the system's PATH (\"cc\", \"cargo\") or a file in the folder (\"./build.sh\")")
        raise ManifestError(f"{where}: {key} {words[0]!r} leads out of the program's folder: its first word is "
                            f"{first} (docs/protocol.md, \"Manifest\")")
    return words


def _leads_out(first: str) -> bool:
    """Whether a command's first word names a file outside the program's folder (an absolute path, a ``..``)."""
    return first.startswith("/") or ("/" in first and ".." in first.split("/"))


def manifest_report(folder: Path | str,
                    unstartable: Callable[[Manifest], str | None] | None = None) -> dict[str, Any]:
    """What the registry takes from a manifest folder: one agent entry, as a discovery child reports one.

    ``{"agents": [AgentSpec fields but the factory], "games": [], "errors": [], "failed": False}``, or with
    ``failed`` true and a line per problem in ``errors`` when the manifest cannot be used, or when
    ``unstartable`` (``arena.program.launch.unstartable``) says its command cannot start.  The registry
    (``PluginManager.add_discovered``) checks the entry as untrusted data and gives it a factory that refuses to
    run in-process.
    """
    try:
        manifest = read_manifest(folder)
    except ManifestError as error:
        return {"agents": [], "games": [], "errors": list(error.problems), "failed": True}
    problem = unstartable(manifest) if unstartable else None
    if problem:
        return {"agents": [], "games": [], "errors": [problem], "failed": True}
    agent = {"name": manifest.name, "games": list(manifest.games), "description": manifest.description,
             "version": manifest.version, "options": manifest.options.to_json()}
    return {"agents": [agent], "games": [], "errors": [], "failed": False, "reporter": False}


def is_manifest_folder(path: Path) -> bool:
    """Whether ``path`` (in a plugins folder) is an agent program: a visible folder holding a manifest."""
    return not path.name.startswith(("_", ".")) and path.is_dir() and (path / MANIFEST_NAME).is_file()


def _known(key: str, known: tuple[str, ...], where: str, what: str) -> None:
    if key not in known:
        close = closest(key, known)
        hint = f"; did you mean {close!r}?" if close else f" (known: {', '.join(known)})"
        raise ManifestError(f"{where}: unknown {what} {key!r}{hint}")


def _string(table: Mapping[str, Any], key: str, where: str) -> str:
    value = table[key]
    if not isinstance(value, str):
        raise ManifestError(f"{where}: {key} must be a string, not {type(value).__name__}")
    return value


def _words(table: Mapping[str, Any], key: str, where: str, most: int = ARGUMENTS_MAX) -> tuple[str, ...]:
    value = table[key]
    if not isinstance(value, list) or not value or not all(isinstance(item, str) and item for item in value):
        raise ManifestError(f"{where}: {key} must be a non-empty list of non-empty strings, e.g. "
                            f"{key} = [\"./agent\", \"--fast\"]")
    if len(value) > most or any("\0" in item for item in value):
        raise ManifestError(f"{where}: {key} must be at most {most} strings without NUL characters")
    return tuple(value)


def _options(value: Any, where: str) -> AgentOptions:
    if not isinstance(value, dict):
        raise ManifestError(f"{where}: options must be tables, e.g. [options.depth] type = \"int\"")
    specs = []
    for name, declared in value.items():
        if not isinstance(declared, dict):
            raise ManifestError(f"{where}: options.{name} must be a table, e.g. [options.{name}] type = \"int\"")
        for key in declared:
            _known(key, OPTION_KEYS, f"{where}: options.{name}", "key")
        if declared.get("type") not in TYPES:
            raise ManifestError(f"{where}: options.{name}.type must be one of {', '.join(TYPES)}")
        try:
            specs.append(OptionSpec.from_json({
                "name": name, "type": declared["type"], "default": declared.get("default"),
                "help": declared.get("help", ""), "minimum": declared.get("min"), "maximum": declared.get("max"),
                "choices": declared.get("choices") or (), "games": declared.get("games") or ()}))
            AgentOptions(tuple(specs))  # each declaration checked as it comes, so the error names it
        except (OptionError, TypeError, ValueError) as error:
            raise ManifestError(f"{where}: options.{name}: {error}") from None
    return AgentOptions(tuple(specs))
