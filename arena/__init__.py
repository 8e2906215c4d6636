"""arena: a tournament arena for AI agents playing Lovat and Slovak Lorum.

The Python API (``docs/python-api.md``): ``arena.play_match``, ``arena.run_tournament``,
``arena.load_records`` (``arena.python_api``) and ``arena.ratings.fit``; the learning
environments are in ``arena.env`` (``docs/learning.md``).  They are imported on
first use, so that ``import arena`` (which every plugin does) stays light.
"""

from typing import Any

from arena.plugin_system.hookspecs import hookimpl

__all__ = ["hookimpl", "load_records", "play_match", "ratings", "run_tournament"]
__version__ = "0.1.0"

_API = ("load_records", "play_match", "run_tournament")


def __getattr__(name: str) -> Any:
    """The API functions and ``arena.ratings``, imported when first asked for."""
    import importlib

    if name in _API:
        return getattr(importlib.import_module("arena.python_api"), name)
    if name == "ratings":
        return importlib.import_module("arena.ratings")
    raise AttributeError(f"module 'arena' has no attribute {name!r}")
