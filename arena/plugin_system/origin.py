"""Trust by origin: which plugin an agent came from, and whether it is arena's own code.

Nothing a plugin says about itself decides this (not ``AgentSpec.trusted``, not a factory's ``__module__``):
a third-party agent in the driver's registry is only data (``PluginFactory``), and a built-in agent is
recognised by being the very spec a built-in plugin registered (``remember_builtins``, called by
``arena.plugin_system.registration`` as it registers a built-in) or by its code living in arena's own files.
"""

from __future__ import annotations

import functools
import importlib.util
import inspect
from pathlib import Path
from typing import Any

from arena.agent import AgentSpec
from arena.plugin_system.registry import PluginFactory, PluginSource, Registry

_BUILTIN_SPECS: dict[str, list[tuple[AgentSpec, PluginSource]]] = {}  # every registry's built-in specs


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


def remember_builtins(registry: Registry) -> None:
    """Note every agent a built-in plugin registered in ``registry``, so that ``origin`` knows it."""
    for name, spec in registry.agents.items():
        source = registry.sources.get(registry.agent_plugin.get(name, ""))
        if source is not None and source.builtin:
            known = _BUILTIN_SPECS.setdefault(name, [])
            if all(other != spec for other, _source in known):
                known.append((spec, source))


@functools.cache
def _arena_folders() -> tuple[Path, ...]:
    """The folders of arena's own packages (arena and arena_agents), wherever they are installed."""
    folders = [Path(__file__).resolve().parents[1]]  # arena/, this module being in arena/plugin_system/
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
