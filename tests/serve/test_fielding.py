"""An upload is checked alone, but plays from the ladder's shared folder, where its code can behave otherwise: one
that there registers nothing, or also claims a rival's agent name, is dropped with a reason its owner reads, the
rival keeps its name, and the ladder plays on (arena/serve/fielding.py)."""

from __future__ import annotations

import os
import time
import tomllib
from pathlib import Path

import pytest

from arena.ladder.config import LadderConfig, ladder_from_dict
from arena.ladder.field import open_ladder, read_ladder, start_ladder
from arena.plugins import load_registry
from arena.serve.checker import plugin_name
from arena.serve.config import ServeLimits
from arena.serve.db import ACCEPTED, ServeDB, Upload
from arena.serve.player import LEADERBOARDS, admit, field_plugins, play_once, run_player
from arena.serve.storage import store_blob
from tests.ladder.conftest import LORUM_FOUR

AGENT = '''
import random

from arena import hookimpl
from arena.agent import Agent, AgentSpec


class Mine(Agent):
    def act(self, observation):
        return self.game.random_action(observation, random.Random(self.seed))


@hookimpl
def arena_register_agents(register):
    for name in NAMES:
        register(AgentSpec(name=name, games=("lorum",), factory=Mine, description="random", version="1.0"))
'''


def upload_source(names: str) -> bytes:
    """A drop-in registering the agents ``names`` (a Python expression, evaluated where the upload is loaded)."""
    return AGENT.replace("NAMES", names).encode()


HONEST = upload_source('["evil"]')
CLAIMS_IN_THE_LADDER = upload_source('["bobbot"] + (["evil"] if "/plugins/g" in __file__ else [])')
VANISHES_IN_THE_LADDER = upload_source('["vanish"] if "/plugins/g" not in __file__ else []')
VANISHES_AT_JOINING = upload_source('["late"] if "check-" in __file__ or "/plugins/g" in __file__ else []')


@pytest.fixture
def ladder() -> LadderConfig:
    loaded = load_registry(plugins_dir=None).registry
    data = tomllib.loads(LORUM_FOUR.format(name="served", seed=5).replace('isolation = "trusted"', ""))
    return ladder_from_dict(data, {name: game.info for name, game in loaded.games.items()},
                            {name: set(spec.games) for name, spec in loaded.agents.items()})


def accepted(folder: Path, db: ServeDB, user: str, source: bytes, agent: str) -> Upload:
    """An upload of ``source`` by ``user`` whose check accepted agent ``agent`` (as the checker records it)."""
    db.add_user(user, f"hash-{user}")
    upload = db.add_upload(user, f"{agent}.py", "file", store_blob(folder, source), len(source))
    db.finish_check(upload.id, ACCEPTED, "passed", "report", agent)
    found = db.upload(upload.id)
    assert found is not None
    return found


def test_an_upload_that_claims_a_rivals_name_or_loses_its_own_in_the_ladder_is_dropped_and_the_ladder_plays(
        ladder: LadderConfig, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "competition"
    start_ladder(ladder, folder / LEADERBOARDS).close()
    limits = ServeLimits()
    with ServeDB(folder) as db:
        alice = accepted(folder, db, "alice", HONEST, "evil")
        bob = accepted(folder, db, "bob", CLAIMS_IN_THE_LADDER, "bobbot")
        carol = accepted(folder, db, "carol", VANISHES_IN_THE_LADDER, "vanish")
        dave = accepted(folder, db, "dave", VANISHES_AT_JOINING, "late")
        assert admit(folder, db, ladder, limits) == ["alice.evil.v1", "bob.bobbot.v1", "carol.vanish.v1"]

        plugins = field_plugins(folder, db, ladder, limits)

        reasons = {upload.user: upload.reason for upload in db.uploads()}
        retired = {upload.user for upload in db.uploads() if upload.retired is not None}
    assert retired == {"bob", "carol", "dave"}
    assert reasons["alice"] == "passed"
    assert reasons["bob"] == ("removed from the ladder: in the ladder's folder it registers 'evil' besides its "
                              "agent 'bobbot' (its check saw its agent alone)")
    assert reasons["carol"] == ("removed from the ladder: in the ladder's folder it does not register its agent "
                                "'vanish' (its check saw it)")
    dropped = reasons["dave"] or ""
    assert dropped.startswith("removed from the ladder: in the ladder's folder it cannot join: ")
    assert "'late'" in dropped
    err = capsys.readouterr().err
    assert f"upload {bob.id} of bob removed from the ladder" in err and f"upload {carol.id} of carol" in err
    assert f"upload {dave.id} of dave" in err

    registry = load_registry(plugins_dir=plugins).registry
    assert registry.agent_plugin["evil"] == plugin_name(alice)  # the rival keeps its name
    assert {path.name for path in plugins.iterdir()} == {plugin_name(alice) + ".py"}
    with open_ladder(folder / LEADERBOARDS, "served") as store:
        assert set(read_ladder(store).active) == {
            "greedy", "random", "random-2", "greedy-2", "alice.evil.v1"}

    assert play_once(folder, plugins, ladder, 4, workers=1, address=None) == 4  # no entry unknown: it plays


CRASHES_IN_THE_LADDER = AGENT.replace(
    "class Mine(Agent):\n",
    "class Mine(Agent):\n    def __init__(self, **options):\n        if '/plugins/g' in __file__:\n"
    "            raise SystemExit('not here')\n        super().__init__(**options)\n").replace(
    "NAMES", '["crash"]').encode()


def played_until_dropped(folder: Path, ladder: LadderConfig, user: str, source: bytes, agent: str,
                         seconds: float) -> Upload:
    """Run the player with ``user``'s accepted upload of ``source`` until it is dropped and the ladder has stored a
    match (failing after ``seconds``); the upload as dropped."""
    with ServeDB(folder) as db:
        upload = accepted(folder, db, user, source, agent)
    deadline = time.monotonic() + seconds

    def stop() -> bool:
        assert time.monotonic() < deadline, "the ladder did not play on"
        with ServeDB(folder) as db, open_ladder(folder / LEADERBOARDS, "served") as store:
            dropped = db.upload(upload.id)
            return dropped is not None and dropped.retired is not None and store.store.count() > 0

    run_player(folder, ladder, ServeLimits(), 4, stop, workers=1)
    with ServeDB(folder) as db:
        dropped = db.upload(upload.id)
    assert dropped is not None and dropped.reason is not None
    return dropped


def test_an_upload_that_fails_to_start_in_the_ladder_is_dropped_and_the_ladder_plays_on(
        ladder: LadderConfig, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "competition"
    erin = played_until_dropped(folder, ladder, "erin", CRASHES_IN_THE_LADDER, "crash", 120)
    assert str(erin.reason).startswith("removed from the ladder: in the ladder's folder it failed to start in each "
                                       "of its first matches (exception: raised SystemExit: not here")
    with open_ladder(folder / LEADERBOARDS, "served") as store:
        assert "erin.crash.v1" not in read_ladder(store).active
        assert all("erin.crash.v1" not in row.agents for row in store.store.rows())
    assert f"upload {erin.id} of erin removed from the ladder" in capsys.readouterr().err


CHANGES_VERSION_IN_THE_LADDER = AGENT.replace(
    'version="1.0"', 'version="2.0" if "/plugins/g" in __file__ else "1.0"').replace("NAMES", '["shifty"]').encode()


def test_an_upload_whose_version_changes_in_the_ladder_is_dropped_and_the_ladder_plays_on(
        ladder: LadderConfig, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Before, every run was refused (the entry changed since it joined), and the player tried again without end.
    frank = played_until_dropped(tmp_path / "competition", ladder, "frank", CHANGES_VERSION_IN_THE_LADDER, "shifty",
                                 60)
    assert frank.reason == ("removed from the ladder: in the ladder's folder it is not what joined the ladder "
                            "(version 1.0 -> 2.0)")
    assert f"upload {frank.id} of frank removed from the ladder" in capsys.readouterr().err


FORMULA_AT_JOINING = AGENT.replace(
    'version="1.0"', 'version="1.0" if "check-" in __file__ else "=HYPERLINK(\\"http://x.test\\")"').replace(
    "NAMES", '["formula"]').encode()


def test_an_upload_whose_version_is_not_plain_text_where_it_joins_never_joins(
        ladder: LadderConfig, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "competition"
    start_ladder(ladder, folder / LEADERBOARDS).close()
    with ServeDB(folder) as db:
        grace = accepted(folder, db, "grace", FORMULA_AT_JOINING, "formula")
        assert admit(folder, db, ladder, ServeLimits()) == []
        dropped = db.upload(grace.id)
    assert dropped is not None and dropped.retired is not None and dropped.entry is None
    assert dropped.reason == ("removed from the ladder: in the ladder's folder it cannot join: agent version "
                              "'=HYPERLINK(\"http://x.test\")': use letters and digits, then letters, digits and . _ + "
                              "- (at most 40 characters), e.g. '1.2'")
    with open_ladder(folder / LEADERBOARDS, "served") as store:
        assert all(not name.startswith("grace.") for name in store.store.versions())
    assert f"upload {grace.id} of grace removed from the ladder" in capsys.readouterr().err


def test_the_builds_of_the_playing_programs_are_kept_from_the_caches_pruning(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The build cache removes the least recently used builds past its bound (after any new build: another
    # upload's check), sparing only those used in the last ten minutes. A playing program's build removed so (the
    # ladder idle, or restarted) was built again in the ladder, holding up its matches for up to the manifest's
    # build_seconds (an hour), and a build that can tell the clock can hang there, at every match.
    from arena.program import cache
    from arena.program.build import CACHE_ENV, output_folder
    from arena.program.manifest import read_manifest
    from arena.serve.player import pin_builds

    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "builds"))
    plugins = tmp_path / "plugins" / "g0123"
    builds = []
    for name in ("playing", "gone"):
        program = (plugins if name == "playing" else tmp_path / "elsewhere") / f"u{name}"
        program.mkdir(parents=True)
        (program / "arena-agent.toml").write_text(f'name = "{name}"\nversion = "1"\ngames = ["lorum"]\n'
                                                  'command = ["./agent"]\nbuild = ["cc", "-o", "agent", "agent.c"]\n')
        (program / "agent.c").write_text("int main(void) { return 0; }\n")
        built = output_folder(read_manifest(program))
        built.mkdir(parents=True)
        (built / "agent").write_bytes(b"\0" * 1000)
        os.utime(built, (time.time() - 3600, time.time() - 3600))  # last used an hour ago
        builds.append(built)
    (plugins / "uplain.py").write_text(HONEST.decode())

    pin_builds(plugins)
    cache.prune(tmp_path / "builds", bound=0)

    assert builds[0].is_dir() and not builds[1].exists()
