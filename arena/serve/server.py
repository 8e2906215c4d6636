"""Run a competition: load its config, start the checker and the player as child processes, serve the app.

The workers are separate processes (``python -m arena.serve.worker``) so that matches and checks never
hold up a page, and each holds a lock file so that two of a kind never run at once (a worker of a killed
server, until it notices, and the new server's).  A worker asks the kernel to stop it when the server
goes (``PR_SET_PDEATHSIG``), however the server ends, ``kill -9`` included; everything it does is
recorded as it goes (arena.serve.db, the ladder's store), so the next start resumes.  While it serves, the
server restarts a worker that ended (arena.serve.supervisor).
"""

from __future__ import annotations

import dataclasses
import os
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from arena.ladder.config import LadderConfig, ladder_from_dict
from arena.plugin_system.extensions import install
from arena.plugin_system.loading import load_registry
from arena.serve.config import ServeSettings, split_config
from arena.tournament.config import ConfigError

SANDBOXED = "sandboxed"


@dataclass(frozen=True, slots=True)
class Competition:
    """A loaded serve config: the ladder and the ``[serve]`` settings."""

    ladder: LadderConfig  # every seat sandboxed
    settings: ServeSettings


def load_competition(path: Path) -> Competition:
    """Read and validate a serve config; ``ConfigError`` (one line per problem) otherwise.

    Every seat of a served competition runs in the full sandbox, the built-in anchors included, so that
    no entry gains from running in-process: a config asking for another isolation is refused.  Its deals are
    secret: a config that sets ``seed`` is refused.
    """
    data, settings = split_config(path)
    isolation = data.setdefault("isolation", SANDBOXED)
    problems = []
    if "seed" in data:
        # A public seed makes the deals public: an upload that knows it finds its table and block from its own
        # agent seed (arena.tournament.ids) and deals every hand. Without one, the ladder keys deal and agent
        # seeds with its store's secret key.
        problems.append(f"{path}: seed: a served competition keeps its deals secret (an uploaded agent could "
                        f"rebuild every hand from its own seed and the public one); remove seed = {data['seed']!r}")
    if isolation != SANDBOXED:
        problems.append(f"{path}: isolation: a served competition runs every seat sandboxed (the anchors too); "
                        f"remove isolation = {isolation!r} or set it to \"sandboxed\"")
    for agent in data.get("agents", ()) if isinstance(data.get("agents"), list) else ():
        if isinstance(agent, dict) and agent.get("isolation", SANDBOXED) != SANDBOXED:
            problems.append(f"{path}: agents: {agent.get('name')!r} asks for isolation {agent['isolation']!r}; a "
                            "served competition runs every seat sandboxed")
    if problems:
        raise ConfigError(problems)
    # arena's own plugins and the installed ones; the trusted among them (ARENA_PLUGINS_TRUST) may add rating
    # methods, formats and views, as for `arena ladder run`. Uploads are never among them.
    loaded = install(load_registry(plugins_dir=None).registry)
    ladder = ladder_from_dict(data, {name: game.info for name, game in loaded.games.items()},
                              {name: set(spec.games) for name, spec in loaded.agents.items()}, source=str(path),
                              agent_options={name: spec.options for name, spec in loaded.agents.items()})
    if settings.batch_matches == 0:
        settings = dataclasses.replace(settings, batch_matches=ladder.seats * ladder.settings.batch_blocks)
    return Competition(ladder=ladder, settings=settings)


def sandbox_problem() -> str | None:
    """Why uploads cannot be played here (no full sandbox), or None."""
    from arena.referee.confinement import sandbox_level

    level = sandbox_level()
    if level == "full":
        return None
    return (f"'arena serve' needs the full sandbox for uploads, and this machine offers {level!r}; "
            "'arena doctor' says what is missing")


def start_worker(kind: str, config: Path, extra: list[str]) -> subprocess.Popen[bytes]:
    """Start worker ``kind`` ("checker" or "player") for the competition of ``config``."""
    return subprocess.Popen([sys.executable, "-m", "arena.serve.worker", kind, str(config), str(os.getpid()),
                             *extra])


class ServeError(Exception):
    """The server cannot start (its folder) or go on (a worker that keeps ending); one line."""


NAME_FILE = "competition-name"
"""The file in a competition's folder that names the competition it keeps."""


def claim_folder(config: Path, competition: Competition) -> None:
    """Record in the competition's folder the name of the competition it keeps, the first time; ``ServeError``
    naming both if it keeps another one.

    A copied config whose name was changed and whose ``folder`` was not would otherwise share the first
    competition's participants, uploads and database without a word."""
    folder = competition.settings.folder
    name = competition.ladder.name
    path = folder / NAME_FILE
    try:
        kept = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        path.write_text(name + "\n", encoding="utf-8")
        return
    if kept != name:
        raise ServeError(f"{config}: [serve] folder {folder} keeps the competition {kept!r}, not {name!r}: give "
                         f"{name!r} a folder of its own")


def prepare(config: Path, competition: Competition) -> bytes:
    """Make the competition's folder, its secret, database and ladder (each only if new); the secret.

    ``ServeError`` naming ``[serve] folder`` if the folder cannot be made or written or keeps a competition of
    another name (``claim_folder``); ``LadderError`` if the
    ladder there was started from another config (the keys that differ)."""
    import sqlite3

    from arena.ladder.field import start_ladder
    from arena.serve.auth import load_secret
    from arena.serve.db import ServeDB
    from arena.serve.player import LEADERBOARDS

    folder = competition.settings.folder
    try:
        claim_folder(config, competition)
        secret = load_secret(folder)
        ServeDB(folder).close()
    except (OSError, sqlite3.Error) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise ServeError(f"{config}: [serve] folder: cannot keep the competition in {folder}: {reason}") from None
    # Here rather than in the player: a ladder started from another config is one line before anything starts,
    # not a worker that fails at every restart.
    start_ladder(competition.ladder, folder / LEADERBOARDS).close()
    return secret


def serve(config: Path, competition: Competition, listener: socket.socket, secret: bytes, extra: list[str]) -> int:
    """Start both workers, serve the app on ``listener`` until stopped, then stop the workers; ``ServeError`` if a
    worker kept ending (arena.serve.supervisor)."""
    import uvicorn

    from arena.serve.app import AppSettings, create_app
    from arena.serve.listen import Server
    from arena.serve.storage import remove_partial
    from arena.serve.supervisor import Supervisor

    def give_up() -> None:  # from the supervisor's thread: uvicorn looks at should_exit every tenth of a second
        server.should_exit = True

    settings = competition.settings
    remove_partial(settings.folder)
    app = create_app(AppSettings(folder=settings.folder, ladder=competition.ladder.name,
                                 game=competition.ladder.tournament.game, limits=settings.limits, secret=secret,
                                 self_registration=settings.self_registration))
    supervisor = Supervisor(lambda kind: start_worker(kind, config, extra), ("checker", "player"), give_up)
    # proxy_headers: behind a TLS-terminating proxy on this machine, the scheme (Secure cookies) and
    # the client's address (the rate limit) come from its X-Forwarded-* headers (docs/serve.md).
    server = Server(uvicorn.Config(app, log_level="warning", proxy_headers=True, forwarded_allow_ips="127.0.0.1",
                                   server_header=False), on_exit=supervisor.quiet)
    supervisor.start()
    try:
        server.run(sockets=[listener])
    finally:
        supervisor.stop()
        listener.close()
    if supervisor.failure is not None:
        raise ServeError(supervisor.failure)
    return 0
