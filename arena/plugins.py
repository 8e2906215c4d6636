"""The plugin registry, as callers import it: ``load_registry`` and the plugin system's public names.

The plugin system lives in ``arena.plugin_system`` (``loading`` builds the registry); this module re-exports
``arena.plugin_system.loading``'s names under the name plugins, tests and scripts have always used.  Nothing
inside arena imports it.  It stays at the top of ``arena`` because it is a public entry point: docs/security.md
names ``arena.plugins.load_trusted_registry``, and scripts (examples/train_lorum.py) load the registry from it.
"""

from __future__ import annotations

from arena.plugin_system.loading import (
    AGENT_NAME,
    ALLOW_ENV,
    BLOCK_ENV,
    BUILTIN,
    DEFAULT_PLUGINS,
    DEFAULT_PLUGINS_DIR,
    DESCRIPTION_MAX,
    ENTRY_POINT,
    FILE,
    GAMES_MAX,
    NAME_MAX,
    PLUGIN_NAME,
    PROGRAM,
    TRUST_ENV,
    VERSION_MAX,
    PluginCodeRefused,
    PluginFactory,
    PluginInfo,
    PluginManager,
    PluginSource,
    Registry,
    builtin_sources,
    import_path,
    in_process_spec,
    is_builtin,
    load_plugin,
    load_registry,
    load_trusted_registry,
    name_problem,
    one_line,
    origin,
    printable,
    spec_from_json,
    spec_to_json,
    third_party_sources,
    warn_plugin_errors,
)

__all__ = [
    "AGENT_NAME", "ALLOW_ENV", "BLOCK_ENV", "BUILTIN", "DEFAULT_PLUGINS", "DEFAULT_PLUGINS_DIR", "DESCRIPTION_MAX",
    "ENTRY_POINT", "FILE", "GAMES_MAX", "NAME_MAX", "PLUGIN_NAME", "PROGRAM", "TRUST_ENV", "VERSION_MAX",
    "PluginCodeRefused", "PluginFactory", "PluginInfo", "PluginManager", "PluginSource", "Registry",
    "builtin_sources", "import_path", "in_process_spec", "is_builtin", "load_plugin", "load_registry",
    "load_trusted_registry", "name_problem", "one_line", "origin", "printable", "spec_from_json", "spec_to_json",
    "third_party_sources", "warn_plugin_errors",
]
