"""The plugin-loading layer: the driver's registry, built once from every source; trust by origin.

The plugin system (``arena.plugin_system``), from the bottom up: ``registry`` (what a registry holds),
``data`` (what a plugin reports, checked as untrusted data), ``sources`` (where plugins come from, found without
running them), ``origin`` (whether an agent is arena's own), ``registration`` (importing one plugin in this
process), ``discovery`` (importing one third-party plugin in a sandboxed child, reporting JSON), and this
module, which puts them together; ``arena.plugins`` re-exports it.  Nothing below imports this module.

* The built-ins (``DEFAULT_PLUGINS``: arena's games and first-party agents) are imported in this process, the
  only code the referee ever runs in-process unasked.
* A third-party plugin (an entry point, or a file or package in the plugins folder) is never imported here:
  ``arena.plugin_system.discovery`` imports it alone, in a sandboxed child, and this module checks the JSON it
  reports as it would any untrusted input, keeping its agents as data (``AgentSpec`` whose factory is a
  ``PluginFactory``: calling it refuses).  Those agents run only in a zygote of their own plugin
  (``arena.referee.host``), unless a seat asks for ``isolation = "trusted"`` by name
  (``arena.plugin_system.registration.in_process_spec``).
* An agent program's manifest (``arena-agent.toml``) is read here as data (``manifest_report``).

Games and reporters (``arena_match_finished``) of a third-party plugin would run in the referee's process, so
they are refused unless the user names the plugin in ``ARENA_PLUGINS_TRUST``.  ``ARENA_PLUGINS_ALLOW`` and
``ARENA_PLUGINS_BLOCK`` say which plugins load at all (``arena.plugin_system.sources``).

A plugin that fails to import, misspells a hook, or registers something invalid is skipped with one line
naming the plugin and the cause; the others still load.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.plugin_system.data import (
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
from arena.plugin_system.discovery import discover
from arena.plugin_system.origin import is_builtin, origin
from arena.plugin_system.registration import Registrar, agent_problem, import_path, in_process_spec, load_plugin
from arena.plugin_system.registry import (
    BUILTIN,
    ENTRY_POINT,
    FILE,
    PROGRAM,
    PluginCodeRefused,
    PluginFactory,
    PluginInfo,
    PluginSource,
    Registry,
)
from arena.plugin_system.sources import (
    ALLOW_ENV,
    BLOCK_ENV,
    DEFAULT_PLUGINS,
    DEFAULT_PLUGINS_DIR,
    TRUST_ENV,
    builtin_sources,
    third_party_sources,
    trusted_names,
    wanted,
)
from arena.program.launch import unstartable
from arena.program.manifest import manifest_report


class PluginManager(Registrar):
    """The driver's plugins: the built-ins imported here, third-party plugins discovered in sandboxes."""

    def __init__(self) -> None:
        super().__init__()
        self.contested: dict[str, list[str]] = {}  # agent name -> the third-party plugins that claim it

    def load(self, plugins_dir: Path | str | None = DEFAULT_PLUGINS_DIR, entry_points: bool = True) -> Registry:
        """Load the built-ins here, discover third-party plugins in sandboxes; return the registry."""
        for source in builtin_sources():
            self.add(source)
        sources, problems = third_party_sources(plugins_dir, entry_points)
        self.registry.errors += problems
        trusted = trusted_names()
        chosen = [source for source in sources if wanted(source)]
        # A program's manifest is data, read here; Python plugins are imported in sandboxed children.
        python = [source for source in chosen if source.kind != PROGRAM]
        reports = dict(zip(python, discover(python), strict=True))
        for source in chosen:
            report = reports[source] if source.kind != PROGRAM else manifest_report(source.target, unstartable)
            self.add_discovered(source, report)
            if source.name in trusted and source.name in self.registry.sources and source.kind != PROGRAM:
                self._add_trusted(source)
        # A registry without reporters says so, and the tournament never unpacks a record for nobody.
        self.registry.reporters = self.match_finished if self.has_reporters() else None
        return self.registry

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
        for kind, key in (("rating method", "rating_methods"), ("format", "formats"), ("view", "views")):
            for name in string_list(report.get(key))[:GAMES_MAX]:
                self.registry.errors.append(
                    f"{where}: {kind} {printable(name, NAME_MAX)!r} not loaded: a {kind} runs in the driver's "
                    f"process, so those of third-party plugins load only when {TRUST_ENV} names the plugin"
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
            problem = problem or (agent_problem(spec, self.registry.agents) if spec is not None else None)
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

    def load_trusted(self, plugins_dir: Path | str | None = DEFAULT_PLUGINS_DIR, entry_points: bool = True
                     ) -> Registry:
        """Load the built-ins and only the plugins ``ARENA_PLUGINS_TRUST`` names, in this process, without their
        agents: what a command that seats nobody (a leaderboard) needs of plugins, with no plugin discovered.
        """
        for source in builtin_sources():
            self.add(source)
        trusted = trusted_names()
        if trusted:
            sources, problems = third_party_sources(plugins_dir, entry_points)
            self.registry.errors += [line for line in problems if any(f"plugin {name!r}" in line for name in trusted)]
            for source in sources:
                if source.name in trusted and wanted(source) and source.kind != PROGRAM:
                    self.add(source, take_agents=False)
        self.registry.reporters = self.match_finished if self.has_reporters() else None
        return self.registry

    def _add_trusted(self, source: PluginSource) -> None:
        """Import a plugin the user trusts by name (``ARENA_PLUGINS_TRUST``) for its games, reporters, rating
        methods, formats and views (its agents stay the sandboxed ones discovery reported)."""
        where = f"plugin {source.name!r} ({source.source})"
        try:
            plugin = load_plugin(source)
        except BaseException as error:
            self.registry.errors.append(f"{where}: failed to import: {one_line(error)}")
            return
        if not self.register(plugin, source.name, where):
            return
        games, _agents, added = self.collect(where, plugin, take_games=True, take_agents=False)
        info = next(info for info in self.registry.plugins if info.name == source.name)
        self.registry.plugins[self.registry.plugins.index(info)] = dataclasses.replace(
            info, games=games, rating_methods=added["rating_methods"], formats=added["formats"], views=added["views"])
        self.registry.errors[:] = [line for line in self.registry.errors
                                   if not (line.startswith(where) and TRUST_ENV in line)]


def load_trusted_registry(plugins_dir: Path | str | None = DEFAULT_PLUGINS_DIR) -> PluginManager:
    """A plugin manager with the built-ins and the trusted plugins loaded, none discovered (``load_trusted``)."""
    manager = PluginManager()
    manager.load_trusted(plugins_dir=plugins_dir)
    return manager


def load_registry(plugins_dir: Path | str | None = DEFAULT_PLUGINS_DIR, entry_points: bool = True) -> PluginManager:
    """A plugin manager with everything loaded: the one way the driver builds its registry."""
    manager = PluginManager()
    manager.load(plugins_dir=plugins_dir, entry_points=entry_points)
    return manager


def _contest_line(source: PluginSource, name: str, others: Sequence[str]) -> str:
    """One line for a plugin that lost agent ``name`` because ``others`` claim it too."""
    rivals = ", ".join(repr(other) for other in others)
    return (f"plugin {source.name!r} ({source.source}): agent not registered: {name!r} is also registered by "
            f"plugin {rivals}, so none of them is seated under that name (rename one)")


def warn_plugin_errors(registry: Registry, stream: Any = None) -> None:
    """Print each plugin problem as one line on stderr."""
    for line in registry.errors:
        print(f"arena: {line}", file=stream or sys.stderr)


# The plugin system's public names, importable from here as from the layers that hold them.
__all__ = [
    "AGENT_NAME", "ALLOW_ENV", "BLOCK_ENV", "BUILTIN", "DEFAULT_PLUGINS", "DEFAULT_PLUGINS_DIR", "DESCRIPTION_MAX",
    "ENTRY_POINT", "FILE", "GAMES_MAX", "NAME_MAX", "PLUGIN_NAME", "PROGRAM", "TRUST_ENV", "VERSION_MAX",
    "PluginCodeRefused", "PluginFactory", "PluginInfo", "PluginManager", "PluginSource", "Registry",
    "builtin_sources", "import_path", "in_process_spec", "is_builtin", "load_plugin", "load_registry",
    "load_trusted_registry",
    "name_problem", "one_line", "origin", "printable", "spec_from_json", "spec_to_json", "third_party_sources",
    "warn_plugin_errors",
]
