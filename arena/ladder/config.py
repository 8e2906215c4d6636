"""Ladder configs: a tournament config with ``format = "ladder"`` and a ``[ladder]`` table.

Everything a tournament config says about the game, its options, the limits, isolation, ratings and
the entries (the starting field) means the same here and is checked by the tournament config's own
validator (``arena.tournament.config``); this module checks only what is a ladder's own: the
``[ladder]`` keys, and that the keys of a fixed schedule (``blocks``, ``max_tables``, ``[gauntlet]``)
are absent.  Every key is described in ``docs/configs.md`` and ``docs/ladder.md``.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.games.base import GameInfo
from arena.inputs.suggest import closest
from arena.ratings import registry
from arena.seating.options import AgentOptions
from arena.tournament.config import LADDER_FORMAT, MAX_MATCHES, ConfigError, TournamentConfig
from arena.tournament.config_loading import config_from_dict, read_toml
from arena.tournament.config_validation import misplaced_hint
from arena.tournament.schedule import ROUND_ROBIN

DEFAULT_METHOD = registry.DEFAULT_METHOD
DEFAULT_LEVEL = 0.95
DEFAULT_MIN_BLOCKS = 8  # arena.ratings.design.CLUSTER_MIN_BLOCKS: below it intervals are only conservative
DEFAULT_BUDGET = 5000
DEFAULT_BATCH_BLOCKS = 4
DEFAULT_FAIR_SHARE = 0.25

LADDER_KEYS = ("method", "level", "min_blocks", "budget", "batch_blocks", "fair_share")
FIXED_SCHEDULE_KEYS = ("blocks", "max_tables", "gauntlet")
"""Tournament keys that describe a fixed schedule: a ladder chooses its tables as it goes."""


@dataclass(frozen=True, slots=True)
class LadderSettings:
    """The ``[ladder]`` table: how tables are chosen and when a rank is settled."""

    method: str = DEFAULT_METHOD  # rating method whose P(stronger) schedules and stops (``MethodSpec.pairwise``)
    level: float = DEFAULT_LEVEL  # confidence of each neighbour pair's sequential test (standing.wald_bounds)
    min_blocks: int = DEFAULT_MIN_BLOCKS  # duplicate blocks an entry plays before its rank can be settled
    budget: int = DEFAULT_BUDGET  # most matches one '--until settled' run plays
    batch_blocks: int = DEFAULT_BATCH_BLOCKS  # blocks chosen from one fit (then played, stored and refitted)
    fair_share: float = DEFAULT_FAIR_SHARE  # every active entry sits at least at this share of an even split

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data, shaped like the ``[ladder]`` table."""
        return dataclasses.asdict(self)


@dataclass(frozen=True, slots=True)
class LadderConfig:
    """A validated ladder config: the tournament part (game, limits, starting field) and the ladder's settings."""

    tournament: TournamentConfig  # format "round-robin" internally; its agents are the starting field
    settings: LadderSettings  # the [ladder] table

    @property
    def name(self) -> str:
        """The ladder's name: results go to ``leaderboards/<name>/``."""
        return self.tournament.name

    @property
    def seats(self) -> int:
        """Seats per table."""
        return self.tournament.seats

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data shaped like the TOML file; ``ladder_from_dict`` reads it back."""
        data = self.tournament.to_json()
        for key in FIXED_SCHEDULE_KEYS:
            data.pop(key, None)
        data["format"] = LADDER_FORMAT
        data["ladder"] = self.settings.to_json()
        return data


def is_ladder_file(path: Path) -> bool:
    """Whether ``path`` names a file (a config) rather than a ladder by name: it exists or ends in ``.toml``."""
    return path.suffix == ".toml" or path.is_file() or len(path.parts) > 1


def load_ladder_config(
    path: str | Path,
    known_games: Mapping[str, GameInfo],
    known_agents: Mapping[str, Collection[str]],
    agent_options: Mapping[str, AgentOptions] | None = None,
) -> LadderConfig:
    """Read and validate a ladder TOML file (read by ``read_toml``); ``ConfigError``, one line per problem."""
    return ladder_from_dict(read_toml(path), known_games, known_agents, source=str(path), agent_options=agent_options)


def ladder_from_dict(
    data: Mapping[str, Any],
    known_games: Mapping[str, GameInfo],
    known_agents: Mapping[str, Collection[str]],
    source: str = "<config>",
    agent_options: Mapping[str, AgentOptions] | None = None,
) -> LadderConfig:
    """Validate parsed ladder config data (as ``tomllib`` gives it, or ``LadderConfig.to_json``)."""
    if not isinstance(data, Mapping):
        raise ConfigError([f"{source}: expected a TOML document (a table)"])
    problems: list[str] = []
    if data.get("format") != LADDER_FORMAT:
        problems.append(f"{source}: format: a ladder config needs format = \"ladder\"; a tournament is played "
                        "with 'arena run'")
    for key in FIXED_SCHEDULE_KEYS:
        if key in data:
            problems.append(f"{source}: {key}: not used by a ladder (it chooses its tables as it plays); remove it")
    settings = _settings(data.get("ladder", {}), source, problems)
    rest = {key: value for key, value in data.items() if key not in ("ladder", *FIXED_SCHEDULE_KEYS)}
    rest["format"] = ROUND_ROBIN
    tournament = None
    try:
        tournament = config_from_dict(rest, known_games, known_agents, source=source, agent_options=agent_options,
                                      label="a ladder")
    except ConfigError as error:
        problems.extend(error.problems)
    if problems or tournament is None:
        raise ConfigError(problems)
    return LadderConfig(tournament=tournament, settings=settings)


def _show(value: Any) -> str:
    """A value as the user wrote it, cut to a short line."""
    text = json.dumps(value, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


def _settings(table: Any, source: str, problems: list[str]) -> LadderSettings:
    """The ``[ladder]`` table checked key by key (a bad key keeps its default and adds a problem)."""
    if not isinstance(table, Mapping):
        problems.append(f"{source}: ladder: expected a table ([ladder] section)")
        return LadderSettings()
    for key in table:
        if key not in LADDER_KEYS:
            close = closest(str(key), LADDER_KEYS)
            hint = misplaced_hint(str(key), "ladder.") or (
                f'; did you mean "{close}"?' if close else f" (known: {', '.join(LADDER_KEYS)})")
            problems.append(f"{source}: ladder.{key}: unknown key{hint}")
    defaults = LadderSettings()
    values: dict[str, Any] = {}

    def check(key: str, ok: bool, what: str) -> None:
        if key in table and not ok:
            problems.append(f"{source}: ladder.{key}: expected {what}, got {_show(table[key])}")
        values[key] = table[key] if key in table and ok else getattr(defaults, key)

    def integer(key: str, low: int, high: int) -> bool:
        value = table.get(key)
        return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high

    def number(key: str, low: float, high: float, open_low: bool) -> bool:
        value = table.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return False
        return (low < value if open_low else low <= value) and value < high

    methods = registry.pairwise_methods()  # those giving P(stronger) for every pair from one fit
    check("method", table.get("method") in methods, f"a rating method: one of {', '.join(methods)}")
    check("level", number("level", 0.5, 1.0, True), "a probability above 0.5 and below 1 (e.g. 0.95)")
    check("min_blocks", integer("min_blocks", 1, 10_000), "an integer from 1 to 10,000 (blocks per entry)")
    check("budget", integer("budget", 1, MAX_MATCHES), f"an integer from 1 to {MAX_MATCHES:,} (matches)")
    check("batch_blocks", integer("batch_blocks", 1, 1000), "an integer from 1 to 1,000 (blocks per fit)")
    check("fair_share", number("fair_share", 0.0, 1.0 + 1e-12, False), "a number from 0 to 1 (a share)")
    values["level"] = float(values["level"])
    values["fair_share"] = float(values["fair_share"])
    return LadderSettings(**values)
