"""Play scheduled matches chosen as one goes, where ``run_tournament`` would play them (``arena.ladder``).

``run_tournament`` plays a schedule fixed by its config; a ladder chooses its next blocks from the
results stored so far.  ``MatchPlayer`` gives such a caller the tournament runner's own machinery:
the same backends (the driver, a local Ray brought in for a long run, ``workers``, a cluster at
``address``), the same batches, the same check of each worker's agent versions, and the same
reporter plugins, told of each match once it is stored.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.plugins import PluginManager
from arena.tournament.execution import Execution
from arena.tournament.playing import batches
from arena.tournament.runner import _check_worker_versions, _report
from arena.tournament.schedule import Match


class MatchPlayer:
    """Plays lists of scheduled matches and yields their store rows batch by batch, in their order.

    A context manager: leaving it stops a Ray it started.
    """

    def __init__(self, config: Mapping[str, Any], plugins_dir: Path | str | None,
                 versions: Mapping[str, Mapping[str, str]], manager: PluginManager, *, workers: int | None = None,
                 address: str | None = None, log_path: Path) -> None:
        """``config`` is the tournament-shaped config (JSON) naming every entry the matches seat; ``versions``
        each entry's agent version as this machine has it (``entry_versions``)."""
        address = address or os.environ.get("RAY_ADDRESS") or None
        serial = address is None and workers == 1
        self.parallel = 1 if serial else (workers or os.cpu_count() or 1)
        self.context = {"config": dict(config),
                        "plugins_dir": None if plugins_dir is None else str(Path(plugins_dir).resolve())}
        self.versions = versions
        self.manager = manager
        self.execution = Execution(serial, workers, address, log_path)

    def __enter__(self) -> MatchPlayer:
        self.execution.__enter__()
        return self

    def __exit__(self, *exc_info: Any) -> bool:
        return bool(self.execution.__exit__(*exc_info))

    @property
    def backend(self) -> str:
        """``"serial"``, or ``"ray"`` once batches went to Ray."""
        return self.execution.backend

    @property
    def workers(self) -> int:
        """Parallel workers used."""
        return self.execution.cpus

    def play(self, matches: Sequence[Match], expected: int) -> Iterator[list[dict[str, Any]]]:
        """Play ``matches`` and yield their rows batch by batch, in order.

        ``expected`` is how many matches the caller will ask for in all from this call on, which
        decides (with the pace so far) whether a local Ray is worth starting.
        """
        chosen = batches(iter(matches), len(matches), self.parallel)
        # The execution weighs what the driver played over every call against what was pending in all.
        pending = max(expected, len(matches)) + self.execution.in_driver
        for rows in self.execution.play(self.context, chosen, pending):
            _check_worker_versions(rows, self.versions)
            yield rows

    def report(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Tell the reporter plugins about rows just stored, in order."""
        _report(self.manager, rows)
