"""Every Python example in docs/python-api.md and docs/learning.md runs, in order, in a fresh folder."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "python-api.md"
LEARNING = ROOT / "docs" / "learning.md"


def examples(doc: Path = DOC) -> list[str]:
    """The ```python blocks of a document, in order."""
    return re.findall(r"```python\n(.*?)```", doc.read_text(), flags=re.S)


def test_the_documents_have_examples():
    assert len(examples()) >= 3 and len(examples(LEARNING)) >= 2


def run_examples(doc: Path, folder: Path) -> None:
    """Run each example of ``doc`` as a script in ``folder``; fail naming the example that raised."""
    for number, source in enumerate(examples(doc), 1):
        script = folder / f"example_{number}.py"
        script.write_text(source)
        try:
            runpy.run_path(str(script), run_name="__main__")
        except Exception as error:
            pytest.fail(f"{doc.name} example {number} failed: {type(error).__name__}: {error}")


def test_every_learning_example_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    run_examples(LEARNING, tmp_path)
    assert "'rank'" in capsys.readouterr().out


def test_every_example_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # leaderboards/ and match.json land here
    run_examples(DOC, tmp_path)
    printed = capsys.readouterr().out
    assert "['greedy', 'random', 'random-2', 'greedy-2']" in printed
    assert "chips per match over" in printed
    assert (tmp_path / "leaderboards" / "api-example" / "results.sqlite").is_file()
