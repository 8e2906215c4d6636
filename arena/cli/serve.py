"""``arena serve``: host a competition (docs/serve.md); ``arena serve users``: its participants."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TYPE_CHECKING

from arena.cli import stopping
from arena.cli.addresses import cluster_address
from arena.cli.common import CliError, add_command, failure, print_json
from arena.cli.numbers import MAX_WORKERS, integer
from arena.games.interface import plural
from arena.tournament.config import ConfigError

if TYPE_CHECKING:
    from arena.serve.server import Competition

USERS_HELP = "arena serve users add NAME | list | revoke NAME   [--config CONFIG] (default: serve.toml)"
USERS_EXAMPLES = (
    "arena serve users add alice --config configs/serve-lovat.toml",
    "arena serve users list --config configs/serve-lovat.toml",
    "arena serve users revoke alice --config configs/serve-lovat.toml",
)


class _Help(argparse.Action):
    """``-h``: the page of ``arena serve users`` after ``users``, else that of ``arena serve``."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="show this help and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        if getattr(namespace, "config", None) == "users":
            parser = _users_parser()
        parser.print_help()
        parser.exit()


def _users_parser() -> argparse.ArgumentParser:
    """The help page of ``arena serve users``: its own words and options (it is not a parser of its own)."""
    from arena.cli.common import HelpFormatter

    parser = argparse.ArgumentParser(
        prog="arena serve users", usage=USERS_HELP.replace("arena serve users ", "%(prog)s ", 1),
        description=("Manage a competition's participants. 'add NAME' makes an invitation and prints its token "
                     "once (it is stored only hashed: hand it to the participant, who uploads with it); 'list' "
                     "shows every participant; 'revoke NAME' refuses a participant's token from then on and takes "
                     "their agents off the ladder (their matches and history stay)."),
        epilog="examples:\n" + "\n".join(f"  {line}" for line in USERS_EXAMPLES), formatter_class=HelpFormatter)
    parser.add_argument("words", nargs="+", metavar="add NAME | list | revoke NAME", help="what to do")
    parser.add_argument("--config", metavar="CONFIG", default="serve.toml",
                        help="the competition's serve config (default serve.toml)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    return parser


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    """Register ``arena serve``."""
    parser = add_command(
        subparsers, "serve", help="host a competition: participants submit agents, the ladder plays them",
        description=(
            "Serve the competition of CONFIG (a ladder config with a [serve] table, docs/serve.md): invited "
            "participants upload agents (web form, 'arena submit' or the JSON API), each upload is checked "
            "in the sandbox and joins the ladder, which plays continuously; the leaderboard, the matches and "
            "each participant's own page update live. Binds the loopback address unless --host says "
            "otherwise; put it behind a TLS-terminating proxy to open it to others. Refuses to start "
            "without the full sandbox ('arena doctor').\n\n"
            f"Participants: {USERS_HELP}. 'add' prints the new token once (it is stored only hashed)."
        ),
        examples=("arena serve configs/serve-lovat.toml",
                  "arena serve configs/serve-lovat.toml --host 0.0.0.0 --port 8080", *USERS_EXAMPLES),
        add_help=False,
    )
    parser.add_argument("-h", "--help", action=_Help)
    parser.add_argument("config", metavar="CONFIG|users", help="the serve config, or 'users' to manage participants")
    parser.add_argument("words", nargs="*", metavar="ARG", help="for 'users': add NAME, list, or revoke NAME")
    parser.add_argument("--config", dest="users_config", metavar="CONFIG", default="serve.toml",
                        help="for 'users': the serve config (default serve.toml)")
    parser.add_argument("--host", help="address to bind (default: the config's, else 127.0.0.1)")
    parser.add_argument("--port", type=integer(1, 65_535, "a TCP port"),
                        help="port to bind (default: the config's, else 8000)")
    parser.add_argument("--workers", type=integer(1, MAX_WORKERS, "workers"),
                        help="play on a local Ray of this many workers (1: serially)")
    parser.add_argument("--address", type=cluster_address, help="play on this Ray cluster (default: $RAY_ADDRESS)")
    parser.add_argument("--json", action="store_true", help="for 'users': print JSON")
    parser.set_defaults(run=run)


def _load(path: Path) -> Competition:
    from arena.serve.server import load_competition

    if not path.is_file():
        raise CliError(f"{path}: no such serve config (configs/serve-lovat.toml is one to copy; 'arena serve users' "
                       "reads serve.toml unless --config names another)")
    try:
        with stopping.deferred():  # a stop while the plugins load is a stop, never a config error
            return load_competition(path)
    except ConfigError as error:
        raise CliError(str(error).replace("\n", "; ")) from None


def run(args: argparse.Namespace) -> int:
    """Serve, or manage participants."""
    if args.config == "users":
        return run_users(args)
    if args.words:
        raise CliError(f"unexpected arguments after the config: {' '.join(args.words)} (users: {USERS_HELP})")
    try:
        # The server imports the web libraries only when it starts: ask for them here, where a missing extra is
        # one line, not a traceback after the config was read.
        import fastapi  # noqa: F401
        import jinja2  # noqa: F401
        import uvicorn  # noqa: F401

        from arena.ladder.field import LadderError
        from arena.serve.config import is_host
        from arena.serve.listen import BindError, bind, url
        from arena.serve.server import ServeError, prepare, sandbox_problem, serve
        from arena.tournament.store import StoreError
    except ImportError as error:
        # arena comes from its folder, not from an index: 'pip install arena[serve]' would fetch another package.
        raise CliError(f"'arena serve' needs the serve extra: pip install -e '.[serve]' in arena's folder ({error})",
                       status=1) from None
    config = Path(args.config)
    competition = _load(config)
    host = args.host or competition.settings.host
    if not is_host(host):  # the config's host is checked with the config
        raise CliError(f"--host {host[:100]!r}: expected an address such as 127.0.0.1 or a host name")
    problem = sandbox_problem()
    if problem is not None:
        raise CliError(problem, status=1)
    port = competition.settings.port if args.port is None else args.port
    extra = [*(["--workers", str(args.workers)] if args.workers else []),
             *(["--address", args.address] if args.address else [])]
    try:
        secret = prepare(config, competition)
        listener = bind(host, port, "--host" if args.host else f"{config}: [serve] host",
                        "--port" if args.port is not None else f"{config}: [serve] port")
    except (ServeError, BindError) as error:
        raise CliError(str(error), status=1) from None
    except (LadderError, StoreError) as error:
        raise failure(error) from None
    # Only now, with the socket bound: a browser opened on this line finds the server.
    print(f"serving {competition.ladder.name} on {url(listener, host)} (Ctrl-C stops it)", flush=True)
    try:
        return serve(config, competition, listener, secret, extra)
    except ServeError as error:
        raise CliError(str(error), status=1) from None


def run_users(args: argparse.Namespace) -> int:
    """``arena serve users add NAME | list | revoke NAME``."""
    import sqlite3

    from arena.serve import auth
    from arena.serve.db import ServeDB
    from arena.serve.server import ServeError, claim_folder

    words = args.words
    if not words or words[0] not in ("add", "list", "revoke") or len(words) != (1 if words[0] == "list" else 2):
        raise CliError(f"usage: {USERS_HELP}")
    competition = _load(Path(args.users_config))
    folder = competition.settings.folder
    if words[0] != "list":  # a bad name is refused before anything is made
        try:
            auth.check_name(words[1])
        except auth.AuthError as error:
            raise CliError(str(error)) from None
    try:
        claim_folder(Path(args.users_config), competition)
        secret = auth.load_secret(folder)
        db = ServeDB(folder)
    except (auth.AuthError, ServeError) as error:
        raise CliError(str(error), status=1) from None
    except (OSError, sqlite3.Error) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise CliError(f"{args.users_config}: [serve] folder: cannot keep the competition in {folder}: {reason}",
                       status=1) from None
    with db:
        if words[0] == "list":
            users = db.users()
            if args.json:
                print_json([{"name": user.name, "created": user.created, "revoked": user.revoked,
                             "uploads": len(db.uploads(user=user.name))} for user in users])
                return 0
            for user in users:
                state = "revoked " + _when(user.revoked) if user.revoked else "active"
                uploads = plural(len(db.uploads(user=user.name)), "upload")
                print(f"{user.name}\t{state}\tadded {_when(user.created)}\t{uploads}")
            if not users:
                print("no participants yet: 'arena serve users add NAME'")
            return 0
        try:
            name = auth.check_name(words[1])
        except auth.AuthError as error:
            raise CliError(str(error)) from None
        if words[0] == "revoke":
            if db.user(name) is None:
                raise CliError(f"no participant {name!r} (see 'arena serve users list')")
            try:
                db.revoke(name)
            except ValueError as error:
                raise CliError(str(error), status=1) from None
            leaving = db.retire_all(name)
            print(f"{name}'s token is revoked: it is refused from now on; {plural(leaving, 'accepted upload')} of "
                  "theirs will leave the ladder between two of its runs (their matches and history stay)")
            return 0
        token = auth.new_token(name)
        try:
            db.add_user(name, auth.token_hash(secret, token))
        except ValueError as error:
            raise CliError(str(error), status=1) from None
    if args.json:
        print_json({"name": name, "token": token})
    else:
        print(f"added {name}; their token (shown only now, stored only hashed):\n{token}")
    return 0


def _when(stamp: float | None) -> str:
    return "-" if stamp is None else time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(stamp))
