"""Serve configs: a ladder config (docs/ladder.md) with a ``[serve]`` table saying where and how to host it.

The ladder part is validated by the ladder's own loader; this module checks only the ``[serve]`` keys
(docs/serve.md lists them): where the competition keeps its files, the address to bind, and the limits
on every participant's input.
"""

from __future__ import annotations

import ipaddress
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.tournament.config import ConfigError
from arena.tournament.config_loading import read_toml

LOOPBACK = "127.0.0.1"
DEFAULT_PORT = 8000


HOST_NAME = re.compile(r"(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}"
                       r"[A-Za-z0-9])?)*\.?")
"""A host name as DNS spells it: labels of letters, digits and '-', joined by dots."""


def is_host(host: str) -> bool:
    """Whether ``host`` is an IP address or a well-formed host name (whether it resolves is another matter)."""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return HOST_NAME.fullmatch(host) is not None
    return True


BUILD_BYTES = 100_000_000
"""What one accepted program's build may take on disk by default: each build may reach the build sandbox's own
bound (2 GiB), and accepted uploads' builds stay for as long as they play."""
SEAT_LOG_MATCHES = 5_000
"""How many of the latest matches keep their seats' output by default (64 KiB a seat at most)."""


@dataclass(frozen=True, slots=True)
class ServeLimits:
    """Bounds on what a participant may send and hold (each key of ``[serve.limits]``)."""

    upload_bytes: int = 1_000_000  # one upload, as sent
    files: int = 200  # files in one archive
    unpacked_bytes: int = 10_000_000  # one archive, unpacked
    uploads_per_hour: int = 20  # uploads one participant may make in any hour
    stored_bytes: int = 20_000_000  # all of one participant's uploads together
    queued: int = 3  # one participant's uploads waiting for (or in) their check
    requests_per_second: float = 50.0  # sustained requests from one client address (bursts of twice that)
    check_matches: int = 2  # check-agent matches per case
    check_seconds: float = 600.0  # wall seconds one check may take before it is stopped and the upload rejected
    seat_log_matches: int = SEAT_LOG_MATCHES  # latest matches whose seats' output is kept for their owners
    build_bytes: int = BUILD_BYTES  # what one accepted agent program's build may leave on the server's disk


LIMIT_BOUNDS: dict[str, tuple[float, float]] = {
    "upload_bytes": (1_000, 100_000_000), "files": (1, 10_000), "unpacked_bytes": (1_000, 1_000_000_000),
    "uploads_per_hour": (1, 10_000), "stored_bytes": (1_000, 10_000_000_000), "queued": (1, 100),
    "requests_per_second": (0.1, 100_000), "check_matches": (1, 100), "check_seconds": (10, 86_400),
    "seat_log_matches": (1, 10_000_000), "build_bytes": (1_000_000, 2 * 1024**3),
}


@dataclass(frozen=True, slots=True)
class ServeSettings:
    """The ``[serve]`` table, with its paths made absolute (relative to the config file)."""

    folder: Path  # everything the competition keeps: its database, uploads, ladder store and site
    host: str = LOOPBACK  # the address to bind: the loopback unless the organiser says otherwise
    port: int = DEFAULT_PORT
    batch_matches: int = 0  # matches per ladder run between admissions (0: one batch of the ladder's blocks)
    self_registration: bool = False  # whether anyone may add themselves as a participant (else the organiser)
    limits: ServeLimits = field(default_factory=ServeLimits)


SERVE_KEYS = ("folder", "host", "port", "batch_matches", "self_registration", "limits")


def split_config(path: Path) -> tuple[dict[str, Any], ServeSettings]:
    """Read a serve config: (the ladder part, as a ladder config's data; the ``[serve]`` settings).

    ``ConfigError`` (one line per problem) for a file without ``[serve]`` or with a bad key in it.
    """
    data = dict(read_toml(path))
    table = data.pop("serve", None)
    source = str(path)
    if not isinstance(table, Mapping):
        raise ConfigError([f"{source}: no [serve] table: a serve config is a ladder config with a [serve] table "
                           "(docs/serve.md)"])
    problems = [f"{source}: [serve]: unknown key {key!r} (known: {', '.join(SERVE_KEYS)})"
                for key in table if key not in SERVE_KEYS]
    folder = table.get("folder", "competition")
    if not isinstance(folder, str) or not folder:
        problems.append(f"{source}: [serve] folder: expected a path, not {folder!r}")
        folder = "competition"
    host = table.get("host", LOOPBACK)
    if not isinstance(host, str) or not is_host(host):
        problems.append(f"{source}: [serve] host: expected an address such as {LOOPBACK!r} or a host name, not "
                        f"{host!r}")
    port = table.get("port", DEFAULT_PORT)
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        problems.append(f"{source}: [serve] port: expected a whole number from 0 to 65535, not {port!r}")
    batch = table.get("batch_matches", 0)
    if isinstance(batch, bool) or not isinstance(batch, int) or not 0 <= batch <= 100_000:
        problems.append(f"{source}: [serve] batch_matches: expected a whole number from 0 to 100000, not {batch!r}")
    open_door = table.get("self_registration", False)
    if not isinstance(open_door, bool):
        problems.append(f"{source}: [serve] self_registration: expected true or false, not {open_door!r}")
    limits = _limits(table.get("limits", {}), source, problems)
    if problems:
        raise ConfigError(problems)
    settings = ServeSettings(folder=(path.parent / folder).resolve(), host=host, port=port, batch_matches=batch,
                             self_registration=open_door is True, limits=limits)
    return data, settings


def _limits(table: Any, source: str, problems: list[str]) -> ServeLimits:
    if not isinstance(table, Mapping):
        problems.append(f"{source}: [serve.limits]: expected a table")
        return ServeLimits()
    values: dict[str, Any] = {}
    defaults = ServeLimits()
    for key, value in table.items():
        if key not in LIMIT_BOUNDS:
            problems.append(f"{source}: [serve.limits]: unknown key {key!r} (known: {', '.join(LIMIT_BOUNDS)})")
            continue
        low, high = LIMIT_BOUNDS[key]
        whole = isinstance(getattr(defaults, key), int)
        ok = (not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)
              and low <= value <= high and (not whole or isinstance(value, int)))
        if not ok:
            kind = "a whole number" if whole else "a number"
            problems.append(f"{source}: [serve.limits] {key}: expected {kind} from {low:g} to {high:g}, not {value!r}")
            continue
        values[key] = value
    return ServeLimits(**values)
