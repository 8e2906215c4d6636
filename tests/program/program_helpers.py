"""Helpers for the agent program tests: write a program folder."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KITS = ROOT / "plugins"


def write_program(folder: Path, manifest: str, files: dict[str, str] | None = None) -> Path:
    """A program folder holding ``manifest`` as its arena-agent.toml and ``files``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "arena-agent.toml").write_text(manifest)
    for name, text in (files or {}).items():
        (folder / name).write_text(text)
    return folder
