"""Each seat's output in a served competition, over real HTTP: its owner reads it (page and API), nobody else
does, and it is escaped where it is shown (arena.serve.seat_logs)."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import pytest
from serve_helpers import Live, add_user

from arena.serve.db import ServeDB
from arena.tournament.store import Store, store_path

MATCH = "t0000-b00-r0"
SECRET_OF_BOB = "bob's agent thinks the queen is with seat 0"


def stored_match(idx: int, match_id: str, logs: dict[int, str]) -> dict[str, object]:
    """A stored match's row: alice's agent in seat 0, bob's in seat 1, an anchor in seat 2."""
    record = {"result": {"scores": [1, 0, -1], "ranks": [1, 2, 3]}}
    return {"idx": idx, "id": match_id, "block_id": match_id[:9], "table_idx": 0, "block": idx, "rotation": 0,
            "deal_seed": 7, "agents": ["alice-mine", "bob-mine", "random"], "scores": [1, 0, -1],
            "ranks": [1, 2, 3], "faults": [], "think_seconds": [0.1, 0.1, 0.1], "wall_seconds": 0.5,
            "record": zlib.compress(json.dumps(record).encode()), "logs": logs}


def join_alice_and_bob(folder: Path) -> None:
    with ServeDB(folder) as db:
        for user, entry in (("alice", "alice-mine"), ("bob", "bob-mine")):
            upload = db.add_upload(user, "mine.py", "file", "0" * 64, 10)
            db.joined(upload.id, entry)


@pytest.fixture(scope="module")
def live(serve_app) -> Live:
    """A competition with one stored match: alice's agent in seat 0, bob's in seat 1, an anchor in seat 2."""
    started = serve_app()
    join_alice_and_bob(started.folder)
    row = stored_match(0, MATCH, {0: "alice was here <script>alert(1)</script>\n", 1: SECRET_OF_BOB + "\n"})
    with Store(store_path(started.folder / "leaderboards", "serve-test")) as store:
        store.add([row])
    with started.client("alice") as alice:  # stored, not yet published: the deal's other rotations may play
        early = alice.get(f"/api/my/matches/{MATCH}/logs")
        assert early.status_code == 404 and "not published yet" in early.json()["detail"]
    board = started.folder / "leaderboards" / "serve-test" / "leaderboard.json"
    board.write_text(json.dumps({"rows": [], "matches": 1}))  # the batch is published
    return started


def test_the_owner_reads_their_own_seats_output_and_only_theirs(live: Live) -> None:
    with live.client("alice") as alice:
        answer = alice.get(f"/api/my/matches/{MATCH}/logs")
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"match": MATCH, "seats": [{"seat": 0, "agent": "alice-mine", "kept": True,
                                                        "log": "alice was here <script>alert(1)</script>\n"}]}
    assert SECRET_OF_BOB not in answer.text
    with live.client("bob") as bob:
        seats = bob.get(f"/api/my/matches/{MATCH}/logs").json()["seats"]
    assert seats == [{"seat": 1, "agent": "bob-mine", "kept": True, "log": SECRET_OF_BOB + "\n"}]


@pytest.mark.parametrize(("user", "status"), [(None, 401), ("carol", 401)])
def test_no_token_or_a_revoked_one_reads_no_output(live: Live, user: str | None, status: int) -> None:
    with live.client(user) as client:
        answer = client.get(f"/api/my/matches/{MATCH}/logs")
    assert answer.status_code == status and "alice was here" not in answer.text


def test_another_participant_without_a_seat_gets_404_as_for_no_match(live: Live) -> None:
    live.tokens["dave"] = add_user(live.folder, "dave")
    with ServeDB(live.folder) as db:  # dave has an agent of his own, which did not play this match
        db.joined(db.add_upload("dave", "d.py", "file", "1" * 64, 10).id, "dave-mine")
    with live.client("dave") as dave:
        theirs = dave.get(f"/api/my/matches/{MATCH}/logs")
        missing = dave.get("/api/my/matches/t9999-b00-r0/logs")
    assert theirs.status_code == missing.status_code == 404
    assert "alice was here" not in theirs.text and SECRET_OF_BOB not in theirs.text
    with live.client() as browser:
        browser.cookies.set("arena_session", live.session("dave"))
        page = browser.get(f"/me/matches/{MATCH}")
    assert page.status_code == 404 and "alice was here" not in page.text


def test_the_page_shows_the_owner_their_output_escaped_and_nobody_else(live: Live) -> None:
    with live.client() as browser:
        browser.cookies.set("arena_session", live.session("alice"))
        page = browser.get(f"/me/matches/{MATCH}")
        mine = browser.get("/me")
    assert page.status_code == 200
    assert "alice was here &lt;script&gt;alert(1)&lt;/script&gt;" in page.text and "<script>alert" not in page.text
    assert SECRET_OF_BOB not in page.text
    assert f'href="/me/matches/{MATCH}"' in mine.text
    with live.client() as stranger:
        assert stranger.get(f"/me/matches/{MATCH}", follow_redirects=False).status_code == 303
        stranger.cookies.set("arena_session", live.session("bob"))
        assert "alice was here" not in stranger.get(f"/me/matches/{MATCH}").text


def test_public_answers_never_carry_a_seats_output(live: Live) -> None:
    with live.client() as public:
        for path in (f"/api/matches/{MATCH}", "/api/matches", "/agents/alice-mine", "/api/leaderboard"):
            answer = public.get(path)
            assert "alice was here" not in answer.text and SECRET_OF_BOB not in answer.text, path


def test_only_the_latest_matches_output_is_kept_and_an_older_match_says_so(serve_app) -> None:
    started = serve_app(seat_log_matches=2)
    join_alice_and_bob(started.folder)
    ids = [f"t0000-b{block:02d}-r0" for block in range(4)]
    with Store(store_path(started.folder / "leaderboards", "serve-test")) as store:
        store.add([stored_match(idx, match_id, {0: f"alice in {match_id}\n"}) for idx, match_id in enumerate(ids)])
        assert store.prune_seat_logs(2) == 2  # the two oldest matches' output goes; a second pass finds none
        assert store.prune_seat_logs(2) == 0
        assert [store.seat_log(match_id, 0) for match_id in ids] == ["", "", *(f"alice in {i}\n" for i in ids[2:])]
    (started.folder / "leaderboards" / "serve-test" / "leaderboard.json").write_text('{"rows": [], "matches": 4}')
    with started.client("alice") as alice:
        old, new = (alice.get(f"/api/my/matches/{match_id}/logs").json()["seats"] for match_id in (ids[0], ids[3]))
    assert old == [{"seat": 0, "agent": "alice-mine", "kept": False, "log": ""}]
    assert new == [{"seat": 0, "agent": "alice-mine", "kept": True, "log": f"alice in {ids[3]}\n"}]
    with started.client() as browser:
        browser.cookies.set("arena_session", started.session("alice"))
        page = browser.get(f"/me/matches/{ids[0]}").text
    assert "not kept: only the output of the latest 2 matches is" in page and "printed nothing" not in page
