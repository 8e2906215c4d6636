"""Where plugins come from, read from package metadata and file names only: no plugin code runs here.

Plugins come from three places: the built-ins (``DEFAULT_PLUGINS``, shipped inside the arena distribution);
entry points of installed packages in the ``arena`` group; and ``.py`` files, packages and agent-program
folders (an ``arena-agent.toml``, ``arena.program``) dropped into a plugins folder.  The environment's allow
and block lists say which of them load at all.

Environment variables (comma-separated plugin names):

* ``ARENA_PLUGINS_ALLOW``: load only these plugins (built-ins always load);
* ``ARENA_PLUGINS_BLOCK``: never load these plugins;
* ``ARENA_PLUGINS_TRUST``: also import these plugins in the driver, so that their games, reporters, rating
  methods, formats and views work (their agents still run sandboxed unless seated ``trusted``).
"""

from __future__ import annotations

import importlib.metadata
import os
from pathlib import Path

from arena.plugin_system import hookspecs
from arena.plugin_system.data import NAME_MAX, PLUGIN_NAME, VERSION_MAX, name_problem, printable
from arena.plugin_system.registry import BUILTIN, ENTRY_POINT, FILE, PROGRAM, PluginSource, is_plugin_file
from arena.program.manifest import is_manifest_folder

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


def wanted(source: PluginSource) -> bool:
    """Whether the allow and block lists let ``source`` load (a built-in always loads unless blocked)."""
    allow = names_in(os.environ.get(ALLOW_ENV, ""))
    if source.name in names_in(os.environ.get(BLOCK_ENV, "")):
        return False
    return source.builtin or not allow or source.name in allow


def trusted_names() -> set[str]:
    """The third-party plugins the operator names as trusted (``ARENA_PLUGINS_TRUST``)."""
    return names_in(os.environ.get(TRUST_ENV, ""))


def names_in(value: str) -> set[str]:
    """The names in a comma-separated list, blanks dropped."""
    return {part.strip() for part in value.split(",") if part.strip()}
