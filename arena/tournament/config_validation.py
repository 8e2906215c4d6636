"""Validating parsed config data (``ConfigValidator``, run by ``config_from_dict``): every problem, one line each."""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from arena import bounded_json
from arena.agent import ANY_GAME
from arena.games.base import GameInfo, InvalidSetup
from arena.options import NO_OPTIONS, AgentOptions, OptionError
from arena.referee.limits import MAX_CPUS, MAX_MEMORY_MB, MAX_SECONDS, Limits
from arena.referee.seats import ISOLATION_MODES
from arena.seeding import MAX_SEED
from arena.suggest import closest
from arena.tournament.config import (
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
    AgentEntry,
    ConfigError,
    TournamentConfig,
)
from arena.tournament.formats import BY_NAME, format_names
from arena.tournament.schedule import table_count

TOP_KEYS = (
    "name",
    "game",
    "seed",
    "format",
    "blocks",
    "max_tables",
    "ratings",
    "isolation",
    "game_options",
    "limits",
    "agents",
    "gauntlet",
    "max_startup_faults",
    "fault_share",
)
LIMIT_KEYS = ("move_seconds", "bank_seconds", "startup_seconds", "memory_mb", "cpus")
AGENT_KEYS = ("name", "plugin", "options", "isolation")
GAUNTLET_KEYS = ("candidates",)



def _show(value: Any) -> str:
    """A value as the user wrote it, in TOML terms: "fast", 3, true, an array, a table."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        shown = json.dumps(value[:SHOWN_CHARACTERS], ensure_ascii=False)
        return shown if len(value) <= SHOWN_CHARACTERS else f"{shown[:-1]}...\" ({len(value)} characters)"
    if isinstance(value, int) and abs(value) >= 10**SHOWN_CHARACTERS:
        return f"an integer of {len(str(abs(value)))} digits"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, (list, tuple)):
        return "an array"
    return f"{value} ({type(value).__name__})"


SHOWN_CHARACTERS = 40
"""Longest piece of a value quoted in a message: a 10,000-character name is still one short line."""


def _suggest(word: str, known: Collection[str]) -> str:
    """``; did you mean "x"?`` when ``word`` is close to one of ``known``, else ""."""
    close = closest(word, known)
    return f'; did you mean "{close}"?' if close else ""


def misplaced_hint(key: str, prefix: str) -> str:
    """A hint for a top-level key found in a table: in TOML every key after a ``[table]`` header belongs to that
    table, so ``format = ...`` written below ``[limits]`` reads as ``limits.format``."""
    if not prefix or key not in TOP_KEYS:
        return ""
    table = prefix.rstrip(".")
    header = f"[[{table.split('[')[0]}]]" if "[" in table else f"[{table}]"
    return (f"; {key!r} is a top-level key: TOML puts every key below a {header} header into that table, "
            f"so write it above the first table")


def _listing(known: Collection[str]) -> str:
    return ", ".join(sorted(known)) or "none"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _is_json(value: Any) -> bool:
    """Whether a TOML value (nested at most ``bounded_json.MAX_DEPTH``: checked first) is plain JSON data:
    no dates or times, finite numbers, 64-bit integers."""
    if value is None or isinstance(value, (str, bool)):
        return True
    if isinstance(value, int):
        return abs(value) <= MAX_OPTION_INTEGER
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, (list, tuple)):
        return all(_is_json(item) for item in value)
    if isinstance(value, Mapping):
        return all(isinstance(key, str) and _is_json(item) for key, item in value.items())
    return False


class ConfigValidator:
    """Checks one config, collecting every problem before raising."""

    def __init__(
        self,
        source: str,
        known_games: Mapping[str, GameInfo],
        known_agents: Mapping[str, Collection[str]],
        known_ratings: Collection[str] | None,
        agent_options: Mapping[str, AgentOptions] | None = None,
        label: str = "a round-robin",
    ) -> None:
        self.source = source
        self.label = label  # what messages call the config's round-robin: "a ladder" when it is a ladder's
        self.agent_options = agent_options
        self.known_games = known_games
        self.known_agents = known_agents
        if known_ratings is None:  # imported here: the rating methods bring scipy, which reading a config does not need
            from arena.ratings.registry import method_names

            known_ratings = method_names()
        self.known_ratings = tuple(known_ratings)
        self.problems: list[str] = []
        self.entries_complete = False  # every [[agents]] entry had a usable name

    def problem(self, key: str, message: str) -> None:
        self.problems.append(f"{self.source}: {key}: {message}")

    def unknown_keys(self, table: Mapping[str, Any], known: Sequence[str], prefix: str = "") -> None:
        for key in table:
            if key not in known:
                hint = (misplaced_hint(str(key), prefix) or _suggest(str(key), known)
                        or f" (known keys: {', '.join(known)})")
                self.problem(f"{prefix}{key}", f"unknown key{hint}")

    def table(self, data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
        """The sub-table ``data[key]``, or {} (with a problem) when it is not a table."""
        value = data.get(key, {})
        if not isinstance(value, Mapping):
            self.problem(key, f"expected a table ([{key}] section), got {_show(value)}")
            return {}
        return value

    def integer(self, data: Mapping[str, Any], key: str, default: Any, minimum: int, what: str,
                maximum: int = MAX_SEED) -> Any:
        if data.get(key) is None and (key not in data or default is None):  # JSON null: to_json's "no seed"
            return default
        value = data[key]
        if not _is_int(value) or not minimum <= value <= maximum:
            self.problem(key, f"expected {what}, got {_show(value)}")
            return default
        return value

    def number(self, data: Mapping[str, Any], key: str, default: float, positive: bool, prefix: str) -> float:
        value = data.get(key, default)
        if not _is_number(value) or value < 0 or (positive and value == 0) or value > MAX_SECONDS:
            what = "a positive number" if positive else "a number >= 0"
            what += f" up to {MAX_SECONDS:g}"
            self.problem(prefix + key, f"expected {what} (seconds), got {_show(value)}")
            return default
        return float(value)

    def choice(self, value: Any, key: str, choices: Sequence[str], what: str) -> str | None:
        if isinstance(value, str) and value in choices:
            return value
        hint = _suggest(value, choices) if isinstance(value, str) else ""
        self.problem(key, f"expected {what}: one of {', '.join(choices)}, got {_show(value)}{hint}")
        return None

    def run(self, data: Mapping[str, Any]) -> TournamentConfig:
        if not isinstance(data, Mapping):
            raise ConfigError([f"{self.source}: expected a TOML document (a table), got {_show(data)}"])
        try:  # before anything walks the data recursively
            bounded_json.check_value(data)
        except bounded_json.JSONLimitError as error:
            raise ConfigError([f"{self.source}: {error}"]) from None
        if data.get("format") == LADDER_FORMAT:  # one clear line instead of a problem per ladder key
            raise ConfigError([f"{self.source}: format: a ladder config; play it with "
                               f"'arena ladder run {self.source}' (docs/ladder.md)"])
        self.unknown_keys(data, TOP_KEYS)

        name = data.get("name")
        if name is None:
            self.problem("name", 'missing; expected a tournament name such as "my-tournament"')
        elif not isinstance(name, str) or not NAME_PATTERN.fullmatch(name) or len(name) > NAME_MAX:
            self.problem(
                "name",
                f"expected a name of lowercase letters, digits, '-' and '_', starting with a letter or digit, "
                f"at most {NAME_MAX} characters (it names leaderboards/<name>/), got {_show(name)}",
            )

        info = self.check_game(data)
        seed = self.integer(data, "seed", DEFAULT_SEED, 0, "an integer from 0 to 2**63-1 (or no seed: secret deals)")
        format = self.choice(data.get("format", DEFAULT_FORMAT), "format", format_names(), "a tournament format")
        blocks = self.integer(data, "blocks", DEFAULT_BLOCKS, 1, "a positive integer (duplicate blocks per table)",
                              MAX_MATCHES)
        max_tables = self.integer(data, "max_tables", DEFAULT_MAX_TABLES, 1,
                                  f"a positive integer up to {MAX_TABLES:,} (a table cap)", MAX_TABLES)
        ratings = self.check_ratings(data)
        isolation = self.choice(data.get("isolation", DEFAULT_ISOLATION), "isolation", ISOLATION_MODES, "a mode")
        game_options = self.check_game_options(data, info)
        limits = self.check_limits(data)
        agents = self.check_agents(data, info)
        candidates = self.check_gauntlet(data, format, agents)
        self.check_seats(format, game_options, agents, candidates)
        max_startup_faults = self.integer(data, "max_startup_faults", DEFAULT_MAX_STARTUP_FAULTS, 1,
                                          "a positive integer (matches in a row an entry may fail to start)")
        fault_share = data.get("fault_share", DEFAULT_FAULT_SHARE)
        if not _is_number(fault_share) or not 0 <= fault_share <= 1:
            self.problem("fault_share", f"expected a number from 0 to 1 (a share of matches), got {_show(fault_share)}")
            fault_share = DEFAULT_FAULT_SHARE
        if not self.problems:
            assert format is not None and game_options is not None and agents is not None
            self.check_size(format, game_options["players"], len(agents), len(candidates), blocks, max_tables)

        if self.problems:
            raise ConfigError(self.problems)
        assert info is not None and format is not None and isolation is not None and game_options is not None
        assert isinstance(name, str)
        return TournamentConfig(
            name=name,
            game=info.name,
            seed=seed,
            format=format,
            blocks=blocks,
            max_tables=max_tables,
            ratings=ratings,
            isolation=isolation,
            game_options=game_options,
            limits=limits,
            agents=tuple(agents or ()),
            candidates=candidates,
            source=self.source,
            max_startup_faults=max_startup_faults,
            fault_share=float(fault_share),
        )

    def check_game(self, data: Mapping[str, Any]) -> GameInfo | None:
        game = data.get("game")
        known = self.known_games
        if game is None:
            self.problem("game", f"missing; expected a game name (known: {_listing(known)})")
            return None
        if not isinstance(game, str):
            self.problem("game", f"expected a game name (known: {_listing(known)}), got {_show(game)}")
            return None
        if game not in known:
            self.problem("game", f"unknown game {_show(game)}{_suggest(game, known)} (known: {_listing(known)})")
            return None
        return known[game]

    def check_ratings(self, data: Mapping[str, Any]) -> tuple[str, ...]:
        value = data.get("ratings", list(self.known_ratings))
        what = f"a non-empty array of rating methods from: {', '.join(self.known_ratings)}"
        if not isinstance(value, list) or not value:
            self.problem("ratings", f"expected {what}, got {_show(value)}")
            return self.known_ratings
        ratings: list[str] = []
        for index, method in enumerate(value):
            key = f"ratings[{index}]"
            if not isinstance(method, str) or method not in self.known_ratings:
                hint = _suggest(method, self.known_ratings) if isinstance(method, str) else ""
                self.problem(
                    key, f"unknown rating method {_show(method)}{hint} (known: {', '.join(self.known_ratings)})"
                )
            elif method in ratings:
                self.problem(key, f"rating method {_show(method)} is listed twice")
            else:
                ratings.append(method)
        return tuple(ratings)

    def check_game_options(self, data: Mapping[str, Any], info: GameInfo | None) -> dict[str, Any] | None:
        """Resolve the game options, one problem per bad option (each checked on its own)."""
        options = self.table(data, "game_options")
        if info is None:
            return None
        before = len(self.problems)
        players = options.get("players")
        if "players" in options:
            try:
                info.resolve_options(None, {"players": players})
            except InvalidSetup as error:
                self.problem("game_options.players", str(error))
                players = None
        known = [spec.name for spec in info.options]
        for key, value in options.items():
            if key == "players":
                continue
            try:
                info.resolve_options(players, {key: value})
            except InvalidSetup as error:
                hint = "" if key in known else misplaced_hint(key, "game_options.") or _suggest(key, known)
                self.problem(f"game_options.{key}", f"{error}{hint}")
        if len(self.problems) > before:
            return None
        try:
            return info.resolve_options(None, options)
        except InvalidSetup as error:
            self.problem("game_options", str(error))
            return None

    def check_limits(self, data: Mapping[str, Any]) -> Limits:
        limits = self.table(data, "limits")
        self.unknown_keys(limits, LIMIT_KEYS, "limits.")
        memory = limits.get("memory_mb", DEFAULT_LIMITS.memory_mb)
        if not _is_int(memory) or not 1 <= memory <= MAX_MEMORY_MB:
            self.problem("limits.memory_mb",
                         f"expected a positive integer up to {MAX_MEMORY_MB:,} (megabytes), got {_show(memory)}")
            memory = DEFAULT_LIMITS.memory_mb
        cpus = limits.get("cpus", DEFAULT_LIMITS.cpus)
        if not _is_number(cpus) or not 0 < cpus <= MAX_CPUS:
            self.problem("limits.cpus", f"expected a number of cores > 0 and <= {MAX_CPUS:g}, got {_show(cpus)}")
            cpus = DEFAULT_LIMITS.cpus
        return Limits(
            move_seconds=self.number(limits, "move_seconds", DEFAULT_LIMITS.move_seconds, True, "limits."),
            bank_seconds=self.number(limits, "bank_seconds", DEFAULT_LIMITS.bank_seconds, False, "limits."),
            startup_seconds=self.number(limits, "startup_seconds", DEFAULT_LIMITS.startup_seconds, True, "limits."),
            memory_mb=memory,
            cpus=float(cpus),
        )

    def check_agents(self, data: Mapping[str, Any], info: GameInfo | None) -> list[AgentEntry] | None:
        """The entries, or None when ``agents`` itself is unusable."""
        value = data.get("agents")
        if value is None:
            self.problem("agents", "missing; expected [[agents]] sections, one per entry")
            return None
        if not isinstance(value, list) or not all(isinstance(item, Mapping) for item in value):
            self.problem("agents", f"expected an array of tables ([[agents]] sections), got {_show(value)}")
            return None
        if not value:
            self.problem("agents", "expected at least one [[agents]] entry, got an empty array")
            return None
        if len(value) > MAX_ENTRIES:
            self.problem("agents", f"expected at most {MAX_ENTRIES:,} [[agents]] entries, got {len(value):,}")
            return None
        entries: list[AgentEntry] = []
        first_index: dict[str, int] = {}
        self.entries_complete = True
        for index, item in enumerate(value):
            prefix = f"agents[{index}]"
            self.unknown_keys(item, AGENT_KEYS, prefix + ".")
            name = item.get("name")
            if name is None:
                self.problem(f"{prefix}.name", "missing; every entry needs a name")
                self.entries_complete = False
                continue
            if not isinstance(name, str) or not ENTRY_PATTERN.fullmatch(name) or len(name) > NAME_MAX:
                self.problem(
                    f"{prefix}.name",
                    f"expected an entry name of letters, digits, '_', '.', '+' and '-', starting with a letter "
                    f"or digit, at most {NAME_MAX} characters, got {_show(name)}",
                )
                self.entries_complete = False
                continue
            if name in first_index:
                self.problem(
                    f"{prefix}.name",
                    f"duplicate entry name {_show(name)} (also agents[{first_index[name]}]); give each entry its "
                    f'own name, e.g. "{name}-2" with plugin = "{item.get("plugin", name)}"',
                )
                self.entries_complete = False  # counting entries would add a second, misleading problem
            else:
                first_index[name] = index
            plugin = self.check_plugin(item, prefix, name, info)
            options = item.get("options", {})
            if not isinstance(options, Mapping):
                self.problem(f"{prefix}.options", f"expected a table of agent options, got {_show(options)}")
                options = {}
            elif not _is_json(options):
                self.problem(f"{prefix}.options", "expected JSON-like values (no dates or times)")
            elif plugin is not None:
                self.check_agent_options(options, plugin, f"{prefix}.options", info)
            isolation = item.get("isolation")
            if isolation is not None:
                isolation = self.choice(isolation, f"{prefix}.isolation", ISOLATION_MODES, "an isolation mode")
            entries.append(AgentEntry(name=name, plugin=plugin or name, options=dict(options), isolation=isolation))
        return entries

    def check_agent_options(self, options: Mapping[str, Any], plugin: str, prefix: str, info: GameInfo | None) -> None:
        """One problem per option the agent does not declare, or whose value it does not accept."""
        if self.agent_options is None:
            return
        declared = self.agent_options.get(plugin, NO_OPTIONS)
        for key, value in options.items():
            try:
                declared.check({key: value}, plugin, info.name if info is not None else None)
            except OptionError as error:
                self.problem(f"{prefix}.{key}", str(error))

    def check_plugin(self, item: Mapping[str, Any], prefix: str, name: str, info: GameInfo | None) -> str | None:
        given = "plugin" in item
        plugin = item.get("plugin", name)
        key = f"{prefix}.plugin" if given else f"{prefix}.name"
        defaulted = "" if given else " (the plugin defaults to the entry name; set plugin = ...)"
        known = self.known_agents
        if not isinstance(plugin, str):
            self.problem(key, f"expected a registered agent name (known: {_listing(known)}), got {_show(plugin)}")
            return None
        if plugin not in known:
            self.problem(
                key, f"unknown agent {_show(plugin)}{_suggest(plugin, known)}{defaulted} (known: {_listing(known)})"
            )
            return None
        if info is not None and not {info.name, ANY_GAME} & set(known[plugin]):
            plays = _listing(known[plugin])
            players = sorted(agent for agent, games in known.items() if {info.name, ANY_GAME} & set(games))
            self.problem(
                key,
                f"agent {_show(plugin)} does not play {info.name} (it plays: {plays}; agents for {info.name}: "
                f"{_listing(players)})",
            )
        return plugin

    def check_gauntlet(
        self, data: Mapping[str, Any], format: str | None, agents: list[AgentEntry] | None
    ) -> tuple[str, ...]:
        form = BY_NAME.get(format) if format is not None else None
        if form is None or not form.uses_candidates or form.table is None:
            for other in BY_NAME.values():  # another format's table, under a known format
                if form is not None and other.table is not None and other.table in data:
                    self.problem(other.table, f'only used with format = "{other.name}"; remove it or set '
                                              f'format = "{other.name}"')
            return ()
        name, table = form.name, form.table
        if table not in data:
            self.problem(table, f'missing; format = "{name}" needs a [{table}] table with candidates = [...]')
            return ()
        own = self.table(data, table)
        self.unknown_keys(own, GAUNTLET_KEYS, f"{table}.")
        value = own.get("candidates")
        if not isinstance(value, list) or not value or not all(isinstance(item, str) for item in value):
            self.problem(
                f"{table}.candidates", f"expected a non-empty array of entry names, got {_show(value)}"
            )
            return ()
        names = [entry.name for entry in agents or ()]
        candidates: list[str] = []
        for index, candidate in enumerate(value):
            key = f"{table}.candidates[{index}]"
            if agents is not None and candidate not in names:
                self.problem(
                    key, f"{_show(candidate)} is not an entry{_suggest(candidate, names)} (entries: {', '.join(names)})"
                )
            elif candidate in candidates:
                self.problem(key, f"{_show(candidate)} is listed twice")
            else:
                candidates.append(candidate)
        return tuple(candidates)

    def check_size(self, format: str, seats: int, entries: int, candidates: int, blocks: int,
                   max_tables: int) -> None:
        """A schedule of at most ``MAX_MATCHES`` matches (counted without building it)."""
        tables = table_count(entries, seats, format, max_tables, candidates)
        matches = tables * blocks * seats
        if matches > MAX_MATCHES:
            self.problem("blocks", f"the schedule would have {matches:,} matches ({tables:,} tables x {blocks:,} "
                                   f"blocks x {seats} seats), over the limit of {MAX_MATCHES:,}; lower blocks "
                                   "or max_tables, or split the tournament")

    def check_seats(
        self,
        format: str | None,
        game_options: Mapping[str, Any] | None,
        agents: list[AgentEntry] | None,
        candidates: tuple[str, ...],
    ) -> None:
        """Round-robin needs at least as many entries as seats; a gauntlet needs seats - 1 field entries."""
        if game_options is None or agents is None or format is None or not self.entries_complete:
            return  # the problem that prevents counting is reported already
        seats = game_options["players"]
        entries = len({entry.name for entry in agents})
        found = BY_NAME[format].seats_problem(entries, len(candidates), seats, self.label)
        if found is not None:
            self.problem(*found)
