"""Results that cannot say something false: options checked, versions bound, entries that cannot start stopped,
faulty entries flagged, and the live leader counted over every stored match."""

from __future__ import annotations

import json
import sqlite3
import sys
import zlib
from pathlib import Path

import pytest

from arena.cli import main
from arena.leaderboard.publish import rate_stored
from arena.plugins import load_registry
from arena.referee import MOVE, STARTUP, fault_phase
from arena.tournament.config import ConfigError, TournamentConfig, config_from_dict
from arena.tournament.playing import Worker
from arena.tournament.runner import Progress, StartupWatch, TournamentError, run_tournament
from arena.tournament.store import Store, StoreError, store_path

AGENT_PLUGIN = '''
from arena_agents.lorum import RandomLorumAgent

from arena import hookimpl
from arena.agent import AgentSpec
from arena.seating.options import AgentOptions, OptionSpec

VERSION = "{version}"
BROKEN = {broken}


def make(seat, game, players, seed, options):
    if options.get("broken") or BROKEN:
        raise RuntimeError("cannot load my model")
    return RandomLorumAgent(seat=seat, game=game, players=players, seed=seed, options={{}})


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="mine", games=("lorum",), factory=make, description="test agent", version=VERSION,
                       trusted=True, options=AgentOptions((OptionSpec("broken", "bool", default=False),))))
'''


def plugins(folder: Path, version: str = "1.0", broken: bool = False) -> Path:
    """Write the plugin (``broken``: it cannot start whatever its options); forget an earlier import of it, as a
    new `arena run` process would."""
    folder.mkdir(exist_ok=True)
    (folder / "mine.py").write_text(AGENT_PLUGIN.format(version=version, broken=broken))
    for module in [name for name in sys.modules if name.startswith("arena_plugins.mine_")]:
        del sys.modules[module]
    return folder


def config(folder: Path, name: str = "trust", mine: dict | None = None, **top) -> TournamentConfig:
    registry = load_registry(plugins_dir=folder, entry_points=False).registry
    assert registry.errors == []
    return config_from_dict(
        {"name": name, "game": "lorum", "blocks": 2, "game_options": {"deals": 1}, **top,
         "agents": [{"name": "mine", "options": mine or {}}, {"name": "random"}, {"name": "greedy"},
                    {"name": "greedy-2", "plugin": "greedy"}, {"name": "random-2", "plugin": "random"}]},
        {name: game.info for name, game in registry.games.items()},
        {name: set(spec.games) for name, spec in registry.agents.items()},
        agent_options={name: spec.options for name, spec in registry.agents.items()},
    )


def test_a_mistyped_option_is_one_line_naming_it_with_a_did_you_mean(tmp_path: Path) -> None:
    registry = load_registry(plugins_dir=None, entry_points=False).registry
    data = {"name": "typo", "game": "lorum",
            "agents": [{"name": "search", "options": {"iteration": 80}}, {"name": "greedy"},
                       {"name": "random"}, {"name": "g2", "plugin": "greedy", "options": {"depth": 2}},
                       {"name": "s2", "plugin": "search", "options": {"iterations": 0, "ms": "fast"}}]}
    with pytest.raises(ConfigError) as caught:
        config_from_dict(data, {name: game.info for name, game in registry.games.items()},
                         {name: set(spec.games) for name, spec in registry.agents.items()}, source="x.toml",
                         agent_options={name: spec.options for name, spec in registry.agents.items()})
    assert caught.value.problems == (
        "x.toml: agents[0].options.iteration: agent 'search' has no option 'iteration' in lorum; did you mean "
        "'iterations'? (its options: iterations, ms)",
        "x.toml: agents[3].options.depth: agent 'greedy' takes no options, got 'depth'",
        "x.toml: agents[4].options.iterations: option 'iterations' of agent 'search': expected an integer >= 1, "
        "got 0",
        "x.toml: agents[4].options.ms: option 'ms' of agent 'search': expected a number >= 1, got \"fast\"",
    )


def test_the_runner_checks_options_of_a_config_built_in_python(tmp_path: Path) -> None:
    registry = load_registry(plugins_dir=None, entry_points=False).registry
    data = {"name": "api", "game": "lovat", "game_options": {"players": 3},
            "agents": [{"name": "search", "options": {"iteration": 80}}, {"name": "greedy"}, {"name": "random"}]}
    unchecked = config_from_dict(data, {name: game.info for name, game in registry.games.items()},
                                 {name: set(spec.games) for name, spec in registry.agents.items()})
    with pytest.raises(TournamentError, match=r"^entry 'search': agent 'search' has no option 'iteration' in "
                                              r"lovat; did you mean 'iterations'\?"):
        run_tournament(unchecked, leaderboards=tmp_path, plugins_dir=None, workers=1)
    assert not (tmp_path / "api").exists()  # refused before the store was made


@pytest.mark.slow
def test_resume_with_a_changed_version_refuses_naming_the_entry(tmp_path: Path) -> None:
    folder = plugins(tmp_path / "plugins")
    first = config(folder)

    def stop(progress: Progress) -> None:
        if progress.played_now >= 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_tournament(first, leaderboards=tmp_path, plugins_dir=folder, workers=1, on_progress=stop)
    with Store.open_readonly(store_path(tmp_path, "trust")) as store:
        stored = store.versions()
        done = store.count()
    assert stored["mine"]["version"] == "1.0" and stored["greedy"]["agent"] == "greedy"
    plugins(folder, version="1.1")
    with pytest.raises(StoreError) as caught:
        run_tournament(config(folder), leaderboards=tmp_path, plugins_dir=folder, workers=1, resume=True)
    message = str(caught.value)
    assert "entry 'mine' changed since its matches were stored (version 1.0 -> 1.1; plugin files changed" in message
    assert 'add it as a new entry (e.g. name = "mine-1.1", plugin = "mine") in a tournament with a new name' in message
    # The same version with edited files is caught by the hash.
    plugins(folder, version="1.0")
    (folder / "mine.py").write_text((folder / "mine.py").read_text() + "\n# tuned\n")
    with pytest.raises(StoreError, match=r"entry 'mine' changed since .*\(plugin files changed \(hash") as caught:
        run_tournament(config(folder), leaderboards=tmp_path, plugins_dir=folder, workers=1, resume=True)
    # The same version cannot name the new entry, and there is nothing to reinstall: the files go back.
    assert 'name = "mine-new"' in str(caught.value) and "put mine's plugin files back as they" in str(caught.value)
    # A refusal with more blocks leaves the stored config as it was: the old config still runs afterwards.
    with pytest.raises(StoreError, match="entry 'mine' changed since"):
        run_tournament(config(folder, blocks=3), leaderboards=tmp_path, plugins_dir=folder, workers=1, resume=True)
    with Store.open_readonly(store_path(tmp_path, "trust")) as store:
        assert store.count() == done  # nothing was played
        assert store.meta("config")["blocks"] == 2
    plugins(folder, version="1.0")  # back as it was: the run completes
    summary = run_tournament(config(folder), leaderboards=tmp_path, plugins_dir=folder, workers=1, resume=True)
    assert summary.played == summary.total - done and summary.changed == {}
    published, _ = rate_stored(config(folder), tmp_path)
    assert {row.agent: row.version for row in published.default.rows}["mine"] == "1.0"
    # Run again once complete after an edit: nothing is played, and the summary names what changed.
    plugins(folder, version="1.2")
    summary = run_tournament(config(folder), leaderboards=tmp_path, plugins_dir=folder, workers=1)
    assert summary.played == 0 and list(summary.changed) == ["mine"]
    assert summary.changed["mine"][0] == "version 1.0 -> 1.2"


def test_an_entry_that_cannot_start_stops_the_run_and_is_not_rated(tmp_path: Path) -> None:
    folder = plugins(tmp_path / "plugins")
    broken = config(folder, mine={"broken": True})
    with pytest.raises(TournamentError) as caught:
        run_tournament(broken, leaderboards=tmp_path, plugins_dir=folder, workers=1)
    message = str(caught.value)
    assert message.startswith("entry 'mine' failed to start in its first 3 matches (exception: raised RuntimeError: "
                              "cannot load my model")
    with Store.open_readonly(store_path(tmp_path, "trust")) as store:
        rows = list(store.rows())
    schedule = [match for match in broken.schedule().iter_matches()]
    third = [match.index for match in schedule if "mine" in match.seats][2]
    # Nothing from its third match on, and none of its first two: the substitute played them, not it.
    kept = [match.index for match in schedule[:third] if "mine" not in match.seats]
    assert [row.idx for row in rows] == kept and not any("mine" in row.agents for row in rows)
    assert f"with {len(kept)} of {len(schedule)} matches stored, none of them with this entry" in message


def test_an_entry_fixed_after_it_could_not_start_is_played_by_resume(tmp_path: Path) -> None:
    # The stop said 'fix the agent, then run again with --resume', but its failed matches were stored under
    # the broken version, so the fixed one was refused as a change of version.
    folder = plugins(tmp_path / "plugins", broken=True)
    with pytest.raises(TournamentError):
        run_tournament(config(folder), leaderboards=tmp_path, plugins_dir=folder, workers=1)
    plugins(folder, version="1.1")
    for worker in Worker.cached.values():  # a new 'arena run' process loads the plugins afresh
        worker.host.close()
    Worker.cached.clear()
    summary = run_tournament(config(folder), leaderboards=tmp_path, plugins_dir=folder, workers=1, resume=True)
    with Store.open_readonly(store_path(tmp_path, "trust")) as store:
        rows = list(store.rows())
        assert store.versions()["mine"]["version"] == "1.1"
    assert len(rows) == summary.total and not any(row.faults for row in rows)


def as_before_phases(fault: dict) -> dict:
    """A fault as records stored before faults carried a phase have it: no ``phase``; a start-up fault's
    message began ``start-up: ``, and an exception's named the class without ``raised``."""
    old = {key: value for key, value in fault.items() if key != "phase"}
    message = old["message"].removeprefix("raised ")
    old["message"] = f"start-up: {message}" if fault["phase"] == "startup" else message
    return old


def rewrite_as_before_phases(database: Path) -> int:
    """Rewrite every stored match's faults (column and packed record) the old way; how many faults."""
    count = 0
    with sqlite3.connect(database) as db:
        for idx, faults, packed in db.execute("SELECT idx, faults, record FROM matches").fetchall():
            record = json.loads(zlib.decompress(packed))
            record["faults"] = [as_before_phases(fault) for fault in record["faults"]]
            assert [as_before_phases(fault) for fault in json.loads(faults)] == record["faults"]
            count += len(record["faults"])
            db.execute("UPDATE matches SET faults = ?, record = ? WHERE idx = ?",
                       (json.dumps(record["faults"]), zlib.compress(json.dumps(record).encode()), idx))
    return count


def test_a_store_from_before_phases_resumes_counting_its_start_up_faults(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = plugins(tmp_path / "plugins")
    broken = config(folder, mine={"broken": True})
    second = [match.index for match in broken.schedule().iter_matches() if "mine" in match.seats][1]

    def stop(progress: Progress) -> None:
        if progress.played_now > second:  # the broken entry's first two matches are stored
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_tournament(broken, leaderboards=tmp_path, plugins_dir=folder, workers=1, on_progress=stop)
    database = store_path(tmp_path, "trust")
    assert rewrite_as_before_phases(database) == 2  # the broken entry's first two matches
    # An old record replays, and its log says where each fault happened, as the new records' do.
    with Store.open_readonly(database) as store:
        row = next(row for row in store.rows() if "mine" in row.agents)
    capsys.readouterr()
    assert main(["replay", "trust", "--match", row.id, "--log", "--leaderboards", str(tmp_path)]) == 0
    [line] = [line for line in capsys.readouterr().out.splitlines() if line.startswith("Fault:")]
    assert line.startswith(f"Fault: seat {row.agents.index('mine')} (mine) exception at start-up: start-up: "
                           "RuntimeError: cannot load my model"), line
    # Read the old way, the two stored start-up faults still count: the third stops the resumed run.
    with pytest.raises(TournamentError) as again:
        run_tournament(broken, leaderboards=tmp_path, plugins_dir=folder, workers=1, resume=True)
    assert "failed to start in its first 3 matches" in str(again.value)


def test_only_a_fault_without_a_phase_is_read_from_its_message() -> None:
    new = {"seat": 0, "kind": "exception", "phase": "move", "move": 3, "message": "start-up: raised by an agent"}
    old = {"seat": 0, "kind": "exception", "move": 3, "message": "start-up: RuntimeError: cannot load my model"}
    assert fault_phase(new) == MOVE and fault_phase(old) == STARTUP
    assert fault_phase({**old, "message": "RuntimeError: in act"}) == MOVE
    watch = StartupWatch(2)
    rows = [{"agents": ["mine", "other"], "faults": [fault]} for fault in (new, new, old, old)]
    assert watch.first_failure(rows[:2]) is None  # a decision's fault whose text says start-up is not one
    assert watch.first_failure(rows[2:]) is None  # ... and once started cleanly, the entry's streak is over
    fresh = StartupWatch(2).first_failure(rows[2:])
    assert fresh is not None and (fresh.entry, fresh.matches, fresh.position) == ("mine", 2, 1)


def test_a_limit_of_one_stops_at_the_first_failed_start(tmp_path: Path) -> None:
    folder = plugins(tmp_path / "plugins")
    with pytest.raises(TournamentError, match=r"failed to start in its first 1 matches"):
        run_tournament(config(folder, mine={"broken": True}, max_startup_faults=1), leaderboards=tmp_path,
                       plugins_dir=folder, workers=1)


@pytest.mark.slow
def test_entries_faulting_in_more_than_fault_share_of_matches_are_flagged(tmp_path: Path) -> None:
    folder = plugins(tmp_path / "plugins")
    # The broken entry's start-up faults are tolerated here (a large limit), so every one of its matches faults.
    faulty = config(folder, mine={"broken": True}, max_startup_faults=1000, fault_share=0.5)
    assert faulty.to_json()["fault_share"] == 0.5 and "fault_share" not in config(folder).to_json()
    run_tournament(faulty, leaderboards=tmp_path, plugins_dir=folder, workers=1)
    published, _ = rate_stored(faulty, tmp_path)
    flags = {row.agent: row.flagged for row in published.default.rows}
    assert flags == {"mine": True, "random": False, "greedy": False, "greedy-2": False, "random-2": False}
    assert published.default.to_json()["rows"][0].keys() >= {"version", "flagged"}


@pytest.mark.slow
def test_the_live_leader_after_resume_counts_every_stored_match(tmp_path: Path) -> None:
    folder = plugins(tmp_path / "plugins")
    whole: list[Progress] = []
    # Public deals (a seed): stores "a" and "b" then play the same deals, so their final leaders agree.
    run_tournament(config(folder, name="a", seed=5), leaderboards=tmp_path, plugins_dir=folder, workers=1,
                   on_progress=whole.append)

    def stop(progress: Progress) -> None:
        if progress.played_now >= 30:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_tournament(config(folder, name="b", seed=5), leaderboards=tmp_path, plugins_dir=folder, workers=1,
                       on_progress=stop)
    resumed: list[Progress] = []
    run_tournament(config(folder, name="b", seed=5), leaderboards=tmp_path, plugins_dir=folder, workers=1, resume=True,
                   on_progress=resumed.append)
    assert resumed[0].played_now == 0 and resumed[0].leader is not None  # known before this session plays
    assert resumed[-1].leader == whole[-1].leader


@pytest.mark.slow
def test_results_from_a_worker_with_another_plugin_version_are_refused(tmp_path: Path) -> None:
    folder = plugins(tmp_path / "plugins")
    run_tournament(config(folder, name="old"), leaderboards=tmp_path, plugins_dir=folder, workers=1)
    # The driver now has 1.1; the worker process kept the plugins it loaded (1.0), as a node that was not
    # updated would.
    plugins(folder, version="1.1")
    with pytest.raises(TournamentError, match=r"^match t\d{4}-b00-r\d: a worker played entry 'mine' with mine 1\.0, "
                                              r"but this machine has 1\.1; install the same plugin version"):
        run_tournament(config(folder, name="new"), leaderboards=tmp_path, plugins_dir=folder, workers=1)
    with Store.open_readonly(store_path(tmp_path, "new")) as store:
        assert store.count() == 0
