"""Plugin discovery and the registry: trust comes from where a plugin comes from, never from what it says.

Plugins come from three places:

* the built-ins (``DEFAULT_PLUGINS``: arena's games and first-party agents,
  shipped inside the arena distribution): imported in this process, the only
  code the referee ever runs in-process unasked;
* entry points of installed packages in the ``arena`` group, and
* ``.py`` files or packages dropped into a plugins folder: third-party code.

A third-party plugin is never imported here.  ``arena.discovery`` imports
each one alone, in a sandboxed child process, and reports what it registered
as JSON; this module checks that data as it would check any untrusted input
and keeps the plugin's agents as data (``AgentSpec`` whose factory is a
``PluginFactory``: calling it refuses).  Those agents run only in a zygote of
their own plugin (``arena.referee.host``), unless a tournament entry or a
command asks for ``isolation = "trusted"`` by name, which loads that plugin
in-process (``in_process_spec``).

Games and reporters (``arena_match_finished``) of a third-party plugin would
run in the referee's process, so they are refused unless the user names the
plugin in ``ARENA_PLUGINS_TRUST``.

A plugin that fails to import (whatever it raises, ``SystemExit`` included),
misspells a hook, or registers something invalid is skipped with one line
naming the plugin and the cause; the others still load.

Environment variables (comma-separated plugin names):

* ``ARENA_PLUGINS_ALLOW``: load only these plugins (built-ins always load);
* ``ARENA_PLUGINS_BLOCK``: never load these plugins;
* ``ARENA_PLUGINS_TRUST``: also import these plugins in this process, so that
  their games and reporters work (their agents still run sandboxed unless
  seated ``trusted``).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib
import importlib.metadata
import importlib.util
import inspect
import os
import re
import sys
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pluggy

from arena import hookspecs
from arena.agent import AgentSpec
from arena.games.base import Game
from arena.options import AgentOptions
from arena.suggest import closest

DEFAULT_PLUGINS: tuple[tuple[str, str], ...] = (
    ("lovat", "arena.games.lovat.plugin"),
    ("lorum", "arena.games.lorum.plugin"),
    ("builtin-agents", "arena_agents.plugin"),
)
"""(plugin name, module) of the plugins that ship with arena: the only ones trusted by origin."""

DEFAULT_PLUGINS_DIR = Path("plugins")
"""The drop-in plugins folder, relative to the working directory."""

ALLOW_ENV = "ARENA_PLUGINS_ALLOW"
BLOCK_ENV = "ARENA_PLUGINS_BLOCK"
TRUST_ENV = "ARENA_PLUGINS_TRUST"

AGENT_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")
PLUGIN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
NAME_MAX = 64
"""Longest agent, game or plugin name."""
VERSION_MAX = 64
"""Longest version string."""
DESCRIPTION_MAX = 500
"""Longest description kept; a longer one is cut (and ends with "...")."""
GAMES_MAX = 32
"""Most games one agent may say it plays."""

BUILTIN, ENTRY_POINT, FILE = "builtin", "entry point", "file"


@dataclass(frozen=True, slots=True)
class PluginSource:
    """Where one plugin comes from: enough to import it in any process, as JSON-able data."""

    name: str  # plugin name: built-in name, entry-point name or file stem
    kind: str  # BUILTIN, ENTRY_POINT or FILE
    target: str  # module name (built-in), entry-point value ("module" or "module:attr") or file/folder path
    version: str  # distribution version, or "builtin" / "file"
    source: str  # as listed: "builtin", "entry point of <dist>", or the path

    @property
    def builtin(self) -> bool:
        """Whether the plugin ships with arena (the only origin trusted without asking)."""
        return self.kind == BUILTIN

    def load(self) -> ModuleType | object:
        """Import the plugin in this process and return its plugin object (runs its code)."""
        if self.kind == BUILTIN:
            return importlib.import_module(self.target)
        if self.kind == ENTRY_POINT:
            return importlib.metadata.EntryPoint(self.name, self.target, hookspecs.PROJECT_NAME).load()
        return _import_path(Path(self.target))

    def read_paths(self) -> tuple[str, ...]:
        """The files a sandbox must be able to read to import this plugin, beyond Python and arena.

        Found without running the plugin's code: a drop-in's own file or folder; for an entry point the
        location of its top-level package (``find_spec`` of a top-level name imports nothing).
        """
        if self.kind == FILE:
            return (self.target,)
        if self.kind == BUILTIN:
            return ()
        top = self.target.split(":")[0].split(".")[0].strip()
        try:
            spec = importlib.util.find_spec(top)
        except (ImportError, ValueError):
            return ()
        if spec is None:
            return ()
        paths = list(spec.submodule_search_locations or ())
        if not paths and spec.origin and os.path.isabs(spec.origin):
            paths.append(spec.origin)
        # The folder on sys.path that holds the package too: Python lists it to find the package at all (a
        # package installed with ``pip --target`` outside site-packages). Folders holding the working
        # directory or inside the leaderboards folder are dropped again by the sandbox's policy.
        paths += [os.path.dirname(str(path)) for path in paths]
        return tuple(dict.fromkeys(str(path) for path in paths))

    def to_json(self) -> dict[str, str]:
        """The source as plain JSON data (for the zygote's command line and discovery)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PluginSource:
        """The inverse of ``to_json``."""
        return cls(**{f.name: str(data[f.name]) for f in dataclasses.fields(cls)})


class PluginCodeRefused(Exception):
    """Third-party code was about to run where it must not (the driver or the referee)."""


@dataclass(frozen=True, slots=True)
class PluginFactory:
    """Stands in the driver's registry for a third-party agent's factory, which lives only in its sandbox.

    Calling it refuses: the agent is built by its plugin's zygote (``arena.referee.host``), or
    in-process only through ``in_process_spec`` when a seat is explicitly ``trusted``.
    """

    plugin: PluginSource  # the plugin that registered the agent
    agent: str  # the agent's name

    def __call__(self, **_: Any) -> Any:
        """Refuse: a third-party agent is never built in this process unasked."""
        raise PluginCodeRefused(
            f"agent {self.agent!r} of third-party plugin {self.plugin.name!r} runs only in its plugin's sandbox; "
            "seat it with isolation = \"trusted\" to run it in-process"
        )


@dataclass(frozen=True, slots=True)
class PluginInfo:
    """One loaded plugin, as `arena plugins` lists it."""

    name: str  # plugin name: entry-point name, file stem or built-in name
    version: str  # distribution version, or "builtin" / "file"
    source: str  # "builtin", "entry point <dist>", or the file path
    games: tuple[str, ...]  # game names it registered (and that were loaded)
    agents: tuple[str, ...]  # agent names it registered


@dataclass(slots=True)
class Registry:
    """Everything the plugins registered, plus the problems met on the way."""

    games: dict[str, Game] = field(default_factory=dict)  # game short name -> Game
    agents: dict[str, AgentSpec] = field(default_factory=dict)  # agent name -> spec (third-party: data only)
    agent_plugin: dict[str, str] = field(default_factory=dict)  # agent name -> plugin name
    plugins: list[PluginInfo] = field(default_factory=list)  # in load order
    errors: list[str] = field(default_factory=list)  # one line per skipped plugin or registration
    reporters: Callable[[Mapping[str, Any]], None] | None = None  # the arena_match_finished hook caller
    sources: dict[str, PluginSource] = field(default_factory=dict)  # plugin name -> where it comes from

    def match_finished(self, record: Mapping[str, Any]) -> None:
        """Tell every reporter plugin (``arena_match_finished``) that a match finished.

        A failing reporter (whatever it raises) is reported on stderr and never stops the tournament.
        """
        if self.reporters is None:
            return
        try:
            self.reporters(record)
        except BaseException as error:  # SystemExit or KeyboardInterrupt from a reporter is its fault
            print(f"arena: a reporter plugin failed on match {record.get('match', '?')}: {one_line(error)}",
                  file=sys.stderr)

    def game(self, name: str) -> Game:
        """The game called ``name``; ``KeyError`` with a helpful message otherwise."""
        try:
            return self.games[name]
        except KeyError:
            raise KeyError(f"unknown game {name!r}{_suggest(name, self.games)} "
                           f"(installed: {', '.join(sorted(self.games))})") from None

    def agent(self, name: str) -> AgentSpec:
        """The agent called ``name``; ``KeyError`` with a helpful message otherwise."""
        try:
            return self.agents[name]
        except KeyError:
            raise KeyError(f"unknown agent {name!r}{_suggest(name, self.agents)} "
                           f"(installed: {', '.join(sorted(self.agents))})") from None

    def agents_for(self, game_name: str) -> list[AgentSpec]:
        """Agents that play ``game_name``, by name."""
        return [spec for name, spec in sorted(self.agents.items()) if spec.plays(game_name)]


def _suggest(name: str, known: Iterable[str]) -> str:
    """``; did you mean 'x'?`` when ``name`` is close to one of ``known``, else ""."""
    close = closest(name, known)
    return f"; did you mean {close!r}?" if close else ""


class PluginManager:
    """Loads plugins and exposes their registrations; call sites never touch ``pm.hook`` directly."""

    def __init__(self) -> None:
        self.pm = pluggy.PluginManager(hookspecs.PROJECT_NAME)
        self.pm.add_hookspecs(hookspecs)
        self.registry = Registry(reporters=self.match_finished)

    # -- discovery -------------------------------------------------------------------------------

    def load(self, plugins_dir: Path | str | None = DEFAULT_PLUGINS_DIR, entry_points: bool = True) -> Registry:
        """Load the built-ins here, discover third-party plugins in sandboxes; return the registry."""
        from arena.discovery import discover  # the sandboxed half; imports this module

        for source in builtin_sources():
            self.add(source)
        sources, problems = third_party_sources(plugins_dir, entry_points)
        self.registry.errors += problems
        trusted = _names(os.environ.get(TRUST_ENV, ""))
        wanted = [source for source in sources if self._wanted(source)]
        for source, report in zip(wanted, discover(wanted), strict=True):
            self.add_discovered(source, report)
            if source.name in trusted and source.name in self.registry.sources:
                self._add_games_and_reporters(source)
        return self.registry

    def add(self, source: PluginSource) -> None:
        """Import, register and validate one plugin in this process; on any failure skip it with one line."""
        name, where = source.name, f"plugin {source.name!r} ({source.source})"
        if self.pm.has_plugin(name) or name in self.registry.sources:
            self.registry.errors.append(f"{where}: skipped, a plugin of that name is already loaded")
            return
        try:
            plugin = source.load()
        except BaseException as error:  # a plugin's import may raise anything, SystemExit included
            self.registry.errors.append(f"{where}: failed to import: {one_line(error)}")
            return
        if not self._register(plugin, name, where):
            return
        games, agents = self._collect(where, plugin, take_games=True)
        self.registry.sources[name] = source
        for agent in agents:
            self.registry.agent_plugin[agent] = name
        self.registry.plugins.append(PluginInfo(name, source.version, source.source, games, agents))
        if source.builtin:
            _remember_builtins(self.registry)

    def add_discovered(self, source: PluginSource, report: Mapping[str, Any]) -> None:
        """Take what a sandboxed child reported for ``source``: checked here as untrusted data."""
        where = f"plugin {source.name!r} ({source.source})"
        if source.name in self.registry.sources:
            self.registry.errors.append(f"{where}: skipped, a plugin of that name is already loaded")
            return
        if "error" in report:  # the child could not even report (died, timed out, said nothing readable)
            self.registry.errors.append(f"{where}: {printable(str(report['error']), 300)}")
            return
        for line in _strings(report.get("errors"))[:20]:  # the child's own lines name the plugin already
            self.registry.errors.append(f"{where}: {printable(line.removeprefix(where + ': '), 300)}")
        if report.get("failed"):
            return
        games = _strings(report.get("games"))[:GAMES_MAX]
        for game in games:
            self.registry.errors.append(
                f"{where}: game {printable(game, NAME_MAX)!r} not loaded: a game runs in the referee's process, "
                f"so games of third-party plugins load only when {TRUST_ENV} names the plugin"
            )
        if report.get("reporter") is True:
            self.registry.errors.append(
                f"{where}: reporter (arena_match_finished) not loaded: a reporter runs in the referee's process, "
                f"so reporters of third-party plugins load only when {TRUST_ENV} names the plugin"
            )
        agents: list[str] = []
        raw_agents = report.get("agents")
        for data in raw_agents[:1000] if isinstance(raw_agents, list) else []:
            spec, problem = spec_from_json(data, PluginFactory(source, str(_get(data, "name"))))
            problem = problem or (_agent_problem(spec, self.registry.agents) if spec is not None else None)
            if problem or spec is None:
                self.registry.errors.append(f"{where}: agent not registered: {problem}")
                continue
            self.registry.agents[spec.name] = spec
            self.registry.agent_plugin[spec.name] = source.name
            agents.append(spec.name)
        self.registry.sources[source.name] = source
        self.registry.plugins.append(PluginInfo(source.name, source.version, source.source, (), tuple(agents)))

    def _add_games_and_reporters(self, source: PluginSource) -> None:
        """Import a plugin the user trusts by name (``ARENA_PLUGINS_TRUST``) for its games and reporters."""
        where = f"plugin {source.name!r} ({source.source})"
        try:
            plugin = source.load()
        except BaseException as error:
            self.registry.errors.append(f"{where}: failed to import: {one_line(error)}")
            return
        if not self._register(plugin, source.name, where):
            return
        games, _agents = self._collect(where, plugin, take_games=True, take_agents=False)
        info = next(info for info in self.registry.plugins if info.name == source.name)
        self.registry.plugins[self.registry.plugins.index(info)] = dataclasses.replace(info, games=games)
        self.registry.errors[:] = [line for line in self.registry.errors
                                   if not (line.startswith(where) and TRUST_ENV in line)]

    def _register(self, plugin: object, name: str, where: str) -> bool:
        try:
            self.pm.register(plugin, name=name)
            self.pm.check_pending()
        except pluggy.PluginValidationError as error:
            self.pm.unregister(name=name)
            self.registry.errors.append(f"{where}: {_hook_problem(error)}")
            return False
        except BaseException as error:  # a plugin object whose attributes raise
            if self.pm.has_plugin(name):
                self.pm.unregister(name=name)
            self.registry.errors.append(f"{where}: cannot register: {one_line(error)}")
            return False
        return True

    def _collect(self, where: str, plugin: object, take_games: bool = True, take_agents: bool = True
                 ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Call the plugin's registration hooks and validate what it registers."""
        games: list[str] = []
        agents: list[str] = []

        def register_game(game: Game) -> None:
            if not take_games:
                return
            problem = _game_problem(game, self.registry.games)
            if problem:
                self.registry.errors.append(f"{where}: game not registered: {problem}")
                return
            self.registry.games[game.info.name] = game
            games.append(game.info.name)

        def register_agent(spec: AgentSpec) -> None:
            if not take_agents:
                return
            problem = _agent_problem(spec, self.registry.agents)
            if problem:
                self.registry.errors.append(f"{where}: agent not registered: {problem}")
                return
            self.registry.agents[spec.name] = spec
            agents.append(spec.name)

        for hook_name, register in (("arena_register_games", register_game), ("arena_register_agents", register_agent)):
            # Call this plugin's implementation only, so each registration is attributed to it.
            hook = self.pm.subset_hook_caller(hook_name, remove_plugins=self._others(plugin))
            try:
                hook(register=register)
            except BaseException as error:  # SystemExit and KeyboardInterrupt from a hook are the plugin's
                self.registry.errors.append(f"{where}: {hook_name} raised {one_line(error)}")
        return tuple(games), tuple(agents)

    def _others(self, plugin: object) -> list[object]:
        return [other for other in self.pm.get_plugins() if other is not plugin]

    @staticmethod
    def _wanted(source: PluginSource) -> bool:
        allow = _names(os.environ.get(ALLOW_ENV, ""))
        block = _names(os.environ.get(BLOCK_ENV, ""))
        if source.name in block:
            return False
        return source.builtin or not allow or source.name in allow

    # -- typed hook calls ------------------------------------------------------------------------

    def match_finished(self, record: Mapping[str, Any]) -> None:
        """Tell every reporter plugin that a match finished, each on its own (one failing silences no other)."""
        from arena.reporters import call_each_reporter  # imports pluggy only; kept local to this one caller

        call_each_reporter(self.pm, record)


def builtin_sources() -> list[PluginSource]:
    """The plugins that ship with arena."""
    return [PluginSource(name, BUILTIN, module, BUILTIN, BUILTIN) for name, module in DEFAULT_PLUGINS]


def third_party_sources(plugins_dir: Path | str | None, entry_points: bool = True
                        ) -> tuple[list[PluginSource], list[str]]:
    """Every third-party plugin found, read from package metadata and file names only (no plugin code runs).

    Returns the sources and one line per candidate whose name is not acceptable.
    """
    found: list[PluginSource] = []
    problems: list[str] = []
    if entry_points:
        for entry in sorted(importlib.metadata.entry_points(group=hookspecs.PROJECT_NAME), key=lambda e: e.name):
            dist = entry.dist
            version = printable(dist.version, VERSION_MAX) if dist is not None else "unknown"
            where = f"entry point of {printable(dist.name, NAME_MAX)}" if dist is not None else "entry point"
            found.append(PluginSource(entry.name, ENTRY_POINT, entry.value, version, where))
    if plugins_dir is not None and Path(plugins_dir).is_dir():
        for path in sorted(Path(plugins_dir).iterdir()):
            if _is_plugin_file(path):
                target = str(path.resolve())
                found.append(PluginSource(path.stem, FILE, target, FILE, str(path)))
    kept = []
    builtin = {name for name, _module in DEFAULT_PLUGINS}
    for source in found:
        problem = name_problem(source.name, PLUGIN_NAME, "plugin name")
        if problem is None and source.name in builtin:
            problem = f"a built-in plugin is called {source.name!r}"
        if problem:
            problems.append(
                f"plugin {printable(source.name, NAME_MAX)!r} ({printable(source.source, 300)}): skipped, {problem}"
            )
        else:
            kept.append(source)
    return kept, problems


def load_registry(plugins_dir: Path | str | None = DEFAULT_PLUGINS_DIR, entry_points: bool = True) -> PluginManager:
    """A plugin manager with everything loaded (the usual entry point for the CLI and workers)."""
    manager = PluginManager()
    manager.load(plugins_dir=plugins_dir, entry_points=entry_points)
    return manager


# -- origin: which agents may run in-process -------------------------------------------------------


def origin(spec: AgentSpec) -> PluginSource | None:
    """The plugin ``spec`` was registered by, as this process's registries know it; None for a spec made by hand.

    A third-party agent carries its plugin in its ``PluginFactory``; a built-in
    agent is recognised by being the very spec a built-in plugin registered.
    """
    if isinstance(spec.factory, PluginFactory):
        return spec.factory.plugin
    for known, source in _BUILTIN_SPECS.get(spec.name, ()):
        if known == spec:
            return source
    return None


def is_builtin(spec: AgentSpec) -> bool:
    """Whether ``spec`` is arena's own code: registered by a built-in plugin, or a factory defined in arena's files.

    Nothing the plugin sets decides this: not ``AgentSpec.trusted``, not a factory's ``__module__`` (the
    file that holds the factory's code is what counts), and a third-party agent in this process's registry is
    only data (``PluginFactory``).
    """
    if isinstance(spec.factory, PluginFactory):
        return False
    found = origin(spec)
    if found is not None:
        return found.builtin
    return _defined_in_arena(spec.factory)


def in_process_spec(spec: AgentSpec) -> AgentSpec:
    """The spec with a real factory, importing a third-party plugin in this process if need be.

    Only for a seat the user explicitly seated ``trusted``.  The plugin is imported once per process;
    ``PluginCodeRefused`` (one line) if it fails to import or no longer registers the agent.
    """
    if not isinstance(spec.factory, PluginFactory):
        return spec
    source = spec.factory.plugin
    with _trusted_lock:
        if source not in _trusted_registries:
            manager = PluginManager()
            manager.add(source)
            _trusted_registries[source] = manager.registry
    registry = _trusted_registries[source]
    found = registry.agents.get(spec.name)
    if found is None:
        problem = registry.errors[0] if registry.errors else f"it does not register agent {spec.name!r}"
        raise PluginCodeRefused(f"agent {spec.name!r} cannot run trusted: {problem}")
    return found


_BUILTIN_SPECS: dict[str, list[tuple[AgentSpec, PluginSource]]] = {}  # every registry's built-in specs
_trusted_registries: dict[PluginSource, Registry] = {}
_trusted_lock = threading.Lock()


@functools.cache
def _arena_folders() -> tuple[Path, ...]:
    """The folders of arena's own packages (arena and arena_agents), wherever they are installed."""
    folders = [Path(__file__).resolve().parent]
    spec = importlib.util.find_spec("arena_agents")
    if spec is not None:
        folders += [Path(location).resolve() for location in spec.submodule_search_locations or ()]
    return tuple(folders)


def _defined_in_arena(factory: Any) -> bool:
    """Whether the code of ``factory`` lives in arena's own files (its ``__module__`` alone proves nothing)."""
    target = getattr(factory, "func", factory)  # functools.partial
    try:
        filename = inspect.getfile(target if inspect.isclass(target) or inspect.isfunction(target)
                                   or inspect.ismethod(target) else type(target))
    except (TypeError, OSError):
        return False
    path = Path(filename).resolve()
    return any(path.is_relative_to(folder) for folder in _arena_folders())


def _remember_builtins(registry: Registry) -> None:
    for name, spec in registry.agents.items():
        source = registry.sources.get(registry.agent_plugin.get(name, ""))
        if source is not None and source.builtin:
            known = _BUILTIN_SPECS.setdefault(name, [])
            if all(other != spec for other, _source in known):
                known.append((spec, source))


# -- checks on what plugins register ----------------------------------------------------------------


def name_problem(name: object, pattern: re.Pattern[str], what: str) -> str | None:
    """Why ``name`` is not acceptable (type, length, characters), or None."""
    if not isinstance(name, str):
        return f"{what} must be a string, not {type(name).__name__}"
    if not name or len(name) > NAME_MAX:
        return f"{what} must be 1 to {NAME_MAX} characters, not {len(name)}"
    if not pattern.match(name):
        allowed = "letters, digits, '.', '_' or '-'"
        hint = f"lowercase {allowed}" if pattern is AGENT_NAME else allowed
        return f"{what} {printable(name, NAME_MAX)!r} must be {hint}"
    return None


def spec_to_json(spec: AgentSpec) -> dict[str, Any]:
    """Every field of ``spec`` but the factory, as JSON data (tuples as lists, dataclasses as objects).

    Generic over ``dataclasses.fields`` so that fields added to ``AgentSpec`` travel too.
    Raises ``TypeError`` naming the field that is not JSON data.
    """
    data: dict[str, Any] = {}
    for item in dataclasses.fields(AgentSpec):
        if item.name == "factory":
            continue
        try:
            data[item.name] = _jsonable(getattr(spec, item.name), 0)
        except (TypeError, ValueError, RecursionError) as error:
            raise TypeError(f"field {item.name!r} is not JSON data: {one_line(error)}") from None
    return data


def spec_from_json(data: Any, factory: PluginFactory) -> tuple[AgentSpec | None, str | None]:
    """An ``AgentSpec`` (factory: ``factory``) from reported JSON, or None and why not.

    ``trusted`` is always False: a plugin cannot declare itself trusted.
    """
    if not isinstance(data, dict):
        return None, f"expected an agent object, got {type(data).__name__}"
    values: dict[str, Any] = {}
    for item in dataclasses.fields(AgentSpec):
        if item.name in ("factory", "trusted") or item.name not in data:
            continue
        value = data[item.name]
        decode = getattr(type(item.default), "from_json", None)  # a field of a JSON-able type (the options)
        if decode is not None:
            try:
                values[item.name] = decode(value)
            except (TypeError, ValueError) as error:
                return None, f"agent {printable(str(data.get('name')), NAME_MAX)!r}: {one_line(error)}"
        else:
            values[item.name] = tuple(value) if isinstance(value, list) else value
    values["trusted"] = False
    try:
        return AgentSpec(factory=factory, **values), None
    except (TypeError, ValueError) as error:
        return None, f"agent {printable(str(data.get('name')), NAME_MAX)!r}: {one_line(error)}"


def _jsonable(value: Any, depth: int) -> Any:
    if depth > 20:
        raise ValueError("nested too deeply")
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    to_json = getattr(value, "to_json", None)
    if callable(to_json) and not isinstance(value, type):  # a type with its own JSON form (the options)
        return _jsonable(to_json(), depth + 1)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {item.name: _jsonable(getattr(value, item.name), depth + 1) for item in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(key): _jsonable(item, depth + 1) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(item, depth + 1) for item in value]
    raise TypeError(f"{type(value).__name__} is not JSON data")


def _get(data: Any, key: str) -> Any:
    return data.get(key) if isinstance(data, dict) else None


def _strings(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def printable(text: str, limit: int) -> str:
    """``text`` with control characters escaped and cut to ``limit`` characters (for one-line messages)."""
    text = "".join(char if char.isprintable() else repr(char)[1:-1] for char in str(text)[: limit * 4])
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _is_plugin_file(path: Path) -> bool:
    if path.name.startswith(("_", ".")):
        return False
    if path.is_file():
        return path.suffix == ".py"
    return path.is_dir() and (path / "__init__.py").is_file()


def _import_path(path: Path) -> ModuleType:
    """Import a plugin file or package folder under the private ``arena_plugins.`` namespace."""
    # The folder's hash keeps same-named plugins from different folders apart.
    folder = hashlib.blake2b(str(path.resolve().parent).encode(), digest_size=4).hexdigest()
    module_name = f"arena_plugins.{re.sub(r'[^0-9A-Za-z_]', '_', path.stem)}_{folder}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    target = path / "__init__.py" if path.is_dir() else path
    locations = [str(path)] if path.is_dir() else None
    spec = importlib.util.spec_from_file_location(module_name, target, submodule_search_locations=locations)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[module_name]
        raise
    return module


def _game_problem(game: object, known: Mapping[str, Game]) -> str | None:
    if not isinstance(game, Game):
        return f"expected an arena.games.base.Game, got {type(game).__name__}"
    problem = name_problem(game.info.name, AGENT_NAME, "game name")
    if problem:
        return problem
    if game.info.name in known:
        return f"a game called {game.info.name!r} is already registered"
    return None


def _agent_problem(spec: object, known: Mapping[str, AgentSpec]) -> str | None:
    if not isinstance(spec, AgentSpec):
        return f"expected an arena.agent.AgentSpec, got {type(spec).__name__}"
    problem = name_problem(spec.name, AGENT_NAME, "name")
    if problem:
        return problem
    if spec.name in known:
        return f"an agent called {spec.name!r} is already registered"
    if not callable(spec.factory):
        return f"agent {spec.name!r}: factory is not callable"
    games = spec.games
    if not isinstance(games, tuple) or not games or not all(isinstance(game, str) for game in games):
        return f"agent {spec.name!r}: games must be a non-empty tuple of game names"
    if len(games) > GAMES_MAX or any(name_problem(game, AGENT_NAME, "game name") for game in games):
        return f"agent {spec.name!r}: games must be at most {GAMES_MAX} game names of at most {NAME_MAX} characters"
    if not isinstance(spec.version, str) or not spec.version:
        return f"agent {spec.name!r}: version must be a non-empty string"
    if len(spec.version) > VERSION_MAX:
        return f"agent {spec.name!r}: version must be at most {VERSION_MAX} characters"
    if not isinstance(spec.description, str):
        return f"agent {spec.name!r}: description must be a string"
    if not isinstance(spec.options, AgentOptions):
        return f"agent {spec.name!r}: options must be an arena.options.AgentOptions"
    if len(spec.description) > DESCRIPTION_MAX:
        return f"agent {spec.name!r}: description must be at most {DESCRIPTION_MAX} characters"
    return None


def _hook_problem(error: pluggy.PluginValidationError) -> str:
    """Turn pluggy's validation error into one line, with a did-you-mean for misspelled hooks."""
    text = one_line(error)
    match = re.search(r"unknown hook '(\w+)'", text)
    if match:
        known = [name for name in dir(hookspecs) if name.startswith("arena_")]
        close = closest(match.group(1), known)
        hint = f"; did you mean {close!r}?" if close else f"; known hooks: {', '.join(known)}"
        return f"unknown hook {match.group(1)!r}{hint}"
    return text


def _names(value: str) -> set[str]:
    return {part.strip() for part in value.split(",") if part.strip()}


def one_line(error: BaseException) -> str:
    """``Type: message`` on one line, control characters escaped, at most 300 characters."""
    try:
        message = " ".join(str(error).split())
    except BaseException:  # an exception whose __str__ raises
        message = ""
    name = printable(type(error).__name__, 80)
    return printable(f"{name}: {message}" if message else name, 300)


def warn_plugin_errors(registry: Registry, stream: Any = None) -> None:
    """Print each plugin problem as one line on stderr."""
    for line in registry.errors:
        print(f"arena: {line}", file=stream or sys.stderr)
