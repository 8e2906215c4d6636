"""The layers of arena/, top to bottom, and what the import graph says about them (read with grimp).

A module belongs to the layer of the longest prefix listed for it.  An import from a module to one in a higher
layer is an upward import; imports guarded by ``TYPE_CHECKING`` run never and are left out.
"""

from __future__ import annotations

import grimp

LAYERS: tuple[tuple[str, ...], ...] = (
    ("arena.__main__", "arena.cli"),
    ("arena.serve",),
    ("arena.python_api",),
    ("arena.plugin_system.extensions",),
    ("arena.leaderboard.publish",),
    ("arena.site",),
    ("arena.ladder",),
    ("arena.tournament",),
    ("arena.leaderboard",),
    ("arena.ratings",),
    # Reading and checking agents and games from the loaded plugins.
    # The conformance kits (arena/conformance/; arena.testing is the game kit's documented name) and a
    # record's readable log (arena/records/log.py), which replays with the game's words.
    ("arena.conformance", "arena.testing", "arena.env", "arena.games.catalog", "arena.records.log"),
    # The plugin system (arena/plugin_system/), the loading layer on top; arena.plugins re-exports it.
    ("arena.plugins", "arena.plugin_system.loading"),
    ("arena.plugin_system.discovery",),
    ("arena.referee",),
    ("arena.program",),
    ("arena.plugin_system.registration",),
    ("arena.plugin_system.origin", "arena.plugin_system.sources", "arena.plugin_system.provenance",
     "arena.program.manifest", "arena.program.__init__"),
    ("arena.plugin_system.registry", "arena.plugin_system.data", "arena.plugin_system.source_only",
     "arena.plugin_system.reporters", "arena.plugin_system.__init__"),
    ("arena.sandbox",),
    # What every layer above reads: the agent interface, its options and the random agent (arena/seating/;
    # arena.options is the options' documented name).
    ("arena.agent", "arena.seating", "arena.options"),
    # The records (arena/records/: the format and the seeds), a game's coverage plan (arena.coverage is its
    # documented name), the conformance package itself, which imports none of its kits, the checks on input
    # (arena/inputs/) and the hooks.
    ("arena.games", "arena.conformance.coverage", "arena.coverage", "arena.conformance.__init__", "arena.env.encoding",
     "arena.records", "arena.seeding", "arena.inputs", "arena.plugin_system.hookspecs", "arena.__init__"),
)
"""Top first.  ``name.__init__`` stands for the package module ``name`` alone, not its submodules."""


def build() -> grimp.ImportGraph:
    """arena's import graph, without imports that run only under a type checker."""
    return grimp.build_graph("arena", exclude_type_checking_imports=True, cache_dir=None)


def layer_of(module: str) -> int | None:
    """The index in ``LAYERS`` of ``module``'s layer (longest prefix wins); None if no layer lists it."""
    best: tuple[int, int] | None = None  # (prefix length, layer)
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if prefix.endswith(".__init__"):
                matched = module == prefix.removesuffix(".__init__")
            else:
                matched = module == prefix or module.startswith(prefix + ".")
            if matched and (best is None or len(prefix) > best[0]):
                best = (len(prefix), index)
    return None if best is None else best[1]


def edges(graph: grimp.ImportGraph) -> list[tuple[str, str]]:
    """Every import from one module of arena to another, sorted."""
    return sorted((module, imported) for module in graph.modules
                  for imported in graph.find_modules_directly_imported_by(module))


def upward(graph: grimp.ImportGraph) -> list[tuple[str, str]]:
    """The imports that run from a lower layer up to a higher one."""
    found = []
    for module, imported in edges(graph):
        low, high = layer_of(module), layer_of(imported)
        if low is not None and high is not None and high < low:
            found.append((module, imported))
    return found


def circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The import circles: every set of two or more modules that import each other round, largest first."""
    following = {module: sorted(graph.find_modules_directly_imported_by(module)) for module in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(following):  # Tarjan's algorithm, iterative (no recursion limit to meet)
        if root in index:
            continue
        work = [(root, iter(following[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(following.get(child, ()))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                if len(members) > 1:
                    found.append(sorted(members))
    return sorted(found, key=lambda members: (-len(members), members))
