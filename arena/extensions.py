"""What plugins add to the driver's own registries: rating methods and tournament formats, installed here.

A plugin registers them through ``arena_register_rating_methods`` and ``arena_register_formats``; the plugin
system keeps them by name (``Registry.rating_methods``, ``Registry.formats``) without importing what they
belong to, and ``install`` hands each to the registry that owns it (``arena.ratings.registry``,
``arena.tournament.formats``), which checks it.  They run in the driver, so they come only from arena's own
plugins or from plugins ``ARENA_PLUGINS_TRUST`` names (``arena.plugins``; docs/security.md).  Installing is
idempotent: the same method or format loaded again (a second registry in one process) is left as it is; a
different one under a taken name is refused with one line.
"""

from __future__ import annotations

from arena.plugin_types import Registry
from arena.ratings.registry import MethodSpec, method_names, method_spec, register_method
from arena.tournament.formats import BY_NAME, Format, register_format


def install(registry: Registry) -> Registry:
    """Install ``registry``'s rating methods and formats; each refused one is a line in ``registry.errors``."""
    for name, spec in registry.rating_methods.items():
        problem = _method_problem(name, spec)
        if problem:
            registry.errors.append(f"rating method {name!r} not installed: {problem}")
    for name, form in registry.formats.items():
        problem = _format_problem(name, form)
        if problem:
            registry.errors.append(f"tournament format {name!r} not installed: {problem}")
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
