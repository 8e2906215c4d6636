"""A served ladder whose every rating method fails plays on: each batch is stored, the last site and leaderboards
published stay, and one line says which method failed and how (the player worker does not end, so the supervisor
never gives up on it).

The method is a trusted drop-in plugin's, as an operator would trust one, that rates up to 8 matches and raises
beyond; the ladder schedules by a built-in method, so only publishing fails.
"""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.ladder.config import LadderConfig, ladder_from_dict
from arena.ladder.field import open_ladder, start_ladder
from arena.plugin_system.extensions import install
from arena.plugins import TRUST_ENV, load_registry, load_trusted_registry
from arena.ratings import registry as ratings_registry
from arena.serve.player import LEADERBOARDS, play_once
from tests.ladder.conftest import LORUM_FOUR

PLUGIN = '''
from arena import hookimpl
from arena.ratings import elo
from arena.ratings.registry import MethodSpec


def flaky(outcomes, **options):
    """Elo up to 8 matches; beyond, the error a plugin that breaks on more data raises."""
    count = outcomes.n_matches if hasattr(outcomes, "n_matches") else len(outcomes)  # MatchArrays or a list
    if count > 8:
        raise RuntimeError(f"cannot rate {count} matches")
    return elo.fit(outcomes)


@hookimpl
def arena_register_rating_methods(register):
    register(MethodSpec("flaky", flaky, "flaky"))
'''

NAME = "flaky_method"
BATCH = 8


@pytest.fixture
def ladder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LadderConfig]:
    """A ladder of four cheap entries rated only by the trusted plugin's ``flaky``; the method is removed from the
    registry afterwards."""
    plugins = tmp_path / "trusted"
    plugins.mkdir()
    (plugins / f"{NAME}.py").write_text(PLUGIN)
    monkeypatch.setenv(TRUST_ENV, NAME)
    try:
        install(load_trusted_registry(plugins_dir=plugins).registry)
        loaded = load_registry(plugins_dir=None).registry
        data = tomllib.loads(LORUM_FOUR.format(name="served", seed=7).replace("[game_options]",
                                                                              'ratings = ["flaky"]\n\n[game_options]'))
        yield ladder_from_dict(data, {name: game.info for name, game in loaded.games.items()},
                               {name: set(spec.games) for name, spec in loaded.agents.items()})
    finally:
        ratings_registry._SPECS.pop("flaky", None)
        for name in [name for name in sys.modules if name.startswith(f"arena_plugins.{NAME}")]:
            del sys.modules[name]  # imported here, trusted: gone for the tests that follow


def test_a_served_ladder_plays_on_and_keeps_its_last_site_when_every_rating_method_fails(
        ladder: LadderConfig, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "competition"
    start_ladder(ladder, folder / LEADERBOARDS).close()
    uploads = tmp_path / "uploads"  # no upload has joined: the field is the config's own entries
    uploads.mkdir()
    published = folder / LEADERBOARDS / "served"
    files = ("leaderboard.json", "ratings.json", "index.html")

    assert play_once(folder, uploads, ladder, BATCH, workers=1, address=None) == BATCH
    assert "flaky" not in capsys.readouterr().err
    last = {name: (published / name).read_bytes() for name in files}

    for stored in (2 * BATCH, 3 * BATCH):  # each batch stored, none published, and the worker plays the next
        assert play_once(folder, uploads, ladder, BATCH, workers=1, address=None) == BATCH
        assert capsys.readouterr().err.splitlines() == [
            f"arena serve: served: played {BATCH} matches, stored, and not published (the last site and "
            "leaderboards stay): no leaderboard: every rating method asked for failed: 'flaky' (RuntimeError: "
            f"cannot rate {stored} matches)"]
        with open_ladder(folder / LEADERBOARDS, "served") as store:
            assert len(store.store.outcomes()) == stored
        assert {name: (published / name).read_bytes() for name in files} == last
