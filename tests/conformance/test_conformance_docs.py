"""docs/writing-agents.md: its first agent works as printed, and it covers every fault kind and limit."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from arena.conformance import check_agent
from arena.plugins import load_registry
from arena.referee import FAULT_KINDS, Limits

DOC = Path(__file__).resolve().parents[2] / "docs" / "writing-agents.md"


def first_agent_source() -> str:
    text = DOC.read_text()
    section = text[text.index("## 2. A first agent in one file"):text.index("## 3. Observations")]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)  # type: ignore[union-attr]


@pytest.mark.slow
@pytest.mark.parametrize("game", ["lovat", "lorum"])
def test_the_first_agent_in_the_guide_passes_check_agent(tmp_path: Path, game: str) -> None:
    (tmp_path / "first_agent.py").write_text(first_agent_source())
    registry = load_registry(plugins_dir=tmp_path, entry_points=False).registry
    assert registry.errors == []
    report = check_agent("first", game, matches=1, registry=registry, plugins_dir=tmp_path, entry_points=False)
    assert report.passed, report.summary()


def test_the_guide_names_every_fault_kind_and_limit() -> None:
    text = DOC.read_text()
    for kind in FAULT_KINDS:
        assert f"| `{kind}` |" in text, f"docs/writing-agents.md: describe the fault kind {kind!r}"
    for limit in dataclasses.fields(Limits):
        assert f"| `{limit.name}` |" in text, f"docs/writing-agents.md: describe the limit {limit.name!r}"
    assert "arena_register_agents" in text and "arena check-agent" in text
