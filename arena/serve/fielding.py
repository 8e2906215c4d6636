"""The ladder's own check of its field: in the folder the ladder plays from, each upload registers its agent alone.

An upload's check loads it alone, from a folder of its own; the ladder loads every playing upload together,
from another folder.  Code can tell the two apart (its path, the time, a coin), so what the check saw proves
nothing about the ladder: an upload could register nothing there (its entry would be unknown, and the run
would fail every time the worker starts) or also register a rival's agent name (a name two plugins claim is
given to neither, which takes the rival out of the ladder).  So each new field is loaded as the ladder will
load it, and an upload that there fails to load, registers another name, loses its own, no longer plays the
game, or says another version than it joined with (the ladder would refuse to play the whole field, run after
run) is dropped: retired from the ladder, with the reason its owner reads.  The owner of a contested name keeps
it once the upload that contested it is gone.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from arena.ladder.config import LadderConfig
from arena.ladder.field import open_ladder, read_ladder, retire_entry
from arena.plugin_system.loading import PluginManager, load_registry
from arena.plugin_system.registry import Registry
from arena.serve.checker import plugin_name
from arena.serve.db import ServeDB, Upload
from arena.tournament.config import AgentEntry, TournamentConfig
from arena.tournament.errors import TournamentError
from arena.tournament.runner import entry_versions
from arena.tournament.store import version_changes

CONTEST = "agent not registered:"
"""What a contest line says (``arena.plugin_system.loading``): agent names cannot hold it, so no plugin can forge it."""


def problems(manager: PluginManager, uploads: Sequence[Upload], tournament: TournamentConfig,
             joined: Mapping[str, Mapping[str, str]]) -> dict[int, str]:
    """Upload id -> why the upload cannot play from the folder ``manager`` loaded (one line); the rest are fine.
    ``joined``: each entry's agent, version and files as it joined (the ladder refuses to play one that changed)."""
    registry, game = manager.registry, tournament.game
    found: dict[int, str] = {}
    for upload in uploads:
        plugin, agent = plugin_name(upload), upload.agent
        claims = {name for name, owner in registry.agent_plugin.items() if owner == plugin}
        claims |= {name for name, claimants in manager.contested.items() if plugin in claimants}
        failures = [line for line in registry.errors if f"plugin {plugin!r}" in line and CONTEST not in line]
        extra = sorted(claims - {agent or ""})
        if failures:
            found[upload.id] = "it failed to load: " + failures[0].split(": ", 1)[-1]
        elif extra:
            found[upload.id] = (f"it registers {', '.join(map(repr, extra))} besides its agent {agent!r} "
                                "(its check saw its agent alone)")
        elif agent not in claims:
            found[upload.id] = f"it does not register its agent {agent!r} (its check saw it)"
        elif agent in registry.agents and not registry.agents[agent].plays(game):
            found[upload.id] = f"its agent {agent!r} does not play {game} (its check saw it play)"
        elif upload.entry is not None and agent is not None and upload.entry in joined and \
                registry.agent_plugin.get(agent) == plugin:  # its own name (a contested one is settled first)
            changes = _changes(registry, tournament, upload.entry, agent, joined[upload.entry])
            if changes:  # the ladder would refuse to play the whole field, run after run
                found[upload.id] = f"it is not what joined the ladder ({changes})"
    return found


def _changes(registry: Registry, tournament: TournamentConfig, name: str, agent: str,
             before: Mapping[str, str]) -> str:
    """How entry ``name`` of ``agent``, loaded from ``registry``, differs from ``before`` (as it joined); "" if
    it does not."""
    entry = AgentEntry(name=name, plugin=agent, options={}, isolation=None)
    try:
        now = entry_versions(dataclasses.replace(tournament, agents=(entry,)), registry)[name]
    except TournamentError as error:
        return str(error)
    return "; ".join(version_changes(before, now))


def drop(folder: Path, db: ServeDB, config: LadderConfig, upload: Upload, reason: str) -> None:
    """Take ``upload`` out of the ladder for ``reason`` (told to its owner, and in one line on stderr)."""
    if upload.entry is not None:
        with open_ladder(folder, config.name) as store:
            ladder = read_ladder(store)
            if any(entry.name == upload.entry for entry in ladder.entries) and ladder.entry(upload.entry).active:
                retire_entry(store, ladder, upload.entry)
    db.drop(upload.id, f"removed from the ladder: in the ladder's folder {reason}")
    print(f"arena serve: {config.name}: upload {upload.id} of {upload.user} removed from the ladder: {reason}",
          file=sys.stderr, flush=True)


def settle(leaderboards: Path, db: ServeDB, config: LadderConfig, plugins: Path, playing: Sequence[Upload]) -> bool:
    """Load ``plugins`` (the folder of ``playing``) as the ladder will and drop every upload that cannot play
    from it; whether the field is as it was (nothing dropped)."""
    with open_ladder(leaderboards, config.name) as store:
        joined = store.store.versions()
    found = problems(load_registry(plugins_dir=plugins), playing, config.tournament, joined)
    for upload in playing:
        if upload.id in found:
            drop(leaderboards, db, config, upload, found[upload.id])
    return not found
