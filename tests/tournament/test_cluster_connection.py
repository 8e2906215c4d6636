"""A failed connection to a Ray cluster says the real cause in one line, and changes nothing.

Only loopback addresses are used: a port nothing listens on, and a head started here with token
authentication, which this test stops again (its own process group only).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.tournament.cluster import ClusterError, address_problem, probe

TOKEN = "0123456789abcdef0123456789abcdef"

CONFIG = """
name = "far"
game = "lorum"
[[agents]]
name = "greedy"
[[agents]]
name = "random"
[[agents]]
name = "g2"
plugin = "greedy"
[[agents]]
name = "r2"
plugin = "random"
"""


def free_port() -> int:
    with socket.socket() as probe_socket:
        probe_socket.bind(("127.0.0.1", 0))
        return probe_socket.getsockname()[1]


def test_nothing_listening_is_one_line_naming_the_address() -> None:
    port = free_port()
    with pytest.raises(ClusterError) as caught:
        probe(f"127.0.0.1:{port}")
    assert str(caught.value).startswith(f"cannot reach a Ray cluster at 127.0.0.1:{port}: Connection refused")


@pytest.fixture(scope="module")
def token_head(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Ray head on a free loopback port that requires a token.

    ``ray start`` records its address in Ray's ``ray_current_cluster`` file, where a bare ``ray.init()`` on this
    machine would look for a cluster to join: the file is put back as it was when the head stops.
    """
    from ray._common.utils import get_ray_address_file

    current = Path(get_ray_address_file(None))
    before = current.read_bytes() if current.exists() else None
    port = free_port()
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": TOKEN}
    env.pop("RAY_ADDRESS", None)
    log = tmp_path_factory.mktemp("head") / "head.log"
    ray = Path(sys.executable).with_name("ray")
    with open(log, "w") as out:
        head = subprocess.Popen([str(ray), "start", "--head", "--block", f"--port={port}",
                                 "--node-ip-address=127.0.0.1", "--num-cpus=0", "--include-dashboard=false",
                                 "--disable-usage-stats"], env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and head.poll() is None and "Ray runtime started" not in log.read_text():
            time.sleep(0.5)
        if "Ray runtime started" not in log.read_text():
            pytest.fail(f"the Ray head did not start: {log.read_text()[-500:]}")
        yield f"127.0.0.1:{port}"
    finally:
        os.killpg(head.pid, signal.SIGKILL)  # the head's whole process group: only what this test started
        head.wait(timeout=30)
        if before is None:
            current.unlink(missing_ok=True)
        else:
            current.write_bytes(before)


@pytest.mark.parametrize("auth, expected", [
    ({}, "requires token authentication: set RAY_AUTH_MODE=token and the cluster's token"),
    ({"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": "f" * 32}, "refused this machine's authentication token"),
])
@pytest.mark.ray
def test_token_authentication_is_named_and_nothing_is_stored(token_head: str, tmp_path: Path, auth: dict,
                                                               expected: str) -> None:
    config = tmp_path / "far.toml"
    config.write_text(CONFIG)
    env = {key: value for key, value in os.environ.items()
           if key not in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_ADDRESS")}
    env["HOME"] = str(tmp_path)  # no ~/.ray/auth_token of the user's
    done = subprocess.run([sys.executable, "-m", "arena", "run", str(config), "--json", "--address", token_head,
                           "--leaderboards", str(tmp_path / "boards"), "--plugins-dir", str(tmp_path / "none")],
                          capture_output=True, text=True, env={**env, **auth}, timeout=120)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"arena: error: the Ray cluster at {token_head} ") and expected in done.stderr
    assert not (tmp_path / "boards").exists()


@pytest.mark.parametrize(("address", "said"), [
    ("x", "not a Ray cluster address: 'x'; give HOST:PORT"),
    ("10.0.0.5:", "not a Ray cluster address: '10.0.0.5:'"),
    ("ray://head", "not a Ray cluster address: 'ray://head'"),
    ("10.0.0.5:70000", "the port of '10.0.0.5:70000' is not between 1 and 65535"),
])
def test_a_malformed_address_is_a_usage_error_before_anything_starts(address: str, said: str, tmp_path: Path) -> None:
    config = tmp_path / "far.toml"
    config.write_text(CONFIG)
    for command in (["run", str(config)], ["ladder", "run", str(config)], ["serve", str(config)]):
        done = subprocess.run([sys.executable, "-m", "arena", *command, "--address", address],
                              capture_output=True, text=True, timeout=60, cwd=tmp_path)
        assert done.returncode == 2, (command, done.stderr)
        assert said in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "leaderboards").exists()  # nothing was started or written


def test_the_address_forms_ray_takes_pass_and_a_malformed_variable_is_one_line() -> None:
    for address in ("auto", "127.0.0.1:6379", "ray://head:10001", "[::1]:6379"):
        assert address_problem(address) is None, address
    with pytest.raises(ClusterError, match=r"^not a Ray cluster address: 'nowhere'; give HOST:PORT"):
        probe("nowhere")  # as $RAY_ADDRESS reaches it, unchecked by the command line
