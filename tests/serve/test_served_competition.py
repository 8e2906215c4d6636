"""A whole competition as an organiser and participants run it: ``arena serve`` in its own process, participants
added from the command line, agents submitted with ``arena submit``, checked in the sandbox, played by the
ladder; then ``kill -9`` of the server and a restart that loses nothing; and the pages in headless Chromium.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path
from typing import Any

import httpx
import pytest
from serve_helpers import (
    Served,
    agent_source,
    arena,
    competition,
    stored_agents,
    stored_ids,
    workers_of,
    zygotes_of,
)

BROKEN = b'''
from arena import hookimpl
from arena.agent import Agent, AgentSpec


class Broken(Agent):
    def act(self, observation):
        raise RuntimeError("no idea")


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="broken", games=("lovat",), factory=Broken, description="raises", version="1.0"))
'''


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    served = competition(tmp_path_factory.mktemp("served"))
    served.start()
    yield served
    served.stop()


@pytest.mark.slow
def test_submit_check_play_then_kill_9_and_restart_lose_nothing(served: Served, tmp_path: Path) -> None:
    listed = arena("serve", "users", "list", "--config", str(served.config))
    assert "alice\tactive" in listed.stdout and served.tokens["alice"] not in listed.stdout
    assert served.tokens["alice"].encode() not in (served.folder / "serve.sqlite").read_bytes()

    mine, broken = tmp_path / "mine.py", tmp_path / "broken.py"
    mine.write_bytes(agent_source().replace(b"    def act(self, observation):\n",
                                            b"    def act(self, observation):\n        print('alice thinks')\n"))
    broken.write_bytes(BROKEN)
    alice_env = dict(os.environ, ARENA_TOKEN=served.tokens["alice"])
    bob_file = tmp_path / "bob-token"
    bob_file.write_text(served.tokens["bob"] + "\n")
    no_token = arena("submit", served.url, str(mine), env={k: v for k, v in os.environ.items() if k != "ARENA_TOKEN"})
    assert no_token.returncode == 2 and "no token: set $ARENA_TOKEN or pass --token-file" in no_token.stderr

    accepted = arena("submit", served.url, str(mine), "--wait", env=alice_env)
    assert accepted.returncode == 0, accepted.stderr
    assert "accepted: passed" in accepted.stdout
    rejected = arena("submit", served.url, str(broken), "--wait", "--token-file", str(bob_file))
    assert rejected.returncode == 1
    assert "rejected: failed its check: exception at move 0" in rejected.stdout
    assert "raised RuntimeError: no idea" in rejected.stdout
    # Where the whole report is, and what it waited for meanwhile (on stderr: stdout is the outcome).
    number = int(rejected.stdout.split()[1])
    assert f"the whole report: {served.url}/me/uploads/{number} (logged in with your token)" in rejected.stdout
    assert rejected.stderr.startswith(f"upload {number}: queued (0 s)\n"), rejected.stderr

    # The accepted agent joins the ladder and plays; its owner sees its matches, with its own faults only.
    mine_matches = served.wait(lambda: served.api("alice", "/api/my/matches")["total"], "alice's first match")
    assert mine_matches > 0
    upload = served.api("alice", "/api/uploads")[0]
    assert upload["entry"] == "alice.mine.v1" and "mine 1.0 on lovat (sandboxed" in upload["report"]
    board = served.wait(lambda: [row for row in httpx.get(served.url + "/api/leaderboard").json()["rows"]
                                 if row["agent"] == "alice.mine.v1"], "alice's agent on the leaderboard")
    assert board[0]["games"] > 0
    bob_view = httpx.get(f"{served.url}/api/uploads/{upload['id']}",
                         headers={"Authorization": f"Bearer {served.tokens['bob']}"})
    assert bob_view.status_code == 404
    # What its seats printed: to alice, for her own seats; to bob, "not found" (he has no seat in it).
    first = served.api("alice", "/api/my/matches")["matches"][-1]
    logs = served.api("alice", f"/api/my/matches/{first['id']}/logs")["seats"]
    assert logs and all(seat["agent"] == "alice.mine.v1" and "alice thinks\n" in seat["log"] for seat in logs)
    bob_logs = httpx.get(f"{served.url}/api/my/matches/{first['id']}/logs",
                         headers={"Authorization": f"Bearer {served.tokens['bob']}"})
    assert bob_logs.status_code == 404 and "alice thinks" not in bob_logs.text
    # The deals are secret: keyed by the ladder store's secret key, never by a seed an upload could know.
    assert served.api("alice", f"/api/matches/{first['id']}")["deals"] == "secret"
    _deals_come_from_the_stores_secret(served.folder)

    # kill -9 of the server: its workers go with it; a restart keeps every upload and every stored match, and
    # the ladder goes on.
    before_uploads = {user: served.api(user, "/api/uploads") for user in ("alice", "bob")}
    assert served.process is not None
    sending = threading.Event()

    def slow_body() -> Iterator[bytes]:  # an upload still arriving when the server is killed
        yield b'--b\r\nContent-Disposition: form-data; name="file"; filename="late.py"\r\n\r\n'
        sending.set()
        for _ in range(100):
            time.sleep(0.1)
            yield b"# more\n"

    def send_late() -> None:
        try:
            httpx.post(served.url + "/api/uploads", content=slow_body(), timeout=60,
                       headers={"Authorization": f"Bearer {served.tokens['alice']}",
                                "content-type": "multipart/form-data; boundary=b"})
        except httpx.HTTPError:
            pass  # the server went away mid-request

    late = threading.Thread(target=send_late)
    late.start()
    assert sending.wait(30)
    time.sleep(0.3)
    served.process.kill()
    served.process.wait()
    served.wait(lambda: not workers_of(served.config), "the workers to stop with their server", timeout=60)
    stored = len(stored_ids(served.folder))
    late.join(timeout=60)
    served.start()
    after = {user: served.api(user, "/api/uploads") for user in ("alice", "bob")}
    assert not list((served.folder / "blobs").glob(".*"))  # nothing half-written left behind
    for user in before_uploads:
        assert [(u["id"], u["sha256"], u["state"]) for u in after[user]] == \
            [(u["id"], u["sha256"], u["state"]) for u in before_uploads[user]]
    assert stored > 0 and len(stored_ids(served.folder)) >= stored
    served.wait(lambda: len(stored_ids(served.folder)) > stored, "the ladder to play on after the restart")

    # Twenty uploads at once and a stream of page views while the ladder plays: every upload is recorded whole.
    many = {f"bulk{number}.py": b"import a_library_this_machine_lacks\n# %d\n" % number for number in range(20)}

    def send(name: str) -> int:
        response = httpx.post(served.url + "/api/uploads", files={"file": (name, many[name])}, timeout=60,
                              headers={"Authorization": f"Bearer {served.tokens['bob']}"})
        return response.status_code

    def views(_: int) -> set[int]:
        with httpx.Client(base_url=served.url, timeout=60) as client:
            return {client.get(path).status_code for path in ("/", "/api/leaderboard", "/api/matches?limit=20")}

    with ThreadPoolExecutor(max_workers=24) as pool:
        seen = pool.map(views, range(20))
        assert sorted(pool.map(send, many)) == [202] * 20
        assert set().union(*seen) == {200}
    bulk = [u for u in served.api("bob", "/api/uploads") if u["filename"] in many]
    assert sorted(u["filename"] for u in bulk) == sorted(many)
    for item in bulk:
        fetched = httpx.get(f"{served.url}/api/uploads/{item['id']}/file",
                            headers={"Authorization": f"Bearer {served.tokens['bob']}"})
        assert fetched.content == many[item["filename"]]

    # Its owner retires it: the player takes it out of the field between two runs.
    retire = httpx.post(f"{served.url}/api/uploads/{upload['id']}/retire",
                        headers={"Authorization": f"Bearer {served.tokens['alice']}"})
    assert retire.status_code == 202
    served.wait(lambda: served.api("alice", f"/api/uploads/{upload['id']}")["retired"], "the retirement")


def _deals_come_from_the_stores_secret(folder: Path) -> None:
    from arena.tournament.ids import deal_seed
    from arena.tournament.store import Store

    with Store.open_readonly(folder / "leaderboards" / "serve-lovat" / "results.sqlite") as store:
        secret, rows = store.secret, list(store.rows())
    assert rows
    for row in rows:
        assert row.deal_seed == deal_seed(0, row.table_idx, row.block, secret)
        assert row.deal_seed not in {deal_seed(seed, row.table_idx, row.block) for seed in (0, 2026)}


@pytest.mark.slow
def test_a_participant_in_a_browser_logs_in_uploads_sees_it_play_and_opens_a_match(served: Served, devtools: Any,
                                                                                    tmp_path: Path) -> None:
    page = devtools
    agent = tmp_path / "clicker.py"
    agent.write_bytes(agent_source("clicker"))
    page.open(served.url + "/")
    page.evaluate(f"document.querySelector('input[name=token]').value = {json.dumps(served.tokens['alice'])}")
    page.follow("form[action='/login'] button")
    assert page.wait_for("location.pathname") == "/me"
    root = page.call("DOM.getDocument")["root"]["nodeId"]
    node = page.call("DOM.querySelector", {"nodeId": root, "selector": "#upload-form input[type=file]"})["nodeId"]
    page.call("DOM.setFileInputFiles", {"nodeId": node, "files": [str(agent)]})
    page.follow("#upload-form button")

    def state() -> str | None:
        page.open(served.url + "/me")
        cells = page.evaluate("[...document.querySelectorAll('#uploads tbody tr')].map(r => r.textContent)")
        row = next((text for text in cells if "clicker.py" in text), "")
        return "accepted" if "accepted" in row and "alice.clicker.v1" in row else None

    served.wait(state, "the browser's upload to be accepted and join the ladder")

    def on_board() -> bool:
        page.open(served.url + "/")
        return bool(page.evaluate("[...document.querySelectorAll('#leaderboard a')]"
                                  ".some(a => a.textContent === 'alice.clicker.v1')"))

    served.wait(on_board, "the browser's agent on the leaderboard")
    page.follow("#leaderboard a[href='/agents/alice.clicker.v1']")
    assert page.evaluate("document.getElementById('versions').textContent").split() == ["alice.clicker.v1", "(playing)"]

    def rating_path_and_a_viewable_match() -> bool:  # once a batch's history and site are both published
        page.open(served.url + "/agents/alice.clicker.v1")
        return bool(page.evaluate("document.querySelectorAll('#rating-path tbody tr').length > 0"
                                  " && document.querySelector('#agent-matches tbody a') !== null"))

    served.wait(rating_path_and_a_viewable_match, "the agent's rating path and a match in the site on its page")
    page.follow("#agent-matches tbody a")
    page.wait_for("location.pathname === '/site/match.html' && document.querySelectorAll('#match-log li').length")
    seats = page.evaluate("document.body.textContent")
    assert "alice.clicker.v1" in seats
    page.open(served.url + "/site/index.html")  # the leaderboard with its charts (inline SVG)
    page.wait_for("document.querySelectorAll('#leaderboard-elo tbody tr').length")
    assert page.errors == []  # the site's script runs under the Content-Security-Policy, and nothing is refused


@pytest.mark.slow
def test_each_admission_stops_the_zygotes_of_the_field_before(served: Served, tmp_path: Path) -> None:
    # Every admission plays from a new plugins folder; the player's zygotes of the earlier folders (tens of MB
    # each) must not pile up.
    assert served.process is not None
    bob = dict(os.environ, ARENA_TOKEN=served.tokens["bob"])
    for version in (1, 2, 3):
        agent = tmp_path / "gen.py"
        agent.write_bytes(agent_source("gen") + f"# generation {version}\n".encode())
        submitted = arena("submit", served.url, str(agent), "--wait", env=bob)
        assert submitted.returncode == 0, submitted.stdout + submitted.stderr
        entry = f"bob.gen.v{version}"
        served.wait(lambda entry=entry: entry in stored_agents(served.folder), f"{entry}'s first stored match")
        [player] = workers_of(served.config, "player", served.process.pid)
        zygotes = zygotes_of(player)
        [generation] = [folder for folder in (served.folder / "plugins").iterdir() if folder.name.startswith("g")]
        playing = [upload for user in ("alice", "bob") for upload in served.api(user, "/api/uploads")
                   if upload["entry"] is not None and upload["retired"] is None]
        # One zygote per plugin of the field now playing: none of an earlier field's (whose files are gone),
        # no built-in plugin twice (once per field).
        assert all(Path(plugin["target"]).resolve().parent == generation.resolve() for plugin in zygotes if plugin["kind"] != "builtin")
        assert len({json.dumps(plugin, sort_keys=True) for plugin in zygotes}) == len(zygotes)
        assert len(zygotes) <= 3 + len(playing)  # the anchors' plugins, and each playing upload's


@pytest.mark.slow
def test_revoking_a_participant_takes_their_agents_out_of_the_ladder(served: Served, tmp_path: Path) -> None:
    added = arena("serve", "users", "add", "dave", "--config", str(served.config), "--json")
    assert added.returncode == 0, added.stderr
    served.tokens["dave"] = json.loads(added.stdout)["token"]
    agent = tmp_path / "davebot.py"
    agent.write_bytes(agent_source("davebot"))
    submitted = arena("submit", served.url, str(agent), "--wait", env=dict(os.environ, ARENA_TOKEN=served.tokens["dave"]))
    assert submitted.returncode == 0, submitted.stdout + submitted.stderr
    served.wait(lambda: served.api("dave", "/api/uploads")[0]["entry"], "dave's agent to join the ladder")
    # The same bytes again are refused while they play.
    again = arena("submit", served.url, str(agent), env=dict(os.environ, ARENA_TOKEN=served.tokens["dave"]))
    assert again.returncode == 1 and "upload refused: this file is your upload" in again.stderr

    revoked = arena("serve", "users", "revoke", "dave", "--config", str(served.config))
    assert revoked.returncode == 0, revoked.stderr
    assert "1 accepted upload of theirs will leave the ladder between two of its runs" in revoked.stdout
    assert httpx.get(served.url + "/api/me", headers={"Authorization": f"Bearer {served.tokens['dave']}"}
                     ).status_code == 401
    from arena.serve.db import ServeDB

    def retired() -> bool:
        with ServeDB(served.folder) as db:
            [upload] = db.uploads(user="dave")
        return upload.retired is not None

    served.wait(retired, "dave's agent to be retired")
    path = served.folder / "leaderboards" / "serve-lovat" / "results.sqlite"
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as ladder:  # the player holds the write lock
        [(retired_at,)] = ladder.execute("SELECT retired_at FROM ladder_entries WHERE name = 'dave.davebot.v1'")
    assert retired_at is not None
    nobody = arena("serve", "users", "revoke", "nobody", "--config", str(served.config))
    assert nobody.returncode == 2 and nobody.stderr == "arena: error: no participant 'nobody' (see 'arena serve users list')\n"
