"""Site: build time and size of a tournament's site (``arena publish``) for 10^5 stored matches.

The store is synthetic but made of real records: a pool of Lorum matches (4 deals, the quickstart's game) is
played in this process by the built-in agents, with each decision's time as a tournament records it, and
stored again and again under new match ids until the store holds ``matches`` matches.  Every stored match is
replayed for its match page as a real one would be (the cost of a match page does not depend on whether
another match had the same deal).  Rated with ``elo`` and ``score`` (TrueSkill's own cost is in the ratings
benchmark).

Rows:

* the first ``publish`` (ratings, history, front page, every match chunk and list chunk), CPU time (one
  process; the wall time beside it depends on the other work sharing the cores), and per match;
* a second ``publish`` with nothing new (match chunks are kept: only ratings, history and pages are redone);
* the site's size on disk (without the results store), per match, and its number of files;
* what each page loads when opened: the front page; the match list with one list chunk; the match viewer
  with one match chunk (the largest).

Sizes: ``--quick`` 500 matches from a pool of 20; default and ``--full`` 100,000 from a pool of 200.

    .venv/bin/python benchmarks/site.py            # 10^5 matches (the build: 511 s of CPU; 37 min wall on busy cores)
    .venv/bin/python benchmarks/site.py --quick    # seconds
"""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if __package__ in (None, ""):
    import common  # type: ignore[import-not-found]  # run as a script: benchmarks/ is on sys.path
else:
    from benchmarks import common

if TYPE_CHECKING:
    from arena.tournament.config import TournamentConfig

SIZES = {"quick": (500, 20), "default": (100_000, 200), "full": (100_000, 200)}
"""(stored matches, distinct matches played) per size."""

ENTRIES = ("greedy", "greedy-2", "random", "random-2", "random-3", "greedy-3")
"""The entries, as in configs/quickstart-lorum.toml."""


def make_store(leaderboards: Path, matches: int, pool: int) -> TournamentConfig:
    """A config and a store of ``matches`` matches made of ``pool`` played ones; returns the config."""
    from arena.plugins import load_registry
    from arena.records.seeding import derive_seed
    from arena.referee import SeatPlan, play_match
    from arena.tournament.config import config_from_dict
    from arena.tournament.store import Store, pack_record, store_path

    registry = load_registry(plugins_dir=None, entry_points=False).registry
    data = {"name": "site-bench", "game": "lorum", "seed": 1, "blocks": 1, "ratings": ["elo", "score"],
            "isolation": "trusted", "game_options": {"deals": 4},
            "agents": [{"name": name, "plugin": name.split("-")[0]} for name in ENTRIES]}
    config = config_from_dict(data, {name: game.info for name, game in registry.games.items()},
                              {name: set(spec.games) for name, spec in registry.agents.items()})
    game = registry.game("lorum")
    played = []
    for number in range(pool):
        names = [ENTRIES[(number + seat * 2 + number // 3) % len(ENTRIES)] for seat in range(4)]
        if len(set(names)) < 4:
            names = [ENTRIES[(number + seat) % len(ENTRIES)] for seat in range(4)]
        seats = [SeatPlan(name=name, spec=registry.agent(name.split("-")[0]), seed=derive_seed(number, "agent", seat))
                 for seat, name in enumerate(names)]
        result = play_match(game, config.game_options, number, seats, substitute=registry.agent("random"))
        record = result.record
        record["move_seconds"] = [[round(s, 6) for s in times] for times in result.move_seconds]
        played.append((names, record))
    with Store(store_path(leaderboards, config.name)) as store:
        store.bind(config.to_json(), {}, matches, resume=False)
        rows = []
        for index in range(matches):
            names, record = played[index % pool]
            match_id = f"t{index // 12:05d}-b{index // 4 % 3:02d}-r{index % 4}"
            record = {**record, "match": match_id}
            rows.append({"idx": index, "id": match_id, "block_id": f"t{index // 12:05d}-b{index // 4 % 3:02d}",
                         "table_idx": index // 12, "block": index // 4 % 3, "rotation": index % 4,
                         "deal_seed": index % pool, "agents": names, "scores": record["result"]["scores"],
                         "ranks": record["result"]["ranks"], "faults": [], "think_seconds": [0.0] * 4,
                         "wall_seconds": 0.0, "record": pack_record(record)})
            if len(rows) == 5000:
                store.add(rows)
                rows = []
        store.add(rows)
    return config


def cpu_with_children() -> float:
    """CPU seconds of this process and of every child it has waited for."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return common.cpu_clock() + children.ru_utime + children.ru_stime


def folder_size(folder: Path) -> tuple[int, int, int]:
    """Bytes and files of the site (everything but the results store), and the largest file's bytes."""
    files = [path for path in folder.rglob("*") if path.is_file() and not path.name.startswith("results.sqlite")]
    sizes = [path.stat().st_size for path in files]
    return sum(sizes), len(files), max(sizes)


def megabytes(size: int) -> str:
    """Bytes as MB (10^6), e.g. ``"12.3 MB"``; kB below a megabyte."""
    return f"{size / 1e6:,.1f} MB" if size >= 1e6 else f"{size / 1e3:,.1f} kB"


def measure(size: str) -> list[common.Row]:
    """Build the site twice from a fresh synthetic store; the rows described in the module docstring."""
    from arena.leaderboard.publish import publish

    matches, pool = SIZES[size]
    with tempfile.TemporaryDirectory(prefix="arena-site-bench-") as temporary:
        leaderboards = Path(temporary)
        started = time.perf_counter()
        config = make_store(leaderboards, matches, pool)
        setup = time.perf_counter() - started
        reported = [0]

        def progress(done: int, total: int) -> None:
            if done == total or done - reported[0] >= max(1, total // 10):
                reported[0] = done
                print(f"[site: match chunks {done}/{total}]", file=sys.stderr, flush=True)

        # CPU time, this process's and its build processes' (a large build forks one per core: arena.site.parallel),
        # because the cores are shared (see common.cpu_clock).
        started, wall = cpu_with_children(), time.perf_counter()
        publish(config, leaderboards, plugins_dir=None, progress=progress)
        first, first_wall = cpu_with_children() - started, time.perf_counter() - wall
        started = cpu_with_children()
        publish(config, leaderboards, plugins_dir=None)
        again = cpu_with_children() - started
        folder = leaderboards / config.name
        total, files, largest = folder_size(folder)
        data = folder / "data"
        index = (folder / "index.html").stat().st_size
        listing = (folder / "matches.html").stat().st_size + (data / "l00000.js").stat().st_size
        viewer = (folder / "match.html").stat().st_size + max(path.stat().st_size for path in data.glob("m*.js"))
    note = f"{matches:,} Lorum matches (4 deals) from {pool} played; store made in {setup:.0f} s"
    return [
        common.Row("site", f"publish {matches:,} matches: first build", common.secs(first),
                   f"{common.ms(first / matches)} per match",
                   f"CPU time, every build process's (wall {first_wall:.1f} s, {common.ms(first_wall / matches)} per "
                   f"match); {note}"),
        common.Row("site", f"publish {matches:,} matches: again, nothing new", common.secs(again),
                   common.ratio(first / again) + " faster than the first", "match chunks kept from the first build"),
        common.Row("site", f"site size for {matches:,} matches", megabytes(total),
                   f"{total / matches / 1e3:.1f} kB per match; {files:,} files, largest {megabytes(largest)}",
                   "without results.sqlite; match chunks are gzip + base64"),
        common.Row("site", "opening the front page loads", megabytes(index), "", "index.html, charts inline"),
        common.Row("site", "opening the match list loads", megabytes(listing), "",
                   "matches.html and one list chunk (1,000 rows)"),
        common.Row("site", "opening a match loads", megabytes(viewer), "",
                   "match.html and one match chunk (100 matches; the largest)"),
    ]


def main(argv: Sequence[str] | None = None) -> None:
    """Print the table."""
    size = common.size_from_args(__doc__ or "", argv, "the same as the default")
    common.print_table("Site: build time and size", measure(size))


if __name__ == "__main__":
    main()
