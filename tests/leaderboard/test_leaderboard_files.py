"""Leaderboard files (Markdown, CSV, JSON, HTML) and terminal rendering."""

import csv
import dataclasses
import html
import json
import re
from html.parser import HTMLParser

import pytest
from rich.console import Console

from arena.leaderboard import (
    FILE_NAMES,
    build_leaderboard,
    compare,
    head_to_head,
    render_comparison,
    render_rich,
    write_leaderboard_files,
)
from arena.leaderboard.terminal import comparison_lines, fault_cell
from arena.ratings.data import MatchOutcome
from arena.ratings.simulate import simulate_outcomes

AGENTS = {"alpha": 1.0, "beta|pipe": 0.3, "<gamma & co>": -0.2, "délta": -1.0}


@pytest.fixture(scope="module")
def outcomes():
    played = simulate_outcomes(AGENTS, blocks=12, players=3, seed=5, score_step=1.0)
    first = played[0]
    played[0] = MatchOutcome(first.match_id, first.block, first.agents, first.scores, first.ranks, ((0, "timeout"),))
    return played


@pytest.fixture(scope="module")
def written(outcomes, tmp_path_factory):
    board = build_leaderboard(outcomes, "elo")
    table = head_to_head(outcomes)
    directory = tmp_path_factory.mktemp("board") / "site"
    paths = write_leaderboard_files(board, table, directory, "Lovat <test> league")
    return board, table, paths


def test_all_four_files_are_written(written):
    _, _, paths = written
    assert tuple(paths) == FILE_NAMES
    assert all(path.is_file() and path.stat().st_size > 0 for path in paths.values())
    assert not list(paths["index.html"].parent.glob(".*.tmp"))


def test_csv_parses_back_to_the_rows(written):
    board, _, paths = written
    with paths["leaderboard.csv"].open(newline="", encoding="utf-8") as handle:
        lines = list(csv.DictReader(handle))
    assert [line["agent"] for line in lines] == list(board.agents)
    for line, row in zip(lines, board.rows):
        assert int(line["rank"]) == row.rank
        assert float(line["rating"]) == row.rating  # full precision
        assert float(line["lower"]) == row.lower and float(line["upper"]) == row.upper
        assert int(line["games"]) == row.games
        assert float(line["mean_score"]) == row.mean_score and float(line["win_share"]) == row.win_share
        assert int(line["timeouts"]) == row.timeouts
    assert sum(int(line["timeouts"]) for line in lines) == 1


def test_json_parses_back_with_the_head_to_head(written):
    board, table, paths = written
    data = json.loads(paths["leaderboard.json"].read_text(encoding="utf-8"))
    assert data["title"] == "Lovat <test> league" and data["method"] == "elo"
    assert [row["agent"] for row in data["rows"]] == list(board.agents)
    assert [row["rating"] for row in data["rows"]] == [row.rating for row in board.rows]
    assert data["head_to_head"]["agents"] == list(table.agents)
    assert data["head_to_head"]["games"] == [list(row) for row in table.games]
    assert data["ratings"]["superiority"][0][1] == board.table.superiority[0][1]


def test_markdown_lists_every_agent_safely(written):
    board, _, paths = written
    text = paths["leaderboard.md"].read_text(encoding="utf-8")
    assert text.startswith("# Lovat &lt;test&gt; league\n")
    assert "beta\\|pipe" in text and "&lt;gamma &amp; co&gt;" in text
    table_lines = [line for line in text.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert len(table_lines) == len(board.rows)


class _PageParser(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.rows, self.svgs, self.external = [], [], [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.append(attrs["id"])
        if tag == "tr" and "data-agent" in attrs:
            self.rows.append(attrs["data-agent"])
        if tag == "svg":
            self.svgs.append(attrs.get("id"))
        linked = [value for key, value in attrs.items() if key in ("src", "href", "xlink:href")]
        if tag in ("script", "link", "iframe") or any(not v.startswith(("#", "data:")) for v in linked):
            self.external.append((tag, attrs))


def test_html_page_is_self_contained_with_table_and_two_charts(written):
    board, _, paths = written
    page = paths["index.html"].read_text(encoding="utf-8")
    parser = _PageParser()
    parser.feed(page)
    assert parser.rows == list(board.agents)  # one table row per agent, in rank order
    assert {"leaderboard-table", "ratings-chart", "head-to-head"} <= set(parser.ids)
    assert parser.svgs == ["ratings-chart-svg", "head-to-head-svg"]
    assert len(parser.ids) == len(set(parser.ids))  # ids are unique across both inline SVGs
    assert parser.external == []  # no scripts, stylesheets or remote resources
    assert "Content-Security-Policy" in page and "<title>Lovat &lt;test&gt; league</title>" in page
    assert "&lt;gamma &amp; co&gt;" in page and "<gamma" not in page
    start = page.index('<svg id="ratings-chart-svg"')
    ratings_svg = page[start : page.index("</svg>", start)]
    labels = re.findall(r"<text [^>]*>(.*?)</text>", ratings_svg)
    assert [html.unescape(label) for label in labels if html.unescape(label) in AGENTS] == list(board.agents)
    heatmap = page[page.index('<svg id="head-to-head-svg"') :]
    heatmap = heatmap[: heatmap.index("</svg>")]
    assert heatmap.count('<rect class="cell"') == len(board.agents) ** 2  # a cell for every pair, drawn inline
    assert "<gamma" not in heatmap and "&lt;gamma &amp; co&gt; vs" in heatmap


def test_empty_leaderboard_page(tmp_path):
    board = build_leaderboard([], "elo")
    paths = write_leaderboard_files(board, head_to_head([]), tmp_path, "Nothing yet")
    page = paths["index.html"].read_text(encoding="utf-8")
    assert "No matches yet." in page and page.count("<svg") == 2
    assert json.loads(paths["leaderboard.json"].read_text())["rows"] == []


def test_rich_table_renders_every_agent(outcomes):
    board = build_leaderboard(outcomes, "trueskill")
    console = Console(record=True, width=200)
    console.print(render_rich(board, title="League"))
    text = console.export_text()
    for agent in AGENTS:
        assert agent in text
    assert "League" in text and "Faults" in text
    for row in board.rows:
        assert f"{row.rating:.2f}" in text


def test_rich_table_fits_eighty_columns_and_names_faults_by_kind(outcomes):
    board = build_leaderboard(outcomes, "elo")
    faulty = dataclasses.replace(board.rows[0], timeouts=2, exceptions=1)
    board = dataclasses.replace(board, rows=(faulty, *board.rows[1:]))
    console = Console(record=True, width=80)
    console.print(render_rich(board))
    lines = console.export_text().splitlines()
    row = next(line for line in lines if faulty.agent in line)
    assert f"{faulty.rating:.0f}" in row and f"{faulty.lower:.0f} to {faulty.upper:.0f}" in row  # not folded
    assert row.rstrip().endswith("2 T/O, 1 exc")
    assert fault_cell(board.rows[1]) == "0"


def test_rich_comparison_renders_both_agents(outcomes):
    comparison = compare(outcomes, "alpha", "délta", "elo")
    console = Console(record=True, width=200)
    console.print(render_comparison(comparison))
    text = console.export_text()
    assert "alpha vs délta" in text and f"{comparison.probability_a_stronger:.1%}" in text
    assert f"{comparison.games} shared deals" in text and f"({comparison.matches} matches:" in text
    assert f"Gap alpha - délta: {comparison.gap:.0f} (95% interval {comparison.gap_lower:.0f} to" in text


def test_a_comparison_of_agents_that_never_met_says_so():
    """Two candidates of a gauntlet, each at its own table with the field: no shared deal, only the gap."""
    gauntlet = [MatchOutcome(f"{c}-r{r}", f"{c}-b", seated, (1.0, 0.0, 0.5), (1, 3, 2))
                for c in ("one", "two") for r, seated in enumerate([(c, "f1", "f2"), ("f1", "f2", c), ("f2", c, "f1")])]
    lines = comparison_lines(compare(gauntlet, "one", "two", "elo"))
    assert lines[1] == "one and two never sat at one table: no head-to-head record; the gap compares them"
    assert lines[0].startswith("Gap one - two:")


def test_every_view_says_which_interval_and_that_overlap_is_not_a_test(outcomes, tmp_path):
    board = build_leaderboard(outcomes, "elo")
    reason = board.table.extras["interval_reason"]
    console = Console(record=True, width=200)
    console.print(render_rich(board))
    text = " ".join(console.export_text().split())  # the caption wraps to the table's width
    assert reason in text and "Overlapping intervals are not a test" in text
    assert "P(row stronger than column)" in text  # four agents: the matrix is in the terminal
    paths = write_leaderboard_files(board, head_to_head(outcomes), tmp_path, "League")
    markdown = paths["leaderboard.md"].read_text(encoding="utf-8")
    page = paths["index.html"].read_text(encoding="utf-8")
    for text in (markdown, page):
        assert "Overlapping intervals are not a test" in text and "P(stronger)" in text
    assert html.escape(reason) in page and 'id="superiority-table"' in page
    first, second = board.agents[:2]
    p = board.table.probability_stronger(first, second)
    assert f"| {first} ({1}) |  | {p:.2f} |" in markdown


def test_the_terminal_matrix_stops_at_twelve_agents_but_files_keep_it(tmp_path):
    many = simulate_outcomes({f"x{i:02d}": i / 10 for i in range(13)}, blocks=40, players=4, seed=3)
    board = build_leaderboard(many, "elo")
    console = Console(record=True, width=200)
    console.print(render_rich(board))
    assert "P(row stronger than column)" not in console.export_text()
    page = write_leaderboard_files(board, head_to_head(many), tmp_path, "Big")["index.html"].read_text()
    assert page.count("data-row-agent=") == 13


def test_trueskill_files_label_the_conservative_column_apart_from_the_interval(outcomes, tmp_path):
    board = build_leaderboard(outcomes, "trueskill")
    paths = write_leaderboard_files(board, head_to_head(outcomes), tmp_path, "League")
    markdown = paths["leaderboard.md"].read_text(encoding="utf-8")
    header = next(line for line in markdown.splitlines() if line.startswith("| # |"))
    assert header.rstrip().endswith("| Conservative μ−3σ |")
    top = board.rows[0]
    line = next(line for line in markdown.splitlines() if line.startswith(f"| 1 | {top.agent} |"))
    assert line.rstrip().endswith(f"| {board.table.extras['conservative'][top.agent]:.2f} |")
    assert f"| {top.rating:.2f} | {top.lower:.2f} to {top.upper:.2f} |" in line  # the interval is around mu
