"""Tournament configuration types: a validated config and its entries, with every default filled in.

Imported through ``arena.tournament.config``, which adds reading a config (``arena.tournament.config_loading``);
the checks (``config_validation``) import these types, never the loading above them.  Every key is described
in ``docs/configs.md``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.referee.limits import Limits
from arena.referee.seats import AUTO
from arena.tournament.formats import BY_NAME
from arena.tournament.schedule import ROUND_ROBIN, Schedule, build_schedule

NAME_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]*")
"""A tournament name: it names the folder ``leaderboards/<name>/``."""

ENTRY_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*")
"""An entry name: it appears in match records, leaderboards and file names."""

NAME_MAX = 64
"""Longest tournament or entry name."""

# The bounds of each value a config may hold (beyond them a value is a typo, or too big to run).
MAX_MATCHES = 1_000_000
"""Most matches in one schedule: about a day at a thousand matches a minute (more: split the tournament)."""
MAX_TABLES = 100_000
"""Largest ``max_tables``: the tables are built in memory before the first match."""
MAX_ENTRIES = 10_000
"""Most ``[[agents]]`` entries."""
# The seed's bound (MAX_SEED) is arena.records.seeding's and the limits' (MAX_SECONDS, MAX_MEMORY_MB, MAX_CPUS) are
# arena.referee.limits': the command line (arena.cli.numbers) and Limits itself hold to the same.
MAX_OPTION_INTEGER = 2**63 - 1
"""Agent options are JSON for the agent's process: integers must fit 64 bits (TOML's own range)."""

DEFAULT_SEED = None
"""No ``seed``: deal and agent seeds come from the store's secret key (tables and seatings from seed 0)."""
SCHEDULE_SEED = 0
"""The seed of the tables, design and seatings when the config sets none (they are not secret)."""
DEFAULT_FORMAT = ROUND_ROBIN
LADDER_FORMAT = "ladder"
"""``format`` of a ladder config: read by ``arena.ladder.config``, played by ``arena ladder run`` (docs/ladder.md)."""
DEFAULT_BLOCKS = 4
DEFAULT_MAX_TABLES = 500
DEFAULT_ISOLATION = AUTO
"""``auto``: arena's own agents in-process, third-party ones in the strongest sandbox available (the modes are
``arena.referee.seats.ISOLATION_MODES``)."""
DEFAULT_LIMITS = Limits()
"""The limits of a config without a ``[limits]`` table, or of each key it leaves out: ``Limits``'s defaults."""
DEFAULT_MAX_STARTUP_FAULTS = 3
DEFAULT_FAULT_SHARE = 0.05


class ConfigError(ValueError):
    """A tournament config with problems; ``problems`` has one line per problem."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)  # "file: key: what is expected, got what" lines
        super().__init__("\n".join(self.problems))


@dataclass(frozen=True, slots=True)
class AgentEntry:
    """One entry of the tournament: a registered agent under its own name, with options."""

    name: str  # entry name, unique in the tournament
    plugin: str  # name of the registered agent it uses (defaults to the entry name)
    options: Mapping[str, Any] = field(default_factory=dict)  # passed to the agent's factory; JSON data
    isolation: str | None = None  # one of ISOLATION_MODES; None: the tournament's setting

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data, shaped like an ``[[agents]]`` table."""
        data: dict[str, Any] = {"name": self.name, "plugin": self.plugin, "options": dict(self.options)}
        if self.isolation is not None:
            data["isolation"] = self.isolation
        return data


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    """A validated tournament configuration with every default filled in."""

    name: str  # tournament name; results go to leaderboards/<name>/
    game: str  # game short name, e.g. "lovat"
    seed: int | None  # public tournament seed: the deals and agent seeds derive from it; None: secret deals
    format: str  # a format's name: "round-robin", "gauntlet" or a registered one (``arena.tournament.formats``)
    blocks: int  # duplicate blocks per table
    max_tables: int  # cap on tables before a balanced incomplete design is used
    ratings: tuple[str, ...]  # rating methods shown; the first is the default
    isolation: str  # one of ISOLATION_MODES
    game_options: Mapping[str, Any]  # resolved game options, "players" included (read-only by convention)
    limits: Limits  # time and memory limits
    agents: tuple[AgentEntry, ...]  # the entries, in file order
    candidates: tuple[str, ...] = ()  # gauntlet candidates (entry names); () for round-robin
    source: str = "<config>"  # the file it came from, for messages
    max_startup_faults: int = DEFAULT_MAX_STARTUP_FAULTS  # an entry failing to start in this many first matches
    # in a row stops the run
    fault_share: float = DEFAULT_FAULT_SHARE  # leaderboards flag an entry with faults in more than this share
    # of its matches

    @property
    def seats(self) -> int:
        """Seats per table: the game's ``players`` option."""
        return int(self.game_options["players"])

    @property
    def entry_names(self) -> tuple[str, ...]:
        """The entry names, in file order."""
        return tuple(entry.name for entry in self.agents)

    @property
    def field(self) -> tuple[str, ...]:
        """The gauntlet field (entries that are not candidates); every entry for round-robin."""
        return tuple(name for name in self.entry_names if name not in self.candidates)

    def entry(self, name: str) -> AgentEntry:
        """The entry called ``name``."""
        for entry in self.agents:
            if entry.name == name:
                return entry
        raise KeyError(f"no entry {name!r} in tournament {self.name!r} (entries: {', '.join(self.entry_names)})")

    def trusted_entries(self) -> frozenset[str]:
        """Entries the config explicitly runs ``trusted`` (in-process), which the leaderboard marks."""
        return frozenset(entry.name for entry in self.agents if (entry.isolation or self.isolation) == "trusted")

    @property
    def public_deals(self) -> bool:
        """Whether anyone with this config can compute every deal (it sets ``seed``)."""
        return self.seed is not None

    def schedule(self) -> Schedule:
        """The tournament's schedule (a pure function of this config).

        Without ``seed`` its deal and agent seeds are placeholders until keyed
        with the store's secret (``Schedule.with_secret``), as the runner does.
        """
        return build_schedule(
            entries=self.entry_names,
            seats=self.seats,
            blocks=self.blocks,
            format=self.format,
            seed=self.seed if self.seed is not None else SCHEDULE_SEED,
            max_tables=self.max_tables,
            candidates=self.candidates,
        )

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data shaped like the TOML file; ``config_from_dict`` reads it back."""
        data: dict[str, Any] = {
            "name": self.name,
            "game": self.game,
            "seed": self.seed,
            "format": self.format,
            "blocks": self.blocks,
            "max_tables": self.max_tables,
            "ratings": list(self.ratings),
            "isolation": self.isolation,
            "game_options": dict(self.game_options),
            "limits": self.limits.to_json(),
            "agents": [entry.to_json() for entry in self.agents],
        }
        data.update(BY_NAME[self.format].config_json(self.candidates))  # the format's own table, if any
        # Written only when set, so that stores made before these keys existed still match their config.
        if self.max_startup_faults != DEFAULT_MAX_STARTUP_FAULTS:
            data["max_startup_faults"] = self.max_startup_faults
        if self.fault_share != DEFAULT_FAULT_SHARE:
            data["fault_share"] = self.fault_share
        return data

