"""Tournament formats, one module each (as fastchess keeps ``tournament/roundrobin`` and ``gauntlet``).

A format decides which entries form the design's pool and how the design's
groups become tables (``Format``); ``arena.tournament.schedule`` builds the
schedule from the format named in the config.
"""

from arena.tournament.formats.base import Format, ScheduleError, Table
from arena.tournament.formats.gauntlet import GAUNTLET, Gauntlet
from arena.tournament.formats.round_robin import ROUND_ROBIN, RoundRobin

BY_NAME: dict[str, Format] = {ROUND_ROBIN: RoundRobin(), GAUNTLET: Gauntlet()}
"""Every format by name, in the order the docs list them."""

FORMATS = tuple(BY_NAME)
"""The tournament formats a schedule can be built for."""

__all__ = ["FORMATS", "BY_NAME", "GAUNTLET", "ROUND_ROBIN", "Format", "Gauntlet", "RoundRobin",
           "ScheduleError", "Table"]
