"""``arena leaderboard`` and ``arena export`` read a stored tournament (and write nothing); ``arena publish``
rewrites its leaderboard files."""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path
from typing import Any

from arena.cli.common import (
    CliError,
    add_command,
    add_leaderboards_dir,
    add_plugins_dir,
    check_output_file,
    failure,
    print_json,
    publish_leaderboard,
    trusted_plugins,
)
from arena.cli.console import output_console
from arena.cli.numbers import MAX_BOOTSTRAP, integer
from arena.inputs.suggest import closest
from arena.leaderboard import compare, render_comparison
from arena.leaderboard.publish import (
    NothingRated,
    StoredConfig,
    check_luck,
    method_options,
    rate_stored,
    stored_config,
)
from arena.ratings.registry import method_names, method_spec
from arena.records import save_record
from arena.tournament.config import DEFAULT_FAULT_SHARE
from arena.tournament.store import STORE_FILE, Store, StoreError, StoreRequestError, store_path

EXPORT_COLUMNS = ("idx", "id", "block_id", "table", "block", "rotation", "deal_seed", "agents", "scores", "ranks",
                  "faults", "think_seconds", "wall_seconds", "luck")
"""The columns of ``arena export NAME`` (docs/records.md, "The match table"); ``luck`` is empty for a match
without a luck correction."""


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    """Register ``arena leaderboard`` and ``arena export``."""
    board = add_command(
        subparsers,
        "leaderboard",
        help="rate a stored tournament and show its leaderboard",
        description=(
            "Rate the stored results of tournament NAME and print the leaderboard (rank, agent and its version, "
            "rating with its 95% interval, games, mean score, win share, faults; '!' flags an entry that faulted "
            "in more than fault_share of its matches). A query: it writes nothing; 'arena publish' rewrites the "
            "files under leaderboards/NAME/."
        ),
        examples=(
            "arena leaderboard quickstart-lovat",
            "arena leaderboard quickstart-lovat --method trueskill --json",
            "arena leaderboard quickstart-lovat --vs greedy random",
        ),
    )
    board.add_argument("name", help="tournament name (its folder under --leaderboards)")
    board.add_argument("--method", action="append", metavar="METHOD",
                       help=f"rating method ({', '.join(method_names())}, or one a trusted plugin adds); repeat to "
                            "show several side by side (default: the config's list)")
    board.add_argument("--bootstrap", type=integer(0, MAX_BOOTSTRAP, "replicates"), default=0, metavar="N",
                       help="Elo and Plackett-Luce intervals from N bootstrap replicates over duplicate blocks "
                            "(default: from the curvature)")
    board.add_argument("--vs", nargs=2, metavar=("A", "B"),
                       help="the gap A - B with its 95%% interval, P(A is stronger), and A's record against B "
                            "per deal (rotations as detail)")
    board.add_argument("--json", action="store_true", help="print JSON")
    add_leaderboards_dir(board)
    add_plugins_dir(board)
    board.set_defaults(run=run_leaderboard)

    publish_parser = add_command(
        subparsers,
        "publish",
        help="rewrite a stored tournament's leaderboard files",
        description=(
            "Rate the stored results of tournament NAME and write leaderboards/NAME/: leaderboard.md, .csv and "
            ".json for the first method, ratings.json for every method, history.json, and the site (index.html "
            "with every method, matches.html, match.html; open index.html in a browser), as 'arena run' does "
            "when it finishes; --method chooses the methods instead of the config's list. Rebuilding the site "
            "replays only the matches stored since the last build."
        ),
        examples=(
            "arena publish quickstart-lovat",
            "arena publish quickstart-lovat --method score --method elo",
        ),
    )
    publish_parser.add_argument("name", help="tournament name (its folder under --leaderboards)")
    publish_parser.add_argument("--method", action="append", metavar="METHOD",
                                help=f"rating method ({', '.join(method_names())}, or one a trusted plugin adds); "
                                     "repeat for several, the first names the files' leaderboard")
    publish_parser.add_argument("--bootstrap", type=integer(0, MAX_BOOTSTRAP, "replicates"), default=0, metavar="N",
                                help="Elo and Plackett-Luce intervals from N bootstrap replicates")
    add_leaderboards_dir(publish_parser)
    add_plugins_dir(publish_parser)
    publish_parser.set_defaults(run=run_publish)

    export = add_command(
        subparsers,
        "export",
        help="write a stored tournament's match table as CSV or JSON lines, or one match's record",
        description=(
            "Write every stored match of tournament NAME, in schedule order, as CSV or JSON lines; or, with "
            "--match ID, that match's full record (JSON, the format 'arena replay' reads)."
        ),
        examples=(
            "arena export quickstart-lovat --format csv > matches.csv",
            "arena export quickstart-lorum --format jsonl --output matches.jsonl",
            "arena export quickstart-lovat --match t0003-b01-r2 --output match.json",
        ),
    )
    export.add_argument("name", help="tournament name")
    export.add_argument("--format", choices=("csv", "jsonl"), help="table format (default: csv; not with --match)")
    export.add_argument("--match", metavar="ID", help="write this match's record instead (ids: the table's id column)")
    export.add_argument("--output", type=Path, metavar="FILE", help="write to FILE instead of standard output")
    add_leaderboards_dir(export)
    export.set_defaults(run=run_export)


def _config(args: argparse.Namespace) -> StoredConfig:
    """The stored tournament's config, named by the folder asked for (a copied or renamed folder reads and
    writes itself, never the folder its stored name points at)."""
    try:
        data = stored_config(args.leaderboards, args.name)
    except StoreError as error:
        raise failure(error) from None
    if not isinstance(data, dict) or not isinstance(data.get("game"), str) \
            or not isinstance(data.get("game_options"), dict) or not isinstance(data.get("ratings"), list):
        raise CliError(f"{store_path(args.leaderboards, args.name)}: the stored tournament config is missing or "
                       "damaged (no game, game options or rating methods)", status=1)
    return StoredConfig(name=args.name, game=data["game"], game_options=data["game_options"],
                        ratings=tuple(data["ratings"]), fault_share=data.get("fault_share", DEFAULT_FAULT_SHARE),
                        seed=data.get("seed"), trusted=_trusted_entries(data))


def _trusted_entries(data: dict) -> frozenset[str]:
    """Entries a stored config runs ``trusted``, as ``TournamentConfig.trusted_entries`` says of a live one."""
    default = data.get("isolation")
    return frozenset(entry.get("name") for entry in data.get("agents", ())
                     if (entry.get("isolation") or default) == "trusted")


def run_leaderboard(args: argparse.Namespace) -> int:
    """Print the leaderboard, or a head-to-head comparison; write nothing."""
    _check_methods(args)
    config = _config(args)
    console = output_console()
    if args.vs:
        a, b = args.vs
        method = (args.method or list(config.ratings))[0]
        with Store.open_readonly(store_path(args.leaderboards, args.name)) as store:
            outcomes = store.outcomes()
        try:
            check_luck(config, args.leaderboards, outcomes, [method])
        except StoreError as error:
            raise failure(error) from None
        options = method_options(method, config.game, config.game_options, args.bootstrap)
        try:
            comparison = compare(outcomes, a, b, method, **options)
        except ValueError as error:
            raise CliError(str(error)) from None
        if args.json:
            print_json(comparison.to_json())
        else:
            console.print(render_comparison(comparison))
        return 0
    try:
        published, _ = rate_stored(config, args.leaderboards, methods=args.method, bootstrap=args.bootstrap)
    except NothingRated as error:  # one line: each failing method and why
        raise CliError(f"{args.name}: {error}", status=1) from None
    if args.json:
        print_json({method: board.to_json() for method, board in published.boards.items()})
    else:
        published.print(console)
    return 0


def run_publish(args: argparse.Namespace) -> int:
    """Write the leaderboard files and print the leaderboard."""
    _check_methods(args)
    published = publish_leaderboard(args, _config(args), methods=args.method, bootstrap=args.bootstrap)
    published.print(output_console())
    return 0


def _check_methods(args: argparse.Namespace) -> None:
    """Install the trusted plugins' rating methods, then refuse (usage, one line) a ``--method`` none offers."""
    trusted_plugins(args)
    for method in args.method or ():
        try:
            method_spec(method)
        except ValueError as error:
            raise CliError(f"--method: {error}") from None


def run_export(args: argparse.Namespace) -> int:
    """Write the match table, or one match's record."""
    if args.match is not None and args.format is not None:
        raise CliError("--format applies to the match table; --match writes the record as JSON")
    check_output_file(args.output, "--output")
    if args.match is not None:
        record = stored_record(args.leaderboards, args.name, args.match)
    else:
        try:
            with Store.open_readonly(store_path(args.leaderboards, args.name)) as store:
                rows = [row.to_json() for row in store.rows()]
        except StoreError as error:
            raise failure(error) from None
    try:
        if args.match is not None:
            _write_record(record, args.output)
        else:
            _write_table(rows, args.format or "csv", args.output)
    except BrokenPipeError:
        raise  # the reader stopped early (`| head`): normal, and main() exits quietly
    except OSError as error:
        raise CliError(f"--output {args.output}: {error.strerror or error}", status=1) from None
    return 0


def stored_record(leaderboards: Path, name: str, match_id: str) -> dict[str, Any]:
    """Match ``match_id``'s full record from tournament ``name``'s store (``arena export``, ``arena replay``).

    A ``CliError`` (one line, status 2) for a missing tournament or an unknown match id, with the closest
    stored name or id as a suggestion, or else what the ids look like.
    """
    try:
        path = store_path(leaderboards, name)
        if not path.is_file():
            close = closest(name, (found.parent.name for found in Path(leaderboards).glob(f"*/{STORE_FILE}")))
            hint = f"; did you mean {close!r}?" if close else " (run 'arena run CONFIG' first)"
            raise StoreRequestError(f"no tournament {name!r} in {leaderboards}{hint}")
        with Store.open_readonly(path) as store:
            try:
                return store.record(match_id)
            except StoreRequestError as error:  # no such match: the closest id, or what ids look like
                ids = [row.id for row in store.rows()]
                close = closest(match_id, ids)
                if close is not None:
                    raise StoreRequestError(f"{error}; did you mean {close!r}?") from None
                if not ids:
                    raise StoreRequestError(f"{error}: the tournament holds no matches yet") from None
                raise StoreRequestError(f"{error}: match ids look like {ids[0]!r} (the first of {len(ids)}); "
                                        f"'arena export {name}' lists them all") from None
    except StoreError as error:
        raise failure(error) from None


def _write_record(record: dict[str, Any], output: Path | None) -> None:
    if output:
        save_record(record, output)
    else:
        print_json(record)


def _write_table(rows: list[dict[str, Any]], kind: str, output: Path | None) -> None:
    out = open(output, "w", newline="") if output else sys.stdout  # noqa: SIM115 (stdout is not ours to close)
    try:
        if kind == "jsonl":
            for row in rows:
                out.write(json.dumps(row) + "\n")
        else:
            writer = csv.writer(out)
            writer.writerow(EXPORT_COLUMNS)
            for row in rows:
                writer.writerow([json.dumps(row[c]) if isinstance(row[c], (list, dict)) else row[c]
                                 for c in EXPORT_COLUMNS])  # None (no luck correction) is an empty cell
    finally:
        if output:
            out.close()
