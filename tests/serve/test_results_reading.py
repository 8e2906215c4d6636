"""The server's view of the stored matches: brought up to date by reading only the matches stored since its last look.

It read every stored match again at each look (once a second while the ladder stores matches): half a core on a
store of 20,000 matches (docs/serve.md, "Measured").
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import pytest

import arena.serve.results as results
import arena.tournament.store as store_module
from arena.serve.results import Results
from arena.tournament.store import MatchRow, Store, store_path


def stored(idx: int, agents: tuple[str, ...] = ("alice", "bob", "random")) -> dict[str, object]:
    """A stored match's row at schedule position ``idx``."""
    record = {"result": {"scores": [1, 0, -1], "ranks": [1, 2, 3]}}
    return {"idx": idx, "id": f"t0000-b{idx:05d}-r0", "block_id": f"t0000-b{idx:05d}", "table_idx": 0, "block": idx,
            "rotation": 0, "deal_seed": 7, "agents": list(agents), "scores": [1, 0, -1], "ranks": [1, 2, 3],
            "faults": [], "think_seconds": [0.1, 0.1, 0.1], "wall_seconds": 0.5,
            "record": zlib.compress(json.dumps(record).encode())}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Leaderboards holding 'ladder' with the matches at positions 0 to 99 but 50 (not stored yet)."""
    with Store(store_path(tmp_path, "ladder")) as store:
        store.add([stored(idx) for idx in range(100) if idx != 50])
    return tmp_path


@pytest.fixture
def read(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every look is a fresh one (no second's wait), and the schedule positions of the rows read from the store are
    counted, whichever way the reader reads them."""
    monkeypatch.setattr(results, "REFRESH", 0.0)
    positions: list[int] = []
    real = store_module.match_row

    def counted(row: tuple[object, ...]) -> MatchRow:
        positions.append(int(str(row[0])))
        return real(row)

    monkeypatch.setattr(store_module, "match_row", counted)
    return positions


def add(folder: Path, *rows: dict[str, object]) -> None:
    with Store(store_path(folder, "ladder")) as store:
        store.add(list(rows))


def check(snapshot: results.Snapshot, expected: list[int]) -> None:
    assert [row.idx for row in snapshot.rows] == expected
    assert all(snapshot.position[row.id] == place and snapshot.by_id[row.id] is row
               for place, row in enumerate(snapshot.rows))
    assert len(snapshot.by_id) == len(snapshot.position) == len(expected)


def test_new_matches_appear_and_only_they_are_read(folder: Path, read: list[int]) -> None:
    shown = Results(folder, "ladder")
    check(shown.snapshot(), [idx for idx in range(100) if idx != 50])
    read.clear()
    add(folder, stored(100), stored(101))
    check(shown.snapshot(), [idx for idx in range(102) if idx != 50])
    assert sorted(read) == [100, 101], "only the new matches are read"
    read.clear()
    add(folder, stored(50))  # a match that ended late: stored below the others
    check(shown.snapshot(), list(range(102)))
    assert read == [50]
    read.clear()
    add(folder, stored(104), stored(103))  # the ladder's workers store a batch as its matches end
    check(shown.snapshot(), [*range(102), 103, 104])
    assert sorted(read) == [103, 104]
    read.clear()
    add(folder, stored(102))
    check(shown.snapshot(), list(range(105)))
    assert read == [102]


def test_an_unchanged_store_is_not_read(folder: Path, read: list[int]) -> None:
    shown = Results(folder, "ladder")
    first = shown.snapshot()
    read.clear()
    assert shown.snapshot() is first and read == []


def test_matches_dropped_from_the_store_leave_the_view(folder: Path, read: list[int]) -> None:
    """An entry that failed to start has its matches deleted (``Store.drop_matches_of``): read afresh."""
    shown = Results(folder, "ladder")
    shown.snapshot()
    add(folder, stored(100, ("alice", "carol", "random")), stored(101, ("carol", "bob", "random")))
    assert len(shown.snapshot().rows) == 101
    with Store(store_path(folder, "ladder")) as store:
        assert store.drop_matches_of("carol") == 2
    add(folder, stored(102))
    check(shown.snapshot(), [idx for idx in range(100) if idx != 50] + [102])


def test_the_view_matches_a_fresh_read(folder: Path, read: list[int]) -> None:
    shown = Results(folder, "ladder")
    shown.snapshot()
    add(folder, stored(120), stored(50), stored(110))
    with Store.open_readonly(store_path(folder, "ladder")) as store:
        fresh = list(store.rows())
    assert shown.snapshot().rows == tuple(fresh)
