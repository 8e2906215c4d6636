"""Tournament formats, one module each (as fastchess keeps ``tournament/roundrobin`` and ``gauntlet``).

A format decides which entries form the design's pool and how the design's
groups become tables (``Format``); ``arena.tournament.schedule`` builds the
schedule from the format named in the config.
"""

from arena.tournament.formats.base import Format, ScheduleError, Table
from arena.tournament.formats.gauntlet import GAUNTLET, Gauntlet
from arena.tournament.formats.round_robin import ROUND_ROBIN, RoundRobin

BY_NAME: dict[str, Format] = {ROUND_ROBIN: RoundRobin(), GAUNTLET: Gauntlet()}
"""Every format by name, the built-ins in the order the docs list them, then any registered."""


def format_names() -> tuple[str, ...]:
    """The tournament formats a schedule can be built for (and a config may name)."""
    return tuple(BY_NAME)


def register_format(form: Format) -> Format:
    """Add a tournament format (e.g. from a trusted plugin); ``ValueError`` if its name is taken."""
    if form.name in BY_NAME:
        raise ValueError(f"tournament format {form.name!r} is already registered; give the new format another name")
    BY_NAME[form.name] = form
    return form


__all__ = ["BY_NAME", "GAUNTLET", "ROUND_ROBIN", "Format", "Gauntlet", "RoundRobin", "ScheduleError", "Table",
           "format_names", "register_format"]
