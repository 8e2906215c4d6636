"""Tournament scaling: serial against local Ray, and the harness's cost per match over the bare engine loop.

Two 4-player Lovat fields of five entries (5 tables x ``blocks`` blocks x 4
rotations; see ``FIELDS``): ``light``, the test suite's greedy and random
agents (about 1.2 ms a match), and ``search``, with a search agent on a tiny
budget at 4 of the 5 tables (about 15 ms a match).  Each run writes its own
results store in a temporary folder.

* **Machine ceiling**: the efficiency of perfectly parallel pure-Python work
  (``workers`` spin loops at once against one after the other, as Ray tasks),
  measured after each repeat's two runs: the cores
  are shared (on these machines possibly two threads of one physical core), and
  this is the best any parallel run could show at that moment.  Each repeat's
  efficiency over its own ceiling is reported too, and the targets are judged on
  its median, as the issue that set them asks.
* **Parallel efficiency** = serial time / (Ray time x workers), workers = the
  cores of this machine.  Ray start-up is excluded: Ray is started first
  (``execution.init_ray``, as a run starts its local Ray), then a small warm-up tournament runs on it so that every
  worker process has started, imported arena and loaded the plugins; only
  then is the measured tournament timed, from the call of ``run_tournament``
  to its return (``run_tournament`` uses the running Ray and leaves it up).
  Serial and Ray runs alternate, ``repeats`` times each; the medians are
  compared, in wall time (``time.perf_counter``).  Also the **CPU efficiency**:
  serial CPU seconds over the Ray run's (driver plus worker processes, read
  from /proc), which is the efficiency an idle machine would show with
  perfectly balanced work.
* **Default backend on the quickstart**: ``configs/quickstart-lovat.toml`` (the
  README's first run) through ``run_tournament`` with no ``workers`` (what
  ``arena run`` does by default: play in the driver at once, start a local Ray
  only for a run long enough to win back its start-up) against ``workers=1``,
  alternating (each first in every other repeat), wall time from call to return, medians and ranges over the
  repeats; measured before anything else starts Ray in this process.
* **Harness overhead per match**: the same matches (seeds, seating, agent
  seeds) played three ways, alternating, CPU time per match (each is one
  process; see ``common.cpu_clock``):
  the bare engine loop (fresh agents, ``observation`` -> ``act`` -> ``apply``),
  the referee (``play_match``: fresh trusted seats, legality checks, clocks,
  event delivery, the match record), and the whole serial tournament
  (``run_tournament``: schedule, referee, results store).

    .venv/bin/python benchmarks/tournament.py            # default sizes
    .venv/bin/python benchmarks/tournament.py --quick    # a few matches (smoke test)
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    import common  # type: ignore[import-not-found]  # run as a script: benchmarks/ is on sys.path
else:
    from benchmarks import common

from arena.plugins import load_registry
from arena.referee import Limits, SeatPlan, play_match
from arena.tournament.config import TournamentConfig, config_from_dict, load_config
from arena.tournament.execution import init_ray
from arena.tournament.playing import MAX_BATCH
from arena.tournament.ray_pool import worker_pids
from arena.tournament.runner import run_tournament
from arena.tournament.store import Store

clock = common.cpu_clock
"""The clock of the single-process overhead figures (CPU time, see ``common.cpu_clock``)."""

TARGET_EFFICIENCY = {"light": 0.9, "search": 0.95}
"""The targets: parallel efficiency on this machine's cores of at least 0.9 for 1 ms matches (the light
field) and 0.95 for 15 ms matches (the search field), over the machine's own ceiling in the same run."""

TARGET_DEFAULT_BACKEND = 1.25
"""The target: the quickstart on the default backend takes at most 1.25 times the serial time."""

QUICKSTART = Path(__file__).resolve().parent.parent / "configs" / "quickstart-lovat.toml"
"""The README's first tournament."""

SIZES: dict[str, dict[str, int]] = {
    "quick": {"blocks": 1, "search_blocks": 1, "repeats": 1, "overhead_matches": 8, "spin_loops": 200_000},
    "default": {"blocks": 40, "search_blocks": 5, "repeats": 5, "overhead_matches": 200, "spin_loops": 5_000_000},
    "full": {"blocks": 120, "search_blocks": 15, "repeats": 7, "overhead_matches": 600, "spin_loops": 10_000_000},
}
"""Blocks of the timed tournaments (20 matches each; light and search fields), repeats, and
matches of the overhead comparison."""

FIELDS: dict[str, tuple[dict[str, Any], ...]] = {
    "light": (
        {"name": "greedy"},
        {"name": "greedy-2", "plugin": "greedy"},
        {"name": "random"},
        {"name": "random-2", "plugin": "random"},
        {"name": "random-3", "plugin": "random"},
    ),
    "search": (
        {"name": "search", "options": {"iterations": 4}},
        {"name": "greedy"},
        {"name": "random"},
        {"name": "random-2", "plugin": "random"},
        {"name": "random-3", "plugin": "random"},
    ),
}
"""The fields: ``light`` is the test suite's small Lovat tournament (about 1.2 ms a match);
``search`` puts a search agent with a tiny budget (4 playouts per candidate) at 4 of the 5
tables (about 15 ms a match), so that the matches, not the harness, dominate."""


def make_config(name: str, blocks: int, registry: Any, field: str = "light") -> TournamentConfig:
    """The benchmark tournament of ``field`` with ``blocks`` blocks (5 tables x 4 rotations each)."""
    return config_from_dict(
        {"name": name, "game": "lovat", "seed": 11, "blocks": blocks, "game_options": {"players": 4},
         "agents": [dict(entry) for entry in FIELDS[field]]},
        {game_name: game.info for game_name, game in registry.games.items()},
        {agent_name: set(spec.games) for agent_name, spec in registry.agents.items()},
    )


def bare_match(registry: Any, config: Mapping[str, Any], match: Mapping[str, Any]) -> None:
    """One scheduled match by the bare loop: fresh agents, observation -> act -> apply, nothing recorded."""
    game = registry.game(config["game"])
    entries = {entry["name"]: entry for entry in config["agents"]}
    options = config["game_options"]
    agents = [
        registry.agent(entries[name]["plugin"]).factory(seat=seat, game=game.info, players=options["players"],
                                                        seed=match["agent_seeds"][seat],
                                                        options=entries[name].get("options", {}))
        for seat, name in enumerate(match["seats"])
    ]
    state = game.new_state(match["deal_seed"], options)
    while not state.is_over():
        deciding = state.to_move()
        observations = [(seat, state.observation(seat)) for seat in deciding]
        for seat, action in [(seat, agents[seat].act(observation)) for seat, observation in observations]:
            state.apply(seat, action)


def referee_match(registry: Any, config: Mapping[str, Any], match: Mapping[str, Any]) -> None:
    """One scheduled match through ``play_match``, exactly as the runner calls it, without the store."""
    game = registry.game(config["game"])
    entries = {entry["name"]: entry for entry in config["agents"]}
    seats = [SeatPlan(name=name, spec=registry.agent(entries[name]["plugin"]),
                      options=entries[name].get("options", {}), seed=match["agent_seeds"][seat],
                      isolation=entries[name].get("isolation") or config["isolation"])
             for seat, name in enumerate(match["seats"])]
    play_match(game, config["game_options"], match["deal_seed"], seats, substitute=registry.agent("random"),
               match_id=match["id"], limits=Limits(**config["limits"]), isolation=config["isolation"])


def quickstart_config(registry: Any) -> TournamentConfig:
    """``configs/quickstart-lovat.toml``, loaded as ``arena run`` loads it."""
    return load_config(QUICKSTART, {name: game.info for name, game in registry.games.items()},
                       {name: set(spec.games) for name, spec in registry.agents.items()},
                       agent_options={name: spec.options for name, spec in registry.agents.items()})


def default_backend(registry: Any, size: dict[str, int], folder: Path) -> dict[str, Any]:
    """Wall seconds of the quickstart serially and on the default backend, alternating; the backends used."""
    config = quickstart_config(registry)
    samples: dict[str, list[float]] = {"serial": [], "default": []}
    backends = set()
    for repeat in range(size["repeats"]):
        modes = (("serial", 1), ("default", None))
        for mode, workers in modes if repeat % 2 == 0 else modes[::-1]:  # neither always goes first
            summary = run_tournament(config, leaderboards=folder / f"quickstart-{mode}-{repeat}", plugins_dir=None,
                                     workers=workers)
            samples[mode].append(summary.seconds)
            if mode == "default":
                backends.add(summary.backend)
    ratios = [default / serial for serial, default in zip(samples["serial"], samples["default"])]
    return {**samples, "ratios": ratios, "backends": sorted(backends), "matches": config.schedule().match_count,
            "load": load_average()}


def overhead(registry: Any, size: dict[str, int], folder: Path) -> dict[str, float]:
    """Median CPU seconds per match of the bare loop, the referee and the serial tournament (one process each)."""
    count = size["overhead_matches"]
    blocks = max(1, -(-count // 20))
    config = make_config("overhead", blocks, registry)
    data = config.to_json()
    matches = [match.to_json() for match in config.schedule().iter_matches()][:count]
    samples: dict[str, list[float]] = {"bare": [], "referee": [], "tournament": []}
    for repeat in range(size["repeats"]):
        started = clock()
        for match in matches:
            bare_match(registry, data, match)
        samples["bare"].append((clock() - started) / len(matches))
        started = clock()
        for match in matches:
            referee_match(registry, data, match)
        samples["referee"].append((clock() - started) / len(matches))
        started = clock()
        summary = run_tournament(config, leaderboards=folder / f"overhead-{repeat}", plugins_dir=None, workers=1)
        samples["tournament"].append((clock() - started) / summary.played)
    return {key: common.median(values) for key, values in samples.items()}


def commit_cost(registry: Any, size: dict[str, int], folder: Path) -> dict[str, float]:
    """CPU seconds per match of storing matches one transaction each (as runs do now, so that a stop loses only
    the matches being played) and in transactions of ``MAX_BATCH`` (as whole batches were stored before)."""
    config = make_config("commits", 1, registry)
    summary = run_tournament(config, leaderboards=folder / "commit-source", plugins_dir=None, workers=1)
    columns = ("idx", "id", "block_id", "table_idx", "block", "rotation", "deal_seed", "agents", "scores", "ranks",
               "faults", "think_seconds", "wall_seconds", "record")
    with Store.open_readonly(summary.store) as source:
        rows = [dict(zip(columns, row, strict=True))
                for row in source.db.execute(f"SELECT {', '.join(columns)} FROM matches")]
    for row in rows:  # stored as JSON text; Store.add takes them as the players give them
        for key in ("agents", "scores", "ranks", "faults", "think_seconds"):
            row[key] = json.loads(row[key])
    count = size["overhead_matches"]
    samples: dict[str, list[float]] = {"single": [], "batched": []}
    for repeat in range(size["repeats"]):
        for kind in samples:
            with Store(folder / f"commits-{kind}-{repeat}" / "results.sqlite") as store:
                copies = [{**rows[index % len(rows)], "idx": index, "id": f"m{index}"} for index in range(count)]
                started = clock()
                if kind == "single":
                    for row in copies:
                        store.add([row])
                else:
                    for start in range(0, count, MAX_BATCH):
                        store.add(copies[start:start + MAX_BATCH])
                samples[kind].append((clock() - started) / count)
    return {kind: common.median(values) for kind, values in samples.items()}


def scaling(registry: Any, size: dict[str, int], folder: Path, workers: int) -> dict[str, dict[str, float]]:
    """Per field: median wall (and CPU) seconds of the tournament serially and on a warmed-up local Ray.

    Every repeat also measures the machine ceiling right after its two runs (``ceiling``), so that each
    repeat's efficiency can be set against what the shared cores allowed at that moment.
    """
    import ray

    started = time.perf_counter()
    init_ray(None, workers)  # as a run starts its local Ray
    results = {}
    try:
        for field in FIELDS:  # the warm-up plays every field, so each worker has imported every agent
            run_tournament(make_config(f"warmup-{field}", 1, registry, field), leaderboards=folder / "warmup",
                           plugins_dir=None, workers=workers)
        startup = time.perf_counter() - started
        pids = worker_pids(None)
        for field, blocks in (("light", size["blocks"]), ("search", size["search_blocks"])):
            config = make_config(f"scaling-{field}", blocks, registry, field)
            samples: dict[str, list[float]] = {key: [] for key in
                                                ("serial", "parallel", "serial_cpu", "parallel_cpu", "ceiling")}
            for repeat in range(size["repeats"]):
                cpu = time.process_time()
                summary = run_tournament(config, leaderboards=folder / f"serial-{field}-{repeat}", plugins_dir=None,
                                         workers=1)
                samples["serial_cpu"].append(time.process_time() - cpu)
                samples["serial"].append(summary.seconds)
                cpu = time.process_time() + cpu_seconds(pids)
                summary = run_tournament(config, leaderboards=folder / f"ray-{field}-{repeat}", plugins_dir=None,
                                         workers=workers)
                samples["parallel_cpu"].append(time.process_time() + cpu_seconds(pids) - cpu)
                if summary.backend != "ray" or summary.workers != workers:
                    raise RuntimeError(f"expected Ray with {workers} workers, ran {summary.backend} "
                                       f"with {summary.workers}")
                samples["parallel"].append(summary.seconds)
                samples["ceiling"].append(ceiling(workers, size["spin_loops"]))
            relative = [serial / (parallel * workers) / top for serial, parallel, top
                        in zip(samples["serial"], samples["parallel"], samples["ceiling"])]
            results[field] = {**{key: common.median(values) for key, values in samples.items()},
                              "relative": common.median(relative), "startup": startup,
                              "matches": config.schedule().match_count, "worker_processes": len(pids),
                              "load": load_average()}
    finally:
        ray.shutdown()
    return results


def spin(loops: int) -> None:
    """Pure-Python CPU work with no I/O and no shared state."""
    total = 0
    for value in range(loops):
        total += value


def ceiling(workers: int, loops: int) -> float:
    """Parallel efficiency of perfectly parallel work on the running Ray now: ``workers`` spins at once vs in a row.

    The spins run as Ray tasks (in Ray's task workers, beside the tournament's idle worker
    actors).  The cores are shared with other work (and may be two threads of one physical
    core); this is the best any parallel run could reach at the same moment.
    """
    import ray

    remote = ray.remote(num_cpus=1)(spin)
    ray.get([remote.remote(1000) for _ in range(workers)])  # every worker awake
    started = time.perf_counter()
    ray.get(remote.remote(loops * workers))
    serial = time.perf_counter() - started
    started = time.perf_counter()
    ray.get([remote.remote(loops) for _ in range(workers)])
    return serial / ((time.perf_counter() - started) * workers)


def cpu_seconds(pids: Sequence[int]) -> float:
    """User + system CPU seconds used so far by the processes ``pids`` (from /proc; 0 where unreadable)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / ticks


def measure(size: str = "default") -> list[common.Row]:
    """Every tournament row."""
    sizes = SIZES[size]
    registry = load_registry(plugins_dir=None, entry_points=False).registry
    workers = common.cores()
    rows: list[common.Row] = []
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        folder = Path(tmp)
        costs = overhead(registry, sizes, folder)
        note = (f"{sizes['overhead_matches']} Lovat 4p matches (light field) × {sizes['repeats']} repeats, "
                "CPU time")
        rows.append(common.Row("tournament", "bare engine loop, per match", common.ms(costs["bare"]), "", note))
        rows.append(common.Row("tournament", "referee (play_match), per match", common.ms(costs["referee"]),
                               f"{signed_us(costs['referee'] - costs['bare'])} over bare "
                               f"({common.ratio(costs['referee'] / costs['bare'])})", note))
        rows.append(common.Row("tournament", "serial tournament (run_tournament), per match",
                               common.ms(costs["tournament"]),
                               f"{signed_us(costs['tournament'] - costs['bare'])} over bare "
                               f"({common.ratio(costs['tournament'] / costs['bare'])})",
                               note + "; includes the SQLite results store"))
        commits = commit_cost(registry, sizes, folder)
        rows.append(common.Row("tournament", "storing a match in its own transaction, per match",
                               common.us(commits["single"]),
                               f"{signed_us(commits['single'] - commits['batched'])} over batches of {MAX_BATCH}",
                               f"{sizes['overhead_matches']} stored Lovat 4p rows × {sizes['repeats']} repeats, CPU "
                               "time; what committing every match as it ends costs (a stop then loses only the "
                               "matches being played)"))
        quick = default_backend(registry, sizes, folder)  # before scaling() starts Ray in this process
        ratio = common.median(quick["ratios"])
        rows.append(common.Row(
            "tournament", "quickstart on the default backend / serial, wall", common.ratio(ratio),
            common.target(ratio <= TARGET_DEFAULT_BACKEND, "≤ 1.25×"),
            f"configs/quickstart-lovat.toml, {quick['matches']} matches × {sizes['repeats']} repeats, "
            f"ratios {min(quick['ratios']):.2f}–{max(quick['ratios']):.2f}; serial "
            f"{common.secs(min(quick['serial']))}–{common.secs(max(quick['serial']))}, default "
            f"{common.secs(min(quick['default']))}–{common.secs(max(quick['default']))} "
            f"({'/'.join(quick['backends'])}); load average {quick['load']}"))
        try:
            import ray  # noqa: F401
        except ImportError:
            rows.append(common.Row("tournament", "parallel efficiency", "not installed", "", "ray is not importable"))
            return rows
        for field, timing in scaling(registry, sizes, folder, workers).items():
            efficiency = timing["serial"] / (timing["parallel"] * workers)
            goal = TARGET_EFFICIENCY[field]
            per_match = common.ms(timing["serial"] / timing["matches"])
            note = (f"{field} field, {timing['matches']} matches ({per_match} each serially) × {sizes['repeats']} "
                    f"repeats; Ray started and warmed up ({common.secs(timing['startup'])}) before timing")
            rows.append(common.Row("tournament", f"{field} field: serial run, wall", common.secs(timing["serial"]),
                                   "", note))
            rows.append(common.Row("tournament", f"{field} field: Ray run on {workers} workers, wall",
                                   common.secs(timing["parallel"]),
                                   f"speed-up {common.ratio(timing['serial'] / timing['parallel'])}", note))
            rows.append(common.Row("tournament", f"{field} field: parallel efficiency ({workers} cores)",
                                   f"{efficiency:.2f}", "",
                                   f"serial / (Ray × {workers}), wall; load average {timing['load']} "
                                   "(other work on the shared cores lowers it)"))
            # The target is judged against the machine's own ceiling in the same run: two perfectly
            # parallel spin loops reach only 0.87-0.90 on these cores even when idle, so the raw figure
            # above mixes the harness's loss with the hardware's.
            relative = timing["relative"]
            rows.append(common.Row("tournament", f"{field} field: machine ceiling during the runs",
                                   f"{timing['ceiling']:.2f}",
                                   f"efficiency / ceiling {relative:.2f}; "
                                   + common.target(relative >= goal, f"≥ {goal:g} of the ceiling"),
                                   f"{workers} spin loops at once vs in a row as Ray tasks, after each "
                                   "repeat's runs: the best any parallel run could show then; the comparison is the "
                                   "median over repeats of each repeat's efficiency over its ceiling"))
            inflation = timing["serial_cpu"] / timing["parallel_cpu"] if timing["parallel_cpu"] else float("nan")
            rows.append(common.Row("tournament", f"{field} field: CPU efficiency (serial CPU / Ray CPU)",
                                   f"{inflation:.2f}", "",
                                   f"CPU seconds: serial {timing['serial_cpu']:.2f}, Ray {timing['parallel_cpu']:.2f} "
                                   f"(driver + {timing['worker_processes']} worker processes, from /proc): the "
                                   "efficiency an idle machine would show with perfectly balanced work"))
    return rows


def signed_us(seconds: float) -> str:
    """A difference in microseconds with its sign, e.g. ``"+312 µs"``."""
    return ("+" if seconds >= 0 else "−") + common.us(abs(seconds))


def load_average() -> str:
    """The 1-minute load average (other work on the shared cores skews wall-time figures)."""
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "unknown"


def main(argv: Sequence[str] | None = None) -> None:
    """Run this script's measurements at the size the command line asks for and print the table."""
    common.print_table("Tournament scaling", measure(common.size_from_args(__doc__, argv)))


if __name__ == "__main__":
    main()
