"""The check queue: every upload runs the full ``arena check-agent`` in the sandbox, off the request path.

The worker (``run_checker``) claims the oldest queued upload, unpacks it into a plugin folder of its own
(``work/check-ID/plugins``) and runs the check there in a child process (``python -m arena.serve.checker``)
under a wall-time limit, whose seats run in the full sandbox whatever the machine's default.  The outcome
(accepted with the agent it registers, or rejected with a one-line reason) and the check's full report
go to the competition's database.  The queue is the database: a checker killed mid-check puts that upload
back in the queue when it starts again.  The upload is never imported here: discovery and the check's
seats read it in their own sandboxed processes (arena.plugins, arena.referee).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.sandbox.process import die_with_parent
from arena.serve.archives import KINDS, UploadError, read_upload, safe_filename
from arena.serve.config import ServeLimits
from arena.serve.db import ACCEPTED, REJECTED, ServeDB, Upload
from arena.serve.storage import blob_path

REASON_MAX = 300
"""Longest one-line reason: the pages list it beside the upload; the whole report is on the owner's page."""
VERSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,39}")
"""An upload's agent version: it is shown on the pages and in the site's leaderboard files (CSV, Markdown)."""


def plugin_name(upload: Upload) -> str:
    """The plugin name an upload is loaded under: its content hash, so two versions never clash."""
    return f"u{upload.sha256[:16]}"


def stage(folder: Path, upload: Upload, limits: ServeLimits) -> Path:
    """Unpack ``upload`` alone into a fresh ``work/check-ID/plugins`` folder; that plugins folder."""
    plugins = folder / "work" / f"check-{upload.id}" / "plugins"
    shutil.rmtree(plugins.parent, ignore_errors=True)
    plugins.mkdir(parents=True)
    data = blob_path(folder, upload.sha256).read_bytes()
    read_upload(upload.filename, data, limits).write(plugins, plugin_name(upload))
    return plugins


def check_one(folder: Path, upload: Upload, game: str, seats: int, limits: dict[str, Any],
              serve_limits: ServeLimits) -> tuple[str, str, str, str | None]:
    """Check ``upload``: (state, one-line reason, full report, the agent it registers or None)."""
    try:
        plugins = stage(folder, upload, serve_limits)
    except (UploadError, OSError) as error:
        return REJECTED, _line(str(error)), str(error), None
    # A fresh seed per check: with a fixed one the check's deals are known in advance, and an upload could play
    # them well and behave otherwise everywhere else. The report names it, so a check can be replayed.
    seed = secrets.randbits(63)  # as wide as a config's: 31 bits could be tabled offline
    hide = _hider(folder, plugins, upload)
    build = _build_folder(plugins / plugin_name(upload))
    command = [sys.executable, "-m", "arena.serve.checker", str(plugins), plugin_name(upload), game, str(seats),
               json.dumps(limits), str(serve_limits.check_matches), str(seed), str(os.getpid())]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)  # its own group: a timeout stops every process it made
    try:
        out, err = process.communicate(timeout=serve_limits.check_seconds)
    except subprocess.TimeoutExpired:
        _stop(process)
        _remove_build(build)
        reason = f"the check took longer than {serve_limits.check_seconds:g} s (the competition's limit)"
        return REJECTED, reason, reason, None
    except BaseException:  # the worker is stopping (SIGTERM, Ctrl-C): the check, and its builds, stop with it
        _stop(process)
        raise
    finally:
        shutil.rmtree(plugins.parent, ignore_errors=True)
    try:
        result = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        _remove_build(build)
        reason = _line(err.strip().splitlines()[-1] if err.strip() else f"the check ended with status "
                       f"{process.returncode}")
        return REJECTED, f"the check could not run: {hide(reason)}", hide(err[-20_000:]), None
    if result["state"] != ACCEPTED:
        _remove_build(build)
    elif build is not None and (size := _disk_bytes(build)) > serve_limits.build_bytes:
        _remove_build(build)
        reason = (f"its build left {size:,} bytes, above the competition's limit of {serve_limits.build_bytes:,} "
                  "(build_bytes): build less, or remove what the build makes and the agent does not run")
        return REJECTED, reason, f"{reason}\n\n{hide(result['report'])}", result["agent"]
    return result["state"], _line(hide(result["reason"])), hide(result["report"]), result["agent"]


def _disk_bytes(folder: Path) -> int:
    """The bytes of every file under ``folder`` (links not followed: what the build itself wrote)."""
    total = 0
    for root, _folders, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_size
    return total


def _build_folder(upload: Path) -> Path | None:
    """Where the build of the agent program unpacked at ``upload`` goes in the build cache (None: no build)."""
    from arena.program.build import BuildError, output_folder
    from arena.program.manifest import ManifestError, is_manifest_folder, read_manifest

    try:
        if not is_manifest_folder(upload):
            return None
        manifest = read_manifest(upload)
        return output_folder(manifest) if manifest.build else None
    except (ManifestError, BuildError, OSError):
        return None


def _remove_build(build: Path | None) -> None:
    """Remove a rejected upload's build from the cache: nothing will run it, and kept it would let uploads that
    are each rejected fill the server's disk with builds of up to the build's bound each."""
    if build is not None:
        shutil.rmtree(build, ignore_errors=True)
        build.with_name(build.name + ".log").unlink(missing_ok=True)


def _stop(process: subprocess.Popen[str]) -> None:
    """Kill the check's whole process group and wait for its child (the group's other processes are the check's
    sandboxed builds and seats, whose leases clean up after them)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.communicate()


def _hider(folder: Path, plugins: Path, upload: Upload) -> Callable[[str], str]:
    """What the owner reads of a check: their own file's name where the server stored it under another, and paths
    from the folder holding it (so its Reproduce commands run there as printed), never the server's folders (they
    say nothing to the participant, and map the server's disk for anyone)."""
    import arena

    installed = Path(arena.__file__).resolve().parent.parent
    stored = plugin_name(upload)
    own = safe_filename(upload.filename)  # a drop-in's file, or a package or program's archive
    ending = next((ending for ending in KINDS if own.lower().endswith(ending)), "")
    name = own[:len(own) - len(ending)] or "upload"
    if upload.kind != "file":  # the folder it was unpacked into is named as its archive without the ending
        own = name
    names = [(f"{plugins}/{stored}.py", own), (f"{plugins.resolve()}/{stored}.py", own),
             (f"{plugins}/{stored}", own), (f"{plugins.resolve()}/{stored}", own), (f"{stored}.py", own),
             (stored, name), (str(plugins), "."), (str(plugins.resolve()), "."),
             (str(folder.resolve()), "COMPETITION"), (str(folder), "COMPETITION"), (f"{installed}/", "")]

    # The check names its plugins folder relative to its working folder where it can (the competition's, in the
    # worker): every spelling of it, relative or absolute, is made the one the names above replace.
    spelled = re.compile(r"[^\s'\"]*" + re.escape(f"work/check-{upload.id}/plugins") + r"(?![^\s/'\"])")

    def hide(text: str) -> str:
        text = spelled.sub(lambda _found: str(plugins), text)
        for path, name in names:
            text = text.replace(path, name)
        return text

    return hide


def version_problem(version: str) -> str | None:
    """Why agent version ``version`` cannot be shown (it is not plain text), or None.  It is written into the
    leaderboard's CSV, where '=...' would be a formula."""
    if VERSION.fullmatch(version):
        return None
    return (f"agent version {version[:40]!r}: use letters and digits, then letters, digits and . _ + - (at most 40 "
            "characters), e.g. '1.2'")


def _line(text: str) -> str:
    """``text`` on one line of at most ``REASON_MAX`` characters, cut at a word and pointing to the report."""
    line = " ".join(text.split())
    if len(line) <= REASON_MAX:
        return line
    more = " … (the whole report is on your page)"
    cut = line[:REASON_MAX - len(more)]
    return cut[:cut.rfind(" ")] + more if " " in cut else cut + more


def run_checker(folder: Path, game: str, seats: int, limits: dict[str, Any], serve_limits: ServeLimits,
                stop: Callable[[], bool], idle: float = 0.5) -> None:
    """Check queued uploads one by one until ``stop()``; at start, requeue a check a stopped checker left."""
    with ServeDB(folder) as db:
        db.requeue_checking()
        while not stop():
            upload = db.next_queued()
            if upload is None:
                time.sleep(idle)
                continue
            state, reason, report, agent = check_one(folder, upload, game, seats, limits, serve_limits)
            if state == ACCEPTED and agent is not None:
                owner = db.agent_owner(agent)
                if owner is not None and owner != upload.user:
                    state, reason = REJECTED, (f"agent name {agent!r} belongs to another participant; register "
                                               "your agent under another name")
            db.finish_check(upload.id, state, reason, report, agent)


def _child(plugins: str, plugin: str, game_name: str, seats: int, limits_json: str, matches: int,
           seed: int) -> dict[str, Any]:
    """In the child: load the upload's plugins folder, find its one agent, run the full check in the sandbox."""
    from arena.conformance.agents import check_agent
    from arena.plugin_system.loading import load_registry
    from arena.referee import Limits, RefereeError

    manager = load_registry(plugins_dir=plugins)
    registry = manager.registry
    for line in registry.errors:
        if f"plugin {plugin!r}" in line:  # an import that failed (a missing dependency), a bad registration
            return {"state": REJECTED, "reason": line,
                    "report": "\n".join(registry.errors), "agent": None}
    agents = sorted(name for name, owner in registry.agent_plugin.items() if owner == plugin)
    game = registry.games.get(game_name)
    playing = [name for name in agents if game is not None and registry.agents[name].plays(game_name)]
    if len(playing) != 1:
        reason = (f"the upload registers {len(playing)} agents that play {game_name} ({', '.join(playing) or 'none'}); "
                  "register exactly one (a new agent is a new upload)")
        return {"state": REJECTED, "reason": reason, "report": reason, "agent": None}
    if len(agents) != 1:  # one more agent, even of another game, would contest another participant's agent name
        reason = (f"the upload registers {len(agents)} agents ({', '.join(agents)}); register exactly one, the agent "
                  f"that plays {game_name} (another agent's name could be another participant's)")
        return {"state": REJECTED, "reason": reason, "report": reason, "agent": None}
    spec = registry.agents[playing[0]]
    problem = version_problem(spec.version)
    if problem is not None:
        return {"state": REJECTED, "reason": problem, "report": problem, "agent": None}
    try:
        report = check_agent(spec, game_name, matches=matches, seed=seed, player_counts=[seats],
                             limits=Limits(**json.loads(limits_json)), isolation="sandboxed", registry=registry,
                             plugins_dir=plugins)
    except (ValueError, RefereeError) as error:
        return {"state": REJECTED, "reason": str(error), "report": str(error), "agent": spec.name}
    summary = f"check seed {seed}\n{report.summary()}"
    if report.passed:
        reason = (f"passed: {len(report.matches)} matches in the sandbox, median move "
                  f"{(report.move_seconds_median or 0) * 1000:.1f} ms")
        return {"state": ACCEPTED, "reason": reason, "report": summary, "agent": spec.name}
    first = f"{report.findings[0].title}: {report.findings[0].detail}" if report.findings else "failed"
    return {"state": REJECTED, "reason": f"failed its check: {first}", "report": summary, "agent": spec.name}


def main(argv: list[str]) -> int:
    """``python -m arena.serve.checker PLUGINS PLUGIN GAME SEATS LIMITS MATCHES SEED PARENT``: one check, JSON on
    stdout; it ends when its parent, the checker worker, does (a worker killed outright leaves no check running)."""
    plugins, plugin, game, seats, limits_json, matches, seed, parent = argv
    die_with_parent()
    if os.getppid() != int(parent):  # the worker was gone before the signal was asked for
        return 1
    result = _child(plugins, plugin, game, int(seats), limits_json, int(matches), int(seed))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
