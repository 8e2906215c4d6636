"""The docs stand alone: every ruling the code cites is written up in docs/rules/, and docs cite only the repository."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from arena.games.lorum import state as lorum_state
from arena.games.lorum.observation import LorumObservation
from arena.games.lovat.observation import LovatObservation

ROOT = Path(__file__).resolve().parents[2]
RULES = {"lovat": ROOT / "docs" / "rules" / "lovat.md", "lorum": ROOT / "docs" / "rules" / "lorum.md"}
LABEL = re.compile(r"(?<![\w-])([LSD])-(\d+)(?![\w-])")
CODE_FOLDERS = ("arena", "agents", "tests", "plugins", "benchmarks")


def docs() -> list[Path]:
    """Every Markdown file of the product's documentation."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def cited_in_code() -> set[str]:
    labels = set()
    for folder in CODE_FOLDERS:
        for path in (ROOT / folder).rglob("*.py"):
            labels |= {f"{kind}-{number}" for kind, number in LABEL.findall(path.read_text(encoding="utf-8"))}
    return labels


def defined_in_rules() -> set[str]:
    """Labels the rules documents write up: a bold entry (``**L-12 ...``) or the first cell of a table row."""
    text = "\n".join(path.read_text() for path in RULES.values())
    return set(re.findall(r"\*\*([LSD]-\d+)\b", text)) | set(re.findall(r"^\| ([LSD]-\d+)\b", text, re.M))


def test_every_ruling_the_code_and_tests_cite_is_written_up_in_docs_rules() -> None:
    cited = cited_in_code()
    assert {"L-1", "L-12", "L-18", "D-3", "S-1", "S-13", "S-19"} <= cited  # the scan finds what it should
    missing = sorted(cited - defined_in_rules(), key=lambda label: (label[0], int(label[2:])))
    assert missing == [], f"write these rulings up in docs/rules/: {missing}"


def test_every_ruling_the_docs_mention_is_defined() -> None:
    defined = defined_in_rules()
    for path in docs():
        mentioned = {f"{kind}-{number}" for kind, number in LABEL.findall(path.read_text())}
        assert mentioned <= defined, f"{path.relative_to(ROOT)} cites undefined rulings {sorted(mentioned - defined)}"


@pytest.mark.parametrize("game, labels", [("lovat", [f"L-{n}" for n in range(1, 19)] + ["D-1", "D-2", "D-3"]),
                                          ("lorum", [f"S-{n}" for n in range(1, 20)])])
def test_each_rules_document_defines_its_whole_series(game: str, labels: list[str]) -> None:
    text = RULES[game].read_text()
    for label in labels:
        assert re.search(rf"(\*\*{label}\b|^\| {label}\b)", text, re.M), f"docs/rules/{game}.md: define {label}"


def test_no_doc_or_source_refers_outside_the_repository() -> None:
    outside = re.compile(r"RULINGS|(?<![\w.-])(\.\./)?shared/|/work/")
    paths = docs() + [path for folder in CODE_FOLDERS for path in (ROOT / folder).rglob("*.py")]
    paths = [path for path in paths if path != Path(__file__)]
    offenders = [f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
                 for path in paths for number, line in enumerate(path.read_text().splitlines(), 1)
                 if outside.search(line)]
    assert offenders == [], "cite files in the repository (docs/rules/...), not these:\n" + "\n".join(offenders)


# Paths a reader is told to create (plugins/my_agent.py...) are not in the tree; these roots are.
REPOSITORY_ROOTS = ("arena/", "agents/", "benchmarks/", "configs/", "docs/", "tests/", "plugins/example-agent",
                    "plugins/example-game")


def test_every_repository_path_a_doc_mentions_exists() -> None:
    missing = []
    for path in docs():
        for mention in re.findall(r"`([\w./*-]+)`", path.read_text()):
            if mention.startswith(REPOSITORY_ROOTS) and not any(ROOT.glob(mention)):
                missing.append(f"{path.relative_to(ROOT)}: {mention}")
    assert missing == []


def settlement_cases() -> set[str]:
    """Every case name the settlement code reports, found by settling every kind of deal."""
    cases = {lorum_state.settle_regular([20, 0, 0, 0], [8, 0, 0, 0], 0)[2]}  # all tricks: S-13
    # k = 0, 1, 2, 3 players on 0 points (S-11), none with all the tricks
    for points in ([5, 5, 5, 5], [8, 6, 6, 0], [10, 10, 0, 0], [20, 0, 0, 0]):
        cases.add(lorum_state.settle_regular(points, [2, 2, 2, 2], 40)[2])
    for contract in ("big", "small"):
        for tricks in ([8, 0, 0, 0], [0, 8, 0, 0], [1, 0, 0, 0], [0, 2, 3, 3]):
            cases.add(lorum_state.settle_contract(contract, 0, tricks)[2])
    return cases


def test_every_settlement_case_is_in_the_lorum_cases_tables() -> None:
    cases = settlement_cases()
    assert len(cases) == 9, cases
    text = RULES["lorum"].read_text()
    documented = set(re.findall(r"^\|[^|\n]*\| `([a-z ]+)` \|", text, re.M))  # "| when | `case` |" rows
    documented |= set(re.findall(r"^\| `([a-z ]+)` \(", text, re.M))  # "| `big made` (...) |" rows
    assert cases - documented == set(), f"docs/rules/lorum.md: add the cases {sorted(cases - documented)}"


@pytest.mark.parametrize("game, observation", [("lovat", LovatObservation), ("lorum", LorumObservation)])
def test_every_observation_field_is_described(game: str, observation: type) -> None:
    text = RULES[game].read_text()
    section = text[text.index("## Observation" if game == "lovat" else "## What a seat sees"):]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    described = {name for row in rows for name in re.findall(r"`(\w+)`", row.split("|")[1])}
    fields = {field.name for field in dataclasses.fields(observation)}
    assert fields - described == set(), f"docs/rules/{game}.md: describe {sorted(fields - described)}"


def test_the_readme_links_every_document() -> None:
    readme = (ROOT / "README.md").read_text()
    unlinked = [str(path.relative_to(ROOT)) for path in sorted((ROOT / "docs").rglob("*.md"))
                if f"`{path.relative_to(ROOT)}`" not in readme]
    assert unlinked == [], f"README.md: list these under Documentation: {unlinked}"


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lowercase, punctuation but '-' and '_' dropped, spaces made '-'."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_link_within_a_document_reaches_a_heading() -> None:
    broken = []
    for path in docs():
        text = path.read_text()
        anchors = {github_anchor(heading) for heading in re.findall(r"^#+ (.+)$", text, re.M)}
        broken += [f"{path.relative_to(ROOT)}: #{link}" for link in re.findall(r"\]\(#([^)]+)\)", text)
                   if link not in anchors]
    assert github_anchor("7. Isolation, the sandbox and limits") == "7-isolation-the-sandbox-and-limits"
    assert broken == [], f"links to no heading: {broken}"
