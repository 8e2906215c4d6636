"""What plugins add to the driver's own registries: rating methods, tournament formats and leaderboard views.

A plugin registers them through ``arena_register_rating_methods``, ``arena_register_formats`` and
``arena_register_views``; the plugin system keeps them by name (``Registry.rating_methods``, ``formats``,
``views``) without importing what they belong to, and ``install`` hands each to the registry that owns it
(``arena.ratings.registry``, ``arena.tournament.formats``, ``arena.leaderboard.views``), which checks it.
They run in the driver, so they come only from arena's own plugins or from plugins ``ARENA_PLUGINS_TRUST``
names (``arena.plugins``; docs/security.md).  Installing is idempotent: the same method, format or view loaded
again (a second registry in one process) is left as it is; a different one under a taken name is refused with
one line.
"""

from __future__ import annotations

from typing import Any

from arena.leaderboard.views import View, register_view, views
from arena.plugin_system.registry import Registry
from arena.ratings.registry import MethodSpec, method_names, method_spec, register_method
from arena.tournament.formats import BY_NAME, Format, format_names, register_format

KINDS: tuple[tuple[str, str], ...] = (("rating_methods", "rating method"), ("formats", "tournament format"),
                                      ("views", "leaderboard view"))
"""Each registry plugins add to: its key (``Registry``'s and ``PluginInfo``'s field) and what one entry is called."""


def install(registry: Registry) -> Registry:
    """Install ``registry``'s rating methods, formats and views; each refused one is a line in ``registry.errors``."""
    for name, spec in registry.rating_methods.items():
        problem = _method_problem(name, spec)
        if problem:
            registry.errors.append(f"rating method {name!r} not installed: {problem}")
    for name, form in registry.formats.items():
        problem = _format_problem(name, form)
        if problem:
            registry.errors.append(f"tournament format {name!r} not installed: {problem}")
    for name, view in registry.views.items():
        problem = _view_problem(name, view)
        if problem:
            registry.errors.append(f"leaderboard view {name!r} not installed: {problem}")
    return registry


def _method_problem(name: str, spec: object) -> str | None:
    if not isinstance(spec, MethodSpec):
        return f"expected an arena.ratings.registry.MethodSpec, got {type(spec).__name__}"
    if not callable(spec.fit) or not isinstance(spec.label, str) or not isinstance(spec.digits, int):
        return "a MethodSpec needs a callable fit, a text label and whole digits"
    if name in method_names():
        return None if method_spec(name) == spec else f"a rating method called {name!r} is already registered"
    register_method(spec)
    return None


def _format_problem(name: str, form: object) -> str | None:
    if not isinstance(form, Format):
        return f"expected an arena.tournament.formats.Format, got {type(form).__name__}"
    if name in BY_NAME:
        return None if BY_NAME[name] is form else f"a tournament format called {name!r} is already registered"
    register_format(form)
    return None


def _view_problem(name: str, view: object) -> str | None:
    if not isinstance(view, View):
        return f"expected an arena.leaderboard.View, got {type(view).__name__}"
    if not callable(view.render) or not isinstance(view.file_name, str):
        return "a View needs a file name and a callable render"
    known = {other.name: other for other in views()}
    if name in known:
        return None if known[name] == view else f"a leaderboard view called {name!r} is already registered"
    try:
        register_view(view)
    except ValueError as error:
        return str(error)
    return None


def origins(registry: Registry) -> dict[str, list[tuple[str, str | None]]]:
    """Every rating method, format and view the driver now has, by ``KINDS`` key, in registration order: its
    name and the plugin of ``registry`` that added it, or None for arena's own (``install`` the registry first).

    A plugin's entry that was refused (its name taken) is left out: the name is the one that was installed.
    """
    installed: dict[str, dict[str, object]] = {
        "rating_methods": {name: method_spec(name) for name in method_names()},
        "formats": {name: BY_NAME[name] for name in format_names()},
        "views": {view.name: view for view in views()},
    }
    found: dict[str, list[tuple[str, str | None]]] = {}
    for key, _kind in KINDS:
        offered: dict[str, Any] = getattr(registry, key)
        added_by = {name: info.name for info in registry.plugins for name in getattr(info, key)}
        found[key] = [(name, added_by.get(name) if name in offered and offered[name] == thing else None)
                      for name, thing in installed[key].items()]
    return found
