"""Ladders: a standing field that entries join and leave, rated as it plays (docs/ladder.md).

``config`` reads a ladder config (a tournament config with ``format = "ladder"``); ``store`` keeps the
ladder's field, chosen blocks, runs and history beside the matches of an ordinary tournament store;
``field`` starts, opens, adds to and retires from a ladder; ``standing`` reads a fit and holds the
stopping rule; ``planner`` chooses the next tables; ``matches`` turns a chosen block into scheduled
matches; ``runner`` plays; ``history`` exposes the story as data; ``simulate`` feeds the same
planner and stopping rule with a simulated outcome model, for the error-rate study.
"""

from arena.ladder.config import LadderConfig, LadderSettings, ladder_from_dict, load_ladder_config
from arena.ladder.field import LadderError
from arena.ladder.history import HISTORY_FILE, ladder_history, write_history
from arena.ladder.runner import LadderRunSummary, run_ladder

__all__ = [
    "HISTORY_FILE",
    "LadderConfig",
    "LadderError",
    "LadderRunSummary",
    "LadderSettings",
    "ladder_from_dict",
    "ladder_history",
    "load_ladder_config",
    "run_ladder",
    "write_history",
]
