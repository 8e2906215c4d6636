"""Match records and what makes them reproducible: the record format, its readable log, and the seeds.

* ``arena.records.record``: the record (docs/records.md): writing, reading, checking and replaying one;
  its names are importable from this package (``from arena.records import replay``);
* ``arena.records.log``: a record's readable log, step by step (``arena replay --log``, the site's pages);
* ``arena.records.seeding``: deterministic seeds, public or secret (also ``arena.seeding``).

This package imports the record format only: the log replays with a game's words and the referee's fault
phases, which the format must not depend on.
"""

from arena.records.record import (
    JSON_KINDS,
    MAX_RECORD_BYTES,
    RECORD_FORMAT,
    RecordError,
    Replay,
    action_from_json,
    chance_error,
    check_chance_used,
    check_result,
    check_structure,
    game_for_record,
    load_record,
    make_record,
    replay,
    save_record,
)

__all__ = ["JSON_KINDS", "MAX_RECORD_BYTES", "RECORD_FORMAT", "RecordError", "Replay", "action_from_json",
           "chance_error", "check_chance_used", "check_result", "check_structure", "game_for_record", "load_record",
           "make_record", "replay", "save_record"]
