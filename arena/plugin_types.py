"""The plugin registry's types: where a plugin comes from, a refused factory, and what a registry holds."""

from __future__ import annotations

import dataclasses
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

from arena import hookspecs
from arena.agent import AgentSpec
from arena.games.base import Game
from arena.plugin_data import one_line
from arena.source_only import load_file, protect
from arena.suggest import closest

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

    def load(self) -> ModuleType | object:
        """Import the plugin in this process and return its plugin object (runs its code).

        A third-party plugin's modules run from the source files its hash covers, never from a bytecode
        cache beside them (``arena.source_only``).
        """
        if self.kind == BUILTIN:
            return importlib.import_module(self.target)
        if self.kind == PROGRAM:
            raise ImportError("an agent program has no Python to import: it runs in its own process, "
                              "under isolation 'isolated' or 'sandboxed' (docs/protocol.md)")
        from arena.provenance import source_root  # provenance imports the registry, which imports this module

        protect(source_root(self))
        if self.kind == ENTRY_POINT:
            return importlib.metadata.EntryPoint(self.name, self.target, hookspecs.PROJECT_NAME).load()
        return import_path(Path(self.target))

    def read_paths(self) -> tuple[str, ...]:
        """The files a sandbox must be able to read to import this plugin, beyond Python and arena.

        Found without running the plugin's code: a drop-in's own file or folder; for an entry point the
        location of its top-level package (``find_spec`` of a top-level name imports nothing).
        """
        if self.kind == FILE:
            return (self.target,)
        if self.kind == PROGRAM:
            from arena.program.launch import read_paths  # imports this module

            return read_paths(Path(self.target))
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
            raise KeyError(f"unknown game {name!r}{suggestion(name, self.games)} "
                           f"(installed: {', '.join(sorted(self.games))})") from None

    def agent(self, name: str) -> AgentSpec:
        """The agent called ``name``; ``KeyError`` with a helpful message otherwise."""
        try:
            return self.agents[name]
        except KeyError:
            raise KeyError(f"unknown agent {name!r}{suggestion(name, self.agents)} "
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
