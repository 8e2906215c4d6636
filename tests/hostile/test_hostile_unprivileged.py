"""The same attacks by a referee running as a user without root (uid 65534): the unprivileged path.

Without root no cgroup can be made, so ``auto`` seats third-party agents at the ``partial`` level; the
file-system, process, signal and network protections must hold all the same.  The referee runs in a
subprocess that dropped to the unprivileged user (``setpriv``), on copies of the hostile plugins.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
from hostile_helpers import HOSTILE

from arena.sandbox import probe

SCRIPT = textwrap.dedent('''
    import json, os, re, sys
    from arena.plugins import load_registry
    from arena.referee import Limits, SeatPlan, play_match

    registry = load_registry(plugins_dir=sys.argv[1], entry_points=False).registry
    game = registry.game("lorum")
    options = {1: {"paths": [sys.argv[2], os.path.dirname(sys.argv[2])]}, 2: {"port": int(sys.argv[3])},
               3: {"targets": [int(sys.argv[4])]}}
    names = ["proc-snoop", "file-snoop", "net-snoop", "signal-targets"]
    seats = [SeatPlan(name=name, spec=registry.agent(name), seed=seat, options=options.get(seat, {}))
             for seat, name in enumerate(names)]
    match = play_match(game, game.info.resolve_options(4, {}), 1, seats, substitute=registry.agent("random"),
                       limits=Limits(move_seconds=5, bank_seconds=5, startup_seconds=20, memory_mb=256))
    reports = {fault["seat"]: json.loads(re.search(r"REPORT (\\{.*\\}) \\(at ", fault["message"]).group(1))
               for fault in match.record["faults"]}
    print(json.dumps({"uid": os.getuid(), "sandbox": match.sandbox, "isolation": match.isolation,
                      "reports": reports, "seats": [fault["seat"] for fault in match.record["faults"]]}))
''')


SITE = next(path for path in sys.path if path.endswith("site-packages") and path.startswith(sys.prefix))
"""This environment's site folder (arena and its dependencies)."""

PYTHON = f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}"
"""An interpreter of this version that any user may run (the venv's may sit in a private home)."""


@pytest.fixture(scope="module", autouse=True)
def _can_drop() -> None:
    if not os.access(PYTHON, os.X_OK):
        pytest.skip(f"{PYTHON} is missing: the unprivileged user needs an interpreter of this version")
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("dropping to another user needs root and setpriv; as a user without root the other hostile "
                    "tests already run unprivileged (run 'arena doctor' to see the level)")
    if not probe().user_namespaces or not probe().landlock_abi:
        pytest.skip("this kernel lacks user namespaces or Landlock: run 'arena doctor'")


def test_attacks_fail_for_an_unprivileged_referee() -> None:
    work = Path(tempfile.mkdtemp(prefix="arena-hostile-"))
    try:
        work.chmod(0o755)
        plugins = work / "plugins"
        plugins.mkdir()
        for name in ("probes.py", "signals.py"):
            shutil.copy(HOSTILE / name, plugins / name)
        secret = work / "store" / "results.sqlite"  # readable by anyone: only the sandbox stands in the way
        secret.parent.mkdir()
        secret.write_text("secret")
        for path in (plugins, secret.parent, *plugins.iterdir(), secret):
            path.chmod(0o755 if path.is_dir() else 0o644)
        script = work / "attack.py"
        script.write_text(SCRIPT)
        # The venv's interpreter lives under root's home here; the system one of the same version, with the
        # venv's site folder added at start-up (in every process arena starts), is what uid 65534 can run.
        boot = work / "boot"
        boot.mkdir()
        (boot / "sitecustomize.py").write_text(f"import site\nsite.addsitedir({SITE!r})\n")
        for path in (script, boot, boot / "sitecustomize.py"):
            path.chmod(0o755 if path.is_dir() else 0o644)
        with socket.create_server(("127.0.0.1", 0)) as listener:
            port = listener.getsockname()[1]
            env = dict(os.environ, HOME=str(work), PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=str(boot))
            done = subprocess.run(
                ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", PYTHON, str(script),
                 str(plugins), str(secret), str(port), str(os.getpid())],
                capture_output=True, text=True, timeout=300, cwd=work, env=env)
        assert done.returncode == 0, done.stderr[-2000:]
        result = json.loads(done.stdout.splitlines()[-1])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    assert result["uid"] == 65534
    assert result["isolation"] == ["sandboxed"] * 4
    assert set(result["sandbox"]) <= {"partial", "full"}
    reports = {int(seat): report for seat, report in result["reports"].items()}
    assert sorted(reports) == [0, 1, 2, 3]  # each attacker's fault is its own
    assert reports[0]["read"] == []
    assert set(reports[1]["opened"]) <= {reports[1]["cwd"]}
    assert reports[2]["connected"] is False
    assert "sent" not in reports[3]["targets"].values() and reports[3]["stopped"] == []
