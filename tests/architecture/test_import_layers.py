"""The shape of arena/'s import graph: layers that imports run down, no circles, small modules.

Read from the code with grimp (``tests/architecture/layers.py`` lists the layers).  Every claim in
docs/design.md's "Direction of imports" is one of these checks, so a new import that runs back up the layers
fails here, naming the import.
"""

from __future__ import annotations

from pathlib import Path

import grimp
import pytest

from tests.architecture import layers

ARENA = Path(__file__).resolve().parents[2] / "arena"
MODULE_LINES_MAX = 500
UPWARD_MAX = 10
PLUGIN_LOADING = "arena.plugin_system.loading"


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    """arena's import graph, built once for these tests."""
    return layers.build()


def test_every_module_has_a_layer(graph: grimp.ImportGraph) -> None:
    unplaced = sorted(module for module in graph.modules if layers.layer_of(module) is None)
    assert not unplaced, f"add these modules to a layer in tests/architecture/layers.py: {unplaced}"


def test_no_import_circle_is_longer_than_two_modules(graph: grimp.ImportGraph) -> None:
    long = [members for members in layers.circles(graph) if len(members) > 2]
    assert not long, f"import circles of more than two modules (break them with a lower module): {long}"


def test_few_imports_run_up_the_layers(graph: grimp.ImportGraph) -> None:
    found = layers.upward(graph)
    shown = "\n".join(f"  {module} -> {imported}" for module, imported in found)
    assert len(found) <= UPWARD_MAX, f"{len(found)} imports run up the layers (at most {UPWARD_MAX}):\n{shown}"


def test_nothing_below_the_plugin_loading_layer_imports_it(graph: grimp.ImportGraph) -> None:
    """The registry is built in one place: discovery, the referee, the sandboxed processes and the plugin
    system's own lower modules never reach back up to the loading layer (nor to ``arena.plugins``, which
    re-exports it for callers outside arena)."""
    loading = layers.layer_of(PLUGIN_LOADING)
    assert loading is not None
    below = sorted(module for module in graph.find_modules_that_directly_import(PLUGIN_LOADING)
                   if (layers.layer_of(module) or 0) > loading)
    assert not below, f"modules below the plugin-loading layer import it: {below}"
    inside = sorted(graph.find_modules_that_directly_import("arena.plugins"))
    assert not inside, f"arena's own modules import the facade arena.plugins (import the plugin system): {inside}"


def test_the_layer_check_sees_an_upward_import() -> None:
    """The check itself: an import from the sandbox up to the CLI is counted, one down is not."""
    graph = grimp.ImportGraph()
    for module in ("arena.sandbox.seat", "arena.cli.run", "arena.plugins", "arena.plugin_system.registry"):
        graph.add_module(module)
    graph.add_import(importer="arena.sandbox.seat", imported="arena.cli.run")
    graph.add_import(importer="arena.plugins", imported="arena.plugin_system.registry")
    graph.add_import(importer="arena.plugin_system.registry", imported="arena.plugins")
    assert layers.upward(graph) == [("arena.plugin_system.registry", "arena.plugins"),
                                    ("arena.sandbox.seat", "arena.cli.run")]
    assert layers.circles(graph) == [["arena.plugin_system.registry", "arena.plugins"]]


def test_no_module_of_arena_is_over_500_lines() -> None:
    long = sorted((str(path.relative_to(ARENA.parent)), count) for path in ARENA.rglob("*.py")
                  if (count := len(path.read_text(encoding="utf-8").splitlines())) > MODULE_LINES_MAX)
    assert not long, f"modules over {MODULE_LINES_MAX} lines (split them by job): {long}"
