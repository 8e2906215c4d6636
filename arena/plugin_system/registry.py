"""The plugin registry's types: where a plugin comes from, a refused factory, and what a registry holds.

Plain data, importing no plugin and nothing that loads one: the bottom of the plugin system, which every
layer above reads (``arena.plugin_system.sources`` finds sources, ``arena.plugin_system.registration`` imports one,
``arena.plugin_system.discovery`` imports one in a sandbox, ``arena.plugins`` builds the registry).
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.agent import AgentSpec
from arena.games.base import Game
from arena.inputs.suggest import closest
from arena.plugin_system.data import one_line

BUILTIN, ENTRY_POINT, FILE, PROGRAM = "builtin", "entry point", "file", "program"
"""Plugin kinds: arena's own, an installed package's entry point, a drop-in ``.py`` file or package, and a
folder holding an agent program's ``arena-agent.toml`` (``arena.program``: no Python to import)."""


@dataclass(frozen=True, slots=True)
class PluginSource:
    """Where one plugin comes from: enough to import it in any process, as JSON-able data."""

    name: str  # plugin name: built-in name, entry-point name or file stem
    kind: str  # BUILTIN, ENTRY_POINT, FILE or PROGRAM
    target: str  # module name (built-in), entry-point value ("module" or "module:attr") or file/folder path
    version: str  # distribution version, or "builtin" / "file" / "program"
    source: str  # as listed: "builtin", "entry point of <dist>", or the path

    @property
    def builtin(self) -> bool:
        """Whether the plugin ships with arena (the only origin trusted without asking)."""
        return self.kind == BUILTIN

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
    in-process only through ``arena.plugin_system.registration.in_process_spec`` when a seat is explicitly ``trusted``.
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
    # What it added to the driver's own registries (a trusted plugin only), by name:
    rating_methods: tuple[str, ...] = ()
    formats: tuple[str, ...] = ()
    views: tuple[str, ...] = ()


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
    # What trusted plugins add to the driver's own registries (``arena.plugin_system.extensions`` installs
    # them): name -> a rating method's ``MethodSpec``, a tournament ``Format`` or a leaderboard ``View``, each
    # checked by the registry that takes it.
    rating_methods: dict[str, Any] = field(default_factory=dict)
    formats: dict[str, Any] = field(default_factory=dict)
    views: dict[str, Any] = field(default_factory=dict)  # name -> an arena.leaderboard.View

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
            raise KeyError(f"unknown game {name!r}{suggestion(name, self.games)} "
                           f"(installed: {', '.join(sorted(self.games))})") from None

    def agent(self, name: str) -> AgentSpec:
        """The agent called ``name``; ``KeyError`` with a helpful message otherwise."""
        try:
            return self.agents[name]
        except KeyError:
            # A plugin named like the agent that failed to load has said why above: point there.
            failed = any(line.startswith(f"plugin {name!r} ") for line in self.errors)
            because = "; its plugin did not load (the lines above say why)" if failed else ""
            raise KeyError(f"unknown agent {name!r}{because}{suggestion(name, self.agents)} "
                           f"(installed: {', '.join(sorted(self.agents))})") from None

    def agents_for(self, game_name: str) -> list[AgentSpec]:
        """Agents that play ``game_name``, by name."""
        return [spec for name, spec in sorted(self.agents.items()) if spec.plays(game_name)]


def suggestion(name: str, known: Iterable[str]) -> str:
    """``; did you mean 'x'?`` when ``name`` is close to one of ``known``, else ""."""
    close = closest(name, known)
    return f"; did you mean {close!r}?" if close else ""


def is_plugin_file(path: Path) -> bool:
    """Whether ``path`` in a plugins folder is a plugin: a ``.py`` file or a package folder, not hidden."""
    if path.name.startswith(("_", ".")):
        return False
    if path.is_file():
        return path.suffix == ".py"
    return path.is_dir() and (path / "__init__.py").is_file()
