"""A ladder's field: starting a ladder from its config, opening it by name, adding and retiring entries.

Entries are versioned: an entry is one agent at one version with one set of plugin files (the
tournament store's ``entries`` table keeps both), so a new version joins as a new entry under a new
name, and an installed plugin that no longer matches an active entry's stored version or files
refuses to play it (retire it, and add the new version).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from arena.ladder.config import LadderConfig, LadderSettings
from arena.ladder.store import LadderEntry, LadderStore, is_ladder
from arena.referee import Limits
from arena.tournament.config import ENTRY_PATTERN, NAME_MAX, AgentEntry, TournamentConfig
from arena.tournament.errors import RequestError
from arena.tournament.schedule import ROUND_ROBIN
from arena.tournament.store import SCHEMA_VERSION, Store, StoreError, store_path, version_changes


class LadderError(Exception):
    """A ladder command that cannot go on as asked; one-line message.  ``entry`` names the entry to blame when
    one is (an entry that failed to start in each of its first matches, ``cause`` saying how), else None."""

    def __init__(self, message: str, entry: str | None = None, cause: str = "") -> None:
        super().__init__(message)
        self.entry = entry
        self.cause = cause


class LadderRequestError(LadderError, RequestError):
    """A ladder asked for what it does not hold or allow: no such ladder or entry, another config, a bad name."""


@dataclass(frozen=True, slots=True)
class Ladder:
    """A ladder as stored: its config (every entry that ever joined) and its entries' joining and leaving."""

    config: LadderConfig  # settings, and the tournament part with every entry that joined, in order
    entries: tuple[LadderEntry, ...]  # in order of joining

    @property
    def name(self) -> str:
        """The ladder's name."""
        return self.config.name

    @property
    def settings(self) -> LadderSettings:
        """The ``[ladder]`` settings."""
        return self.config.settings

    @property
    def active(self) -> tuple[str, ...]:
        """Entries still scheduled, in order of joining."""
        return tuple(entry.name for entry in self.entries if entry.active)

    def entry(self, name: str) -> LadderEntry:
        """The entry called ``name``; ``LadderError`` naming the entries if there is none."""
        for entry in self.entries:
            if entry.name == name:
                return entry
        names = ", ".join(entry.name for entry in self.entries)
        raise LadderRequestError(f"ladder {self.name!r} has no entry {name!r} (entries: {names})")

    def playing(self) -> TournamentConfig:
        """The tournament config of the active entries: what the runner plays."""
        active = set(self.active)
        return replace(self.config.tournament, agents=tuple(a for a in self.config.tournament.agents
                                                           if a.name in active))


def _tournament_from_json(data: Mapping[str, Any], agents: Sequence[Mapping[str, Any]]) -> TournamentConfig:
    """The tournament part of a stored (already validated) ladder config, with ``agents`` as its entries."""
    return TournamentConfig(
        name=data["name"], game=data["game"], seed=data.get("seed"), format=ROUND_ROBIN, blocks=1, max_tables=1,
        ratings=tuple(data["ratings"]), isolation=data["isolation"], game_options=dict(data["game_options"]),
        limits=Limits(**data["limits"]),
        agents=tuple(AgentEntry(name=a["name"], plugin=a["plugin"], options=dict(a.get("options", {})),
                                isolation=a.get("isolation")) for a in agents),
        source="<stored ladder>",
        **{key: data[key] for key in ("max_startup_faults", "fault_share") if key in data},
    )


def read_ladder(store: LadderStore) -> Ladder:
    """The ladder a store holds."""
    data = store.store.meta("ladder")
    if not isinstance(data, dict):
        raise LadderRequestError(f"{store.store.path}: not a ladder (it holds a tournament: see 'arena leaderboard')")
    entries = tuple(store.entries())
    tournament = _tournament_from_json(data, [entry.entry for entry in entries])
    settings = LadderSettings(**data["ladder"])
    return Ladder(config=LadderConfig(tournament=tournament, settings=settings), entries=entries)


def ladder_path(leaderboards: Path | str, name: str) -> Path:
    """The store of ladder ``name``; ``LadderError`` saying how to start one if there is none."""
    try:
        path = store_path(leaderboards, name)
    except StoreError as error:
        raise LadderRequestError(str(error)) from None
    if not path.is_file():
        raise LadderRequestError(f"no ladder {name!r} in {leaderboards}; start one with 'arena ladder run CONFIG' "
                                 "(a config with format = \"ladder\")")
    return path


def open_ladder(leaderboards: Path | str, name: str) -> LadderStore:
    """Open ladder ``name`` to write; ``LadderError`` if there is none, or the store holds a tournament."""
    return _open(ladder_path(leaderboards, name))


def _open(path: Path) -> LadderStore:
    with Store.open_readonly(path) as store:  # look before writing: a tournament's store gains no ladder tables
        if store.meta("config") is not None and not is_ladder(store.db):
            raise LadderRequestError(f"{path}: holds a tournament, not a ladder; give the ladder another name")
    return LadderStore(path)


def start_ladder(config: LadderConfig, leaderboards: Path | str) -> LadderStore:
    """Open the ladder of ``config``, creating it with its starting field if it does not exist yet.

    An existing ladder must have been started with the same config (its entries added since are its
    own); anything else is refused, naming the keys that differ.
    """
    path = store_path(leaderboards, config.name)
    store = _open(path) if path.is_file() else LadderStore(path)
    try:
        started = store.store.meta("ladder")
        wanted = config.to_json()
        if started is None:
            with store.transaction():
                for entry in config.tournament.agents:
                    store.add_entry(entry.to_json(), "config")
                _write_meta(store, {"schema": SCHEMA_VERSION, "ladder": wanted, "config": wanted})
        elif started != wanted:
            keys = sorted(key for key in {*started, *wanted} if started.get(key) != wanted.get(key))
            raise LadderRequestError(
                f"{path} holds ladder {config.name!r} started from another config (it differs in: "
                f"{', '.join(keys)}); run it by name ('arena ladder run {config.name}'), add entries "
                "with 'arena ladder add', or give the config another name")
    except BaseException:
        store.close()
        raise
    return store


def _write_meta(store: LadderStore, values: Mapping[str, Any]) -> None:
    """Meta values written inside the caller's transaction."""
    store.db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                         [(key, json.dumps(value, sort_keys=True)) for key, value in values.items()])


def _field_changed(store: LadderStore) -> None:
    """Keep the stored tournament-shaped config's ``agents`` (which ``arena leaderboard`` reads) = every entry."""
    config = dict(store.store.meta("config") or {})
    config["agents"] = [entry.entry for entry in store.entries()]
    _write_meta(store, {"config": config})


def check_entry_name(ladder: Ladder, name: str) -> None:
    """A valid entry name not taken by any entry that ever joined; ``LadderError`` otherwise."""
    if not ENTRY_PATTERN.fullmatch(name) or len(name) > NAME_MAX:
        raise LadderRequestError(f"entry name {json.dumps(name[:40])}: expected letters, digits, '_', '.', '+' "
                                 f"and '-', starting with a letter or digit, at most {NAME_MAX} characters")
    if any(entry.name == name for entry in ladder.entries):
        raise LadderRequestError(f"ladder {ladder.name!r} already has an entry {name!r}; a new version joins as a new "
                                 f"entry: give it its own name, e.g. {name}-2")


def same_agent(ladder: Ladder, versions: Mapping[str, Mapping[str, str]], entry: AgentEntry,
               version: Mapping[str, str]) -> str | None:
    """The active entry that already is ``entry``'s agent (same agent, options, version and files), if any."""
    for other in ladder.entries:
        stored = versions.get(other.name)
        if (other.active and stored is not None and other.entry.get("options", {}) == dict(entry.options)
                and all(stored[key] == version[key] for key in ("agent", "version", "files"))):
            return other.name
    return None


def add_entry(store: LadderStore, entry: AgentEntry, version: Mapping[str, str], check: Mapping[str, Any]) -> None:
    """Record ``entry`` joining the field, with its agent's version and files, and the check it passed.

    One transaction: an active entry without its stored version would escape ``check_versions``.
    """
    with store.transaction():
        store.add_entry(entry.to_json(), json.dumps(dict(check), sort_keys=True), version)
        _field_changed(store)


def retire_entry(store: LadderStore, ladder: Ladder, name: str) -> None:
    """Schedule ``name`` no more; its matches and history stay."""
    if not ladder.entry(name).active:
        raise LadderRequestError(f"entry {name!r} of ladder {ladder.name!r} is already retired")
    with store.transaction():
        store.retire_entry(name)


def check_versions(ladder: Ladder, stored: Mapping[str, Mapping[str, str]],
                   current: Mapping[str, Mapping[str, str]]) -> None:
    """Refuse to play an active entry whose installed agent is not the version (or files) it joined with."""
    for name in ladder.active:
        before, now = stored.get(name), current[name]
        if before is None:
            continue
        changes = version_changes(before, now)
        if changes:
            plugin = ladder.config.tournament.entry(name).plugin
            raise LadderError(
                f"entry {name!r} changed since it joined ({'; '.join(changes)}); a new version is a new entry: "
                f"'arena ladder retire {ladder.name} {name}', then 'arena ladder add {ladder.name} "
                f"{name}-{now['version']} --plugin {plugin}' (or reinstall {before['agent']} {before['version']})")
