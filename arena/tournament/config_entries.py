"""Checking a config's entries: its ``[[agents]]`` (names, agents, options, isolation) and a format's candidates."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from arena.agent import ANY_GAME
from arena.games.base import GameInfo
from arena.referee.seats import ISOLATION_MODES
from arena.seating.options import NO_OPTIONS, AgentOptions, OptionError
from arena.tournament.config_checks import Checks, is_json, listing, show, suggest
from arena.tournament.config_types import ENTRY_PATTERN, MAX_ENTRIES, NAME_MAX, AgentEntry
from arena.tournament.formats import BY_NAME

AGENT_KEYS = ("name", "plugin", "options", "isolation")
GAUNTLET_KEYS = ("candidates",)


class EntryChecks(Checks):
    """The checks of a config's entries, against the agents this process knows."""

    def __init__(self, source: str, known_agents: Mapping[str, Collection[str]],
                 agent_options: Mapping[str, AgentOptions] | None) -> None:
        super().__init__(source)
        self.known_agents = known_agents  # agent name -> the games it plays
        self.agent_options = agent_options  # agent name -> the options it declares (None: not checked)
        self.entries_complete = False  # every [[agents]] entry had a usable name

    def check_agents(self, data: Mapping[str, Any], info: GameInfo | None) -> list[AgentEntry] | None:
        """The entries, or None when ``agents`` itself is unusable."""
        value = data.get("agents")
        if value is None:
            self.problem("agents", "missing; expected [[agents]] sections, one per entry")
            return None
        if not isinstance(value, list) or not all(isinstance(item, Mapping) for item in value):
            self.problem("agents", f"expected an array of tables ([[agents]] sections), got {show(value)}")
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
                    f"or digit, at most {NAME_MAX} characters, got {show(name)}",
                )
                self.entries_complete = False
                continue
            if name in first_index:
                self.problem(
                    f"{prefix}.name",
                    f"duplicate entry name {show(name)} (also agents[{first_index[name]}]); give each entry its "
                    f'own name, e.g. "{name}-2" with plugin = "{item.get("plugin", name)}"',
                )
                self.entries_complete = False  # counting entries would add a second, misleading problem
            else:
                first_index[name] = index
            plugin = self.check_plugin(item, prefix, name, info)
            options = item.get("options", {})
            if not isinstance(options, Mapping):
                self.problem(f"{prefix}.options", f"expected a table of agent options, got {show(options)}")
                options = {}
            elif not is_json(options):
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
            self.problem(key, f"expected a registered agent name (known: {listing(known)}), got {show(plugin)}")
            return None
        if plugin not in known:
            self.problem(
                key, f"unknown agent {show(plugin)}{suggest(plugin, known)}{defaulted} (known: {listing(known)})"
            )
            return None
        if info is not None and not {info.name, ANY_GAME} & set(known[plugin]):
            plays = listing(known[plugin])
            players = sorted(agent for agent, games in known.items() if {info.name, ANY_GAME} & set(games))
            self.problem(
                key,
                f"agent {show(plugin)} does not play {info.name} (it plays: {plays}; agents for {info.name}: "
                f"{listing(players)})",
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
                f"{table}.candidates", f"expected a non-empty array of entry names, got {show(value)}"
            )
            return ()
        names = [entry.name for entry in agents or ()]
        candidates: list[str] = []
        for index, candidate in enumerate(value):
            key = f"{table}.candidates[{index}]"
            if agents is not None and candidate not in names:
                self.problem(
                    key, f"{show(candidate)} is not an entry{suggest(candidate, names)} (entries: {', '.join(names)})"
                )
            elif candidate in candidates:
                self.problem(key, f"{show(candidate)} is listed twice")
            else:
                candidates.append(candidate)
        return tuple(candidates)
