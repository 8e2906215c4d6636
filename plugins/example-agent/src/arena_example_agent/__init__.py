"""An example arena agent plugin: ``example``, a card-counting heuristic for Lovat and Slovak Lorum."""

__version__ = "0.1.0"
