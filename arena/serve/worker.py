"""``python -m arena.serve.worker checker|player CONFIG PARENT [--workers N] [--address A]``: one worker.

Started by ``arena serve`` (arena.serve.server); stops when asked (SIGTERM), when its server goes (the
kernel's parent-death signal), and waits for the lock of its kind, so that a worker left by a killed
server and the new server's never run at once.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import signal
import sys
from pathlib import Path

from arena.program.build import CACHE_ENV
from arena.sandbox.process import die_with_parent


def _follow_parent(parent: int) -> None:
    """Be sent SIGTERM when the server ends; if it is gone already, stop now."""
    die_with_parent(signal.SIGTERM)  # without prctl, nothing: the lock still keeps two workers of a kind apart
    if os.getppid() != parent:
        raise SystemExit(0)


def main(argv: list[str] | None = None) -> int:
    """Run one worker until it is stopped."""
    parser = argparse.ArgumentParser(prog="arena.serve.worker")
    parser.add_argument("kind", choices=("checker", "player"))
    parser.add_argument("config", type=Path)
    parser.add_argument("parent", type=int)
    parser.add_argument("--workers", type=int)
    parser.add_argument("--address")
    args = parser.parse_args(argv)
    _follow_parent(args.parent)
    from arena.cli import stopping
    from arena.serve.checker import run_checker
    from arena.serve.player import run_player
    from arena.serve.server import load_competition

    stopping.install()  # SIGTERM stops the worker as Ctrl-C: a ladder run stores what it finished
    try:
        # A stop asked while the plugins load ends the worker after they have: discovery would take it for a
        # plugin's failure (a game "unknown", a worker that runs on).
        with stopping.deferred():
            competition = load_competition(args.config)
    except KeyboardInterrupt:
        return 0  # the server is stopping: nothing was started, nothing to say
    settings = competition.settings
    settings.folder.mkdir(parents=True, exist_ok=True)
    # Work in the competition's folder: the sandbox keeps the working directory, any folder holding it and its
    # leaderboards folder out of every seat's read paths (arena.sandbox.default_read_paths), so the folder with the
    # deal key, the reports and the uploads stays unreadable even where a read path holds it (an editable
    # install's project root, where docs/serve.md keeps the competition, on a server started elsewhere).
    os.chdir(settings.folder)
    # Uploads' builds go to the competition's own cache, not the organiser's: what uploads build is the
    # competition's disk, and removing the competition removes it.
    os.environ.setdefault(CACHE_ENV, str(settings.folder.resolve() / "builds"))
    lock = os.open(settings.folder / f"{args.kind}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)  # waits for a worker of a killed server to stop
        ladder = competition.ladder
        if args.kind == "checker":
            run_checker(settings.folder, ladder.tournament.game, ladder.seats, ladder.tournament.limits.to_json(),
                        settings.limits, stop=lambda: False)
        else:
            run_player(settings.folder, ladder, settings.limits, settings.batch_matches, stop=lambda: False,
                       workers=args.workers, address=args.address)
    except KeyboardInterrupt:
        return 0
    finally:
        os.close(lock)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # a Ctrl-C in the server's terminal reaches its workers too, even while they start
        sys.exit(0)
