"""Importing one plugin in this process and registering what it registers, checked.

The layer of the plugin system that runs a plugin's code: the driver runs the built-ins here, and plugins the
operator trusts by name; a sandboxed process runs the one plugin it serves (discovery's child,
``arena.plugin_system.discovery``; a plugin's zygote and seats, ``arena.referee.zygote``).  Building the driver's whole
registry from every source, third-party plugins discovered in sandboxes, is ``arena.plugins``'s job, above
this one.

A plugin that fails to import (whatever it raises, ``SystemExit`` included), misspells a hook, or registers
something invalid is skipped with one line naming the plugin and the cause.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.metadata
import importlib.util
import re
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import pluggy

from arena.agent import ANY_GAME, AgentSpec
from arena.games.base import Game
from arena.inputs.suggest import closest
from arena.plugin_system import hookspecs
from arena.plugin_system.data import (
    AGENT_NAME,
    DESCRIPTION_MAX,
    GAMES_MAX,
    VERSION_MAX,
    name_problem,
    one_line,
)
from arena.plugin_system.origin import remember_builtins
from arena.plugin_system.provenance import source_root
from arena.plugin_system.registry import (
    BUILTIN,
    ENTRY_POINT,
    PROGRAM,
    PluginCodeRefused,
    PluginFactory,
    PluginInfo,
    PluginSource,
    Registry,
)
from arena.plugin_system.source_only import load_file, protect
from arena.seating.options import AgentOptions


class Registrar:
    """A pluggy manager over the plugins imported in this process; call sites never touch ``pm.hook``."""

    def __init__(self) -> None:
        self.pm = pluggy.PluginManager(hookspecs.PROJECT_NAME)
        self.pm.add_hookspecs(hookspecs)
        self.registry = Registry(reporters=self.match_finished)

    def add(self, source: PluginSource, take_agents: bool = True) -> None:
        """Import, register and validate one plugin in this process; on any failure skip it with one line.

        ``take_agents=False`` leaves its agents out (a trusted plugin read for what it adds to the driver).
        """
        name, where = source.name, f"plugin {source.name!r} ({source.source})"
        if self.pm.has_plugin(name) or name in self.registry.sources:
            self.registry.errors.append(f"{where}: skipped, a plugin of that name is already loaded")
            return
        try:
            plugin = load_plugin(source)
        except BaseException as error:  # a plugin's import may raise anything, SystemExit included
            self.registry.errors.append(f"{where}: failed to import: {one_line(error)}")
            return
        if not self.register(plugin, name, where):
            return
        self.registry.errors += [f"{where}: {problem}" for problem in (*redefined_hooks(plugin),
                                                                           *unmarked_hooks(plugin))]
        games, agents, added = self.collect(where, plugin, take_games=True, take_agents=take_agents)
        self.registry.sources[name] = source
        for agent in agents:
            self.registry.agent_plugin[agent] = name
        self.registry.plugins.append(PluginInfo(name, source.version, source.source, games, agents, **added))
        if source.builtin:
            remember_builtins(self.registry)

    def register(self, plugin: object, name: str, where: str) -> bool:
        """Register ``plugin``'s hooks under ``name``; False (with one line in the registry) if pluggy refuses."""
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

    def collect(self, where: str, plugin: object, take_games: bool = True, take_agents: bool = True
                ) -> tuple[tuple[str, ...], tuple[str, ...], dict[str, tuple[str, ...]]]:
        """Call the plugin's registration hooks and validate what it registers: its games, its agents, and the
        names of what it adds to the driver's registries (``PluginInfo``'s ``rating_methods``, ``formats``
        and ``views``, the keys of the last).

        Its rating methods, formats and views are kept by name only (``Registry.rating_methods``, ...): the
        registries that take them check them when ``arena.plugin_system.extensions`` installs them, in the driver.
        """
        games: list[str] = []
        agents: list[str] = []
        added: dict[str, list[str]] = {"rating_methods": [], "formats": [], "views": []}

        def keeper(kind: str, kept: dict[str, Any], names: list[str]) -> Any:
            def register(thing: object) -> None:
                name = getattr(thing, "name", None)
                problem = name_problem(name, AGENT_NAME, f"{kind} name")
                if problem is None and name in kept:
                    problem = f"a {kind} called {name!r} is already registered"
                if problem:
                    self.registry.errors.append(f"{where}: {kind} not registered: {problem}")
                    return
                kept[str(name)] = thing
                names.append(str(name))
            return register

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
            problem = agent_problem(spec, self.registry.agents)
            if problem:
                self.registry.errors.append(f"{where}: agent not registered: {problem}")
                return
            self.registry.agents[spec.name] = spec
            agents.append(spec.name)

        hooks = (("arena_register_games", register_game), ("arena_register_agents", register_agent),
                 ("arena_register_rating_methods",
                  keeper("rating method", self.registry.rating_methods, added["rating_methods"])),
                 ("arena_register_formats", keeper("format", self.registry.formats, added["formats"])),
                 ("arena_register_views", keeper("view", self.registry.views, added["views"])))
        for hook_name, register in hooks:
            # Call this plugin's implementation only, so each registration is attributed to it.
            hook = self.pm.subset_hook_caller(hook_name, remove_plugins=self._others(plugin))
            try:
                hook(register=register)
            except BaseException as error:  # SystemExit and KeyboardInterrupt from a hook are the plugin's
                self.registry.errors.append(f"{where}: {hook_name} raised {one_line(error)}")
        return tuple(games), tuple(agents), {kind: tuple(names) for kind, names in added.items()}

    def _others(self, plugin: object) -> list[object]:
        return [other for other in self.pm.get_plugins() if other is not plugin]

    def has_reporters(self) -> bool:
        """Whether any plugin loaded here implements ``arena_match_finished``."""
        return bool(self.pm.hook.arena_match_finished.get_hookimpls())

    def match_finished(self, record: Mapping[str, Any]) -> None:
        """Tell every reporter plugin that a match finished, each on its own (one failing silences no other)."""
        from arena.plugin_system.reporters import (
            call_each_reporter,  # imports pluggy only; kept local to this one caller
        )

        call_each_reporter(self.pm, record)


def redefined_hooks(plugin: object) -> list[str]:
    """The hooks a plugin module defines more than once, each as a problem: Python keeps only the last definition,
    so what the earlier ones register (a first agent, pasted beside a second) would vanish without a word."""
    path = getattr(plugin, "__file__", None)
    if not isinstance(path, str) or not path.endswith(".py"):
        return []
    try:
        tree = ast.parse(Path(path).read_bytes())
    except (OSError, SyntaxError, ValueError):  # it was imported, so this is a file changed since: nothing to say
        return []
    hooks = {name for name in dir(hookspecs) if name.startswith("arena_")}
    lines: dict[str, list[int]] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in hooks:
            lines.setdefault(node.name, []).append(node.lineno)
    return [f"{name}() is defined {len(at)} times (lines {', '.join(map(str, at))}): Python keeps only the last, so "
            f"what the others register is lost; make one {name}() register everything"
            for name, at in lines.items() if len(at) > 1]


def unmarked_hooks(plugin: object) -> list[str]:
    """The functions of a plugin named as hooks but not marked ``@hookimpl``, each as a problem: pluggy calls only
    marked functions, so such a plugin loads, registers nothing and would say nothing."""
    hooks = sorted(name for name in dir(hookspecs) if name.startswith("arena_"))
    try:  # only the names the plugin lists (as pluggy reads it): a module's __getattr__ may serve, or raise, any
        listed = set(dir(plugin))
        unmarked = [name for name in hooks if name in listed and callable(found := getattr(plugin, name))
                    and not hasattr(found, f"{hookspecs.PROJECT_NAME}_impl")]
    except BaseException:  # a plugin object whose attributes raise: registering it has refused it already
        return []
    return [f"{name}() is not marked @hookimpl, so it is never called and registers nothing: put @hookimpl "
            "(from arena import hookimpl) on the line above it" for name in unmarked]


def load_plugin(source: PluginSource) -> ModuleType | object:
    """Import the plugin ``source`` names in this process and return its plugin object (runs its code).

    A third-party plugin's modules run from the source files its hash covers, never from a bytecode cache
    beside them (``arena.plugin_system.source_only``).
    """
    if source.kind == BUILTIN:
        return importlib.import_module(source.target)
    if source.kind == PROGRAM:
        raise ImportError("an agent program has no Python to import: it runs in its own process, "
                          "under isolation 'isolated' or 'sandboxed' (docs/protocol.md)")
    protect(source_root(source))
    if source.kind == ENTRY_POINT:
        return importlib.metadata.EntryPoint(source.name, source.target, hookspecs.PROJECT_NAME).load()
    return import_path(Path(source.target))


def import_path(path: Path) -> ModuleType:
    """Import a plugin file or package folder under the private ``arena_plugins.`` namespace."""
    # The folder's hash keeps same-named plugins from different folders apart.
    folder = hashlib.blake2b(str(path.resolve().parent).encode(), digest_size=4).hexdigest()
    module_name = f"arena_plugins.{re.sub(r'[^0-9A-Za-z_]', '_', path.stem)}_{folder}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = load_file(module_name, path / "__init__.py" if path.is_dir() else path, package=path.is_dir())
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
            registrar = Registrar()
            registrar.add(source)
            _trusted_registries[source] = registrar.registry
    registry = _trusted_registries[source]
    found = registry.agents.get(spec.name)
    if found is None:
        problem = registry.errors[0] if registry.errors else f"it does not register agent {spec.name!r}"
        raise PluginCodeRefused(f"agent {spec.name!r} cannot run trusted: {problem}")
    return found


_trusted_registries: dict[PluginSource, Registry] = {}
_trusted_lock = threading.Lock()


# -- checks on what plugins register ----------------------------------------------------------------


def _game_problem(game: object, known: Mapping[str, Game]) -> str | None:
    if not isinstance(game, Game):
        return f"expected an arena.games.base.Game, got {type(game).__name__}"
    problem = name_problem(game.info.name, AGENT_NAME, "game name")
    if problem:
        return problem
    if game.info.name in known:
        return f"a game called {game.info.name!r} is already registered"
    return None


def agent_problem(spec: object, known: Mapping[str, AgentSpec]) -> str | None:
    """Why ``spec`` cannot be registered beside the agents ``known``, or None."""
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
    if len(games) > GAMES_MAX:
        return f"agent {spec.name!r}: games must be at most {GAMES_MAX} game names"
    for game in games:  # each named, with what is wrong with it (an upper-case 'Lorum' is the likeliest)
        problem = None if game == ANY_GAME else name_problem(game, AGENT_NAME, "game name")
        if problem:
            return f"agent {spec.name!r}: games: {problem}"
    if not isinstance(spec.version, str) or not spec.version:
        return f"agent {spec.name!r}: version must be a non-empty string"
    if len(spec.version) > VERSION_MAX or not spec.version.isprintable():
        # Written into records, leaderboard.csv and .md and every listing: no escape sequence or bare CR.
        return f"agent {spec.name!r}: version must be at most {VERSION_MAX} printable characters"
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
