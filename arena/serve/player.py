"""The ladder worker: admit accepted uploads to the competition's ladder, play a batch, publish; again.

Between two runs of the ladder (never during one: the ladder's store is one writer's at a time) each
accepted upload joins as a new entry, ``USER.AGENT.vN``, and the same participant's previous version of
that agent is retired (its matches and history stay).  The ladder plays from a plugins folder holding
exactly the active uploads, each under a name made from its content hash; the folder's own name is a
hash of that set (``plugins/g...``), so a changed field is a new folder, which every process loads
afresh (a match worker keeps the registry of a folder it has loaded, and its zygotes, which are stopped once a
new folder takes over).  Then ``arena.ladder.run_ladder``
plays ``batch`` matches (newcomers first, as ``arena ladder run`` does), storing each match as it ends,
and ``arena.leaderboard.publish`` rewrites the site the server shows.  A worker killed at any point resumes: an
interrupted run is finished with ``resume``, and an admission half done is completed (each of its steps
is idempotent).  When every rating method fails (a trusted plugin's that raises), the batch stays stored, the
last site and leaderboards published stay, one line says why, and the ladder plays on: the worker does not end.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

from arena.ladder.config import LadderConfig
from arena.ladder.field import LadderError, add_entry, open_ladder, read_ladder, retire_entry, start_ladder
from arena.ladder.runner import run_ladder
from arena.leaderboard.publish import NothingRated, publish
from arena.plugin_system.loading import load_registry
from arena.program import cache
from arena.program.build import BuildError, output_folder
from arena.program.manifest import ManifestError, is_manifest_folder, read_manifest
from arena.serve import fielding
from arena.serve.archives import read_upload
from arena.serve.checker import plugin_name, version_problem
from arena.serve.config import SEAT_LOG_MATCHES, ServeLimits
from arena.serve.db import ServeDB, Upload
from arena.serve.storage import blob_path
from arena.tournament.config import ENTRY_PATTERN, NAME_MAX, AgentEntry
from arena.tournament.errors import TournamentError
from arena.tournament.playing import Worker
from arena.tournament.runner import entry_versions

PLUGINS = "plugins"
LEADERBOARDS = "leaderboards"


def entry_name(upload: Upload) -> str:
    """The ladder entry of an accepted upload: ``USER.AGENT.vN`` (or ``USER.uID`` if that is not a valid name)."""
    name = f"{upload.user}.{upload.agent}.v{upload.version}"
    return name if ENTRY_PATTERN.fullmatch(name) and len(name) <= NAME_MAX else f"{upload.user}.u{upload.id}"


def admit(folder: Path, db: ServeDB, config: LadderConfig, limits: ServeLimits) -> list[str]:
    """Retire what owners asked to retire (and what revoked participants' tokens left), then let every accepted
    upload not yet playing join the ladder; the entries that joined."""
    revoked = {user.name for user in db.users() if user.revoked is not None}
    for upload in db.waiting_to_join():
        if upload.user in revoked:  # checked after its owner's token was revoked: it never joins
            db.ask_retire(upload.id)
    waiting = db.waiting_to_join()
    leaving = db.retire_asked()
    if not waiting and not leaving:
        return []
    leaderboards = folder / LEADERBOARDS
    joined: list[str] = []
    with open_ladder(leaderboards, config.name) as store:
        for upload in leaving:
            ladder = read_ladder(store)
            if upload.entry is not None and ladder.entry(upload.entry).active:
                retire_entry(store, ladder, upload.entry)
            db.retire(upload.id)
        for upload in waiting:
            ladder = read_ladder(store)
            for older in db.uploads(user=upload.user):
                if older.agent == upload.agent and older.entry is not None and older.retired is None:
                    if ladder.entry(older.entry).active:
                        retire_entry(store, ladder, older.entry)
                    db.retire(older.id)
            name = entry_name(upload)
            if not any(entry.name == name for entry in read_ladder(store).entries):
                alone = folder / "work" / f"join-{upload.id}"
                shutil.rmtree(alone, ignore_errors=True)
                alone.mkdir(parents=True)
                _write(folder, upload, alone, limits)
                assert upload.agent is not None
                entry = AgentEntry(name=name, plugin=upload.agent, options={}, isolation=None)
                registry = load_registry(plugins_dir=alone).registry
                single = dataclasses.replace(config.tournament, agents=(entry,))
                try:
                    version = entry_versions(single, registry)[name]
                    # Its check saw a plain version; loaded here, it may say another (it sees the path).
                    problem = version_problem(version["version"])
                except TournamentError as error:  # its check saw its agent; loaded here, it is not the same
                    problem = str(error)
                if problem is not None:
                    shutil.rmtree(alone, ignore_errors=True)
                    fielding.drop(leaderboards, db, config, upload, f"it cannot join: {problem}")
                    continue
                add_entry(store, entry, version, {"check": "passed", "upload": upload.id, "user": upload.user,
                                                  "version": version["version"], "files": version["files"]})
                shutil.rmtree(alone, ignore_errors=True)
            db.joined(upload.id, name)
            joined.append(name)
    return joined


def _write(folder: Path, upload: Upload, plugins: Path, limits: ServeLimits) -> None:
    """Unpack ``upload``'s stored file into ``plugins`` under its plugin name."""
    data = blob_path(folder, upload.sha256).read_bytes()
    read_upload(upload.filename, data, limits).write(plugins, plugin_name(upload))


def active_plugins(folder: Path, db: ServeDB, limits: ServeLimits) -> Path:
    """The plugins folder of the uploads now playing (made if new; the folders of earlier fields removed)."""
    field = playing(db)
    key = hashlib.sha256(" ".join(sorted(upload.sha256 for upload in field)).encode()).hexdigest()[:16]
    root = folder / PLUGINS
    target = root / f"g{key}"
    if not target.is_dir():
        partial = root / f".g{key}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        for upload in field:
            _write(folder, upload, partial, limits)
        partial.rename(target)  # whole or absent: a worker killed meanwhile leaves only the partial folder
    for other in root.iterdir():
        if other == target:
            continue
        if other.is_dir() and not other.is_symlink():
            shutil.rmtree(other, ignore_errors=True)
        else:
            other.unlink(missing_ok=True)
    return target


def close_earlier_generations(plugins: Path) -> int:
    """Stop the zygotes (arena.referee.host) this process keeps for the plugins folders played before
    ``plugins``; how many folders' worth.

    The match player keeps, per plugins folder, its registry and a zygote for each plugin it seated
    (``arena.tournament.playing.Worker``), which is right for a tournament's one folder. Here every admission
    makes a new folder, and an earlier folder's zygotes (tens of MB each, their folder deleted) would stay
    until the player ends."""
    current = str(plugins.resolve())
    earlier = [key for key in Worker.cached if key != current]
    for key in earlier:
        Worker.cached.pop(key).host.close()
    return len(earlier)


def pin_builds(plugins: Path) -> None:
    """Mark the builds of the agent programs in ``plugins`` (the field) as used now.

    The build cache removes its least recently used builds past its bound after any new build (another upload's
    check), sparing those used in the last ``IN_USE_SECONDS``.  A playing program's build removed so (the ladder
    idle, or restarted) would be built again by the ladder, holding up each of its matches for as long as its
    build takes (up to the manifest's ``build_seconds``, an hour), which a build that tells the clock can stretch
    at every match.  Marked before every run, no playing program's build is ever that old."""
    for built in _builds_of(plugins):
        cache.touch(built)


@functools.lru_cache(maxsize=4)
def _builds_of(plugins: Path) -> tuple[Path, ...]:
    """The build folders of the agent programs in field folder ``plugins`` (named by its content: never stale)."""
    found = []
    for folder in sorted(plugins.iterdir()):
        try:
            if is_manifest_folder(folder):
                manifest = read_manifest(folder)
                if manifest.build:
                    found.append(output_folder(manifest))
        except (ManifestError, BuildError, OSError):
            continue  # it fails to start, and the field check or the start-up watch drops it
    return tuple(found)


def interrupted(folder: Path, name: str) -> bool:
    """Whether the ladder's last run was stopped before it finished (it is resumed, not started anew)."""
    with open_ladder(folder / LEADERBOARDS, name) as store:
        runs = store.runs()
    return bool(runs) and not runs[-1].finished


def play_once(folder: Path, plugins: Path, config: LadderConfig, batch: int, workers: int | None,
              address: str | None, seat_log_matches: int = SEAT_LOG_MATCHES) -> int:
    """Play one run of at most ``batch`` matches (finishing an interrupted one first), drop the seats' output of
    all but the latest ``seat_log_matches`` matches, and publish; matches played, 0 when the field is smaller
    than a table."""
    leaderboards = folder / LEADERBOARDS
    with open_ladder(leaderboards, config.name) as store:
        active = len(read_ladder(store).active)
    if active < config.seats:
        return 0
    resume = interrupted(folder, config.name)
    summary = run_ladder(config.name, leaderboards=leaderboards, plugins_dir=plugins,
                         matches=None if resume else batch, resume=resume, workers=workers, address=address)
    with open_ladder(leaderboards, config.name) as store:
        store.store.prune_seat_logs(seat_log_matches)
    try:
        publish(summary.ladder.config.tournament, leaderboards, plugins_dir=plugins)
    except NothingRated as error:  # nothing written: the last site and leaderboards stay as they were
        print(f"arena serve: {config.name}: played {summary.played} matches, stored, and not published (the last "
              f"site and leaderboards stay): {error}", file=sys.stderr, flush=True)
    return summary.played


def field_plugins(folder: Path, db: ServeDB, config: LadderConfig, limits: ServeLimits) -> Path:
    """The plugins folder of the playing uploads, once every upload that cannot play from it is dropped
    (``arena.serve.fielding``)."""
    while True:
        plugins = active_plugins(folder, db, limits)
        if fielding.settle(folder / LEADERBOARDS, db, config, plugins, playing(db)):
            return plugins


def playing(db: ServeDB) -> list[Upload]:
    """The uploads in the ladder now."""
    return [upload for upload in db.uploads() if upload.entry is not None and upload.retired is None]


FAILED_RUN_PAUSE = 5.0
"""Seconds the player waits after a run that failed, before it checks the field again."""


def run_player(folder: Path, config: LadderConfig, limits: ServeLimits, batch: int, stop: Callable[[], bool],
               workers: int | None = None, address: str | None = None, idle: float = 0.5) -> None:
    """Admit and play until ``stop()``.

    A new field is checked as the ladder loads it before it plays (``field_plugins``).  A run that still fails
    on the field (an upload that changed its mind between the two loads) costs one line and a pause, and the
    field is checked again: an upload can stop its own entry, never the ladder.
    """
    start_ladder(config, folder / LEADERBOARDS).close()
    checked: Path | None = None
    with ServeDB(folder) as db:
        while not stop():
            admit(folder, db, config, limits)
            plugins = active_plugins(folder, db, limits)
            if plugins != checked:
                plugins = checked = field_plugins(folder, db, config, limits)
            close_earlier_generations(plugins)
            pin_builds(plugins)
            try:
                played = play_once(folder, plugins, config, batch, workers, address, limits.seat_log_matches)
            except (LadderError, TournamentError) as error:
                blamed = next((upload for upload in playing(db) if upload.entry == getattr(error, "entry", None)),
                              None)
                if blamed is not None:  # its seats crashed at start-up in every first match: it alone goes
                    fielding.drop(folder / LEADERBOARDS, db, config, blamed, "it failed to start in each of its "
                                  f"first matches ({' '.join(getattr(error, 'cause', '').split())[:200]})")
                    continue
                print(f"arena serve: {config.name}: the run stopped: {error}; the field is checked again",
                      file=sys.stderr, flush=True)
                checked = None
                time.sleep(FAILED_RUN_PAUSE)
                continue
            if not played:
                time.sleep(idle)
