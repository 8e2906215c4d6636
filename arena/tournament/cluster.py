"""Reaching a Ray cluster: find the real reason a connection fails, in one line, within a few seconds.

``ray.init(address=...)`` retries for 20 s or more and then says only "Failed
to connect".  Before it is called, ``probe`` checks, each step bounded in
time: that something listens at the address; that it is a Ray GCS that
accepts this machine (token authentication: the cluster's token and
``RAY_AUTH_MODE=token`` are needed here too); and that the cluster runs the
same Ray and Python versions as this machine (Ray refuses a mismatch).
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

PROBE_SECONDS = 4.0
"""How long each probe step may take: the whole diagnosis stays within 5 s of a dead or wrong address."""


class ClusterError(Exception):
    """A cluster that cannot be used; the one-line message says why and what to do."""


ADDRESS_FORMS = "HOST:PORT (the head's GCS, e.g. 10.0.0.5:6379), ray://HOST:PORT (Ray Client) or auto"
"""The cluster addresses arena takes, as its errors name them."""


def address_problem(address: str) -> str | None:
    """Why ``address`` is not a cluster address (``ADDRESS_FORMS``), or None when it is one.

    Ray itself says only "Invalid address format" after starting its machinery; this says it before anything
    starts, and what a valid one looks like.
    """
    if address == "auto":
        return None
    host, port = _host_port(address)
    if host is None:
        return f"not a Ray cluster address: {address!r}; give {ADDRESS_FORMS}"
    if not 0 < port < 65536:
        return f"the port of {address!r} is not between 1 and 65535"
    return None


def check_reachable(address: str, seconds: float = PROBE_SECONDS) -> None:
    """Fail with one line when nothing listens at ``address`` (``auto`` and addresses without a port pass)."""
    host, port = _host_port(address)
    if host is None:
        return
    try:
        socket.create_connection((host, port), timeout=seconds).close()
    except OSError as error:
        reason = error.strerror or ("timed out" if isinstance(error, TimeoutError) else type(error).__name__)
        raise ClusterError(f"cannot reach a Ray cluster at {address}: {reason} (wrong address or port? the head "
                           "prints its address when started: ray start --head)") from None


def probe(address: str, seconds: float = PROBE_SECONDS) -> None:
    """Check that ``address`` is a Ray GCS this machine may join, with matching versions; ``ClusterError`` if not.

    Ray Client addresses (``ray://``) and ``auto`` are only checked for a listener.  Ray's native
    retry messages during the probe are discarded: the one line raised says what they would.
    """
    problem = address_problem(address)
    if problem is not None:  # $RAY_ADDRESS reaches here unchecked by the command line
        raise ClusterError(problem)
    check_reachable(address, seconds)
    host, port = _host_port(address)
    if host is None or address.startswith("ray://"):
        return
    outcome: dict[str, Any] = {}

    def ask() -> None:
        try:
            from ray._raylet import GcsClient  # type: ignore[attr-defined]  # private: no type information

            client = GcsClient(address=f"{host}:{port}", cluster_id=None)
            outcome["metadata"] = client.internal_kv_get(b"CLUSTER_METADATA", namespace=b"cluster",
                                                         timeout=seconds)
        except Exception as error:  # Ray raises its own kinds; each is classified below
            outcome["error"] = error

    thread = threading.Thread(target=ask, name="arena-ray-probe", daemon=True)
    with _native_stderr_discarded():
        thread.start()
        thread.join(seconds)
    if thread.is_alive():
        raise ClusterError(f"{address} accepts connections but no Ray cluster answered within {seconds:g} s; "
                           "give the head's GCS address (ray start --head --port, 6379 by default)")
    if "error" in outcome:
        raise ClusterError(_explain(address, outcome["error"]))
    _check_versions(address, outcome.get("metadata"))


@contextlib.contextmanager
def _native_stderr_discarded() -> Iterator[None]:
    """Point descriptor 2 at /dev/null for the block (Ray's native client writes its retries there)."""
    sys.stderr.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def _explain(address: str, error: BaseException) -> str:
    name = type(error).__name__
    text = " ".join(str(error).split())
    if name == "AuthenticationError" or "Unauthenticated" in text or "InvalidAuthToken" in text:
        if os.environ.get("RAY_AUTH_MODE", "").lower() != "token":
            return (f"the Ray cluster at {address} requires token authentication: set RAY_AUTH_MODE=token and "
                    "the cluster's token (RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH or ~/.ray/auth_token) on this "
                    "machine; see docs/cluster.md")
        return (f"the Ray cluster at {address} refused this machine's authentication token: use the token the "
                "head was started with (RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH or ~/.ray/auth_token)")
    return f"{address} is not a Ray cluster this machine can join: {name}: {text[:200]}"


def _check_versions(address: str, metadata: bytes | None) -> None:
    """Ray refuses to join a cluster of another Ray version or Python version: say so before it tries."""
    if not metadata:
        return
    try:
        cluster = json.loads(metadata)
    except ValueError:
        return
    import ray

    here = {"ray_version": ray.__version__, "python_version": platform.python_version()}
    differ = [key for key in here if cluster.get(key) and cluster[key] != here[key]]
    if differ:
        raise ClusterError(
            f"version mismatch with the Ray cluster at {address}: it runs Ray {cluster.get('ray_version')} on "
            f"Python {cluster.get('python_version')}, this machine Ray {here['ray_version']} on Python "
            f"{here['python_version']}; install the same versions on every node (docs/cluster.md)"
        )


def connection_problem(address: str | None, error: BaseException, log: Path) -> str:
    """One line for a ``ray.init`` that failed after the probe passed, pointing at the Ray log."""
    where = address or "a local Ray"
    text = " ".join(str(error).split())[:200]
    return f"cannot start or reach {where}: {type(error).__name__}: {text} (Ray's log: {log})"


def _host_port(address: str) -> tuple[str | None, int]:
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return None, 0
    return host.strip("[]"), int(port)
