"""Tournaments: the schedule (who plays whom, where, on which deal) and the TOML configuration.

``schedule`` builds the tables and streams the matches of a tournament as a
pure function of its inputs; ``config`` reads and validates the TOML file that
describes a tournament (see ``docs/configs.md``).
"""

from arena.tournament.config import (
    AgentEntry,
    ConfigError,
    Limits,
    TournamentConfig,
    config_from_dict,
    load_config,
)
from arena.tournament.schedule import (
    Design,
    Match,
    Schedule,
    ScheduleError,
    Table,
    build_schedule,
    iter_matches,
)

__all__ = [
    "AgentEntry",
    "ConfigError",
    "Design",
    "Limits",
    "Match",
    "Schedule",
    "ScheduleError",
    "Table",
    "TournamentConfig",
    "build_schedule",
    "config_from_dict",
    "iter_matches",
    "load_config",
]
