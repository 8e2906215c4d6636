"""The pages (login, the participant's own page, CSRF, escaping) and the limits on each participant."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from serve_helpers import Live, agent_source

from arena.serve.db import REJECTED, ServeDB


def post_login(client: httpx.Client, token: str) -> httpx.Response:
    """Log in as the front page's form does: with the CSRF value bound to this browser's pre-session cookie."""
    return client.post("/login", data={"token": token, "csrf": csrf_of(client.get("/").text)})


@contextmanager
def login(live: Live, user: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live.url, timeout=30) as client:
        response = post_login(client, live.tokens[user])
        assert response.status_code == 303 and response.headers["location"] == "/me"
        yield client


def csrf_of(page: str) -> str:
    found = re.search(r'name="csrf" value="([0-9a-f]+)"', page)
    assert found, "no CSRF field on the page"
    return found.group(1)


@pytest.fixture(scope="module")
def live(serve_app) -> Live:
    return serve_app()


def test_login_sets_an_httponly_samesite_cookie_and_a_bad_token_is_refused(live: Live) -> None:
    with httpx.Client(base_url=live.url) as client:
        response = post_login(client, live.tokens["alice"])
        cookie = response.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie
        assert "secure" not in cookie  # plain HTTP here; behind a TLS proxy the scheme turns it on
        client.cookies.delete("arena_session")  # logged out: the front page shows the login form again
        refused = post_login(client, live.tokens["alice"] + "x")
        assert refused.status_code == 401 and "not valid" in refused.text
        assert post_login(client, live.tokens["carol"]).status_code == 401


def test_another_site_cannot_log_a_visitor_in_under_its_own_token_nor_register_them(serve_app) -> None:
    # Login CSRF: a page elsewhere auto-posting the attacker's token would log the visitor in as the attacker, who
    # would then download whatever the visitor uploads. That post carries neither the SameSite=Strict pre-session
    # cookie nor the value bound to it.
    live = serve_app(self_registration=True)
    with httpx.Client(base_url=live.url, timeout=30) as attacker_page:
        lured = attacker_page.post("/login", data={"token": live.tokens["bob"]})
        assert lured.status_code == 403 and "another site" in lured.text  # an HTML page, as every page refusal
        assert "set-cookie" not in lured.headers
        assert attacker_page.post("/register", data={"name": "mallory"}).status_code == 403
    with httpx.Client(base_url=live.url, timeout=30) as visitor, \
            httpx.Client(base_url=live.url, timeout=30) as other:
        value = csrf_of(visitor.get("/").text)
        cookie = visitor.cookies["arena_login"]
        assert "samesite=strict" in other.get("/").headers["set-cookie"].lower()
        # Another browser's value does not fit this browser's cookie, nor does a value without its cookie.
        assert other.post("/login", data={"token": live.tokens["bob"], "csrf": value}).status_code == 403
        assert visitor.post("/login", data={"token": live.tokens["bob"], "csrf": "0" * 64}).status_code == 403
        made = visitor.post("/register", data={"name": "dora", "csrf": value})
        assert made.status_code == 201 and "dora." in made.text
        assert visitor.cookies["arena_login"] == cookie  # the nonce is not replaced on every page view
        assert visitor.post("/login", data={"token": live.tokens["bob"], "csrf": value}).status_code == 303


def test_a_form_upload_needs_the_session_csrf_value(live: Live) -> None:
    with login(live, "alice") as alice:
        page = alice.get("/me").text
        files = {"file": ("mine.py", agent_source())}
        forged = alice.post("/me/uploads", files=files, data={"csrf": "0" * 64})
        assert forged.status_code == 403 and "another site" in forged.text
        missing = alice.post("/me/uploads", files=files)
        assert missing.status_code == 403
        with login(live, "bob") as bob:  # bob's own CSRF value does not work in alice's session, nor hers in his
            bobs = csrf_of(bob.get("/me").text)
            assert alice.post("/me/uploads", files=files, data={"csrf": bobs}).status_code == 403
        sent = alice.post("/me/uploads", files=files, data={"csrf": csrf_of(page)})
        assert sent.status_code == 303
        assert "mine.py" in alice.get("/me").text


def test_what_a_participant_wrote_is_escaped_and_another_participants_report_is_not_found(live: Live) -> None:
    hostile = '<img src=x onerror=alert(1)>".py'
    with live.client("bob") as bob_api:
        sent = bob_api.post("/api/uploads", files={"file": (hostile, agent_source())}).json()
    with login(live, "bob") as bob:
        page = bob.get("/me").text
        assert "<img" not in page
        assert "&lt;img src=x onerror=alert(1)&gt;%22.py" in page  # httpx sends the quote as %22
        assert "<img" not in bob.get(f"/me/uploads/{sent['id']}").text
    with login(live, "alice") as alice:
        assert alice.get(f"/me/uploads/{sent['id']}").status_code == 404
        assert hostile not in alice.get("/me").text


def test_uploads_per_hour_are_limited(serve_app) -> None:
    live = serve_app(uploads_per_hour=2)
    with live.client("alice") as alice:
        codes = [alice.post("/api/uploads", files={"file": (f"m{i}.py", agent_source(f"m{i}"))}).status_code
                 for i in range(3)]
        assert codes == [202, 202, 429]
        assert "2 uploads an hour" in alice.post("/api/uploads", files={"file": ("m.py", b"x")}).json()["detail"]
    with live.client("bob") as bob:  # per participant
        assert bob.post("/api/uploads", files={"file": ("b.py", agent_source("b"))}).status_code == 202


def test_the_queue_and_the_stored_bytes_are_bounded_per_participant(serve_app) -> None:
    live = serve_app(queued=1, stored_bytes=1500)
    with live.client("alice") as alice:
        assert alice.post("/api/uploads", files={"file": ("a.py", agent_source("a"))}).status_code == 202
        second = alice.post("/api/uploads", files={"file": ("b.py", agent_source("b"))})
        assert second.status_code == 429 and "waiting for their check" in second.json()["detail"]
    with live.client("bob") as bob:
        big = agent_source("c") + b"#" * 1200
        refused = bob.post("/api/uploads", files={"file": ("c.py", big)})
        assert refused.status_code == 413 and "more than 1500 bytes" in refused.json()["detail"]


def test_too_many_requests_from_one_address_get_429_with_retry_after(serve_app) -> None:
    live = serve_app(requests_per_second=2.0)
    with httpx.Client(base_url=live.url) as client:
        codes = [client.get("/api/leaderboard").status_code for _ in range(10)]
        assert codes[:4] == [200] * 4  # a burst of twice the rate
        assert 429 in codes
        refused = client.get("/api/leaderboard")
        assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
        assert "too many requests" in refused.json()["detail"]


def test_only_its_owner_can_retire_an_upload_and_only_an_accepted_one(live: Live) -> None:
    from arena.serve.db import ACCEPTED

    with live.client("alice") as alice, live.client("bob") as bob:
        sent = alice.post("/api/uploads", files={"file": ("r.py", agent_source("r"))}).json()
        assert alice.post(f"/api/uploads/{sent['id']}/retire").status_code == 409  # still queued
        with ServeDB(live.folder) as db:
            db.finish_check(sent["id"], ACCEPTED, "passed", "report", "r")
        assert bob.post(f"/api/uploads/{sent['id']}/retire").status_code == 404
        assert alice.get(f"/api/uploads/{sent['id']}").json()["retire_asked"] is None
        with login(live, "bob") as page:  # bob's session and CSRF value cannot retire it either
            csrf = csrf_of(page.get("/me").text)
            assert page.post(f"/me/uploads/{sent['id']}/retire", data={"csrf": csrf}).status_code == 404
        asked = alice.post(f"/api/uploads/{sent['id']}/retire")
        assert asked.status_code == 202 and asked.json()["retire_asked"] is not None
    with ServeDB(live.folder) as db:  # the player retires it between two runs, and never lets it join
        assert [upload.id for upload in db.retire_asked()] == [sent["id"]]
        assert sent["id"] not in [upload.id for upload in db.waiting_to_join()]


def test_concurrent_uploads_cannot_overrun_a_bound(serve_app) -> None:
    from concurrent.futures import ThreadPoolExecutor

    live = serve_app(queued=3)

    def send(number: int) -> int:
        with live.client("alice") as alice:
            return alice.post("/api/uploads", files={"file": (f"c{number}.py", agent_source(f"c{number}"))}).status_code

    with ThreadPoolExecutor(max_workers=10) as pool:
        codes = sorted(pool.map(send, range(10)))
    assert codes == [202] * 3 + [429] * 7


def test_self_registration_is_off_unless_the_config_turns_it_on(serve_app) -> None:
    closed = serve_app()
    with httpx.Client(base_url=closed.url) as client:
        refused = client.post("/api/register", json={"name": "eve"})
        assert refused.status_code == 404 and "self-registration is off" in refused.json()["detail"]
        assert 'action="/register"' not in client.get("/").text
    live = serve_app(self_registration=True)
    with httpx.Client(base_url=live.url) as client:
        assert 'action="/register"' in client.get("/").text
        made = client.post("/api/register", json={"name": "eve"})
        assert made.status_code == 201
        token = made.json()["token"]
        assert client.get("/api/me", headers={"Authorization": f"Bearer {token}"}).json()["user"] == "eve"
        taken = client.post("/api/register", json={"name": "alice"})
        assert taken.status_code == 409 and "taken" in taken.json()["detail"]
        assert client.post("/api/register", json={"name": "Bad Name"}).status_code == 400
        codes = [client.post("/api/register", json={"name": f"p{number}"}).status_code for number in range(6)]
        assert codes == [201] * 4 + [429] * 2  # 5 an hour from one address, eve included


def test_registrations_are_bounded_from_all_addresses_together(serve_app) -> None:
    from arena.serve.app import REGISTRATIONS, REGISTRATIONS_ALL

    live = serve_app(self_registration=True)
    codes = []
    for host in range(2, 2 + REGISTRATIONS_ALL // REGISTRATIONS + 1):  # one more address than the bound needs
        transport = httpx.HTTPTransport(local_address=f"127.0.0.{host}")  # the loopback answers all of 127/8
        with httpx.Client(base_url=live.url, transport=transport) as client:
            codes += [client.post("/api/register", json={"name": f"h{host}_{number}"}).status_code
                      for number in range(REGISTRATIONS)]
    assert codes == [201] * REGISTRATIONS_ALL + [429] * REGISTRATIONS
    with httpx.Client(base_url=live.url) as client:
        refused = client.post("/api/register", json={"name": "late"})
        assert refused.status_code == 429 and f"at most {REGISTRATIONS_ALL} registrations an hour in all" in \
            refused.json()["detail"]


def test_one_participants_stream_of_uploads_does_not_hold_anothers_check_behind_it(serve_app) -> None:
    live = serve_app()
    with live.client("alice") as alice, live.client("bob") as bob:
        floods = [alice.post("/api/uploads", files={"file": (f"f{n}.py", agent_source(f"f{n}"))}).json()["id"]
                  for n in range(4)]
        late = bob.post("/api/uploads", files={"file": ("b.py", agent_source("b"))}).json()["id"]
    with ServeDB(live.folder) as db:
        first = db.next_queued()
        assert first is not None and first.id == floods[0]  # nobody checked yet: the oldest first
        db.finish_check(first.id, REJECTED, "took the whole check time", "report", None)
        second = db.next_queued()  # alice had her turn this hour; bob has not: his goes before her three others
        assert second is not None and second.id == late
        db.finish_check(second.id, REJECTED, "x", "report", None)
        assert [claimed.id for claimed in iter(db.next_queued, None)] == floods[1:]


def test_over_tls_the_cookies_are_host_only_and_secure(live: Live) -> None:
    # Behind a TLS-terminating proxy (X-Forwarded-Proto from the loopback), the cookies are '__Host-' cookies: a
    # site under the same parent domain cannot plant a session (its own token) or a login nonce of its choosing.
    tls = {"X-Forwarded-Proto": "https"}
    with httpx.Client(base_url=live.url, headers=tls) as browser:
        front = browser.get("/")
        nonce = front.headers["set-cookie"]
        assert nonce.startswith("__Host-arena_login=") and "; secure" in nonce.lower() and "Domain" not in nonce
        value = nonce.split(";")[0].split("=", 1)[1]
        jar = {"Cookie": f"__Host-arena_login={value}"}
        planted = browser.post("/login", data={"token": live.tokens["bob"], "csrf": csrf_of(front.text)},
                               headers={"Cookie": f"arena_login={value}"})  # the plain name is not read over TLS
        assert planted.status_code == 403
        logged = browser.post("/login", data={"token": live.tokens["alice"], "csrf": csrf_of(front.text)}, headers=jar)
        session = logged.headers["set-cookie"]
        assert logged.status_code == 303 and session.startswith("__Host-arena_session=") and "secure" in session.lower()
        value = session.split(";")[0].split("=", 1)[1]
        assert "alice" in browser.get("/me", headers={"Cookie": f"__Host-arena_session={value}"}).text
        assert browser.get("/me", headers={"Cookie": f"arena_session={value}"}).status_code == 303  # to the login


def test_the_session_cookie_is_a_session_not_the_token_and_logout_ends_it(live: Live) -> None:
    with login(live, "alice") as browser:
        session = browser.cookies["arena_session"]
        assert session != live.tokens["alice"] and live.tokens["alice"].partition(".")[2] not in session
        stored = b"".join(path.read_bytes() for path in live.folder.glob("serve.sqlite*"))  # the log's pages too
        assert session.encode() not in stored  # kept as an HMAC only
        with httpx.Client(base_url=live.url) as thief:  # a copy of the cookie, elsewhere
            thief.cookies.set("arena_session", session)
            assert "alice" in thief.get("/me").text
            out = browser.post("/logout", data={"csrf": csrf_of(browser.get("/me").text)})
            assert out.status_code == 303
            assert thief.get("/me", follow_redirects=False).status_code == 303  # ended: to the login form
        # The token itself is no session: a cookie holding it is refused.
        browser.cookies.set("arena_session", live.tokens["alice"])
        assert browser.get("/me", follow_redirects=False).status_code == 303
    with login(live, "alice") as again:  # a new login is a new session
        assert again.cookies["arena_session"] != session and "alice" in again.get("/me").text


def publish_random(live: Live, points: range, **more: Any) -> None:
    """Publish a leaderboard of the anchor 'random' alone and a ladder history with its points at batches ``points``
    (and the entry's ``more`` keys)."""
    site = live.folder / "leaderboards" / "serve-test"
    site.mkdir(parents=True, exist_ok=True)
    row = {"agent": "random", "rank": 1, "rating": 1000.0, "lower": None, "games": 3000, "timeouts": 0, "illegal": 0,
           "exceptions": 0, "crashes": 0, "memory": 0}
    (site / "leaderboard.json").write_text(json.dumps({"rows": [row], "matches": 0}))
    point = {"matches": 3, "rating": 1000.0, "lower": 900.0, "upper": 1100.0, "rank": 1, "status": "unsettled"}
    entry = {"name": "random", "added_after": 0, "status": "unsettled",
             "path": [{**point, "batch": batch} for batch in points], **more}
    (site / "ladder.json").write_text(json.dumps({"entries": [entry]}))


def test_an_agents_page_reads_the_ladder_history_once_and_shows_its_latest_batches(
        serve_app, monkeypatch: pytest.MonkeyPatch) -> None:
    # The ladder's history (ladder.json) gains a point per entry at every batch: some 10 MB an hour in a busy
    # competition. Read and rendered whole at every view of an agent's page, each request cost a tenth of a second
    # of the server's CPU after an hour, seconds after a day, and one client within its rate limit kept it busy.
    import arena.serve.results as results

    live = serve_app()
    publish_random(live, range(1, 1001))
    read: list[str] = []

    def counted(text: str) -> Any:
        read.append(text)
        return json.loads(text)

    monkeypatch.setattr(results, "json", SimpleNamespace(loads=counted))
    with httpx.Client(base_url=live.url) as client:
        pages = [client.get("/agents/random") for _ in range(5)]
    assert all(page.status_code == 200 for page in pages)
    assert sum('"entries"' in text for text in read) == 1
    shown = pages[-1].text
    assert "the latest 200 of 1,000 batches" in shown
    assert "<tr><td>1000</td>" in shown and "<tr><td>801</td>" in shown and "<tr><td>800</td>" not in shown


def test_logging_in_again_and_again_keeps_a_bounded_number_of_sessions(serve_app) -> None:
    # Each login stored a session for 14 days: one participant logging in in a loop, within the rate limit, added
    # millions of rows a day to the server's database (each written with a flush to disk).
    import sqlite3

    from arena.serve.db import SESSIONS_MAX

    live = serve_app()
    sessions = []
    with httpx.Client(base_url=live.url, timeout=30) as browser:
        for _ in range(SESSIONS_MAX + 10):
            browser.cookies.delete("arena_session")
            assert post_login(browser, live.tokens["bob"]).status_code == 303
            sessions.append(browser.cookies["arena_session"])
    with sqlite3.connect(live.folder / "serve.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM sessions WHERE user = 'bob'").fetchone()[0] == SESSIONS_MAX
    for session, live_now in ((sessions[0], False), (sessions[10], True), (sessions[-1], True)):
        with httpx.Client(base_url=live.url, cookies={"arena_session": session}) as browser:
            assert (browser.get("/me", follow_redirects=False).status_code == 200) is live_now


def test_the_rate_limit_counts_an_ipv6_clients_whole_network_and_stays_bounded(serve_app) -> None:
    # An IPv6 host holds a /64 network: counted by address, it had 2**64 rate limits of its own. Seen through a
    # proxy on this machine (X-Forwarded-For, as docs/serve.md sets it up).
    live = serve_app(requests_per_second=2.0)
    with httpx.Client(base_url=live.url) as client:
        codes = [client.get("/api/leaderboard", headers={"X-Forwarded-For": f"2001:db8:1:2::{number:x}"}).status_code
                 for number in range(1, 11)]
        assert codes[:4] == [200] * 4 and 429 in codes
        other = client.get("/api/leaderboard", headers={"X-Forwarded-For": "2001:db8:1:3::1"})
        assert other.status_code == 200  # another network is another client


def test_the_rate_limits_memory_is_bounded_however_many_addresses_ask() -> None:
    # Past the bound, the buckets of addresses idle for a minute were dropped, and none when every address was
    # recent: a flood from more addresses grew the table without end, each request scanning all of it again.
    import asyncio

    from arena.serve.guards import RateLimit

    async def app(scope: Any, receive: Any, send: Any) -> None:
        return None

    async def receive() -> Any:
        return {"type": "http.request"}

    async def send(message: Any) -> None:
        return None

    limit = RateLimit(app, rate=10.0, clock=lambda: 5.0, buckets=50)

    async def flood() -> None:
        for number in range(1, 301):
            await limit({"type": "http", "client": (f"10.0.{number // 250}.{number % 250}", 1)}, receive, send)

    asyncio.run(flood())
    assert len(limit.buckets) == 50
    assert "10.0.1.50" in limit.buckets and "10.0.0.1" not in limit.buckets  # the latest are kept


def test_retired_entries_are_shown_apart_and_hold_no_rank(serve_app) -> None:
    live = serve_app()
    with ServeDB(live.folder) as db:
        for version in (1, 2):
            upload = db.add_upload("alice", f"v{version}.py", "file", str(version) * 64, 10)
            db.finish_check(upload.id, "accepted", "passed", "report", "mine")
            db.joined(upload.id, f"alice.mine.v{version}")
        db.retire(1)  # replaced by version 2
    site = live.folder / "leaderboards" / "serve-test"
    site.mkdir(parents=True)
    row = {"rating": 1500.0, "lower": None, "upper": None, "games": 8, "timeouts": 0, "illegal": 0,
           "exceptions": 0, "crashes": 0, "memory": 0}
    (site / "leaderboard.json").write_text(json.dumps({"matches": 8, "rows": [
        {**row, "rank": 1, "agent": "greedy"}, {**row, "rank": 2, "agent": "alice.mine.v1"},
        {**row, "rank": 3, "agent": "alice.mine.v2"}, {**row, "rank": 3, "agent": "random"}]}))
    with live.client() as client:
        home = client.get("/").text
        board, _, retired = home.partition('id="retired"')
        ranks = re.findall(r'<tr><td>(\d+)</td><td><a href="/agents/([^"]+)"', board)
        assert ranks == [("1", "greedy"), ("2", "alice.mine.v2"), ("2", "random")]  # ties kept
        assert re.findall(r'<tr><td>retired</td><td><a href="/agents/([^"]+)"', retired) == ["alice.mine.v1"]
        old = client.get("/agents/alice.mine.v1").text
        assert "Retired: it plays no more and holds no rank" in old and "Rank" not in old
        assert "Rank 2, rating 1500" in client.get("/agents/alice.mine.v2").text
        api = client.get("/api/leaderboard").json()  # the API as the pages: the retired apart, unranked
        assert [(row["rank"], row["agent"]) for row in api["rows"]] == [(1, "greedy"), (2, "alice.mine.v2"),
                                                                       (2, "random")]
        assert [(row["rank"], row["agent"]) for row in api["retired"]] == [(None, "alice.mine.v1")]


def test_pages_refuse_with_an_html_page_and_the_api_with_one_line_of_json(live: Live) -> None:
    with live.client("bob") as bob_api:
        sent = bob_api.post("/api/uploads", files={"file": ("theirs.py", agent_source("theirs"))}).json()
    with login(live, "alice") as alice:
        for path, status, message in ((f"/me/uploads/{sent['id']}", 404, f"you have no upload {sent['id']}"),
                                      ("/me/uploads/abc", 422, "path upload_id: Input should be a valid integer"),
                                      ("/agents/nobody", 404, "no such agent")):
            answer = alice.get(path)
            assert answer.status_code == status and answer.headers["content-type"].startswith("text/html")
            assert f'<p class="error" role="alert">{message}' in answer.text and '"detail"' not in answer.text
        expired = alice.post(f"/me/uploads/{sent['id']}/retire", data={"csrf": "0" * 64})
        assert expired.status_code == 403 and expired.headers["content-type"].startswith("text/html")
        assert "this form has expired or came from another site" in expired.text
        assert "<script" not in alice.get("/me/uploads/<script>").text  # escaped, as every page
    with live.client("alice") as api:
        refused = api.get(f"/api/uploads/{sent['id']}")
        assert refused.status_code == 404 and refused.json() == {"detail": f"you have no upload {sent['id']}"}


def test_entries_the_published_board_lists_as_retired_stay_apart(serve_app) -> None:
    """A ladder's own leaderboard lists its retired entries apart (an anchor retired with 'arena ladder retire',
    which the server's database does not know of): the pages and the API show them there, unranked."""
    live = serve_app()
    site = live.folder / "leaderboards" / "serve-test"
    site.mkdir(parents=True)
    row = {"rating": 1500.0, "lower": None, "upper": None, "games": 8, "timeouts": 0, "illegal": 0,
           "exceptions": 0, "crashes": 0, "memory": 0}
    (site / "leaderboard.json").write_text(json.dumps({"matches": 8, "rows": [
        {**row, "rank": 1, "agent": "greedy"}, {**row, "rank": 2, "agent": "random"}],
        "retired": [{**row, "rank": None, "agent": "search"}]}))
    with live.client() as client:
        home = client.get("/").text
        board, _, retired = home.partition('id="retired"')
        assert re.findall(r'<tr><td>(\d+)</td><td><a href="/agents/([^"]+)"', board) == [("1", "greedy"),
                                                                                          ("2", "random")]
        assert re.findall(r'<tr><td>retired</td><td><a href="/agents/([^"]+)"', retired) == ["search"]
        assert "Retired: it plays no more and holds no rank" in client.get("/agents/search").text
        api = client.get("/api/leaderboard").json()
        assert [row["agent"] for row in api["rows"]] == ["greedy", "random"]
        assert [(row["rank"], row["agent"]) for row in api["retired"]] == [(None, "search")]


def test_an_agents_page_counts_the_batches_the_ladder_history_says_it_has(serve_app) -> None:
    """``ladder.json`` holds an entry's latest points and says how many batches its path has in all."""
    live = serve_app()
    publish_random(live, range(4801, 5001), batches=5000)
    with live.client() as client:
        shown = client.get("/agents/random").text
    assert "the latest 200 of 5,000 batches" in shown and "<tr><td>5000</td>" in shown
