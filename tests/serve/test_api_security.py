"""The JSON API over real HTTP, as a participant would drive it, and every cross-participant access refused."""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import shlex
import subprocess
import tarfile
import time
import zipfile
from pathlib import Path
from typing import Any

import httpx
import pytest
from serve_helpers import ROOT, Live, agent_source, zip_of

from arena.records.log import fault_line
from arena.serve.db import Bounds, ServeDB
from arena.serve.results import HELD, HIDDEN_MESSAGE, REFRESH
from arena.site.chunks import chunk_script, match_page, packed, unpacked
from arena.tournament.store import Store, pack_record, store_path


@pytest.fixture(scope="module")
def live(serve_app) -> Live:
    return serve_app()


def upload(client: httpx.Client, name: str, data: bytes) -> httpx.Response:
    return client.post("/api/uploads", files={"file": (name, data)})


def test_an_upload_is_stored_queued_and_readable_by_its_owner_only(live: Live) -> None:
    with live.client("alice") as alice, live.client("bob") as bob:
        response = upload(alice, "mine.py", agent_source())
        assert response.status_code == 202, response.text
        sent = response.json()
        assert sent["state"] == "queued" and sent["user"] == "alice" and sent["filename"] == "mine.py"
        assert alice.get(f"/api/uploads/{sent['id']}").json()["sha256"] == sent["sha256"]
        assert alice.get(f"/api/uploads/{sent['id']}/file").content == agent_source()
        assert [item["id"] for item in alice.get("/api/me").json()["uploads"]] == [sent["id"]]
        # Another participant: not found (which says nothing of whether it exists), for the upload, its report
        # and its file alike; and it is not in their list.
        for path in (f"/api/uploads/{sent['id']}", f"/api/uploads/{sent['id']}/file"):
            refused = bob.get(path)
            assert refused.status_code == 404 and "no upload" in refused.json()["detail"]
        assert bob.get("/api/uploads").json() == []


@pytest.mark.parametrize("headers", [
    {},
    {"Authorization": "Bearer alice.not-the-token"},
    {"Authorization": "Bearer bob"},
    {"Authorization": "Basic YWxpY2U6eA=="},
    {"Authorization": "Bearer " + "a" * 5000},
], ids=["none", "forged", "malformed", "other-scheme", "huge"])
def test_missing_forged_and_malformed_tokens_are_refused(live: Live, headers: dict[str, str]) -> None:
    with live.client(**headers) as client:
        for response in (client.get("/api/me"), upload(client, "mine.py", agent_source())):
            assert response.status_code == 401
            assert "a valid token is needed" in response.json()["detail"]
            assert response.headers["www-authenticate"] == "Bearer"


def test_a_revoked_token_is_refused(live: Live) -> None:
    with live.client("carol") as carol:
        assert carol.get("/api/me").status_code == 401


def test_an_oversized_upload_is_refused_before_it_is_read(live: Live) -> None:
    big = b"#" * 100_000  # the limit is 20,000 bytes
    with live.client("alice") as alice:
        response = upload(alice, "big.py", big)
        assert response.status_code == 413 and "larger than" in response.json()["detail"]

        def chunks():  # a well-formed start, then no end and no Content-Length: counted as it arrives
            yield b'--b\r\nContent-Disposition: form-data; name="file"; filename="x.py"\r\n\r\n'
            for _ in range(50):
                yield b"x" * 4096

        streamed = alice.post("/api/uploads", content=chunks(),
                              headers={"content-type": "multipart/form-data; boundary=b"})
        assert streamed.status_code == 413
    assert all(path.stat().st_size <= 20_000 for path in live.folder.glob("blobs/*"))


def tar_gz(members: list[tarfile.TarInfo], data: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for info in members:
            archive.addfile(info, io.BytesIO(data[info.name]) if info.name in data else None)
    return buffer.getvalue()


def _link(name: str, target: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = tarfile.SYMTYPE
    info.linkname = target
    return info


def _file(name: str, size: int) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size = size
    return info


def _zip_link() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("pkg/__init__.py", "x = 1\n")
        info = zipfile.ZipInfo("pkg/secret")
        info.external_attr = (0o120777 << 16)  # a symbolic link, by its Unix mode
        archive.writestr(info, "/etc/passwd")
    return buffer.getvalue()


def _bomb() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("pkg/__init__.py", "x = 1\n")
        archive.writestr("pkg/zeros.bin", b"\0" * 5_000_000)  # 5 MB of zeros: about 5 KB compressed
    return buffer.getvalue()


def _lying_bomb() -> bytes:
    """A zip whose central directory claims a tiny size for a member that inflates to megabytes."""
    data = bytearray(_bomb())
    # Rewrite the declared uncompressed size (central directory and local header) of the zeros member.
    archive = zipfile.ZipFile(io.BytesIO(bytes(data)))
    info = archive.getinfo("pkg/zeros.bin")
    real = info.file_size.to_bytes(4, "little")
    data = bytearray(bytes(data).replace(real, (10).to_bytes(4, "little")))
    return bytes(data)


@pytest.mark.parametrize(("name", "data", "message"), [
    ("up.zip", zip_of({"../evil.py": b"x", "pkg/__init__.py": b""}), "leaves the upload's folder"),
    ("up.zip", zip_of({"pkg/../../evil.py": b"x", "pkg/__init__.py": b""}), "leaves the upload's folder"),
    ("up.zip", zip_of({"/etc/evil.py": b"x", "pkg/__init__.py": b""}), "absolute path"),
    ("up.zip", zip_of({"pkg\\..\\evil.py": b"x"}), "backslash"),
    ("up.zip", _zip_link(), "links and special files are refused"),
    ("up.zip", _bomb(), "unpacks to 5000"),
    ("up.zip", _lying_bomb(), "cannot be read: Bad CRC-32"),  # read only as far as declared, then refused
    ("up.tar.gz", tar_gz([_file("pkg/__init__.py", 1), _link("pkg/link", "/etc/passwd")], {"pkg/__init__.py": b"x"}),
     "links and special files are refused"),
    ("up.tar.gz", gzip.compress(b"\0" * 3_000_000), "unpacks to more than 200000 bytes"),
    ("up.tar.gz", tar_gz([_file("../../x.py", 1)], {"../../x.py": b"x"}), "leaves the upload's folder"),
    ("up.zip", zip_of({f"pkg/m{i}.py": b"" for i in range(30)}), "the limit is 20 files"),
    ("up.zip", zip_of({"a/__init__.py": b"", "b/__init__.py": b""}), "exactly one package folder"),
    ("up.zip", zip_of({"a/arena-agent.toml": b"", "b/arena-agent.toml": b""}), "exactly one program folder"),
    ("up.zip", zip_of({"pkg/__init__.py": b"", "pkg/fast.c": b"int x;"}), "needs a build"),
    ("up.exe", b"MZ", "not an accepted upload"),
    ("up.zip", b"not a zip", "not a readable zip archive"),
], ids=["dotdot", "inner-dotdot", "absolute", "backslash", "zip-link", "zip-bomb", "lying-zip-bomb", "tar-link",
        "gzip-bomb", "tar-dotdot", "too-many-files", "two-packages", "two-programs", "needs-build", "wrong-kind", "damaged"])
def test_hostile_archives_are_refused_before_anything_is_unpacked(live: Live, name: str, data: bytes,
                                                                   message: str) -> None:
    with live.client("bob") as bob:
        before = len(bob.get("/api/uploads").json())
        response = upload(bob, name, data)
        assert response.status_code == 400, response.text
        assert message in response.json()["detail"]
        assert len(bob.get("/api/uploads").json()) == before  # nothing recorded
    assert not (live.folder / "work").exists()  # nothing unpacked


def test_a_wheel_and_a_source_archive_of_one_package_are_accepted(live: Live) -> None:
    wheel = zip_of({"mine/__init__.py": agent_source("wheelie"), "mine-1.0.dist-info/METADATA": b"Name: mine\n"})
    sdist = tar_gz([_file("mine-1.0/src/mine/__init__.py", len(agent_source("tarry"))), _file("mine-1.0/PKG-INFO", 1)],
                   {"mine-1.0/src/mine/__init__.py": agent_source("tarry"), "mine-1.0/PKG-INFO": b"x"})
    with live.client("bob") as bob:
        assert upload(bob, "mine-1.0-py3-none-any.whl", wheel).json()["kind"] == "wheel"
        assert upload(bob, "mine-1.0.tar.gz", sdist).json()["kind"] == "tar"


def test_every_answer_carries_the_content_security_policy_and_bad_requests_get_a_clear_status(live: Live) -> None:
    with live.client("alice") as alice:
        for response in (alice.get("/"), alice.get("/api/me"), alice.get("/api/uploads/abc"),
                         alice.get("/api/uploads/999999"), alice.get("/nowhere")):
            assert "script-src 'self'" in response.headers["content-security-policy"]
            assert "unsafe-inline" not in response.headers["content-security-policy"]
            assert response.headers["x-content-type-options"] == "nosniff"
            assert response.headers["cache-control"] == "no-store"  # a page may hold a token or a report
        assert alice.get("/api/uploads/abc").status_code == 422
        assert alice.get("/api/matches?limit=100000").status_code == 400
        assert "Traceback" not in alice.get("/api/uploads/abc").text


@pytest.mark.parametrize("path", ["/site/results.sqlite", "/site/../serve.sqlite", "/site/%2e%2e/serve.sqlite",
                                  "/site/..%2fserve.sqlite", "/site/.secret", "/site/../secret.key",
                                  "/site/data/../../../secret.key", "/site/index.html%00.html",
                                  "/site/link.html"])
def test_the_site_serves_no_store_secret_or_file_outside_it(live: Live, path: str) -> None:
    site = live.folder / "leaderboards" / "serve-test"
    site.mkdir(parents=True, exist_ok=True)
    (site / "results.sqlite").write_bytes(b"SQLite format 3\0")
    (site / "index.html").write_text("<p>ok</p>")
    if not (site / "link.html").is_symlink():  # a link inside the site to a file outside it
        (site / "link.html").symlink_to(live.folder / "secret.key")
    with httpx.Client(base_url=live.url) as client:
        response = client.get(path)
        assert response.status_code == 404
        assert b"SQLite" not in response.content
        served = client.get("/site/index.html")
        assert served.text == "<p>ok</p>"
        policy = served.headers["content-security-policy"]  # styles inline for the charts; scripts never
        assert "script-src 'self';" in policy and "style-src 'self' 'unsafe-inline'" in policy


def test_the_api_schema_documents_the_upload(live: Live) -> None:
    with httpx.Client(base_url=live.url) as client:
        schema = client.get("/api/openapi.json").json()
    assert "/api/uploads" in schema["paths"] and "post" in schema["paths"]["/api/uploads"]
    created = schema["components"]["schemas"]["UploadOut"]["properties"]["created"]
    assert created["type"] == "number" and "seconds since 1970-01-01 00:00 UTC" in created["description"]


def test_no_interactive_api_pages_that_would_load_a_third_partys_script(live: Live) -> None:
    # FastAPI's Swagger UI and ReDoc pages load JavaScript from a CDN and run an inline script: under the
    # server's Content-Security-Policy they render blank, and the script is not the server's to vouch for.
    with httpx.Client(base_url=live.url) as client:
        for path in ("/api/docs", "/api/redoc", "/api/docs/oauth2-redirect", "/docs", "/redoc"):
            response = client.get(path)
            assert response.status_code == 404, path
            assert b"<script" not in response.content and b"cdn" not in response.content.lower()


def test_twenty_concurrent_uploads_and_page_views_lose_nothing_and_half_write_nothing(serve_app) -> None:
    from concurrent.futures import ThreadPoolExecutor

    live = serve_app()
    sources = {f"agent{i}.py": agent_source(f"agent{i}") for i in range(20)}

    def send(name: str) -> int:
        with live.client("alice" if int(name[5:-3]) % 2 else "bob") as client:
            return int(client.post("/api/uploads", files={"file": (name, sources[name])}).json()["id"])

    def view(_: int) -> int:
        with httpx.Client(base_url=live.url) as client:
            return client.get("/").status_code + client.get("/api/leaderboard").status_code

    with ThreadPoolExecutor(max_workers=24) as pool:
        views = pool.map(view, range(40))
        ids = list(pool.map(send, sources))
        assert set(views) == {400}  # 200 + 200: every page answered
    assert len(set(ids)) == 20
    from arena.serve.db import ServeDB
    from arena.serve.storage import blob_path

    with ServeDB(live.folder) as db:
        stored = db.uploads()
    assert sorted(upload.filename for upload in stored) == sorted(sources)
    for upload in stored:  # each recorded upload has its whole file, under its hash
        assert blob_path(live.folder, upload.sha256).read_bytes() == sources[upload.filename]
    assert not list(live.folder.glob("blobs/.*"))  # no temporary file left


def _stored_match(idx: int, rotation: int, agents: list[str], messages: list[str]) -> dict[str, Any]:
    faults = [{"seat": seat, "kind": "exception", "move": 0, "message": message}
              for seat, message in enumerate(messages)]
    record = {"format": "arena-record-1", "game": "lovat", "match": f"t0000-b00-r{rotation}", "seed": 7,
              "seats": [{"agent": agent} for agent in agents], "faults": faults, "actions": [], "result": None}
    return {"idx": idx, "id": f"t0000-b00-r{rotation}", "block_id": "t0000-b00", "table_idx": 0, "block": 0,
            "rotation": rotation, "deal_seed": 7, "agents": agents, "scores": [0.0] * len(agents),
            "ranks": [1] * len(agents), "faults": faults, "think_seconds": [0.0] * len(agents),
            "wall_seconds": 0.1, "record": pack_record(record)}


def test_a_match_record_waits_for_its_batch_and_shows_only_the_callers_own_fault_messages(serve_app) -> None:
    live = serve_app()
    with ServeDB(live.folder) as db:  # alice's and bob's accepted uploads, playing as these entries
        for user in ("alice", "bob"):
            upload = db.add_upload(user, "mine.py", "file", "0" * 64, 10, Bounds(per_hour=50, queued=50, stored_bytes=10**9))
            db.finish_check(upload.id, "accepted", "passed", "report", f"{user}-agent")
            db.joined(upload.id, f"{user}.{user}-agent.v1")
    agents = ["alice.alice-agent.v1", "bob.bob-agent.v1", "random"]
    secrets = ["alice's stderr: key=1", "bob's stderr: key=2", "the anchor's"]
    site = live.folder / "leaderboards" / "serve-test"
    with Store(store_path(live.folder / "leaderboards", "serve-test")) as store:
        # Two rotations of one deal stored; the third is being played, and nothing is published yet.
        store.add([_stored_match(0, 0, agents, secrets), _stored_match(1, 1, agents[1:] + agents[:1],
                                                                          secrets[1:] + secrets[:1])])
    (site / "leaderboard.json").write_text(json.dumps({"rows": [], "matches": 0}))
    time.sleep(REFRESH + 0.1)  # the server looks at the store at most once a second
    with live.client("alice") as alice, live.client() as anyone:
        for client in (alice, anyone):  # the stored rotation holds the hands of the deal still in play
            hidden = client.get("/api/matches/t0000-b00-r0")
            assert hidden.status_code == 404 and "published" in hidden.json()["detail"]
            assert all(row["viewer"] is None for row in client.get("/api/matches").json()["matches"])
        early = alice.get("/api/my/matches").json()["matches"]  # her own fault, its message held back for now
        assert [fault["message"] for row in early for fault in row["faults"]] == [HELD, HELD]
        assert not any(secret in json.dumps(early) for secret in secrets)
        (site / "leaderboard.json").write_text(json.dumps({"rows": [], "matches": 2}))  # the batch is published
        public = anyone.get("/api/matches/t0000-b00-r0").json()
        assert [fault["message"] for fault in public["faults"]] == [HIDDEN_MESSAGE] * 3
        assert not any(secret in json.dumps(public) for secret in secrets)
        own = alice.get("/api/matches/t0000-b00-r0").json()
        assert [fault["message"] for fault in own["faults"]] == [secrets[0], HIDDEN_MESSAGE, HIDDEN_MESSAGE]
        with live.client("bob") as bob:  # bob sits in seat 0 of the second rotation
            theirs = bob.get("/api/matches/t0000-b00-r1").json()
            assert [fault["message"] for fault in theirs["faults"]] == [secrets[1], HIDDEN_MESSAGE, HIDDEN_MESSAGE]
            mine = bob.get("/api/my/matches").json()["matches"]
            assert {fault["message"] for row in mine for fault in row["faults"]} == {secrets[1]}


def test_the_served_match_viewer_shows_no_faults_message(live: Live) -> None:
    # The site is built with every fault's message (the organiser's view); served, a match page's data keeps each
    # fault's seat, kind and move but not its message (an exception's text, the tail of a seat's stderr).
    agents = ["alice.alice-agent.v1", "bob.bob-agent.v1", "random"]
    fault = {"seat": 1, "kind": "crash", "move": 3, "phase": "move",
             "message": "it stopped: Traceback ... bob's-secret-weights = [0.3, 0.7]"}
    record: dict[str, Any] = {"format": "arena-record-1", "game": "lovat", "match": "t0000-b00-r0", "seed": 7,
                              "seats": [{"agent": agent} for agent in agents], "actions": [], "result": None,
                              "faults": [fault]}
    page = match_page(None, record)
    page["steps"] = [[3, 1, "plays", False, 0.1, [fault_line(fault, agents)], [], [], None]]
    data = live.folder / "leaderboards" / "serve-test" / "data"
    data.mkdir(parents=True, exist_ok=True)
    (data / "m00000.js").write_text(chunk_script("m", 0, packed({"0": page})))
    with httpx.Client(base_url=live.url) as client:
        served = client.get("/site/data/m00000.js")
        assert served.status_code == 200 and served.text.startswith('arenaChunk("m",0,')
        shown = unpacked(served.text)["0"]
        assert "secret-weights" not in json.dumps(shown)
        assert shown["faults"] == [{**fault, "message": HIDDEN_MESSAGE}]
        assert shown["steps"][0][5] == [fault_line({**fault, "message": HIDDEN_MESSAGE}, agents)]
        assert "crash" in shown["steps"][0][5][0] and shown["record"]["seats"] == record["seats"]


def test_an_upload_id_beyond_the_databases_integers_is_not_found(live: Live) -> None:
    with live.client("alice") as alice:
        for path in ("/api/uploads/99999999999999999999999", "/api/uploads/-1", "/api/uploads/0/file"):
            response = alice.get(path)
            assert response.status_code == 404 and "you have no upload" in response.json()["detail"]
        assert alice.post("/api/uploads/99999999999999999999999/retire").status_code == 404


def test_the_same_bytes_again_are_refused_while_they_wait_or_play(serve_app) -> None:
    live = serve_app()
    source = agent_source("twice")
    with live.client("alice") as alice, live.client("bob") as bob:
        first = upload(alice, "twice.py", source).json()
        again = upload(alice, "again.py", source)  # the name does not matter: the bytes do
        assert again.status_code == 409
        assert again.json()["detail"] == (f"this file is your upload {first['id']} (twice.py), which is queued; change "
                                          "the agent to send a new version")
        assert upload(bob, "twice.py", source).status_code == 202  # another participant's are their own
        with ServeDB(live.folder) as db:  # as the checker and the player record it
            db.finish_check(first["id"], "accepted", "passed", "report", "twice")
            assert "is accepted and joins the ladder" in upload(alice, "twice.py", source).json()["detail"]
            db.joined(first["id"], "alice.twice.v1")
            assert "which plays as alice.twice.v1;" in upload(alice, "twice.py", source).json()["detail"]
            db.retire(first["id"])
        # Retired (or rejected: a check can fail for its time), the same bytes may come back as a new version.
        back = upload(alice, "twice.py", source)
        assert back.status_code == 202
        with ServeDB(live.folder) as db:
            db.finish_check(back.json()["id"], "rejected", "too slow", "report", None)
        assert upload(alice, "twice.py", source).status_code == 202
        mine = [item for item in alice.get("/api/uploads").json() if item["filename"] == "twice.py"]
        assert len(mine) == 3  # the refused ones were not recorded


def test_each_match_chunk_is_rewritten_once_however_often_it_is_asked_for(serve_app,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # Rewriting a chunk without its faults' messages (inflate, filter and deflate a hundred matches) costs about
    # 0.3 s of the server's CPU. Kept only for the latest 64 chunks in memory, asked for more in turn every request
    # paid it again: one client within its rate limit kept the server's cores busy.
    import arena.serve.site_filter as site_filter

    live = serve_app()
    rewritten: list[Any] = []
    real = site_filter._public_page

    def counted(page: Any) -> Any:
        rewritten.append(page)
        return real(page)

    monkeypatch.setattr(site_filter, "_public_page", counted)
    fault = {"seat": 0, "kind": "crash", "move": 1, "phase": "move", "message": "secret"}
    record: dict[str, Any] = {"format": "arena-record-1", "game": "lovat", "match": "t0000-b00-r0", "seed": 7,
                              "seats": [{"agent": "random"}], "actions": [], "result": None, "faults": [fault]}
    data = live.folder / "leaderboards" / "serve-test" / "data"
    data.mkdir(parents=True, exist_ok=True)
    chunks = 80
    for number in range(chunks):
        (data / f"m{number:05d}.js").write_text(chunk_script("m", number, packed({"0": match_page(None, record)})))
    with httpx.Client(base_url=live.url) as client:
        for _ in range(3):
            for number in range(chunks):
                served = client.get(f"/site/data/m{number:05d}.js")
                assert served.status_code == 200 and "secret" not in json.dumps(unpacked(served.text))
        assert len(rewritten) == chunks
        time.sleep(0.01)  # the site rewrites a chunk: served from the new file
        (data / "m00000.js").write_text(chunk_script("m", 0, packed({"0": match_page(None, {**record, "seed": 8})})))
        assert unpacked(client.get("/site/data/m00000.js").text)["0"]["record"]["seed"] == 8
        assert len(rewritten) == chunks + 1
    assert len(list((live.folder / "public-chunks").iterdir())) == chunks  # the older version of m00000 is gone


def test_pages_of_matches_make_rows_for_the_matches_they_show_only(serve_app, monkeypatch: pytest.MonkeyPatch) -> None:
    # An agent's page and a participant's own page list their latest 200 matches; each made the row of every match
    # first (an anchor plays in every one: 0.3 s of CPU per view at 100,000 matches, a few hours of play).
    import arena.serve.pages as pages

    live = serve_app()
    with ServeDB(live.folder) as db:
        upload = db.add_upload("alice", "mine.py", "file", "0" * 64, 10, Bounds(per_hour=50, queued=50, stored_bytes=10**9))
        db.finish_check(upload.id, "accepted", "passed", "report", "alice-agent")
        db.joined(upload.id, "alice.alice-agent.v1")
    agents = ["alice.alice-agent.v1", "random", "greedy"]
    with Store(store_path(live.folder / "leaderboards", "serve-test")) as store:
        store.add([_stored_match(idx, idx, agents, []) for idx in range(250)])
    made: list[Any] = []
    real = pages.row_json

    def counted(*args: Any, **kwargs: Any) -> dict[str, Any]:
        made.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(pages, "row_json", counted)
    time.sleep(REFRESH + 0.1)  # the server looks at the store at most once a second
    with httpx.Client(base_url=live.url, cookies={"arena_session": live.session("alice")}) as browser:
        anchor = browser.get("/agents/random")
        assert anchor.status_code == 200 and "Matches (250): the latest 200 of 250" in anchor.text
        assert len(made) == 200
        mine = browser.get("/me")
        assert mine.status_code == 200 and "Your matches (250): the latest 200 of 250" in mine.text
        assert len(made) == 400
        # The older ones are a link away, and the link back.
        assert '<a href="?offset=200">older matches</a>' in mine.text and "newer matches" not in mine.text
        older = browser.get("/me?offset=200").text
        assert "Your matches (250): 201 to 250, newest first, of 250" in older and len(made) == 450
        assert '<a href="?offset=0">newer matches</a>' in older and "older matches" not in older
        listed = {int(number) for number in re.findall(r"/me/matches/t0000-b00-r(\d+)\"", older)}
        assert listed == set(range(50))  # the 50 oldest
        assert browser.get("/agents/random?offset=-1").status_code == 422


def test_the_documented_curl_upload_works_and_a_wrong_field_is_named_in_one_line(live: Live, tmp_path: Path) -> None:
    lines = [line for line in (ROOT / "docs" / "serve.md").read_text().splitlines() if line.startswith("curl ")]
    upload_line = next(line for line in lines if "-F file=@" in line)
    (tmp_path / "my_agent.py").write_bytes(agent_source("curled"))
    port = live.url.rpartition(":")[2]
    env = {**os.environ, "ARENA_TOKEN": live.tokens["alice"]}

    def curl(line: str) -> tuple[int, dict[str, Any]]:
        words = shlex.split(line.replace("8000", port).partition("#")[0])
        words = [word.replace("$ARENA_TOKEN", live.tokens["alice"]) for word in words]
        done = subprocess.run([*words[:1], "-sS", "-w", "\n%{http_code}", *words[1:]], capture_output=True,
                              text=True, cwd=tmp_path, env=env, timeout=30)
        body, _, status = done.stdout.rpartition("\n")
        assert body.startswith("{"), done.stdout + done.stderr
        return int(status), json.loads(body)

    status, sent = curl(upload_line)
    assert status == 202 and sent["state"] == "queued" and sent["filename"] == "my_agent.py"
    status, seen = curl(next(line for line in lines if "/api/uploads/1" in line).replace("/api/uploads/1",
                                                                                       f"/api/uploads/{sent['id']}"))
    assert status == 200 and seen["id"] == sent["id"]
    status, refused = curl(upload_line.replace("file=@", "agent=@"))
    assert status == 400
    assert refused == {"detail": "no file in the form field 'file': send the agent as multipart/form-data in a field "
                                 "named 'file' (curl -F file=@my_agent.py)"}
    with live.client("alice") as alice:
        assert alice.get("/api/uploads/abc").json() == {
            "detail": "path upload_id: Input should be a valid integer, unable to parse string as an integer"}
