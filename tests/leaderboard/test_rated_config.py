"""Rating reads a tournament's config through one typed shape (``RatedConfig``), live or read back from a store."""

from __future__ import annotations

from pathlib import Path

from arena.leaderboard.publish import RatedConfig, StoredConfig, rate_rows
from arena.tournament.store import MatchRow

VERSIONS = {name: {"version": "1"} for name in "abc"}


def row(idx: int, agents: tuple[str, ...], faults: tuple[dict, ...] = ()) -> MatchRow:
    return MatchRow(idx=idx, id=f"t0000-b{idx:02d}-r0", block_id=f"b{idx}", table_idx=0, block=idx, rotation=0,
                    deal_seed=idx, agents=agents, scores=(3.0, 1.0, 0.0), ranks=(1, 2, 3), faults=faults,
                    think_seconds=(0.0,) * 3, wall_seconds=0.1)


ROWS = [row(0, ("a", "b", "c"), ({"seat": 2, "kind": "timeout"},)), row(1, ("b", "c", "a")),
        row(2, ("c", "a", "b"), ({"seat": 0, "kind": "timeout"},))]


def test_a_stored_config_gives_its_share_seed_methods_and_trusted_entries() -> None:
    config: RatedConfig = StoredConfig(name="t", game="lovat", game_options={"players": 3},
                                       ratings=("score", "elo"), fault_share=0.5, seed=9, trusted=frozenset({"b"}))
    published, outcomes = rate_rows(config, Path("unused"), ROWS, VERSIONS)
    assert list(published.boards) == ["score", "elo"] and len(outcomes) == 3
    assert published.public_seed == 9
    board = published.default
    assert {r.agent for r in board.rows if r.flagged} == {"c"}  # faults in 2 of 3 matches, over half
    assert board.trusted == frozenset({"b"})
    assert board.scale.startswith("mean points per game; ")


def test_the_share_is_the_configs_not_a_default() -> None:
    config = StoredConfig(name="t", game="lovat", game_options={}, ratings=("elo",), fault_share=0.9)
    published, _ = rate_rows(config, Path("unused"), ROWS, VERSIONS)
    assert not any(r.flagged for r in published.default.rows) and published.public_seed is None
