"""A hand passed from one match to the next in file access times, by two third-party plugins in real matches.

The sender, an agent of a package plugin, reads one marker file of the plugin's folder per card it was dealt;
the receiver, another agent of the same plugin seated in a later match (from the same zygote), stats every
marker and reports those whose access time moved.  Under ``relatime`` the first read after a change moves a file's access time, so before
the sandbox's mounts were read-only the receiver read the sender's whole hand.
"""

from __future__ import annotations

import json
import os
import sysconfig
from pathlib import Path

import pytest
from hostile_helpers import needs_sandbox, play, report_of

from arena.games.lorum.cards import FULL_DECK_MASK, names_of
from arena.plugins import load_registry
from arena.program.build import CACHE_ENV, ensure_built
from arena.program.manifest import read_manifest
from arena.referee import AgentHost
from arena.sandbox import probe

PAST = 1_600_000_000.0
"""The markers' access time before the matches (September 2020, older than their modification time)."""

PLUGIN = '''
import json, os
from arena import hookimpl
from arena.agent import Agent, AgentSpec

HERE = os.path.dirname(os.path.abspath(__file__))


class Sender(Agent):
    def act(self, observation):
        read = 0
        for card in observation.hand:
            with open(os.path.join(HERE, f"mark-{{card}}.txt"), "rb") as marker:
                read += len(marker.read())
        raise RuntimeError("REPORT " + json.dumps({{"hand": sorted(observation.hand), "read": read}}))


class Receiver(Agent):
    def act(self, observation):
        cards = {cards!r}
        moved = [card for card in cards if os.stat(os.path.join(HERE, f"mark-{{card}}.txt")).st_atime != {past!r}]
        raise RuntimeError("REPORT " + json.dumps({{"moved": sorted(moved)}}))


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="atime-sender", games=("lorum",), factory=Sender, version="1",
                       description="marks its hand in access times"))
    register(AgentSpec(name="atime-receiver", games=("lorum",), factory=Receiver, version="1",
                       description="reads a hand back from access times"))
'''


def test_a_later_match_reads_no_hand_from_access_times(tmp_path: Path) -> None:
    needs_sandbox()
    if not probe().namespaces:
        pytest.skip("without a mount namespace the sandbox cannot make the mounts read-only: run 'arena doctor'")
    plugins = tmp_path / "plugins"
    sender = plugins / "atime_sender"
    sender.mkdir(parents=True)
    cards = list(names_of(FULL_DECK_MASK))
    (sender / "__init__.py").write_text(PLUGIN.format(cards=cards, past=PAST))
    markers = [sender / f"mark-{card}.txt" for card in cards]
    for marker in markers:
        marker.write_text(f"{marker.name}\n")
    registry = load_registry(plugins_dir=plugins, entry_points=False).registry
    for marker in markers:
        os.utime(marker, (PAST, marker.stat().st_mtime))
    with AgentHost() as host:
        first = play(registry, host, ["atime-sender", "random", "random", "random"], seed=3)
        second = play(registry, host, ["atime-receiver", "random", "random", "random"], seed=4)
    sent, received = report_of(first, 0), report_of(second, 0)
    assert len(sent["hand"]) == 8 and sent["read"] == sum(len(f"mark-{card}.txt\n") for card in sent["hand"])
    assert received == {"moved": []}
    assert [marker.name for marker in markers if marker.stat().st_atime != PAST] == []


BUILD = '''name = "atime-build"
version = "1"
games = ["lorum"]
command = ["./run.sh"]
build = ["sh", "-c", {script}]
build_seconds = 30
'''


def test_a_build_reads_files_but_moves_no_access_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A build is confined as a zygote is, and could otherwise leave marks for the program's later seats."""
    needs_sandbox()
    if not probe().namespaces:
        pytest.skip("without a mount namespace the sandbox cannot make the mounts read-only: run 'arena doctor'")
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "builds"))
    marker = Path(sysconfig.get_paths()["stdlib"], "this.py")  # read by "import this" alone
    old = marker.stat().st_atime
    os.utime(marker, (PAST, marker.stat().st_mtime))
    try:
        folder = tmp_path / "program"
        folder.mkdir()
        script = f"cat {marker} | wc -c > seen && printf '#!/bin/sh\\n' > run.sh"
        (folder / "arena-agent.toml").write_text(BUILD.format(script=json.dumps(script)))
        built = ensure_built(read_manifest(folder))
        after = marker.stat().st_atime
    finally:
        os.utime(marker, (old, marker.stat().st_mtime))
    assert int((built / "seen").read_text()) == marker.stat().st_size
    assert after == PAST
