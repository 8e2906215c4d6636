"""Deals no agent can compute: without a config seed, deal and agent seeds are HMACs of the store's secret key."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from test_runner import KNOWN_AGENTS, KNOWN_GAMES, Interrupt, results, small_config, stop_after, twin_stores

from arena.leaderboard.publish import publish
from arena.records.seeding import derive_seed, secret_seed
from arena.tournament.config import config_from_dict, load_config
from arena.tournament.runner import run_tournament
from arena.tournament.schedule import SEED_TAG
from arena.tournament.store import Store, store_path

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def secret_config(blocks: int = 1):
    return dataclasses.replace(small_config(blocks=blocks), seed=None)


def test_every_store_gets_its_own_key_and_the_seeds_follow_it(tmp_path: Path) -> None:
    config = secret_config()
    run_tournament(config, leaderboards=tmp_path / "a", plugins_dir=None, workers=1)
    run_tournament(config, leaderboards=tmp_path / "b", plugins_dir=None, workers=1)
    with Store(store_path(tmp_path / "a", "small")) as store:
        key = store.secret
    with Store(store_path(tmp_path / "b", "small")) as other:
        assert len(key) == 32 and other.secret != key
    deals_a = [row[6] for row in results(tmp_path / "a")]
    assert deals_a != [row[6] for row in results(tmp_path / "b")]
    schedule = config.schedule()
    public = list(schedule.iter_matches())
    keyed = list(schedule.with_secret(key).iter_matches())
    assert deals_a == [match.deal_seed for match in keyed]
    for plain, match in zip(public, keyed):
        table = schedule.tables[match.table]
        assert match.deal_seed == secret_seed(key, SEED_TAG, "deal", table.group, match.block)
        assert match.deal_seed != plain.deal_seed  # nothing computable from the config alone
        assert match.agent_seeds == tuple(
            secret_seed(key, SEED_TAG, "agent", table.group, match.block, match.rotation, seat) for seat in range(4))
        assert match.seats == plain.seats  # tables and seatings are public; only the seeds are keyed


def test_the_store_holding_the_key_is_readable_by_its_owner_alone(tmp_path: Path) -> None:
    """Another account on the machine could otherwise read the key, and so every deal, from the store."""
    run_tournament(secret_config(), leaderboards=tmp_path, plugins_dir=None, workers=1)
    folder = store_path(tmp_path, "small").parent
    stores = [path for path in folder.iterdir() if path.name.startswith("results.sqlite") and "lock" not in path.name]
    assert stores and all(path.stat().st_mode & 0o777 == 0o600 for path in stores), \
        {path.name: oct(path.stat().st_mode) for path in stores}


def test_resume_after_an_interruption_equals_an_uninterrupted_run_with_a_secret_key(tmp_path: Path) -> None:
    config = secret_config(blocks=2)
    twin_stores("small", tmp_path / "whole", tmp_path / "parts")
    run_tournament(config, leaderboards=tmp_path / "whole", plugins_dir=None, workers=1)
    with pytest.raises(Interrupt):
        run_tournament(config, leaderboards=tmp_path / "parts", plugins_dir=None, workers=1,
                       on_progress=stop_after(9))
    assert 9 <= len(results(tmp_path / "parts")) < 40
    run_tournament(config, leaderboards=tmp_path / "parts", plugins_dir=None, workers=1, resume=True)
    assert results(tmp_path / "parts") == results(tmp_path / "whole")


@pytest.mark.slow
def test_records_and_the_leaderboard_say_whether_deals_were_public(tmp_path: Path) -> None:
    for config, deals in ((secret_config(), "secret"), (small_config(blocks=1), "public")):
        folder = tmp_path / deals
        run_tournament(config, leaderboards=folder, plugins_dir=None, workers=1)
        with Store.open_readonly(store_path(folder, "small")) as store:
            assert {store.record(row.id)["deals"] for row in store.rows()} == {deals}
        published = publish(config, folder)
        markdown = (folder / "small" / "leaderboard.md").read_text()
        note = "public deals: every deal follows from the config's seed (5)"
        assert (note in markdown) == (deals == "public")
        assert published.public_seed == config.seed


def test_the_public_derivation_is_unchanged_so_seeded_configs_reproduce(tmp_path: Path) -> None:
    # The README's strength figures come from configs/strength-*.toml: their seeds must give the same deals.
    config = load_config(CONFIGS / "strength-lovat.toml", KNOWN_GAMES, KNOWN_AGENTS)
    first = config.schedule().match_at(0)
    assert config.seed == 7 and config.public_deals
    assert first.deal_seed == derive_seed(SEED_TAG, 7, "deal", 0, 0) == 1357242243899458733
    assert first.agent_seeds[0] == derive_seed(SEED_TAG, 7, "agent", 0, 0, 0, 0)


def test_a_config_without_seed_reads_back_from_its_json() -> None:
    config = secret_config()
    assert config.to_json()["seed"] is None and not config.public_deals
    assert config_from_dict(config.to_json(), KNOWN_GAMES, KNOWN_AGENTS) == config
