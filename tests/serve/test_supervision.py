"""The server watches its workers: a worker killed while it serves is started again (one line in the server's
log) and the ladder plays on; a worker that keeps ending stops the server with one line and a non-zero
status, its other worker with it."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from serve_helpers import competition, stored_ids, workers_of

from arena.serve.supervisor import RESTARTS, WINDOW


@pytest.mark.slow
def test_a_killed_worker_is_restarted_and_one_that_keeps_ending_stops_the_server(tmp_path: Path) -> None:
    served = competition(tmp_path, users=())
    served.start()
    try:
        assert served.process is not None
        server = served.process.pid
        # The anchors alone make a field: the ladder plays from the start.
        played = served.wait(lambda: len(stored_ids(served.folder)), "the anchors' first matches")
        [player] = served.wait(lambda: workers_of(served.config, "player", server), "the player worker")
        os.kill(player, signal.SIGKILL)
        line = f"arena serve: the player worker (pid {player}) ended (killed by SIGKILL); started it again as pid "
        served.wait(lambda: line in served.log.read_text(), "the restart's line in the server's log")
        [again] = workers_of(served.config, "player", server)
        assert again != player and f"{line}{again} (restart 1 of at most {RESTARTS}" in served.log.read_text()
        played = len(stored_ids(served.folder))
        served.wait(lambda: len(stored_ids(served.folder)) > played, "a match played after the restart")

        killed: list[int] = []
        for _ in range(RESTARTS + 1):  # one more ending than the supervisor restarts within its window
            [checker] = served.wait(lambda: [pid for pid in workers_of(served.config, "checker", server)
                                             if pid not in killed], "a new checker worker")
            os.kill(checker, signal.SIGKILL)
            killed.append(checker)
        assert served.process.wait(timeout=120) == 1
    finally:
        served.stop()
    log = served.log.read_text()
    errors = [text for text in log.splitlines() if text.startswith("arena: error:")]
    assert errors == [f"arena: error: the checker worker ended {RESTARTS + 1} times within {WINDOW:g} s (last: killed "
                      "by SIGKILL); the server stops (the lines above say why it ended)"]
    assert log.count("arena serve: the checker worker") == RESTARTS and "Traceback" not in log
    served.wait(lambda: not workers_of(served.config), "the player to stop with its server", timeout=60)
    assert served.wait(lambda: stored_ids(served.folder), "the store to be readable")  # every match kept
