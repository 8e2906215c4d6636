"""Plugin discovery and the registry: trust comes from where a plugin comes from, never from what it says.

Plugins come from three places:

* the built-ins (``DEFAULT_PLUGINS``: arena's games and first-party agents,
  shipped inside the arena distribution): imported in this process, the only
  code the referee ever runs in-process unasked;
* entry points of installed packages in the ``arena`` group, and
* ``.py`` files or packages dropped into a plugins folder: third-party code;
* folders in a plugins folder holding an ``arena-agent.toml``: agent programs in any language
  (``arena.program``), whose manifest is read here as data (``manifest_report``).

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
import importlib
import importlib.metadata
import importlib.util
import inspect
import os
import re
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pluggy

from arena import hookspecs
from arena.agent import ANY_GAME, AgentSpec
from arena.games.base import Game
from arena.options import AgentOptions
from arena.plugin_data import (
    AGENT_NAME,
    DESCRIPTION_MAX,
    GAMES_MAX,
    NAME_MAX,
    PLUGIN_NAME,
    VERSION_MAX,
    get_field,
    name_problem,
    one_line,
    printable,
    spec_from_json,
    spec_to_json,
    string_list,
)
from arena.plugin_types import (
    BUILTIN,
    ENTRY_POINT,
    FILE,
    PROGRAM,
    PluginCodeRefused,
    PluginFactory,
    PluginInfo,
    PluginSource,
    Registry,
    import_path,
    is_plugin_file,
)
from arena.program.manifest import is_manifest_folder, manifest_report
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


class PluginManager:
    """Loads plugins and exposes their registrations; call sites never touch ``pm.hook`` directly."""

    def __init__(self) -> None:
        self.pm = pluggy.PluginManager(hookspecs.PROJECT_NAME)
        self.pm.add_hookspecs(hookspecs)
        self.registry = Registry(reporters=self.match_finished)
        self.contested: dict[str, list[str]] = {}  # agent name -> the third-party plugins that claim it

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
        # A program's manifest is data, read here; Python plugins are imported in sandboxed children.
        python = [source for source in wanted if source.kind != PROGRAM]
        reports = dict(zip(python, discover(python), strict=True))
        for source in wanted:
            report = reports[source] if source.kind != PROGRAM else manifest_report(source.target)
            self.add_discovered(source, report)
            if source.name in trusted and source.name in self.registry.sources and source.kind != PROGRAM:
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
        for line in string_list(report.get("errors"))[:20]:  # the child's own lines name the plugin already
            self.registry.errors.append(f"{where}: {printable(line.removeprefix(where + ': '), 300)}")
        if report.get("failed"):
            return
        games = string_list(report.get("games"))[:GAMES_MAX]
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
            spec, problem = spec_from_json(data, PluginFactory(source, str(get_field(data, "name"))))
            if spec is not None and not problem and self._contest(spec.name, source):
                continue
            problem = problem or (_agent_problem(spec, self.registry.agents) if spec is not None else None)
            if problem or spec is None:
                self.registry.errors.append(f"{where}: agent not registered: {problem}")
                continue
            self.registry.agents[spec.name] = spec
            self.registry.agent_plugin[spec.name] = source.name
            agents.append(spec.name)
        self.registry.sources[source.name] = source
        self.registry.plugins.append(PluginInfo(source.name, source.version, source.source, (), tuple(agents)))

    def _contest(self, name: str, source: PluginSource) -> bool:
        """Whether agent ``name`` is, or now becomes, claimed by two third-party plugins: then nobody gets it.

        First come, first served would let a plugin whose file sorts earlier take another's agent name and
        be seated, and rated, under it.  A name two third-party plugins claim is registered by neither (one
        line each, naming both); a built-in name stays the built-in's (``_agent_problem`` refuses the other).
        """
        claimants = self.contested.get(name)
        holder = self.registry.agent_plugin.get(name)
        if claimants is None:
            holder_source = self.registry.sources.get(holder or "")
            if holder is None or holder_source is None or holder_source.builtin:
                return False
            claimants = self.contested[name] = [holder]
            del self.registry.agents[name], self.registry.agent_plugin[name]
            for index, info in enumerate(self.registry.plugins):
                if info.name == holder:
                    self.registry.plugins[index] = dataclasses.replace(
                        info, agents=tuple(agent for agent in info.agents if agent != name))
            self.registry.errors.append(_contest_line(holder_source, name, [source.name]))
        self.registry.errors.append(_contest_line(source, name, claimants))
        claimants.append(source.name)
        return True

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
            if is_manifest_folder(path):  # an agent program (arena.program), whatever else the folder holds
                found.append(PluginSource(path.name, PROGRAM, str(path.resolve()), PROGRAM, str(path)))
            elif is_plugin_file(path):
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


def _contest_line(source: PluginSource, name: str, others: Sequence[str]) -> str:
    """One line for a plugin that lost agent ``name`` because ``others`` claim it too."""
    rivals = ", ".join(repr(other) for other in others)
    return (f"plugin {source.name!r} ({source.source}): agent not registered: {name!r} is also registered by "
            f"plugin {rivals}, so none of them is seated under that name (rename one)")


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
    if len(games) > GAMES_MAX or any(game != ANY_GAME and name_problem(game, AGENT_NAME, "game name")
                                     for game in games):
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


def warn_plugin_errors(registry: Registry, stream: Any = None) -> None:
    """Print each plugin problem as one line on stderr."""
    for line in registry.errors:
        print(f"arena: {line}", file=stream or sys.stderr)


# Names other modules import from here; they live in plugin_data (untrusted data) and plugin_types.
__all__ = [
    "AGENT_NAME", "BUILTIN", "DEFAULT_PLUGINS", "DEFAULT_PLUGINS_DIR", "DESCRIPTION_MAX", "ENTRY_POINT", "FILE",
    "GAMES_MAX", "NAME_MAX", "PLUGIN_NAME", "PROGRAM", "VERSION_MAX", "PluginCodeRefused", "PluginFactory",
    "PluginInfo", "PluginManager", "PluginSource", "Registry", "builtin_sources", "import_path", "in_process_spec",
    "is_builtin", "load_registry", "name_problem", "one_line", "origin", "printable", "spec_from_json",
    "spec_to_json", "third_party_sources", "warn_plugin_errors",
]
