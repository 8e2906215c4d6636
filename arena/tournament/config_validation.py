"""Validating parsed config data (``ConfigValidator``, run by ``config_from_dict``): every problem, one line each.

The whole config's keys are checked here; its entries in ``config_entries``, on the checks of ``config_checks``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from arena.games.base import GameInfo, InvalidSetup
from arena.inputs import bounded_json
from arena.referee.limits import MAX_CPUS, MAX_MEMORY_MB, Limits
from arena.referee.seats import ISOLATION_MODES
from arena.seating.options import AgentOptions
from arena.tournament.config_checks import TOP_KEYS, is_int, is_number, listing, misplaced_hint, show, suggest
from arena.tournament.config_entries import EntryChecks
from arena.tournament.config_types import (
    DEFAULT_BLOCKS,
    DEFAULT_FAULT_SHARE,
    DEFAULT_FORMAT,
    DEFAULT_ISOLATION,
    DEFAULT_LIMITS,
    DEFAULT_MAX_STARTUP_FAULTS,
    DEFAULT_MAX_TABLES,
    DEFAULT_SEED,
    LADDER_FORMAT,
    MAX_MATCHES,
    MAX_TABLES,
    NAME_MAX,
    NAME_PATTERN,
    AgentEntry,
    ConfigError,
    TournamentConfig,
)
from arena.tournament.formats import BY_NAME, format_names
from arena.tournament.schedule import table_count

LIMIT_KEYS = ("move_seconds", "bank_seconds", "startup_seconds", "memory_mb", "cpus")


class ConfigValidator(EntryChecks):
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
        super().__init__(source, known_agents, agent_options)
        self.label = label  # what messages call the config's round-robin: "a ladder" when it is a ladder's
        self.known_games = known_games
        if known_ratings is None:  # imported here: the rating methods bring scipy, which reading a config does not need
            from arena.ratings.registry import method_names, method_spec

            known_ratings = method_names()
            # Without a ratings list, every method but those that value each match's luck as it is played
            # (docs/ratings.md, "Luck": up to 0.7 s of CPU a match), which a config asks for by name.
            self.default_ratings = tuple(name for name in known_ratings if not method_spec(name).luck)
        else:
            self.default_ratings = tuple(known_ratings)
        self.known_ratings = tuple(known_ratings)

    def run(self, data: Mapping[str, Any]) -> TournamentConfig:
        if not isinstance(data, Mapping):
            raise ConfigError([f"{self.source}: expected a TOML document (a table), got {show(data)}"])
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
                f"at most {NAME_MAX} characters (it names leaderboards/<name>/), got {show(name)}",
            )

        info = self.check_game(data)
        seed = self.integer(data, "seed", DEFAULT_SEED, 0, "an integer from 0 to 2**63-1 (or no seed: secret deals)")
        format = self.choice(data.get("format", DEFAULT_FORMAT), "format", format_names(), "a tournament format")
        blocks = self.integer(data, "blocks", DEFAULT_BLOCKS, 1,
                              f"a positive integer up to {MAX_MATCHES:,} (duplicate blocks per table)",
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
        if not is_number(fault_share) or not 0 <= fault_share <= 1:
            self.problem("fault_share", f"expected a number from 0 to 1 (a share of matches), got {show(fault_share)}")
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
            self.problem("game", f"missing; expected a game name (known: {listing(known)})")
            return None
        if not isinstance(game, str):
            self.problem("game", f"expected a game name (known: {listing(known)}), got {show(game)}")
            return None
        if game not in known:
            self.problem("game", f"unknown game {show(game)}{suggest(game, known)} (known: {listing(known)})")
            return None
        return known[game]

    def check_ratings(self, data: Mapping[str, Any]) -> tuple[str, ...]:
        value = data.get("ratings", list(self.default_ratings))
        what = f"a non-empty array of rating methods from: {', '.join(self.known_ratings)}"
        if not isinstance(value, list) or not value:
            self.problem("ratings", f"expected {what}, got {show(value)}")
            return self.known_ratings
        ratings: list[str] = []
        for index, method in enumerate(value):
            key = f"ratings[{index}]"
            if not isinstance(method, str) or method not in self.known_ratings:
                hint = suggest(method, self.known_ratings) if isinstance(method, str) else ""
                self.problem(
                    key, f"unknown rating method {show(method)}{hint} (known: {', '.join(self.known_ratings)})"
                )
            elif method in ratings:
                self.problem(key, f"rating method {show(method)} is listed twice")
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
                hint = "" if key in known else misplaced_hint(key, "game_options.") or suggest(key, known)
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
        if not is_int(memory) or not 1 <= memory <= MAX_MEMORY_MB:
            self.problem("limits.memory_mb",
                         f"expected a positive integer up to {MAX_MEMORY_MB:,} (megabytes), got {show(memory)}")
            memory = DEFAULT_LIMITS.memory_mb
        cpus = limits.get("cpus", DEFAULT_LIMITS.cpus)
        if not is_number(cpus) or not 0 < cpus <= MAX_CPUS:
            self.problem("limits.cpus", f"expected a number of cores > 0 and <= {MAX_CPUS:g}, got {show(cpus)}")
            cpus = DEFAULT_LIMITS.cpus
        return Limits(
            move_seconds=self.number(limits, "move_seconds", DEFAULT_LIMITS.move_seconds, True, "limits."),
            bank_seconds=self.number(limits, "bank_seconds", DEFAULT_LIMITS.bank_seconds, False, "limits."),
            startup_seconds=self.number(limits, "startup_seconds", DEFAULT_LIMITS.startup_seconds, True, "limits."),
            memory_mb=memory,
            cpus=float(cpus),
        )

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
