"""``arena doctor``: the report matches probe(), in text and JSON, as root and as a user without root."""

from __future__ import annotations

import contextlib
import io
import json
import os
from typing import Any

import pytest
from sandbox_helpers import as_unprivileged

from arena.cli import main
from arena.sandbox import probe


def doctor(*args: str) -> tuple[int, str]:
    """Run ``arena doctor ARGS``; its exit status and standard output."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(["doctor", *args])
    return status, out.getvalue()


def test_json_report_matches_probe() -> None:
    status, text = doctor("--json")
    report = json.loads(text)
    capabilities = probe()
    assert status == 0
    assert report["capabilities"] == capabilities.to_json()
    assert report["modes"]["trusted"]["available"] and report["modes"]["isolated"]["available"]
    assert report["modes"]["sandboxed"]["available"] == (capabilities.level == "full")
    assert report["modes"]["sandboxed"]["missing"] == capabilities.missing("full")
    expected = {"full": "sandboxed", "partial": "sandboxed (partial)", "none": "isolated"}[capabilities.level]
    assert report["third_party_default"] == expected


def test_text_report_names_each_feature_and_mode() -> None:
    status, text = doctor()
    capabilities = probe()
    assert status == 0
    for line in capabilities.describe():
        assert line in text
    for mode in ("trusted", "isolated", "sandboxed"):
        assert f'isolation = "{mode}"' in text
    landlock = f"Landlock ABI {capabilities.landlock_abi}" if capabilities.landlock_abi else "Landlock:           no"
    assert landlock in text
    assert f"sandbox level:      {capabilities.level}" in text
    # The read-only mounts that close the access-time channel are named where a mount namespace is made.
    assert ("mounts: all read-only but its own temporary folder" in text) == capabilities.mount_namespaces


def test_help_has_examples(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["doctor", "--help"])
    assert exit_info.value.code == 0
    assert "arena doctor --json" in capsys.readouterr().out


def test_without_root_the_default_is_the_partial_sandbox() -> None:
    if os.geteuid() != 0 or not probe().user_namespaces:
        pytest.skip("needs root to drop to another user, and user namespaces; run 'arena doctor'")

    def report() -> dict[str, Any]:
        status, text = doctor("--json")
        return {"status": status, "report": json.loads(text), "text": doctor()[1]}

    result = as_unprivileged(report)
    assert result["status"] == 0
    sandboxed = result["report"]["modes"]["sandboxed"]
    assert result["report"]["capabilities"]["root"] is False
    assert sandboxed["available"] is False and sandboxed["level"] == "partial"
    assert "a cgroup memory controller the arena may use" in sandboxed["missing"]
    assert result["report"]["third_party_default"] == "sandboxed (partial)"
    assert "memory: RLIMIT_AS per process" in result["text"]
    assert 'isolation = "sandboxed" refuses to start here' in result["text"]
