"""Fixtures shared across test folders: a plugin package installed as a user installs it, and headless
Chromium, to check pages in a real browser.

Chromium comes from the system's packages, installed by ``.ci/run`` (``apt-get install chromium``) or by hand;
the ``chromium`` fixture skips the test, saying so, where it is missing.  ``browse`` runs it once on a URL (a
screenshot, a DOM dump); ``devtools`` opens a page driven over the DevTools protocol on a pipe (stdlib only):
navigate, evaluate, press keys, take a screenshot, and collect console errors.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import struct
import subprocess
import sys
import time
import tomllib
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.plugins import BLOCK_ENV

InstalledPackage = tuple[Path, dict[str, str]]
"""(the folder holding a copy of the package's sources, an environment in which the package is installed)."""


@pytest.fixture(scope="session")
def install_copy() -> Callable[[Path, Path], InstalledPackage]:
    """``install_copy(package, base)``: pip-install a copy of the package folder into ``base/site``, as a user
    would, with no dependencies; the environment puts that site first on ``PYTHONPATH``."""

    def install(package: Path, base: Path) -> InstalledPackage:
        source = base / package.name
        shutil.copytree(package, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
        site = base / "site"
        command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site), str(source)]
        try:
            import wheel  # noqa: F401  (with it the build needs no index)

            command.insert(4, "--no-build-isolation")
        except ImportError:
            pass
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            pytest.fail(f"pip install failed:\n{result.stdout}\n{result.stderr}")
        path = os.pathsep.join([str(site), *filter(None, [os.environ.get("PYTHONPATH")])])
        # The suite blocks the plugins of packages installed beside arena (the root conftest); not this one.
        own = set(tomllib.loads((source / "pyproject.toml").read_text())["project"]["entry-points"]["arena"])
        blocked = ",".join(name for name in os.environ.get(BLOCK_ENV, "").split(",") if name and name not in own)
        return source, dict(os.environ, PYTHONPATH=path, PYTHONDONTWRITEBYTECODE="1", **{BLOCK_ENV: blocked})

    return install


# --disable-dev-shm-usage: a container's /dev/shm may be 64 MB, too small for a renderer, which then crashes
# without a word on the DevTools pipe.
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage")


@pytest.fixture(scope="session")
def chromium() -> str:
    """The Chromium binary (skips the test, saying why, where it is missing)."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.skip("headless Chromium is not installed: the browser tests need the system package 'chromium' "
                    "(.ci/run installs it with apt-get)")
    return found


@pytest.fixture(scope="session")
def browse(chromium: str, tmp_path_factory: pytest.TempPathFactory) -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run headless Chromium once with extra arguments (``--dump-dom URL``, ``--screenshot=FILE URL``...)."""
    profile = tmp_path_factory.mktemp("chromium-profile")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
                              capture_output=True, text=True, timeout=120)

    return run


def png_summary(data: bytes) -> tuple[int, int, int]:
    """Width, height and the number of distinct pixel rows of an 8-bit RGB(A) PNG (enough to tell blank)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    position, chunks = 8, []
    while position < len(data):
        length = struct.unpack(">I", data[position:position + 4])[0]
        kind = data[position + 4:position + 8]
        if kind == b"IDAT":
            chunks.append(data[position + 8:position + 8 + length])
        position += 12 + length
    raw = zlib.decompress(b"".join(chunks))
    stride = len(raw) // height
    return width, height, len({raw[row * stride + 1:(row + 1) * stride] for row in range(height)})


@pytest.fixture(scope="session")
def png_rows() -> Callable[[bytes], tuple[int, int, int]]:
    """``png_summary``: width, height and distinct pixel rows of a PNG."""
    return png_summary


class BrowserDidNotStart(Exception):
    """Chromium is installed but did not answer its first DevTools command (what it printed is in the message)."""


class DevToolsPage:
    """One headless Chromium tab driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``).

    Chromium reads commands from its fd 3 and writes replies and events to its fd 4, each a JSON message ended
    by a NUL byte.  Console errors, uncaught exceptions and failed loads are kept in ``errors``.
    """

    def __init__(self, chromium: str, profile: Path, width: int = 1200, height: int = 1400) -> None:
        to_browser, self._commands = os.pipe()
        self._replies, from_browser = os.pipe()

        def plumb() -> None:  # in the child: the pipe ends become fds 3 and 4, kept across exec
            # Through fds above 9 first: a pipe end may itself be fd 3 or 4, which dup2 onto itself would leave
            # close-on-exec (and dup2 onto the other would close it).
            reading, writing = fcntl.fcntl(to_browser, fcntl.F_DUPFD, 10), fcntl.fcntl(from_browser, fcntl.F_DUPFD, 10)
            os.dup2(reading, 3)
            os.dup2(writing, 4)

        profile.mkdir(parents=True, exist_ok=True)
        self.log = profile.parent / "chromium.log"  # what Chromium says, quoted when it does not start
        with self.log.open("wb") as log:
            # Only fds 3 and 4 pass (close_fds runs after plumb): Chromium holds no pipe of the test's own, such
            # as a server's output, open past that server.
            self.process = subprocess.Popen(
                [chromium, *CHROMIUM_FLAGS, "--remote-debugging-pipe", f"--user-data-dir={profile}",
                 f"--window-size={width},{height}", "about:blank"],
                preexec_fn=plumb, close_fds=True, pass_fds=(3, 4), stdout=log, stderr=log)
        os.close(to_browser)
        os.close(from_browser)
        self._buffer = b""
        self._next_id = 0
        self.errors: list[str] = []
        self._events: list[dict[str, Any]] = []
        try:
            target = self._call("Target.createTarget", {"url": "about:blank"})["targetId"]
        except (RuntimeError, TimeoutError) as error:
            self.close()
            said = " ".join(self.log.read_text(errors="replace").split())[-300:]
            raise BrowserDidNotStart(f"headless Chromium did not start over DevTools ({error}); it said: {said}") from None
        self.session = self._call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Inspector"):
            self.call(f"{domain}.enable")
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def _send(self, message: dict[str, Any]) -> int:
        self._next_id += 1
        message["id"] = self._next_id
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        return self._next_id

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            # Wait on the pipe no longer than the deadline: a click that opens nothing sends no further event,
            # and a bare read would then block for good.
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._replies], [], [], left)[0]:
                seen = [event.get("method") for event in self._events[-5:]]
                raise TimeoutError(f"Chromium did not answer in time (its last events: {seen})")
            chunk = os.read(self._replies, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        data: dict[str, Any] = json.loads(message)
        self._note(data)
        return data

    def _note(self, data: dict[str, Any]) -> None:
        method, params = data.get("method"), data.get("params", {})
        if method == "Runtime.exceptionThrown":
            self.errors.append(json.dumps(params["exceptionDetails"])[:500])
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append(json.dumps(params.get("args"))[:500])
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            self.errors.append(params["entry"].get("text", "")[:500])
        elif method is not None:
            self._events.append(data)

    def _call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None,
              timeout: float = 30.0) -> dict[str, Any]:
        message: dict[str, Any] = {"method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        wanted = self._send(message)
        deadline = time.monotonic() + timeout
        while True:
            data = self._read(deadline)
            if data.get("id") == wanted:
                if "error" in data:
                    raise RuntimeError(f"{method}: {data['error']}")
                result: dict[str, Any] = data.get("result", {})
                return result

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """A DevTools command in this tab; its result."""
        return self._call(method, params, self.session)

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (promises awaited)."""
        result = self.call("Runtime.evaluate", {"expression": expression, "awaitPromise": True,
                                                "returnByValue": True})
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 30.0) -> Any:
        """Evaluate ``expression`` until it is truthy; its value (``AssertionError`` after ``timeout``: long, since
        a page may wait on a server sharing two loaded cores with the rest of the suite)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.05)
        raise AssertionError(f"still false after {timeout} s: {expression}")

    def open(self, url: str) -> None:
        """Navigate and wait for the load event."""
        self._events.clear()
        self.call("Page.navigate", {"url": url})
        self._loaded()

    def follow(self, selector: str) -> None:
        """Click the link ``selector`` names and wait for the page it opens to load."""
        self._events.clear()
        found = f"document.querySelector({json.dumps(selector)})"
        if not self.evaluate(f"{found} !== null"):  # no click, no page: say so rather than wait for a load
            raise AssertionError(f"nothing on {self.evaluate('location.href')} matches {selector}")
        # The click runs after this evaluation returns: a navigation inside it would abort the evaluation.
        self.evaluate(f"setTimeout(() => {found}.click(), 0)")
        self._loaded()

    def _loaded(self) -> None:
        deadline = time.monotonic() + 30
        while not any(event.get("method") == "Page.loadEventFired" for event in self._events):
            if any(event.get("method") == "Inspector.targetCrashed" for event in self._events):
                raise RuntimeError("the page's renderer crashed while loading")
            self._read(deadline)

    def press(self, key: str) -> None:
        """Press and release a key (``ArrowRight``, ``ArrowLeft``, ``Home``, ``End``)."""
        codes = {"ArrowLeft": 37, "ArrowRight": 39, "Home": 36, "End": 35}
        for kind in ("keyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", {"type": kind, "key": key, "code": key,
                                                 "windowsVirtualKeyCode": codes[key]})

    def screenshot(self) -> bytes:
        """The tab as a PNG."""
        return base64.b64decode(self.call("Page.captureScreenshot", {"format": "png"})["data"])

    def close(self) -> None:
        """End the browser."""
        try:
            self._call("Browser.close", timeout=5)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._commands)
        os.close(self._replies)


@pytest.fixture
def devtools(chromium: str, tmp_path: Path) -> Iterator[DevToolsPage]:
    """A fresh headless Chromium tab driven over the DevTools protocol."""
    try:
        page = DevToolsPage(chromium, tmp_path / "profile")
    except BrowserDidNotStart as error:  # a browser that cannot start here is as good as none: say so and skip
        pytest.skip(str(error))
    try:
        yield page
    finally:
        page.close()
