"""Plugin discovery and the typed facade over pluggy's hooks.

Every plugin reaches the registry by the same path (``PluginManager._add``):
the built-in games and first-party agents (``DEFAULT_PLUGINS``, as pytest's
default plugins), entry points of installed packages in the ``arena`` group,
and ``.py`` files or packages dropped into a plugins folder.  A plugin that
fails to import, misspells a hook, or registers something invalid is skipped
with one line naming the plugin and the cause; the others still load.

Environment variables (comma-separated plugin names):

* ``ARENA_PLUGINS_ALLOW``: load only these plugins (built-ins always load);
* ``ARENA_PLUGINS_BLOCK``: never load these plugins.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import importlib.util
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pluggy

from arena import hookspecs
from arena.agent import AgentSpec
from arena.options import AgentOptions
from arena.games.base import Game
from arena.suggest import closest

DEFAULT_PLUGINS: tuple[tuple[str, str], ...] = (
    ("lovat", "arena.games.lovat.plugin"),
    ("lorum", "arena.games.lorum.plugin"),
    ("builtin-agents", "arena_agents.plugin"),
)
"""(plugin name, module) of the plugins that ship with arena."""

DEFAULT_PLUGINS_DIR = Path("plugins")
"""The drop-in plugins folder, relative to the working directory."""

ALLOW_ENV = "ARENA_PLUGINS_ALLOW"
BLOCK_ENV = "ARENA_PLUGINS_BLOCK"

AGENT_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")


@dataclass(frozen=True, slots=True)
class PluginInfo:
    """One loaded plugin, as `arena plugins` lists it."""

    name: str  # plugin name: entry-point name, file stem or built-in name
    version: str  # distribution version, or "builtin" / "file"
    source: str  # "builtin", "entry point <dist>", or the file path
    games: tuple[str, ...]  # game names it registered
    agents: tuple[str, ...]  # agent names it registered


@dataclass(slots=True)
class Registry:
    """Everything the plugins registered, plus the problems met on the way."""

    games: dict[str, Game] = field(default_factory=dict)  # game short name -> Game
    agents: dict[str, AgentSpec] = field(default_factory=dict)  # agent name -> spec
    agent_plugin: dict[str, str] = field(default_factory=dict)  # agent name -> plugin name
    plugins: list[PluginInfo] = field(default_factory=list)  # in load order
    errors: list[str] = field(default_factory=list)  # one line per skipped plugin or registration
    reporters: Callable[[Mapping[str, Any]], None] | None = None  # the arena_match_finished hook caller

    def match_finished(self, record: Mapping[str, Any]) -> None:
        """Tell every reporter plugin (``arena_match_finished``) that a match finished.

        A failing reporter is reported on stderr and never stops the tournament.
        """
        if self.reporters is None:
            return
        try:
            self.reporters(record)
        except Exception as error:
            print(f"arena: a reporter plugin failed on match {record.get('match', '?')}: {_one_line(error)}",
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
        """Load built-ins, entry points and the plugins folder; return the registry."""
        for name, module_name in DEFAULT_PLUGINS:
            self._add(name, "builtin", "builtin", lambda module_name=module_name: importlib.import_module(module_name))
        if entry_points:
            for entry in sorted(importlib.metadata.entry_points(group=hookspecs.PROJECT_NAME), key=lambda e: e.name):
                dist = entry.dist
                version = dist.version if dist is not None else "unknown"
                source = f"entry point of {dist.name}" if dist is not None else "entry point"
                self._add(entry.name, version, source, entry.load)
        if plugins_dir is not None and Path(plugins_dir).is_dir():
            for path in sorted(Path(plugins_dir).iterdir()):
                if _is_plugin_file(path):
                    self._add(path.stem, "file", str(path), lambda path=path: _import_path(path))
        return self.registry

    def _add(self, name: str, version: str, source: str, load: Any) -> None:
        """Import, register and validate one plugin; on any failure skip it with one line."""
        if not self._wanted(name, builtin=(source == "builtin")):
            return
        if self.pm.has_plugin(name):
            self.registry.errors.append(f"plugin {name!r} ({source}): skipped, a plugin of that name is already loaded")
            return
        try:
            plugin = load()
        except Exception as error:  # a plugin's import may raise anything
            self.registry.errors.append(f"plugin {name!r} ({source}): failed to import: {_one_line(error)}")
            return
        try:
            self.pm.register(plugin, name=name)
            self.pm.check_pending()
        except pluggy.PluginValidationError as error:
            self.pm.unregister(name=name)
            self.registry.errors.append(f"plugin {name!r} ({source}): {_hook_problem(error)}")
            return
        games, agents = self._collect(name, source, plugin)
        self.registry.plugins.append(PluginInfo(name, version, source, games, agents))

    def _collect(self, name: str, source: str, plugin: ModuleType | object) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Call the plugin's registration hooks and validate what it registers."""
        games: list[str] = []
        agents: list[str] = []
        where = f"plugin {name!r} ({source})"

        def register_game(game: Game) -> None:
            problem = _game_problem(game, self.registry.games)
            if problem:
                self.registry.errors.append(f"{where}: game not registered: {problem}")
                return
            self.registry.games[game.info.name] = game
            games.append(game.info.name)

        def register_agent(spec: AgentSpec) -> None:
            problem = _agent_problem(spec, self.registry.agents)
            if problem:
                self.registry.errors.append(f"{where}: agent not registered: {problem}")
                return
            self.registry.agents[spec.name] = spec
            self.registry.agent_plugin[spec.name] = name
            agents.append(spec.name)

        for hook_name, register in (("arena_register_games", register_game), ("arena_register_agents", register_agent)):
            # Call this plugin's implementation only, so each registration is attributed to it.
            hook = self.pm.subset_hook_caller(hook_name, remove_plugins=self._others(plugin))
            try:
                hook(register=register)
            except Exception as error:
                self.registry.errors.append(f"{where}: {hook_name} raised {_one_line(error)}")
        return tuple(games), tuple(agents)

    def _others(self, plugin: object) -> list[object]:
        return [other for other in self.pm.get_plugins() if other is not plugin]

    def _wanted(self, name: str, builtin: bool) -> bool:
        allow = _names(os.environ.get(ALLOW_ENV, ""))
        block = _names(os.environ.get(BLOCK_ENV, ""))
        if name in block:
            return False
        return builtin or not allow or name in allow

    # -- typed hook calls ------------------------------------------------------------------------

    def match_finished(self, record: Mapping[str, Any]) -> None:
        """Tell every reporter plugin that a match finished, each on its own (one failing silences no other)."""
        from arena.reporters import call_each_reporter  # imports pluggy only; kept local to this one caller

        call_each_reporter(self.pm, record)


def load_registry(plugins_dir: Path | str | None = DEFAULT_PLUGINS_DIR, entry_points: bool = True) -> PluginManager:
    """A plugin manager with everything loaded (the usual entry point for the CLI and workers)."""
    manager = PluginManager()
    manager.load(plugins_dir=plugins_dir, entry_points=entry_points)
    return manager


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
    if game.info.name in known:
        return f"a game called {game.info.name!r} is already registered"
    return None


def _agent_problem(spec: object, known: Mapping[str, AgentSpec]) -> str | None:
    if not isinstance(spec, AgentSpec):
        return f"expected an arena.agent.AgentSpec, got {type(spec).__name__}"
    if not isinstance(spec.name, str) or not AGENT_NAME.match(spec.name):
        return f"name {spec.name!r} must be lowercase letters, digits, '.', '_' or '-'"
    if spec.name in known:
        return f"an agent called {spec.name!r} is already registered"
    if not callable(spec.factory):
        return f"agent {spec.name!r}: factory is not callable"
    if not spec.games or not all(isinstance(game, str) for game in spec.games):
        return f"agent {spec.name!r}: games must be a non-empty tuple of game names"
    if not isinstance(spec.version, str) or not spec.version:
        return f"agent {spec.name!r}: version must be a non-empty string"
    if not isinstance(spec.description, str):
        return f"agent {spec.name!r}: description must be a string"
    if not isinstance(spec.options, AgentOptions):
        return f"agent {spec.name!r}: options must be an arena.options.AgentOptions"
    return None


def _hook_problem(error: pluggy.PluginValidationError) -> str:
    """Turn pluggy's validation error into one line, with a did-you-mean for misspelled hooks."""
    text = _one_line(error)
    match = re.search(r"unknown hook '(\w+)'", text)
    if match:
        known = [name for name in dir(hookspecs) if name.startswith("arena_")]
        close = closest(match.group(1), known)
        hint = f"; did you mean {close!r}?" if close else f"; known hooks: {', '.join(known)}"
        return f"unknown hook {match.group(1)!r}{hint}"
    return text


def _names(value: str) -> set[str]:
    return {part.strip() for part in value.split(",") if part.strip()}


def _one_line(error: BaseException) -> str:
    message = " ".join(str(error).split())
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def warn_plugin_errors(registry: Registry, stream: Any = None) -> None:
    """Print each plugin problem as one line on stderr."""
    for line in registry.errors:
        print(f"arena: {line}", file=stream or sys.stderr)

