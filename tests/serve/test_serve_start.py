"""``arena serve`` starting: an address it cannot serve on, or a folder it cannot keep the competition in, is one
``arena: error:`` line naming the setting (exit 1; 2 for a value no config may hold) and no "serving" line;
"serving" is printed once the socket is bound, with the address that answers."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from serve_helpers import ROOT, arena, competition, free_port, workers_of


def refused(result: subprocess.CompletedProcess[str], status: int, message: str) -> None:
    assert result.returncode == status, result.stdout + result.stderr
    assert "serving" not in result.stdout and "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("arena: error: ")
    assert message in result.stderr, result.stderr


def test_a_port_in_use_is_one_line(tmp_path: Path) -> None:
    served = competition(tmp_path, users=())
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        refused(arena("serve", str(served.config), "--port", str(port), timeout=120), 1,
                f"--port {port}: the port is in use on 127.0.0.1 (another 'arena serve', or another program)")
        served.config.write_text(served.config.read_text().replace("port = 8000", f"port = {port}"))
        refused(arena("serve", str(served.config), timeout=120), 1,
                f"{served.config}: [serve] port {port}: the port is in use")
    assert not workers_of(served.config)


@pytest.mark.parametrize(("option", "host", "status", "message"), [
    ("--host", "nope.invalid", 1, "--host 'nope.invalid': no address of that name"),
    ("config", "nope.invalid", 1, "[serve] host 'nope.invalid': no address of that name"),
    ("--host", "192.0.2.1", 1, "--host '192.0.2.1': not an address of this machine"),  # TEST-NET-1: never local
    ("--host", "not a host!", 2, "--host 'not a host!': expected an address such as 127.0.0.1 or a host name"),
    ("config", "not a host!", 2, "[serve] host: expected an address such as '127.0.0.1' or a host name, not "
                                 "'not a host!'"),
])
def test_a_host_that_is_not_this_machines_is_one_line(tmp_path: Path, option: str, host: str, status: int,
                                                       message: str) -> None:
    served = competition(tmp_path, users=())
    if option == "config":
        served.config.write_text(served.config.read_text().replace('host = "127.0.0.1"', f'host = "{host}"'))
        args = ["serve", str(served.config), "--port", str(free_port())]
    else:
        args = ["serve", str(served.config), "--host", host, "--port", str(free_port())]
    refused(arena(*args, timeout=120), status, message)


def test_a_folder_it_cannot_make_is_one_line_naming_the_key(tmp_path: Path) -> None:
    config = tmp_path / "serve.toml"
    text = (ROOT / "configs" / "serve-lovat.toml").read_text()
    config.write_text(text.replace('folder = "../competitions/serve-lovat"', 'folder = "/proc/nope"'))
    message = f"{config}: [serve] folder: cannot keep the competition in /proc/nope: No such file or directory"
    refused(arena("serve", str(config), "--port", str(free_port()), timeout=120), 1, message)
    refused(arena("serve", "users", "add", "alice", "--config", str(config)), 1, message)


@pytest.mark.slow
def test_serving_is_printed_once_the_socket_is_bound_with_the_address_that_answers(tmp_path: Path) -> None:
    served = competition(tmp_path, users=())
    served.config.write_text(served.config.read_text().replace("port = 8000", "port = 0"))  # the kernel chooses
    process = subprocess.Popen([sys.executable, "-m", "arena", "serve", str(served.config)], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("serving serve-lovat on http://127.0.0.1:") and line.endswith("/ (Ctrl-C stops it)\n")
        url = line.split()[3]
        assert not url.endswith(":0/")
        # Bound before the line was printed: the first request is answered (queued until the app takes it).
        assert httpx.get(url + "api/leaderboard", timeout=60).status_code == 200
        # Each worker works in the competition's folder, which the sandbox then keeps out of every seat's read
        # paths, with any folder holding it (an editable install's project root, say, where docs/serve.md keeps
        # the competition): the server's working directory was kept out, not the folder with the deal key.
        deadline = time.monotonic() + 60

        def folders() -> list[Path]:  # a worker reads its config first, then moves
            return [Path(f"/proc/{worker}/cwd").resolve() for worker in workers_of(served.config, parent=process.pid)]

        while folders() != [served.folder.resolve()] * 2:
            assert time.monotonic() < deadline, f"the workers work in {folders()}"
            time.sleep(0.2)
    finally:
        process.terminate()
        process.wait(timeout=60)


def slow_plugin(folder: Path, seconds: float) -> dict[str, str]:
    """The environment of a server whose plugin discovery takes ``seconds`` more: an installed plugin, trusted
    (imported in the process as well as in discovery's child), that sleeps as it is imported."""
    (folder / "slowplug-1.0.dist-info").mkdir(parents=True)
    (folder / "slowplug-1.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: slowplug\nVersion: 1.0\n")
    (folder / "slowplug-1.0.dist-info" / "entry_points.txt").write_text("[arena]\nslowplug = slowplug\n")
    (folder / "slowplug.py").write_text(f"import time\ntime.sleep({seconds})\n")
    return {**os.environ, "PYTHONPATH": str(folder), "ARENA_PLUGINS_TRUST": "slowplug"}


@pytest.mark.parametrize("when", ["server", "workers"])
def test_a_stop_while_the_plugins_load_is_one_line(tmp_path: Path, when: str) -> None:
    # Discovery takes a plugin's KeyboardInterrupt for its failure: a stop raised inside it was reported as a
    # config error (a game "unknown"), as a traceback from each worker, or not at all (a worker that ran on).
    served = competition(tmp_path, users=())
    env = slow_plugin(tmp_path / "site", 2)
    out = tmp_path / "out"
    with out.open("w") as stdout:
        server = subprocess.Popen([sys.executable, "-m", "arena", "serve", str(served.config), "--port",
                                   str(served.port)], cwd=ROOT, env=env, stdout=stdout, stderr=subprocess.PIPE,
                                  text=True)
    try:
        deadline = time.monotonic() + 60
        if when == "server":
            time.sleep(2.5)  # in its own discovery, the slow import
        else:
            while len(workers_of(served.config, parent=server.pid)) < 2:
                assert time.monotonic() < deadline and server.poll() is None, "the workers did not start"
                time.sleep(0.05)
            time.sleep(2.5)  # past their imports, in their discovery
        assert server.poll() is None
        started = time.monotonic()
        server.send_signal(signal.SIGTERM)
        _, err = server.communicate(timeout=60)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert err == "arena: stopped by SIGTERM\n", err
    assert server.returncode == 128 + signal.SIGTERM
    assert time.monotonic() - started < 20  # no worker ran on until it was killed
    assert ("serving" in out.read_text()) is (when == "workers")
    assert not workers_of(served.config)
