"""arena: a tournament arena for AI agents playing Lovat and Slovak Lorum."""

from arena.hookspecs import hookimpl

__all__ = ["hookimpl"]
__version__ = "0.1.0"
