"""The tournament config: its types (``config_types``) and reading one (``config_loading``), in one place.

``load_config`` reads a TOML file and ``config_from_dict`` parsed data; both check every key
(``config_validation``) and raise ``ConfigError`` with one line per problem.  Every key is described in
``docs/configs.md``.  The modules below import ``config_types``, never this one, so no import runs back up.
"""

from __future__ import annotations

from arena.tournament.config_loading import config_from_dict, load_config
from arena.tournament.config_types import (
    DEFAULT_BLOCKS,
    DEFAULT_FAULT_SHARE,
    DEFAULT_FORMAT,
    DEFAULT_ISOLATION,
    DEFAULT_LIMITS,
    DEFAULT_MAX_STARTUP_FAULTS,
    DEFAULT_MAX_TABLES,
    DEFAULT_SEED,
    ENTRY_PATTERN,
    LADDER_FORMAT,
    MAX_ENTRIES,
    MAX_MATCHES,
    MAX_OPTION_INTEGER,
    MAX_TABLES,
    NAME_MAX,
    NAME_PATTERN,
    SCHEDULE_SEED,
    AgentEntry,
    ConfigError,
    Limits,
    TournamentConfig,
)

__all__ = [
    "DEFAULT_BLOCKS", "DEFAULT_FAULT_SHARE", "DEFAULT_FORMAT", "DEFAULT_ISOLATION", "DEFAULT_LIMITS",
    "DEFAULT_MAX_STARTUP_FAULTS", "DEFAULT_MAX_TABLES", "DEFAULT_SEED", "ENTRY_PATTERN", "LADDER_FORMAT",
    "MAX_ENTRIES", "MAX_MATCHES", "MAX_OPTION_INTEGER", "MAX_TABLES", "NAME_MAX", "NAME_PATTERN", "SCHEDULE_SEED",
    "AgentEntry", "ConfigError", "Limits", "TournamentConfig", "config_from_dict", "load_config",
]
