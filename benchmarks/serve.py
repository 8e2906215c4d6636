"""Serve: a hosted competition (``arena serve``) under load, beside the same ladder run from the command line.

A competition of 3-player Lovat with the built-in ``random`` and ``greedy`` as anchors is served by
``arena serve`` in its own process (every seat sandboxed, as it always is); eight participants (two at
``--quick``) each upload one agent (a drop-in choosing uniformly at random, each under its own name) through
the JSON API.

Rows:

* time from the first upload to its first rated match (the check in the sandbox, the admission, the first
  batch, the publish): target under 60 s;
* requests per second for the leaderboard page (``/``) and for a match page (the site's ``match.html`` and
  the match's record from ``/api/matches/ID``, as the viewer loads them) while the ladder plays, from 8
  client threads over keep-alive connections: target at least 200 a second;
* matches per hour with the eight uploaded agents, counted in the store over a window with no page views,
  beside the same field (the eight agents' files as drop-ins, the same config) run by ``arena ladder run
  --matches N``: target within 10% of it; and the same count over the window of the page views above.

Sizes: ``--quick`` windows of 3 s, 10 ladder matches and two participants (a smoke run: the test suite runs it,
and each participant costs a command, a check and a wait for its first match); default 60 s, 300 and eight.

    .venv/bin/python benchmarks/serve.py --quick
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):
    import common  # type: ignore[import-not-found]  # run as a script: benchmarks/ is on sys.path
else:
    from benchmarks import common

SIZES = {"quick": (3.0, 10, 2), "default": (60.0, 300, 8), "full": (300.0, 1200, 8)}
"""(seconds of each measuring window, matches of the command-line ladder run, participants) per size."""
AGENT = '''
import random

from arena import hookimpl
from arena.agent import Agent, AgentSpec


class Bot(Agent):
    def act(self, observation):
        return self.game.random_action(observation, random.Random(self.seed + len(str(observation))))


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="NAME", games=("lovat",), factory=Bot, description="random", version="1.0"))
'''

LADDER = '''
name = "serve-bench"
game = "lovat"
format = "ladder"
ratings = ["elo"]
isolation = "sandboxed"

[game_options]
players = 3

[ladder]
min_blocks = 4
batch_blocks = 10
budget = 100000

[[agents]]
name = "random"

[[agents]]
name = "greedy"

[[agents]]
name = "random-2"
plugin = "random"
'''


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True, cwd=cwd, check=True)


def _rate(url: str, paths: Sequence[str], seconds: float, threads: int = 8) -> float:
    """Requests a second for ``paths`` in turn, from ``threads`` keep-alive clients, over ``seconds``."""
    import httpx

    counts = [0] * threads
    stop = time.monotonic() + seconds

    def run(index: int) -> None:
        with httpx.Client(base_url=url, timeout=30) as client:
            while time.monotonic() < stop:
                for path in paths:
                    response = client.get(path)
                    assert response.status_code == 200, (path, response.status_code)
                counts[index] += len(paths)

    workers = [threading.Thread(target=run, args=(index,)) for index in range(threads)]
    started = time.monotonic()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return sum(counts) / (time.monotonic() - started)


def _stored(folder: Path) -> int:
    from arena.tournament.store import Store, StoreError

    try:
        with Store.open_readonly(folder / "leaderboards" / "serve-bench" / "results.sqlite") as store:
            return store.count()
    except StoreError:
        return 0


def measure(size: str) -> list[common.Row]:
    """Serve, upload, load and count; then the command-line ladder. The rows of the module docstring."""
    import httpx

    window, cli_matches, participants = SIZES[size]
    with tempfile.TemporaryDirectory(prefix="arena-serve-bench-") as temporary:
        base = Path(temporary)
        config = base / "serve.toml"
        config.write_text(LADDER + '\n[serve]\nfolder = "competition"\nbatch_matches = 30\n\n[serve.limits]\n'
                          "requests_per_second = 100000\ncheck_matches = 1\n")
        tokens = {}
        for number in range(participants):
            added = _arena("serve", "users", "add", f"p{number}", "--config", str(config), "--json", cwd=base)
            tokens[f"p{number}"] = json.loads(added.stdout)["token"]
        port = _free_port()
        url = f"http://127.0.0.1:{port}"
        server = subprocess.Popen([sys.executable, "-m", "arena", "serve", str(config), "--port", str(port)], cwd=base,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 120
            while True:
                try:
                    if httpx.get(url + "/api/leaderboard", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError("arena serve did not start within 120 s")
                time.sleep(0.2)
            uploaded = time.monotonic()
            for number, (user, token) in enumerate(tokens.items()):
                response = httpx.post(url + "/api/uploads", headers={"Authorization": f"Bearer {token}"},
                                      files={"file": (f"bot{number}.py", AGENT.replace("NAME", f"bot{number}"))})
                response.raise_for_status()
                if number == 0:
                    first = (user, token)
            while True:  # the first upload's first rated match
                rows = httpx.get(url + "/api/leaderboard").json().get("rows", [])
                if any(row["agent"] == f"{first[0]}.bot0.v1" and row["games"] > 0 for row in rows):
                    break
                time.sleep(0.2)
            to_first = time.monotonic() - uploaded
            while True:  # every upload playing
                rows = httpx.get(url + "/api/leaderboard").json().get("rows", [])
                if sum(row["agent"].startswith("p") and row["games"] > 0 for row in rows) == participants:
                    break
                time.sleep(0.5)
            before, started = _stored(base / "competition"), time.monotonic()
            listed = httpx.get(url + "/api/matches?limit=500").json()["matches"]  # a published one: it has a record
            match_id = next(row["id"] for row in listed if row["viewer"] is not None)
            board = _rate(url, ["/"], window / 2)
            viewer = _rate(url, ["/site/match.html", f"/api/matches/{match_id}"], window / 2)
            busy_rate = (_stored(base / "competition") - before) / (time.monotonic() - started) * 3600
            before, started = _stored(base / "competition"), time.monotonic()
            time.sleep(window)  # no clients: the ladder alone
            served_rate = (_stored(base / "competition") - before) / (time.monotonic() - started) * 3600
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=120)
        # The same field from the command line: the eight agents as drop-ins beside the anchors.
        plugins = base / "plugins"
        plugins.mkdir()
        cli_config = base / "ladder.toml"
        agents = "".join(f'\n[[agents]]\nname = "bot{n}"\n' for n in range(participants))
        cli_config.write_text(LADDER + agents)
        for number in range(participants):
            (plugins / f"bot{number}.py").write_text(AGENT.replace("NAME", f"bot{number}"))
        env_started = time.monotonic()
        subprocess.run([sys.executable, "-m", "arena", "ladder", "run", str(cli_config), "--matches", str(cli_matches),
                        "--plugins-dir", str(plugins), "--leaderboards", str(base / "cli"), "--json"], cwd=base,
                       check=True, capture_output=True, env=dict(os.environ))
        cli_rate = cli_matches / (time.monotonic() - env_started) * 3600
    note = f"3-player Lovat, 3 anchors + {participants} uploads, every seat sandboxed; {os.cpu_count()} cores"
    return [
        common.Row("serve", "upload to its first rated match", common.secs(to_first),
                   "target < 60 s: " + ("met" if to_first < 60 else "NOT met"), "check (1 match a case), join, "
                   "first batch, publish"),
        common.Row("serve", "leaderboard page (/) while the ladder plays", f"{board:,.0f} requests/s",
                   "target >= 200: " + ("met" if board >= 200 else "NOT met"), f"8 client threads, {window / 2:g} s"),
        common.Row("serve", "match page (match.html + its record) while the ladder plays", f"{viewer:,.0f} requests/s",
                   "target >= 200: " + ("met" if viewer >= 200 else "NOT met"), f"8 client threads, {window / 2:g} s"),
        common.Row("serve", "matches per hour, served", f"{served_rate:,.0f}",
                   f"{common.ratio(served_rate / cli_rate)} of 'arena ladder run' ({cli_rate:,.0f}/h); target >= 0.9",
                   f"{note}; {window:g} s with no page views"),
        common.Row("serve", "matches per hour, served, while the pages above are loaded", f"{busy_rate:,.0f}",
                   f"{common.ratio(busy_rate / cli_rate)} of 'arena ladder run'",
                   "the 8 client threads share the cores with the ladder"),
    ]


def main(argv: Sequence[str] | None = None) -> None:
    """Print the table."""
    size = common.size_from_args(__doc__ or "", argv)
    common.print_table("Serve: pages, uploads and matches", measure(size))


if __name__ == "__main__":
    main()
