"""Tournaments: the schedule (who plays whom, where, on which deal) and the TOML configuration.

``schedule`` builds the tables and streams the matches of a tournament as a
pure function of its inputs; ``config`` holds the types of a tournament's
configuration, which ``config_loading`` reads from a TOML file and validates
(see ``docs/configs.md``).
"""

from arena.tournament.config import AgentEntry, ConfigError, Limits, TournamentConfig
from arena.tournament.config_loading import config_from_dict, load_config
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
