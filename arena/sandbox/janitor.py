"""The janitor of a lease: waits for its owner to end, then removes whatever the lease still names.

Started by ``arena.sandbox.lease`` (``main`` with ``--lock FD --watch FD``, after a fork that makes
it nobody's child), never by hand.  ``--lock`` is the lease file, open and locked by the owner (the
janitor shares that lock, so the lease counts as alive while either lives); ``--watch`` is the read
end of a pipe whose write end only the owner holds.  End of file on it means the owner has ended, however it ended; the
janitor then kills the lease's processes, thaws and removes its seat groups, removes its folders
(``arena.sandbox.leftovers.remove``), deletes the lease file and exits, releasing the lock.  It is in
a session of its own, so a terminal's Ctrl-C or hang-up that stops the owner does not reach it.
"""

from __future__ import annotations

import argparse
import os
import signal

from arena.sandbox import kernel, leftovers
from arena.sandbox.lease import SUFFIX, read_lease


def main(argv: list[str] | None = None) -> int:
    """Entry point of the janitor process."""
    parser = argparse.ArgumentParser(prog="arena-janitor")
    parser.add_argument("--lock", type=int, required=True, help="fd of the locked lease file")
    parser.add_argument("--watch", type=int, required=True, help="fd of the pipe the owner holds open")
    args = parser.parse_args(argv)
    for number in (signal.SIGINT, signal.SIGHUP):
        signal.signal(number, signal.SIG_IGN)
    try:
        kernel.set_name("arena-janitor")
    except OSError:
        pass
    while True:
        try:
            if not os.read(args.watch, 4096):
                break
        except InterruptedError:
            continue
        except OSError:
            break
    path = os.readlink(f"/proc/self/fd/{args.lock}")
    name = os.path.basename(path)
    if name.endswith(SUFFIX):
        leftovers.remove(leftovers.Record.read(name[:-len(SUFFIX)], read_lease(args.lock)))
        try:
            os.unlink(path)
        except OSError:
            pass
    return 0

