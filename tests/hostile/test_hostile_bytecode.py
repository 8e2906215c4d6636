"""A plugin ships a crafted bytecode cache beside its hashed source: what runs is still the source.

The files hash (``arena.plugin_system.provenance``) leaves out ``__pycache__/m.*.pyc`` beside a hashed ``m.py``, and plain
Python would run such a cache in place of the source when its header passes: the source's time stamp and
size, the source's hash, or an "unchecked" hash that Python never compares.  Each plugin here says which
face ran (``source`` or ``cache``) in its description, read by discovery, and in a fault it raises on its
first move, at every level that runs third-party code (trusted in this process, isolated, sandboxed) and
under ``arena check-agent``.  Three layouts: a folder in the plugins folder, a single file there (its cache
sits outside the plugin, in the plugins folder's ``__pycache__``) and an installed entry point.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hostile_helpers import CACHES, craft_cache, play

from arena.conformance.agents import check_agent
from arena.plugin_system.provenance import files_hash, plugin_source
from arena.plugins import Registry, load_registry
from arena.referee import AgentHost
from arena.referee.confinement import sandbox_level
from arena.tournament.config import config_from_dict
from arena.tournament.runner import run_tournament
from arena.tournament.store import Store, store_path

MODULE = '''
import json

from arena import hookimpl
from arena.agent import Agent, AgentSpec
{face}

INIT = "{init}"


class TwoFaced(Agent):
    """Says, on its first move, which face of its modules ran."""

    def act(self, observation):
        raise RuntimeError("REPORT " + json.dumps({{"init": INIT, "face": FACE}}))


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="two-faced", games=("lorum",), factory=TwoFaced, version="1",
                       description=f"init {{INIT}}, face {{FACE}}"))
'''

SOURCE = {"init": "source", "face": "source"}
"""What every process must report: both modules ran from their source."""


def module(init: str, face: str | None) -> str:
    """The plugin's main module; ``face`` inline (a single file) or None (``from .face import FACE``)."""
    line = "from .face import FACE" if face is None else f'FACE = "{face}"'
    return MODULE.format(face=line, init=init)


def two_faced_package(folder: Path, kind: str) -> None:
    """A package in ``folder`` whose two modules each have a crafted cache of kind ``kind``."""
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text(module("source", None))
    (folder / "face.py").write_text('FACE = "source"\n')
    craft_cache(folder / "__init__.py", module("cache", None), kind)
    craft_cache(folder / "face.py", 'FACE = "cache"\n', kind)


def plugins_folder(tmp_path: Path, layout: str, kind: str) -> Path:
    """A plugins folder holding the two-faced plugin as a package folder or as a single file."""
    folder = tmp_path / "plugins"
    if layout == "folder":
        two_faced_package(folder / "twofaced", kind)
    else:
        folder.mkdir()
        (folder / "twofaced.py").write_text(module("source", "source"))
        craft_cache(folder / "twofaced.py", module("cache", "cache"), kind)
    return folder


def installed(tmp_path: Path, package: str, kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The two-faced package installed (for this process and every one it starts) with an ``arena`` entry point.

    ``package`` is the top-level name, one per test: a trusted seat imports it in this process.
    """
    site = tmp_path / "site"
    two_faced_package(site / package, kind)
    info = site / f"{package}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[arena]\ntwo-faced = {package}\n")
    monkeypatch.syspath_prepend(str(site))


def levels() -> list[str]:
    """Every level that runs third-party code on this machine."""
    return ["trusted", "isolated"] + ([] if sandbox_level() == "none" else ["sandboxed"])


def reported(fault: Mapping[str, Any]) -> Any:
    """What the two-faced agent said in ``fault`` (the fault itself when it said nothing)."""
    found = re.search(r"REPORT (\{.*?\})", fault["message"])
    return json.loads(found.group(1)) if found else fault


def assert_source_runs(registry: Registry) -> None:
    """Discovery and a match with the agent seated at every level saw the source's face only."""
    description = registry.agent("two-faced").description
    modes = levels()
    with AgentHost() as host:
        match = play(registry, host, ["two-faced"] * len(modes) + ["random"] * (4 - len(modes)),
                     isolation=modes + ["trusted"] * (4 - len(modes)))
    seen = {modes[fault["seat"]]: reported(fault) for fault in match.record["faults"]}
    assert {"discovery": description, **seen} == {"discovery": "init source, face source",
                                                  **dict.fromkeys(modes, SOURCE)}


@pytest.mark.parametrize("kind", CACHES)
@pytest.mark.parametrize("layout", ["folder", "file"])
def test_a_drop_in_runs_its_source_not_its_crafted_cache(tmp_path: Path, layout: str, kind: str) -> None:
    folder = plugins_folder(tmp_path, layout, kind)
    assert_source_runs(load_registry(plugins_dir=folder, entry_points=False).registry)


@pytest.mark.parametrize("kind", CACHES)
def test_an_entry_point_runs_its_source_not_its_crafted_cache(tmp_path: Path, kind: str,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    installed(tmp_path, f"twofaced_{kind.replace('-', '_')}", kind, monkeypatch)
    assert_source_runs(load_registry(plugins_dir=None).registry)


def test_a_tournament_stores_the_hash_without_the_caches_and_plays_the_source(tmp_path: Path) -> None:
    folder = plugins_folder(tmp_path, "folder", "unchecked-hash")
    registry = load_registry(plugins_dir=folder, entry_points=False).registry
    modes = levels() + ["auto"] * (4 - len(levels()))
    config = config_from_dict(
        {"name": "faces", "game": "lorum", "blocks": 1, "game_options": {"deals": 1},
         "agents": [{"name": f"face-{seat}", "plugin": "two-faced", "isolation": mode}
                    for seat, mode in enumerate(modes)]},
        {name: game.info for name, game in registry.games.items()},
        {agent: set(spec.games) for agent, spec in registry.agents.items()},
        agent_options={agent: spec.options for agent, spec in registry.agents.items()})
    summary = run_tournament(config, leaderboards=tmp_path, plugins_dir=folder, workers=1)
    with Store.open_readonly(store_path(tmp_path, "faces")) as store:
        rows, versions = list(store.rows()), store.versions()
    assert summary.played == summary.total == len(rows) > 0
    assert [reported(fault) for row in rows for fault in row.faults] == [SOURCE] * 4 * len(rows)
    stored = {entry["files"] for entry in versions.values()}
    for cache in folder.rglob("__pycache__/*.pyc"):
        cache.unlink()
    assert stored == {files_hash(plugin_source("twofaced", folder))}


@pytest.mark.parametrize("isolation", ["trusted", "isolated", "sandboxed"])
def test_check_agent_checks_the_source_not_the_crafted_cache(tmp_path: Path, isolation: str) -> None:
    if isolation == "sandboxed" and sandbox_level() == "none":
        pytest.skip("this machine offers no sandbox for third-party agents: run 'arena doctor' to see what is missing")
    folder = plugins_folder(tmp_path, "folder", "timestamp")
    report = check_agent("two-faced", "lorum", matches=1, player_counts=[4], determinism=False, isolation=isolation,
                         plugins_dir=folder, entry_points=False)
    assert [reported(fault) for fault in report.matches[0].faults] == [SOURCE]


@pytest.mark.parametrize("layout", ["folder", "file"])
def test_the_crafted_cache_leaves_the_files_hash_as_it_was(tmp_path: Path, layout: str) -> None:
    # The point of the attack: the hash that --resume and ladders compare cannot see the cache.
    folder = plugins_folder(tmp_path, layout, "timestamp")
    assert len(list(folder.rglob("__pycache__/*.pyc"))) == (2 if layout == "folder" else 1)
    assert_cache_unseen(plugin_source("twofaced", folder), folder)


def test_an_installed_plugins_crafted_cache_leaves_the_files_hash_as_it_was(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    installed(tmp_path, "twofaced_hashed", "timestamp", monkeypatch)
    root = plugin_source("two-faced", None)
    assert root == tmp_path / "site" / "twofaced_hashed" and len(list(root.rglob("__pycache__/*.pyc"))) == 2
    assert_cache_unseen(root, root)


def assert_cache_unseen(root: Path | None, folder: Path) -> None:
    """The files hash of ``root`` is the same with and without the crafted caches in ``folder``."""
    crafted = files_hash(root)
    for cache in folder.rglob("__pycache__/*.pyc"):
        cache.unlink()
    assert files_hash(root) == crafted
