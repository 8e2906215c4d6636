"""What arena reads that others wrote or typed, checked on the way in.

* ``arena.inputs.bounded_json``: JSON decoded within bounds (agents' replies, records, stores' metadata,
  configs), so that hostile data raises one ``ValueError`` instead of crashing the reader;
* ``arena.inputs.suggest``: the did-you-mean for a name a user typed, one rule for what counts as close.

Both are leaves: they import nothing of arena, so every layer may use them.
"""
