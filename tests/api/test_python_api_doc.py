"""Every Python example in docs/python-api.md runs, in order, in a fresh folder."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "python-api.md"


def examples() -> list[str]:
    """The ```python blocks of the document, in order."""
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


def test_the_document_has_examples():
    assert len(examples()) >= 3


def test_every_example_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # leaderboards/ and match.json land here
    for number, source in enumerate(examples(), 1):
        script = tmp_path / f"example_{number}.py"
        script.write_text(source)
        try:
            runpy.run_path(str(script), run_name="__main__")
        except Exception as error:  # name the example that failed
            pytest.fail(f"docs/python-api.md example {number} failed: {type(error).__name__}: {error}")
    printed = capsys.readouterr().out
    assert "['greedy', 'random', 'random-2', 'greedy-2']" in printed
    assert "chips per match over" in printed
    assert (tmp_path / "leaderboards" / "api-example" / "results.sqlite").is_file()
